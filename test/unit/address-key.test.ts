import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addressKey, createKeyedCounter } from '../../src/modules/common/limiter.js';

describe('the key a client address counts under for per-address limits', () => {
  test('IPv4 as it is; IPv4-mapped IPv6 as its IPv4 address', () => {
    assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('::FFFF:192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('0:0:0:0:0:ffff:c000:207'), '192.0.2.7');
  });

  test('IPv6 by its /64, however it is written', () => {
    assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.notEqual(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'));
  });

  test('one /64 shares one limit: fresh addresses of the same block are refused beyond it', () => {
    const counter = createKeyedCounter(2);
    assert.ok(counter.acquire(addressKey('2001:db8:1:2::a')));
    assert.ok(counter.acquire(addressKey('2001:db8:1:2::b')));
    assert.equal(counter.acquire(addressKey('2001:db8:1:2::c')), undefined);
    assert.ok(counter.acquire(addressKey('2001:db8:1:3::a')), 'another block has its own');
  });
});
