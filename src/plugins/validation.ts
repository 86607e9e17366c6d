/**
 * Schema validation with two Ajv instances: query strings, params and headers arrive as text and
 * are coerced (`?id=5` is the integer 5); JSON bodies are not, so `{"login": 123}` is an error
 * rather than the string "123".
 */
import { Ajv, type Options } from 'ajv';
import type { DataValidateFunction, DataValidationCxt } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * `x-trim` on a string schema (see PersonText in common.schemas.ts): text a person typed is trimmed
 * in place; with `"nonempty"` text that is empty after trimming is refused, with the field named.
 */
function addTrimKeyword(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'x-trim',
    type: 'string',
    modifying: true,
    errors: true,
    schemaType: 'string',
    compile(mode: string) {
      const validate: DataValidateFunction = (data: string, ctx?: DataValidationCxt): boolean => {
        const trimmed = data.trim();
        if (ctx?.parentData !== undefined && trimmed !== data) (ctx.parentData as Record<string | number, unknown>)[ctx.parentDataProperty] = trimmed;
        if (mode === 'nonempty' && trimmed === '') {
          validate.errors = [{ keyword: 'x-trim', message: 'must not be empty or only spaces', params: {} }];
          return false;
        }
        return true;
      };
      return validate;
    },
  });
}

export function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, useDefaults: true, allErrors: false, ...options });
  addFormats(ajv);
  addTrimKeyword(ajv);
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
