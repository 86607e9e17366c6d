/**
 * Endpoints 20 and 21: GET /api/customers.php (list, with `q`) and GET /api/customers.php?id=<id>
 * (detail with the last orders, invoices and reports).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, MAX_SEARCH_LENGTH } from '../common/common.schemas.js';
import { chooseAction } from '../common/dispatch.js';
import { sendAs } from '../common/send-as.js';
import type { CustomerService } from './customers.service.js';
import { CustomerDetail, CustomerList, CustomersQuery, DETAIL_LIMITS } from './customers.schemas.js';

const DESCRIPTION =
  'Without `id`: the customers the caller may see, `{ items, total }`, paged with `limit` (default 50, at most 500) ' +
  `and \`offset\`, ordered by name (case-insensitive), then id. \`q\` (at most ${MAX_SEARCH_LENGTH} characters, trimmed) ` +
  'searches case-insensitively for a substring of name, name_alias, code_client, town or email; `%` and `_` match ' +
  "themselves. `report_count` counts the reports (templates left out) on the customer's orders, invoices and interventions that the " +
  'caller may see. ' +
  `With \`id\`: the customer's master data, the last ${DETAIL_LIMITS.orders} orders (newest first by date_commande, ` +
  `then id), the last ${DETAIL_LIMITS.invoices} invoices (newest first by datef, then id) and the last ` +
  `${DETAIL_LIMITS.reports} reports found over the customer's orders, invoices and interventions (templates left out; newest first ` +
  'by datec, then id); each list holds only what the caller may see. Dates are Unix seconds. ' +
  'Visibility: only third parties with client 1 (customer), 2 (prospect) or 3 (both) of the served entity are ' +
  'customers; pure suppliers never appear. A user with the admin flag sees all customers; any other user sees a ' +
  'customer when they see at least one of its orders, invoices or proposals (named in one of its fk_user_* columns, or given ' +
  'to them as an internal contact or by an agenda event); ' +
  'an external user only its own third party. ' +
  'Errors: 400 VALIDATION_FAILED (id not a positive integer, q too long, bad paging), 400 ACTION_UNKNOWN (any ' +
  '`action`), 401 no or invalid token, 403 no read right, 404 CUSTOMER_NOT_FOUND for an unknown customer and for ' +
  'one the caller may not see alike.';

export async function customersRoutes(app: FastifyInstance, deps: { customers: CustomerService }): Promise<void> {
  const service = deps.customers;

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/customers.php',
    {
      schema: {
        tags: ['customers'],
        summary: 'List customers, or one customer with its latest orders, invoices and reports',
        description: DESCRIPTION,
        querystring: CustomersQuery,
        response: {
          200: Type.Union([CustomerList, CustomerDetail]),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const user = callerOf(request);
      const { id, q, action, limit = 50, offset = 0 } = request.query;
      chooseAction(action, [] as const);
      if (id !== undefined) return service.getCustomer(id, user);
      return sendAs(reply, CustomerList, await service.listCustomers(user, { q, limit, offset }));
    },
  );
}
