/**
 * Text fields of multipart forms (the signature form, a photo's evidence), read the same way on
 * every route: an empty field counts as absent; a malformed one is 400 VALIDATION_FAILED naming it
 * (`body.<name>`), with a German message.
 */
import { AppError } from '../../errors.js';

/** A coordinate in degrees within ±`limit` (a decimal comma is taken), or undefined when absent. */
export function parseCoordinate(raw: string | undefined, name: string, limit: number): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw.trim().replace(',', '.'));
  if (!Number.isFinite(value) || Math.abs(value) > limit) {
    throw new AppError('VALIDATION_FAILED', { message: `${name} muss eine Zahl zwischen -${limit} und ${limit} sein`, details: [{ field: `body.${name}`, message: `must be a number in [-${limit}, ${limit}]` }] });
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
