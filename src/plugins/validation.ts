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
 * Characters no text a person types may hold (it goes into PDFs, mails and Dolibarr's columns): the
 * control characters but tab and line breaks (NUL, ESC, DEL, the C1 block) and the bidirectional
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which make text read other
 * than it is stored. Emoji joiners and marks stay allowed.
 */
export const FORBIDDEN_TEXT_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;

/**
 * `x-trim` on a string schema (see PersonText in common.schemas.ts): text a person typed is trimmed
 * in place; with `"nonempty"` text that is empty after trimming is refused, with the field named.
 * Text with a character of FORBIDDEN_TEXT_CHARACTERS is refused, naming its code point.
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
        const bad = FORBIDDEN_TEXT_CHARACTERS.exec(data);
        if (bad) {
          const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
          validate.errors = [
            {
              keyword: 'x-trim',
              message: `must not contain control or bidirectional override characters (${code} at position ${bad.index})`,
              params: { character: code },
            },
          ];
          return false;
        }
        const trimmed = data.trim();
        if (ctx?.parentData !== undefined && trimmed !== data)
          (ctx.parentData as Record<string | number, unknown>)[ctx.parentDataProperty] = trimmed;
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
    app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object));
  },
  { name: 'validation' },
);
