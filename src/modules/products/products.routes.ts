/**
 * /api/products.php: the catalogue (Dolibarr's products and services on sale) with the stock of
 * the caller's van, searched as a technician types or scans, and followed by a copy on the phone.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse } from '../common/common.schemas.js';
import { chooseAction } from '../common/dispatch.js';
import { gzipWhenLarge } from '../common/gzip-large.js';
import { sendAs } from '../common/send-as.js';
import { ProductIds, ProductList, ProductsQuery } from './products.schemas.js';
import type { ProductService } from './products.service.js';

const ERRORS = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse };

export async function productsRoutes(app: FastifyInstance, deps: { products: ProductService }): Promise<void> {
  const { products } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/products.php',
    {
      schema: {
        tags: ['products'],
        summary: 'The catalogue: products and services on sale, with the stock of the van',
        description:
          'Without `action`: `{ items, total, sync_mark }`, the products and services on sale (llx_product.tosell) of this entity by ref, paged by limit/offset; ' +
          '`q` searches ref, label and barcode, `barcode` finds exactly what a scan read, `id` one product. Each with its unit (llx_c_units), base sell price and VAT rate, ' +
          "whether it needs a lot or serial number, and `van_stock`: its physical stock in the caller's default warehouse (llx_user.fk_warehouse, his van). " +
          '`changed_since` (an earlier `sync_mark`): what changed since, on sale or not, oldest change first. `action=ids`: `{ ids, sync_mark }`, every id on sale. ' +
          'Answers of 8 KiB and more are sent gzip-compressed (Content-Encoding: gzip) to a client whose Accept-Encoding allows it. ' +
          'Internal users only: an external user is 403 AUTH_RIGHT_MISSING.',
        querystring: ProductsQuery,
        response: { 200: { anyOf: [ProductList, ProductIds] }, ...ERRORS },
      },
      // A copy's pages (500 products, about 100 KB of JSON) and the ids on sale go compressed where the phone accepts it.
      onSend: gzipWhenLarge,
    },
    async (request, reply) => {
      const { action, id, q, barcode, changed_since: changedSince, limit = 50, offset = 0 } = request.query;
      // Each answer by its own schema (send-as.ts): the union's check of which it is would run Ajv over every product.
      if (chooseAction(action, ['ids'] as const) === 'ids') return sendAs(reply, ProductIds, await products.ids(callerOf(request)));
      return sendAs(reply, ProductList, await products.list(callerOf(request), { id, q, barcode, changedSince }, { limit, offset }));
    },
  );
}
