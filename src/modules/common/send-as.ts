/**
 * Sends an answer serialized by the one schema it is, of a route whose 200 answer is a union
 * (a list or one object, by `id`). With the union Fastify's serializer finds the branch by
 * validating the answer against each branch in turn (Ajv, over every item of a list), which costs
 * more than writing it; the route's schema still documents the union.
 */
import type { FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';

export function sendAs<T>(reply: FastifyReply, schema: TSchema, answer: T): FastifyReply {
  return reply
    .type('application/json; charset=utf-8')
    .serializer(reply.compileSerializationSchema(schema as Record<string, unknown>, '200'))
    .send(answer);
}
