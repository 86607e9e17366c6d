import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roundTotal, totalDecimals } from '../../src/dolibarr/price.js';

test('roundTotal rounds as PHP round() after price2num: half away from zero, pre-rounded to 15 digits', () => {
  assert.equal(roundTotal(1582.6999999999998), 1582.7);
  assert.equal(roundTotal(1.005), 1.01);
  assert.equal(roundTotal(2.675), 2.68);
  assert.equal(roundTotal(-0.125), -0.13);
  assert.equal(roundTotal(-0.001), 0);
  assert.equal(roundTotal(0.1 + 0.2), 0.3);
  assert.equal(roundTotal(12.3456, 3), 12.346);
  assert.equal(roundTotal(12.5, 0), 13);
});

test('totalDecimals reads MAIN_MAX_DECIMALS_TOT, 2 when unset or not a small whole number', () => {
  assert.equal(totalDecimals(undefined), 2);
  assert.equal(totalDecimals(''), 2);
  assert.equal(totalDecimals('3'), 3);
  assert.equal(totalDecimals('0'), 0);
  assert.equal(totalDecimals('x'), 2);
  assert.equal(totalDecimals('12'), 2);
});

test('roundTotal gives what the plain rounding gives, for whole and fractional amounts, kept or not', () => {
  const plain = (value: number, decimals: number) => {
    const factor = 10 ** decimals;
    const rounded = (Math.sign(value) * Math.round(Number((Math.abs(value) * factor).toPrecision(15)))) / factor;
    return Object.is(rounded, -0) ? 0 : rounded;
  };
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const values = [
    0,
    -0,
    1,
    -1,
    119,
    1e12,
    9.99e12,
    1e13,
    1e14,
    1e15,
    2 ** 53,
    -123456789.5,
    0.005,
    1.005,
    2.675,
    -0.125,
    1582.6999999999998,
    0.1 + 0.2,
  ];
  for (let i = 0; i < 3000; i++) {
    values.push(Math.round(random() * 1e6) / 100 - 5000, (random() - 0.5) * 1e7, Math.round((random() - 0.5) * 1e9), random() * 1e16);
  }
  for (const decimals of [0, 2, 3, 8]) {
    for (const value of values) {
      // Twice: the first rounding of a value may be kept, the second then comes from what was kept.
      assert.ok(Object.is(roundTotal(value, decimals), plain(value, decimals)), `${value} to ${decimals}`);
      assert.ok(Object.is(roundTotal(value, decimals), plain(value, decimals)), `${value} to ${decimals}, again`);
    }
  }
});
