/** Request and response shapes of GET /api/orders.php (contract endpoints 2-4). */
import { Type, type Static } from 'typebox';
import { ListOf, PageQuery, SearchText } from '../common/common.schemas.js';

/** Dolibarr's order states (llx_commande.fk_statut): canceled, draft, validated, shipment in progress, delivered. */
export const ORDER_STATUSES = [-1, 0, 1, 2, 3] as const;

export const OrdersQuery = Type.Object({
  id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: 'Order id (llx_commande.rowid): detail, or with `action` an operation on it.',
    }),
  ),
  action: Type.Optional(Type.String({ maxLength: 64, description: 'Operation on the order `id`: `photos` (its attachments).' })),
  q: Type.Optional(SearchText('ref, ref_client and customer name (list only)')),
  status: Type.Optional(
    Type.String({
      // Every item one of ORDER_STATUSES; an empty item, a space or another number is 400 naming `status`.
      pattern: '^(-1|[0-3])(,(-1|[0-3]))*$',
      maxLength: 64,
      description:
        'List only: orders whose fk_statut is one of these, comma-separated, each of -1 (canceled), 0 (draft), 1 (validated), 2 (shipment in progress), 3 (delivered); ' +
        'e.g. `0,1,2` for the orders neither delivered nor canceled. Anything else (another number, no integer, an empty item, spaces) is 400 VALIDATION_FAILED naming `status`. ' +
        'Combines with `q`, `limit` and `offset`; `total` counts the matching orders only. Not given: every status.',
    }),
  ),
  ...PageQuery,
});
export type OrdersQuery = Static<typeof OrdersQuery>;

const UnixOrNull = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

const OrderFields = {
  id: Type.Integer(),
  ref: Type.String({ description: 'Order number, e.g. CO2401-0001; drafts `(PROV<id>)`.' }),
  ref_client: Type.Union([Type.String(), Type.Null()], { description: "Customer's own order number." }),
  status: Type.Integer({ description: 'fk_statut: -1 canceled, 0 draft, 1 validated, 2 shipment in progress, 3 delivered.' }),
  date: UnixOrNull('Order date (date_commande: midnight where Dolibarr is, TIME_ZONE), Unix seconds.'),
  date_delivery: UnixOrNull('Planned delivery (date_livraison), Unix seconds.'),
  date_creation: UnixOrNull('Creation time, Unix seconds.'),
  total_ttc: Type.Number({
    description: 'Total including tax, rounded as Dolibarr rounds totals (price2num MT: MAIN_MAX_DECIMALS_TOT decimals, 2 by default).',
  }),
};

export const OrderListItem = Type.Object({
  ...OrderFields,
  customer: Type.Union([Type.Object({ id: Type.Integer(), name: Type.Union([Type.String(), Type.Null()]) }), Type.Null()], {
    description: 'The customer the order is for; null when its third party is no customer (client 0), as in the detail.',
  }),
});
export type OrderListItem = Static<typeof OrderListItem>;
export const OrderList = ListOf(OrderListItem);

export const OrderCustomer = Type.Object(
  {
    id: Type.Integer(),
    name: Type.Union([Type.String(), Type.Null()]),
    name_alias: Type.Union([Type.String(), Type.Null()]),
    code_client: Type.Union([Type.String(), Type.Null()]),
    address: Type.Union([Type.String(), Type.Null()]),
    zip: Type.Union([Type.String(), Type.Null()]),
    town: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'Master data of the third party; only for customers (client 1, 2 or 3).' },
);
export type OrderCustomer = Static<typeof OrderCustomer>;

export const OrderReport = Type.Object({
  id: Type.Integer(),
  ref: Type.String(),
  title: Type.String(),
  status: Type.Union([Type.Literal('draft'), Type.Literal('final')]),
  version: Type.Integer(),
  page_count: Type.Integer({ minimum: 0 }),
  datec: UnixOrNull('Creation time, Unix seconds.'),
});
export type OrderReport = Static<typeof OrderReport>;

export const OrderDetail = Type.Object({
  ...OrderFields,
  note_public: Type.Union([Type.String(), Type.Null()]),
  customer: Type.Union([OrderCustomer, Type.Null()], { description: 'null when the third party is no customer (client 0) or gone.' }),
  reports: Type.Array(OrderReport, { description: 'Reports of the order (templates left out), newest first; at most 500.' }),
});
export type OrderDetail = Static<typeof OrderDetail>;

export const OrderPhoto = Type.Object({
  name: Type.String({ description: 'File name in the order folder.' }),
  size: Type.Integer({ minimum: 0, description: 'Bytes.' }),
  type: Type.Union([Type.String(), Type.Null()], { description: 'MIME type from the first bytes; null when unknown.' }),
  mtime: Type.Integer({ description: 'Last change, Unix seconds.' }),
  url: Type.String({ description: 'The file endpoint for the whole file.' }),
  thumb_small_url: Type.Union([Type.String(), Type.Null()], { description: 'Thumbnail fitting 480×270 (JPEG, PNG, WebP only).' }),
  thumb_mini_url: Type.Union([Type.String(), Type.Null()], { description: 'Thumbnail fitting 128×72 (JPEG, PNG, WebP only).' }),
});
export type OrderPhoto = Static<typeof OrderPhoto>;
export const OrderPhotoList = ListOf(OrderPhoto);
