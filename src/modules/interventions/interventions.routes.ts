/**
 * GET /api/interventions.php — the caller's interventions (Dolibarr's llx_fichinter), one
 * intervention's detail, its attachments: the same three operations as /api/orders.php.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, MAX_SEARCH_LENGTH } from '../common/common.schemas.js';
import { chooseAction, requireParam } from '../common/dispatch.js';
import { OrderPhotoList } from '../orders/orders.schemas.js';
import { MAX_ORDER_REPORTS } from '../orders/orders.repository.js';
import type { InterventionService } from './interventions.service.js';
import { InterventionDetail, InterventionList, InterventionsQuery } from './interventions.schemas.js';

const DESCRIPTION = [
  "Interventions of Dolibarr's module Interventions (llx_fichinter), the object Dolibarr keeps a service visit in. Three operations, chosen by `id` and `action`:",
  "1. no `id`: the caller's interventions as `{ items, total }`, by planned start descending (those without one last, then id descending), " +
    'paged by `limit`/`offset`. Visible as orders are: those naming the caller in `fk_user_author`, `fk_user_valid` or `fk_user_modif`, ' +
    'those the office gave the caller in Dolibarr (an internal contact of a type in ASSIGNED_CONTACT_TYPES, by default `INTERREPFOLL` and `INTERVENING`, ' +
    "or an agenda event linked to it that the caller owns or attends, ASSIGNED_BY_AGENDA); a user with Dolibarr's admin flag sees all; an external user only those of its own third party. " +
    `\`q\` searches ref, ref_client, description and the customer's name (case-insensitive substring, \`%\` and \`_\` literal, at most ${MAX_SEARCH_LENGTH} characters). ` +
    '`status`: comma-separated fk_statut values among 0 (draft), 1 (validated), 2 (billed), 3 (closed); anything else is 400 VALIDATION_FAILED naming `status`. ' +
    '`visit_records=0` leaves out the records of visits the service made from reports on orders (`visit_record`): the office validates them, they are no work to do.',
  '2. `id`: the intervention with `note_public`, `customer` (master data only when the third party is a customer) ' +
    `and \`reports\` (its reports without templates, newest first, at most ${MAX_ORDER_REPORTS}).`,
  "3. `id` and `action=photos`: the regular files directly in its folder (`ficheinter/<ref>/`, where Dolibarr files an intervention's documents) as `{ items, total }`, " +
    'newest first then by name, paged; `url` is the file endpoint with `modulepart=fichinter`.',
  'Errors: 400 VALIDATION_FAILED, 400 ACTION_UNKNOWN, 401 without a valid token, 403 without the read right, ' +
    '404 INTERVENTION_NOT_FOUND for one that does not exist or that the caller may not see (the same answer).',
].join('\n\n');

export async function interventionsRoutes(app: FastifyInstance, deps: { interventions: InterventionService }): Promise<void> {
  const { interventions } = deps;

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/interventions.php',
    {
      schema: {
        tags: ['interventions'],
        summary: "The caller's interventions, one intervention, or its attachments",
        description: DESCRIPTION,
        querystring: InterventionsQuery,
        response: {
          200: Type.Union([InterventionList, InterventionDetail, OrderPhotoList]),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
        },
      },
    },
    async (request) => {
      const user = callerOf(request);
      const { id, q, status, visit_records, limit = 50, offset = 0 } = request.query;
      const action = chooseAction(request.query.action, ['photos'] as const);
      if (id === undefined) {
        if (action) requireParam(id, 'id', { why: 'required for an action' });
        return interventions.list(user, { q, status, visitRecords: visit_records !== '0', limit, offset });
      }
      if (action === 'photos') return interventions.listPhotos(user, id, { limit, offset });
      return interventions.get(user, id);
    },
  );
}
