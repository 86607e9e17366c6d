/**
 * Text fields of multipart forms (the signature form, a photo's evidence), read the same way on
 * every route: an empty field counts as absent; a malformed one is 400 VALIDATION_FAILED naming it
 * (`body.<name>`), with a German message.
 */
import { AppError } from '../../errors.js';

/**
 * A plain decimal number: an optional sign, digits, and a fraction after a point or a comma. No
 * exponent (`1e1`), no hexadecimal, octal or binary (`0x10`), no `Infinity`, no bare point (`.5`, `5.`).
 */
const DECIMAL = /^[+-]?\d{1,3}(?:[.,]\d{1,20})?$/;

/**
 * A coordinate in degrees within ±`limit` as a plain decimal number (DECIMAL; a decimal comma is
 * taken, spaces around it are not counted), or undefined when absent (empty).
 */
export function parseCoordinate(raw: string | undefined, name: string, limit: number): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  const value = DECIMAL.test(text) ? Number(text.replace(',', '.')) : Number.NaN;
  if (!Number.isFinite(value) || Math.abs(value) > limit) {
    throw new AppError('VALIDATION_FAILED', {
      message: `${name} muss eine Dezimalzahl zwischen -${limit} und ${limit} sein (z. B. 48.13743)`,
      details: [{ field: `body.${name}`, message: `must be a plain decimal number in [-${limit}, ${limit}]` }],
    });
  }
  return value;
}

/** An optional text field read by `parse`; empty is absent, anything `parse` refuses is 400 naming the field. */
export function parseOptional<T>(raw: string | undefined, parse: (value: string) => T | undefined, name: string, message: string, why: string): T | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = parse(raw);
  if (value === undefined) throw new AppError('VALIDATION_FAILED', { message, details: [{ field: `body.${name}`, message: why }] });
  return value;
}
