/**
 * Sends an answer serialized by the one schema it is, of a route whose 200 answer is a union
 * (a list or one object, by `id`). With the union Fastify's serializer finds the branch by
 * validating the answer against each branch in turn (Ajv, over every item of a list), which costs
 * more than writing it; the route's schema still documents the union.
 *
 * The same holds inside the one schema: a nullable field is written `anyOf: [X, null]` (TypeBox's
 * Union with Null, as the OpenAPI document shows it), and fast-json-stringify picks the branch of
 * an anyOf by running Ajv on the value, for every nullable field of every item (six per order of
 * a list of 50: 300 validations an answer). So the answer is serialized by an equivalent schema
 * in which such a field is `type: [X's type, 'null']`, which the serializer tells apart with
 * `typeof` and `=== null`: the same JSON for every value either schema accepts, and a TypeError
 * (500) for a value neither accepts, as before. That rule (nullableAsTypeList) is the whole app's
 * serializer compiler (app.ts), so every answer is written so, not only these.
 */
import type { FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';

type Schema = Record<string, unknown>;

/** Types a branch of a nullable anyOf may have to be folded into a type list. */
const FOLDABLE = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array']);

const isNull = (branch: unknown): boolean => {
  const b = branch as Schema | undefined;
  return !!b && b.type === 'null' && Object.keys(b).every((k) => k === 'type' || k === 'description' || k === 'title');
};

/**
 * `schema` with every `anyOf: [X, {type: 'null'}]` (either order) whose X has a single plain
 * type and no anyOf/oneOf/allOf/$ref/const/enum of its own turned into X with `type: [type,
 * 'null']`; everything else as it is. Only what fast-json-stringify reads for writing changes.
 */
export function nullableAsTypeList(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsTypeList);
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Schema;
  const anyOf = s.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2 && Object.keys(s).every((k) => k === 'anyOf' || k === 'description' || k === 'title')) {
    const nullAt = anyOf.findIndex(isNull);
    const other = anyOf[1 - nullAt] as Schema | undefined;
    if (
      nullAt >= 0 &&
      other &&
      typeof other.type === 'string' &&
      FOLDABLE.has(other.type) &&
      !['anyOf', 'oneOf', 'allOf', '$ref', 'const', 'enum', 'if', 'not', 'nullable'].some((k) => k in other)
    ) {
      const folded = nullableAsTypeList(other) as Schema;
      return { ...folded, type: [other.type, 'null'] };
    }
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(s)) out[key] = nullableAsTypeList(value);
  return out;
}

/**
 * Sends `answer` written by `schema` (the app's serializer compiler, app.ts, folds its nullable
 * fields; Fastify keeps the compiled serializer by the schema object).
 */
export function sendAs<T>(reply: FastifyReply, schema: TSchema, answer: T): FastifyReply {
  return reply
    .type('application/json; charset=utf-8')
    .serializer(reply.compileSerializationSchema(schema as Record<string, unknown>, '200'))
    .send(answer);
}
