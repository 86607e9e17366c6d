/**
 * Endpoint 22, /api/materials.php: the material lines of an order, invoice, proposal or intervention.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, IdempotencyHeaders } from '../common/common.schemas.js';
import { requireParam } from '../common/dispatch.js';
import { CreateMaterialBody, DeletedMaterial, Material, MaterialList, MaterialsQuery, QTY_DECIMALS } from './materials.schemas.js';
import type { MaterialService } from './materials.service.js';

const ERRORS = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };

export async function materialsRoutes(app: FastifyInstance, deps: { materials: MaterialService }): Promise<void> {
  const { materials } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/materials.php',
    {
      schema: {
        tags: ['materials'],
        summary: 'Material lines of an object',
        description:
          'The lines of the object `element_type` (commande, facture, propal) + `fk_element`, oldest first, as `{ items, total }` (paged by limit/offset). ' +
          'The caller must see the object: 404 ORDER_NOT_FOUND (an order), INTERVENTION_NOT_FOUND (an intervention) or OBJECT_NOT_FOUND otherwise (the same as a missing one).',
        querystring: MaterialsQuery,
        response: { 200: MaterialList, ...ERRORS },
      },
    },
    async (request) => {
      const { element_type: type, fk_element: id, limit = 50, offset = 0 } = request.query;
      return materials.list(callerOf(request), requireParam(type, 'element_type'), requireParam(id, 'fk_element'), { limit, offset });
    },
  );

  typed.post(
    '/api/materials.php',
    {
      schema: {
        tags: ['materials'],
        summary: 'Add a material line',
        description:
          `JSON \`{ element_type, fk_element, label, qty, unit?, note? }\`: \`label\` 1-255 characters, \`qty\` a number from 0 with at most ${QTY_DECIMALS} decimal places, ` +
          '`unit` free text up to 32 characters (Stk, m, kg, h, …), `note` up to 2000. Keeps who added it and when. Write right; the object must be visible. 201 with the line. ' +
          'Header Idempotency-Key (see the header parameter): a client that repeats the request after a lost answer (an offline queue) gets the first 201 and its line again, ' +
          'and no second line is added; the line and its stored answer are written together. The key belongs to the object (`element_type` + `fk_element`): ' +
          'used for another object, or for an upload, it is 409 IDEMPOTENCY_KEY_REUSED.',
        body: CreateMaterialBody,
        headers: IdempotencyHeaders,
        response: { 201: Material, ...ERRORS, 409: ErrorResponse },
      },
      config: { right: 'write' },
    },
    async (request, reply) =>
      reply.code(201).send(await materials.create(callerOf(request), request.body, request.headers['idempotency-key'])),
  );

  typed.delete(
    '/api/materials.php',
    {
      schema: {
        tags: ['materials'],
        summary: 'Delete a material line',
        description:
          'Deletes the line `id`. Delete right; a line of an object the caller does not see is 404 MATERIAL_NOT_FOUND, as a missing one; a line a finalized report took out of the van (`fk_stock_mouvement` above 0) stays: 409 MATERIAL_TAKEN; any other line a finalized report settled (`fk_stock_mouvement` 0) stays too, as the signed report shows it: 409 MATERIAL_REPORTED. 200 `{ id, deleted: true }`.',
        querystring: MaterialsQuery,
        response: { 200: DeletedMaterial, ...ERRORS },
      },
      config: { right: 'delete' },
    },
    async (request) => {
      return materials.remove(callerOf(request), requireParam(request.query.id, 'id'));
    },
  );
}
