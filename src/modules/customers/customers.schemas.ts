/** Request and response shapes of GET /api/customers.php (endpoints 20 and 21). */
import { Type, type Static } from 'typebox';
import { ListOf, PageQuery, SearchText } from '../common/common.schemas.js';

/** The contract's customer detail limits (Limits: 50 orders, 50 invoices, 100 reports). */
export const DETAIL_LIMITS = { orders: 50, invoices: 50, reports: 100 } as const;

const NullableString = Type.Union([Type.String(), Type.Null()]);
const UnixTime = Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; null when not set.' });

export const CustomersQuery = Type.Object({
  id: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'A customer id: answers its detail instead of the list.' }),
  ),
  q: Type.Optional(SearchText('name, name_alias, code_client, town and email')),
  action: Type.Optional(Type.String({ maxLength: 100, description: 'No actions exist on this path: any value is 400 ACTION_UNKNOWN.' })),
  ...PageQuery,
});
export type CustomersQuery = Static<typeof CustomersQuery>;

export const CustomerListItem = Type.Object({
  id: Type.Integer(),
  name: NullableString,
  name_alias: NullableString,
  code_client: NullableString,
  town: NullableString,
  zip: NullableString,
  email: NullableString,
  phone: NullableString,
  status: Type.Integer({ description: 'llx_societe.status: 1 active, 0 closed.' }),
  report_count: Type.Integer({
    minimum: 0,
    description: "Reports (not templates) on the customer's orders, invoices and interventions that the caller may see.",
  }),
});
export type CustomerListItem = Static<typeof CustomerListItem>;

export const CustomerList = ListOf(CustomerListItem);
export type CustomerList = Static<typeof CustomerList>;

export const CustomerOrder = Type.Object({
  id: Type.Integer(),
  ref: Type.String(),
  ref_client: NullableString,
  status: Type.Integer({ description: 'llx_commande.fk_statut: -1 canceled, 0 draft, 1 validated, 2 in progress, 3 delivered.' }),
  date: UnixTime,
});

export const CustomerInvoice = Type.Object({
  id: Type.Integer(),
  ref: Type.String(),
  ref_client: NullableString,
  type: Type.Integer({ description: 'llx_facture.type: 0 standard, 1 replacement, 2 credit note, 3 deposit, 5 situation.' }),
  status: Type.Integer({ description: 'llx_facture.fk_statut: 0 draft, 1 unpaid, 2 closed, 3 abandoned.' }),
  paid: Type.Boolean({ description: 'llx_facture.paye = 1.' }),
  date: UnixTime,
  total_ttc: Type.Union([Type.Number(), Type.Null()], {
    description: 'Total including tax, rounded as Dolibarr rounds totals (price2num MT).',
  }),
});

export const CustomerReport = Type.Object({
  id: Type.Integer(),
  ref: Type.String(),
  title: Type.String(),
  status: Type.Union([Type.Literal('draft'), Type.Literal('final')]),
  parent_ref: Type.String(),
  element_type: Type.Union([Type.Literal('commande'), Type.Literal('facture'), Type.Literal('fichinter')]),
  datec: UnixTime,
});

export const CustomerDetail = Type.Object({
  id: Type.Integer(),
  name: NullableString,
  name_alias: NullableString,
  code_client: NullableString,
  address: NullableString,
  zip: NullableString,
  town: NullableString,
  phone: NullableString,
  email: NullableString,
  url: NullableString,
  tva_intra: NullableString,
  status: Type.Integer(),
  note_public: NullableString,
  orders: Type.Array(CustomerOrder, { maxItems: DETAIL_LIMITS.orders, description: 'Newest first (date_commande, then id).' }),
  invoices: Type.Array(CustomerInvoice, { maxItems: DETAIL_LIMITS.invoices, description: 'Newest first (datef, then id).' }),
  reports: Type.Array(CustomerReport, { maxItems: DETAIL_LIMITS.reports, description: 'Newest first (datec, then id).' }),
});
export type CustomerDetail = Static<typeof CustomerDetail>;
