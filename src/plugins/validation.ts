/**
 * Schema validation with two Ajv instances: query strings, params and headers arrive as text and
 * are coerced (`?id=5` is the integer 5); JSON bodies are not, so `{"login": 123}` is an error
 * rather than the string "123".
 */
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, useDefaults: true, allErrors: false, ...options });
  addFormats(ajv);
  return ajv;
}

export default fp(
  async function validation(app: FastifyInstance) {
    const bodyAjv = makeAjv({ coerceTypes: false });
    const textAjv = makeAjv({ coerceTypes: 'array', removeAdditional: false });
    app.setValidatorCompiler(({ schema, httpPart }) =>
      (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object),
    );
  },
  { name: 'validation' },
);
