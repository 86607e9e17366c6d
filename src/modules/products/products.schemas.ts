/** Request and response shapes of /api/products.php: the catalogue a technician takes parts from. */
import { Type, type Static } from 'typebox';
import { PageQuery, RowId, SearchText } from '../common/common.schemas.js';

/** A sync mark: the database's own clock, 'YYYY-MM-DD HH:MM:SS' (compared with llx_product.tms in the database's terms). */
export const SYNC_MARK_PATTERN = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$';

/** Longest barcode asked for (llx_product.barcode is varchar(180)). */
export const MAX_BARCODE_LENGTH = 180;

export const ProductsQuery = Type.Object({
  id: Type.Optional(RowId('One product or service (llx_product.rowid).')),
  q: Type.Optional(SearchText('the ref, the label and the barcode')),
  barcode: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_BARCODE_LENGTH,
      description: 'Exactly this barcode (what a scan read); the products and services with it.',
    }),
  ),
  changed_since: Type.Optional(
    Type.String({
      pattern: SYNC_MARK_PATTERN,
      description:
        'The `sync_mark` of an earlier answer: the products and services changed since (a minute before it, so none committed late is missed), those no longer on sale among them (`on_sale` false), oldest change first: how a copy kept on the phone follows the catalogue.',
    }),
  ),
  action: Type.Optional(
    Type.String({ maxLength: 64, description: '`ids`: the ids of every product and service on sale, to drop from a copy what is gone.' }),
  ),
  ...PageQuery,
});
export type ProductsQuery = Static<typeof ProductsQuery>;

export const Product = Type.Object({
  id: Type.Integer(),
  ref: Type.String(),
  label: Type.String(),
  /** 0 product, 1 service, as llx_product.fk_product_type. */
  type: Type.Union([Type.Literal('product'), Type.Literal('service')], { description: 'A product (stock is kept) or a service.' }),
  barcode: Type.Union([Type.String(), Type.Null()]),
  fk_unit: Type.Union([Type.Integer(), Type.Null()], { description: "Dolibarr's unit (llx_c_units.rowid) of its quantities." }),
  unit: Type.Union([Type.String(), Type.Null()], { description: "The unit's short label (p, m, kg, h, …)." }),
  price: Type.Number({ description: 'Sell price without tax (llx_product.price), the base price before any customer rule.' }),
  vat_rate: Type.Union([Type.Number(), Type.Null()], { description: 'Default VAT rate in percent (llx_product.tva_tx).' }),
  needs_batch: Type.Boolean({
    description: 'A lot or serial number is kept for it (llx_product.tobatch); a material line of it needs one.',
  }),
  on_sale: Type.Boolean({ description: 'On sale (llx_product.tosell); only those are listed except with `since`.' }),
  van_stock: Type.Union([Type.Number(), Type.Null()], {
    description:
      "The physical stock in the caller's van (his default warehouse, llx_user.fk_warehouse); null without a van or for a service.",
  }),
});
export type Product = Static<typeof Product>;
export const ProductList = Type.Object({
  items: Type.Array(Product),
  total: Type.Integer({ minimum: 0 }),
  sync_mark: Type.String({ description: "The database's clock when the answer was read: the next `changed_since` of a copy." }),
});
export const ProductIds = Type.Object({
  ids: Type.Array(Type.Integer(), { description: 'Every product and service on sale, ascending.' }),
  sync_mark: Type.String({ description: "The database's clock when the answer was read." }),
});
