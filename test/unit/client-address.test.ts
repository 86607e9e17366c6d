/** addressKey: IPv6 by its /64, IPv4-mapped as IPv4, IPv4 as it is. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressKey } from '../../src/modules/common/client-address.js';

test('IPv4 stays as it is; IPv4-mapped IPv6 is its IPv4 address', () => {
  assert.equal(addressKey('10.0.0.9'), '10.0.0.9');
  assert.equal(addressKey('::ffff:10.0.0.9'), '10.0.0.9');
  assert.equal(addressKey('::FFFF:192.168.1.20'), '192.168.1.20');
  assert.equal(addressKey('::ffff:c0a8:0114'), '192.168.1.20');
});

test('IPv6 addresses of one /64 share a key, another /64 has another', () => {
  const a = addressKey('2001:db8:1:2::1');
  assert.equal(a, '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), a);
  assert.equal(addressKey('2001:db8:1:2:abcd::7%eth0'), a);
  assert.notEqual(addressKey('2001:db8:1:3::1'), a);
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('fe80::1'), 'fe80:0:0:0::/64');
});

test('anything else is kept, lower-cased', () => {
  assert.equal(addressKey('Unknown'), 'unknown');
});
