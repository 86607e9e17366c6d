/**
 * Bodies whose shape depends on `action` (one route per path, docs/architecture.md) are checked here, by the
 * same strict rules as route schemas (no type coercion) and with the same error details.
 */
import type { ValidateFunction } from 'ajv';
import type { Static, TSchema } from 'typebox';
import { AppError } from '../../errors.js';
import { makeAjv } from '../../plugins/validation.js';

const ajv = makeAjv({ coerceTypes: false });
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** The body checked against `schema`; a missing body counts as `{}`. VALIDATION_FAILED otherwise. */
export function parseBody<T extends TSchema>(schema: T, body: unknown): Static<T> {
  const value = body === undefined || body === null ? {} : body;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'Der Inhalt muss ein JSON-Objekt sein',
      details: [{ field: 'body', message: 'must be object' }],
    });
  }
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema as object);
    compiled.set(schema, validate);
  }
  if (!validate(value)) {
    const details = (validate.errors ?? []).map((e) => {
      const params = e.params as { missingProperty?: string; additionalProperty?: string };
      const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const extra = params.missingProperty ?? params.additionalProperty;
      return { field: ['body', path, extra].filter(Boolean).join('.'), message: e.message ?? 'invalid' };
    });
    throw new AppError('VALIDATION_FAILED', { details });
  }
  return value as Static<T>;
}
