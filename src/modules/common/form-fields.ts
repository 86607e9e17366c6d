/**
 * Text fields of multipart forms (the signature form, a photo's evidence), read the same way on
 * every route: an empty field counts as absent; a malformed one is 400 VALIDATION_FAILED naming it
 * (`body.<name>`), with a German message.
 */
import { AppError } from '../../errors.js';

/**
 * A coordinate as text: a plain decimal number (an optional sign, at most three digits, and a
 * fraction of at most 30 digits after a point or a comma; the service keeps 7 decimals), or what
 * JavaScript's String(n) gives for a finite number closer to 0 than 1e-6 (`1e-7`, `-1.5e-9`: a
 * digit 1-9, an optional fraction, `e-` and the exponent), as phones of earlier app versions sent
 * it. No other exponent (`1e1`), no hexadecimal, octal or binary (`0x10`), no `Infinity` or `NaN`,
 * no bare point (`.5`, `5.`), no space inside.
 */
const DECIMAL = /^[+-]?\d{1,3}(?:[.,]\d{1,30})?$/;
const TINY = /^-?[1-9](?:\.\d{1,20})?e-\d{1,3}$/;

/** What a coordinate may look like (COORDINATE_FORMS), in words for the API description. */
export const COORDINATE_FORMS =
  "a plain decimal number (a point or a comma, at most 30 decimals; kept to 7) or what JavaScript's String() gives for a number closer to 0 than 1e-6 (e.g. 1e-7); " +
  'other exponents (1e1), 0x10, Infinity, NaN, .5 or spaces inside are refused';

/**
 * A coordinate in degrees within ±`limit` (DECIMAL or TINY; spaces around it are not counted), or
 * undefined when absent (empty). -0 is 0.
 */
export function parseCoordinate(raw: string | undefined, name: string, limit: number): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  const value = DECIMAL.test(text) ? Number(text.replace(',', '.')) : TINY.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || Math.abs(value) > limit) {
    throw new AppError('VALIDATION_FAILED', {
      message: `${name} muss eine Dezimalzahl zwischen -${limit} und ${limit} sein (z. B. 48.13743)`,
      details: [{ field: `body.${name}`, message: `must be a plain decimal number in [-${limit}, ${limit}]` }],
    });
  }
  return value + 0;
}

/** An optional text field read by `parse`; empty is absent, anything `parse` refuses is 400 naming the field. */
export function parseOptional<T>(
  raw: string | undefined,
  parse: (value: string) => T | undefined,
  name: string,
  message: string,
  why: string,
): T | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = parse(raw);
  if (value === undefined) throw new AppError('VALIDATION_FAILED', { message, details: [{ field: `body.${name}`, message: why }] });
  return value;
}
