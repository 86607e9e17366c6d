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
