/**
 * Endpoints 2-4: GET /api/orders.php — the caller's orders, one order's detail, its attachments.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, MAX_SEARCH_LENGTH } from '../common/common.schemas.js';
import { chooseAction, requireParam } from '../common/dispatch.js';
import { sendAs } from '../common/send-as.js';
import { MAX_ORDER_REPORTS } from './orders.repository.js';
import type { OrderService } from './orders.service.js';
import { OrderDetail, OrderList, OrderPhotoList, OrdersQuery } from './orders.schemas.js';

const DESCRIPTION = [
  'Three operations, chosen by `id` and `action`:',
  "1. no `id`: the caller's orders as `{ items, total }`, newest first (order date descending, orders without a date last, then id descending), " +
    'paged by `limit`/`offset`. Visible are orders of the served entity that name the caller in any `fk_user_*` column ' +
    '(author, validator, last editor, closer), or that the office gave the caller in Dolibarr: an internal contact of a type in ASSIGNED_CONTACT_TYPES, ' +
    "or the owner or an attendee of an agenda event linked to the order (ASSIGNED_BY_AGENDA); a user with Dolibarr's admin flag sees all; an external user only those of its own third party. " +
    `\`q\` searches ref, ref_client and the customer's name: case-insensitive substring, \`%\` and \`_\` are literal, at most ${MAX_SEARCH_LENGTH} characters (400 above). ` +
    '`status` narrows the list to orders of the given fk_statut values, comma-separated among -1, 0, 1, 2, 3 (e.g. `status=0,1,2`: not delivered, not canceled); ' +
    'anything else is 400 VALIDATION_FAILED naming `status`. It combines with `q` and the paging, and `total` counts only the matching orders. `q` and `status` are ignored with `id`.',
  '2. `id`: the order with `note_public`, `customer` (master data only when the third party is a customer, client 1, 2 or 3; otherwise null) ' +
    `and \`reports\` (the order's reports without templates, newest first, at most ${MAX_ORDER_REPORTS}, with page_count; status "draft" or "final").`,
  "3. `id` and `action=photos`: the regular files directly in the order's folder (`commande/<ref>/`) as `{ items, total }`, newest first then by name, " +
    'paged by `limit`/`offset`. Left out: `thumbs/` and other folders, links, hidden files and `*.tmp`. A missing folder is an empty list. ' +
    "`type` is the MIME type read from the file's bytes (null when unknown); `url` is the file endpoint (`/api/photo.php?modulepart=commande&file=<ref>/<name>`, encoded), " +
    'the thumbnail URLs add `size=small` / `size=mini` and are given only for JPEG, PNG and WebP (null otherwise).',
  'Errors: 400 VALIDATION_FAILED (id not a positive integer, bad limit/offset, `action` without `id`), 400 ACTION_UNKNOWN, 401 without a valid token, ' +
    '403 without the read right, 404 ORDER_NOT_FOUND for an order that does not exist or that the caller may not see (the same answer, so existence does not leak).',
].join('\n\n');

export async function ordersRoutes(app: FastifyInstance, deps: { orders: OrderService }): Promise<void> {
  const { orders } = deps;

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/orders.php',
    {
      schema: {
        tags: ['orders'],
        summary: "The caller's orders, one order, or its attachments",
        description: DESCRIPTION,
        querystring: OrdersQuery,
        response: {
          200: Type.Union([OrderList, OrderDetail, OrderPhotoList]),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const user = callerOf(request);
      const { id, q, status, limit = 50, offset = 0 } = request.query;
      const action = chooseAction(request.query.action, ['photos'] as const);
      if (id === undefined) {
        if (action) requireParam(id, 'id', { why: 'required for an action' });
        return sendAs(reply, OrderList, await orders.listOrders(user, { q, status, limit, offset, version: request.dataVersion }));
      }
      if (action === 'photos') return orders.listPhotos(user, id, { limit, offset });
      return orders.getOrder(user, id);
    },
  );
}
