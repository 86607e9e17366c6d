import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addressKey, createKeyedCounter } from '../../src/modules/common/limiter.js';

// How addresses are keyed is tested in client-address.test.ts; here, that the public checks' limits use it.
describe('the per-address limits of the public checks count a client by its key', () => {
  test('one /64 shares one limit: fresh addresses of the same block are refused beyond it', () => {
    const counter = createKeyedCounter(2);
    assert.ok(counter.acquire(addressKey('2001:db8:1:2::a')));
    assert.ok(counter.acquire(addressKey('2001:db8:1:2::b')));
    assert.equal(counter.acquire(addressKey('2001:db8:1:2::c')), undefined);
    assert.ok(counter.acquire(addressKey('2001:db8:1:3::a')), 'another block has its own');
  });
});
