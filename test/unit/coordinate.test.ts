/**
 * Coordinates as text (`gps_lat`, `gps_lon` of photos and signatures): what the app sends
 * (web/src/lib/outbox/coordinate.ts: at most 7 decimals, never an exponent) and what the service takes
 * (src/modules/common/form-fields.ts): a plain decimal number, or String(n) of a tiny number as
 * phones of earlier versions still hold in their outbox; nothing else.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { parseCoordinate } from '../../src/modules/common/form-fields.js';
import { coordinateText } from '../../web/src/lib/outbox/coordinate.js';

const lat = (text: string) => parseCoordinate(text, 'gps_lat', 90);

test('the app sends at most 7 decimals and never an exponent; -0 is 0', () => {
  assert.equal(coordinateText(1e-7), '0.0000001');
  assert.equal(coordinateText(0.00001234567890123456), '0.0000123');
  assert.equal(coordinateText(-0), '0');
  assert.equal(coordinateText(-1e-9), '0');
  assert.equal(coordinateText(48.1374), '48.1374');
  assert.equal(coordinateText(48.13742781234567), '48.1374278');
  assert.equal(coordinateText(-180), '-180');
  assert.equal(coordinateText(11.5), '11.5');
});

test('the service takes what the app sends and what String(n) of older app versions gave', () => {
  assert.equal(lat('1e-7'), 1e-7);
  assert.equal(lat('-1.5e-9'), -1.5e-9);
  assert.equal(lat('0.00001234567890123456'), 0.00001234567890123456);
  assert.ok(Object.is(lat('-0'), 0), '-0 is 0');
  assert.equal(lat('48.1374'), 48.1374);
  assert.equal(lat('48,1374'), 48.1374);
  assert.equal(lat(' 48.1374 '), 48.1374);
  // Every number's String() and the app's text in range, the edges included.
  const values = [
    1e-7,
    5e-324,
    -5e-324,
    1.2345678901234567e-6,
    // biome-ignore lint/correctness/noPrecisionLoss: the same double as 0.000001, written as a person may type it
    9.999999999999999e-7,
    0.000001,
    // biome-ignore lint/correctness/noPrecisionLoss: more digits than a double holds, as a person may type them: the point of the test
    -0.00001234567890123456,
    48.13742781234567,
    -89.99999999999999,
    90,
    -90,
    0.1 + 0.2,
  ];
  for (let i = 0; i < 2000; i++) values.push((Math.random() * 2 - 1) * 90 * 10 ** -Math.floor(Math.random() * 12));
  for (const value of values) {
    assert.equal(lat(String(value)), value + 0, String(value));
    assert.equal(lat(coordinateText(value)), Number(value.toFixed(7)) + 0, coordinateText(value));
  }
  assert.equal(parseCoordinate(String(-179.99999999999997), 'gps_lon', 180), -179.99999999999997);
});

test('the service refuses other forms, naming the field', () => {
  for (const text of [
    '1e1',
    '4.81e1',
    '1E-7',
    '1e+21',
    '1.e-7',
    '.5e-7',
    '0x10',
    '0b1',
    '0o7',
    'Infinity',
    '-Infinity',
    'NaN',
    '.5',
    '5.',
    '+-1',
    '1 .5',
    '48. 1',
    '1e-7x',
    '90.0000001',
    '91',
    `0.${'1'.repeat(31)}`,
  ]) {
    assert.throws(
      () => lat(text),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === 'VALIDATION_FAILED' &&
        (error.details as Array<{ field: string }>)[0]!.field === 'body.gps_lat',
      text,
    );
  }
});
