/**
 * Products, warehouses and stock written as Dolibarr's product and warehouse cards leave them
 * (Product::create then update, Entrepot::create, a stock correction's llx_product_stock row and
 * the product's denormalised `stock`): for the demo's catalogue and van, and for the tests. The
 * service itself only reads them. `tms` is the database's own clock (CURRENT_TIMESTAMP), as
 * MariaDB's ON UPDATE and PostgreSQL's trigger set it in Dolibarr: what a copy's sync compares.
 */
import { sql } from 'kysely';
import type { Dialect } from '../config.js';
import type { Db } from '../db/database.js';
import { insertId, toDbDateTime } from '../db/dialect.js';

/** The database's clock, as Dolibarr's `tms` columns take it. */
const NOW = sql<string>`current_timestamp`;

export interface NewProduct {
  ref: string;
  label: string;
  /** Sell price without tax. */
  price: number;
  /** VAT rate in percent. @default 19 */
  vat?: number;
  service?: boolean;
  /** What a scan reads: an EAN-13, a Code 128 or a QR code's text (its type is left unset, as a card saved without one). */
  barcode?: string | null;
  /** llx_c_units.code, e.g. 'P', 'M', 'H'. */
  unit?: string | null;
  tosell?: boolean;
  /** Lots or serial numbers kept (llx_product.tobatch 1 lot, 2 serial number). */
  batch?: 0 | 1 | 2;
  /** A service's duration as Dolibarr keeps it ('1h'): what its hours are counted in. */
  duration?: string;
  entity: number;
  author?: number | null;
}

/** A product or service; its id. */
export async function addProduct(db: Db, dialect: Dialect, p: NewProduct): Promise<number> {
  const vat = p.vat ?? 19;
  const unit = p.unit ? await db.selectFrom('c_units').select('rowid').where('code', '=', p.unit).executeTakeFirst() : undefined;
  const at = toDbDateTime();
  return insertId(
    dialect,
    db.insertInto('product').values({
      ref: p.ref,
      entity: p.entity,
      label: p.label,
      description: null,
      datec: at,
      tms: NOW,
      price: p.price,
      price_ttc: Math.round(p.price * (1 + vat / 100) * 1e8) / 1e8,
      price_base_type: 'HT',
      tva_tx: vat,
      default_vat_code: null,
      tosell: p.tosell === false ? 0 : 1,
      tobuy: p.service ? 0 : 1,
      tobatch: p.service ? 0 : (p.batch ?? 0),
      fk_product_type: p.service ? 1 : 0,
      barcode: p.barcode ?? null,
      fk_barcode_type: null,
      stockable_product: p.service ? 0 : 1,
      stock: null,
      pmp: 0,
      fk_unit: unit ? Number(unit.rowid) : null,
      fk_user_author: p.author ?? null,
      duration: p.duration ?? null,
    }),
  );
}

/** A warehouse (a van); its id. */
export async function addWarehouse(
  db: Db,
  dialect: Dialect,
  w: { ref: string; description?: string; entity: number; author?: number | null },
): Promise<number> {
  const at = toDbDateTime();
  return insertId(
    dialect,
    db.insertInto('entrepot').values({
      ref: w.ref,
      entity: w.entity,
      description: w.description ?? null,
      lieu: null,
      statut: 1,
      datec: at,
      tms: NOW,
      fk_user_author: w.author ?? null,
    }),
  );
}

/**
 * `qty` of the product in the warehouse, and the product's total stock over every warehouse; for a
 * product with lots or serial numbers, `lots` says how much of each (its `llx_product_lot` made
 * when missing, as Dolibarr makes it at a lot's first movement).
 */
export async function setStock(
  db: Db,
  product: number,
  warehouse: number,
  qty: number,
  lots: Array<[batch: string, qty: number]> = [],
  entity = 1,
): Promise<void> {
  const find = () =>
    db
      .selectFrom('product_stock')
      .select('rowid')
      .where('fk_product', '=', product)
      .where('fk_entrepot', '=', warehouse)
      .executeTakeFirst();
  const row = await find();
  if (row) await db.updateTable('product_stock').set({ reel: qty, tms: NOW }).where('rowid', '=', row.rowid).execute();
  else await db.insertInto('product_stock').values({ fk_product: product, fk_entrepot: warehouse, reel: qty, tms: NOW }).execute();
  const stockRow = Number((await find())!.rowid);
  for (const [batch, n] of lots) {
    const lot = await db
      .selectFrom('product_lot')
      .select('rowid')
      .where('fk_product', '=', product)
      .where('batch', '=', batch)
      .executeTakeFirst();
    if (!lot) await db.insertInto('product_lot').values({ entity, fk_product: product, batch, datec: toDbDateTime(), tms: NOW }).execute();
    await db.deleteFrom('product_batch').where('fk_product_stock', '=', stockRow).where('batch', '=', batch).execute();
    await db.insertInto('product_batch').values({ fk_product_stock: stockRow, batch, qty: n, tms: NOW }).execute();
  }
  const total = await db
    .selectFrom('product_stock')
    .select((eb) => eb.fn.sum<number | string>('reel').as('n'))
    .where('fk_product', '=', product)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('product')
    .set({ stock: Number(total.n ?? 0), tms: NOW })
    .where('rowid', '=', product)
    .execute();
}
