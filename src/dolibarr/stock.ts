/**
 * A stock movement out of a warehouse, written as Dolibarr 22's `MouvementStock::livraison` writes
 * it (product/stock/class/mouvementstock.class.php, `_create` with type 2, an automatic exit as a
 * validated invoice or shipment takes stock; the rows it wrote are kept in
 * test/fixtures/dolibarr22/stock-movement.json and docs/dolibarr-writes.md says what they are):
 *
 * - for a product with lots (the module on): its lot in `llx_product_lot`, made at its first
 *   movement;
 * - refused, as Dolibarr refuses it, only with STOCK_DISALLOW_NEGATIVE_TRANSFER: more than the
 *   warehouse holds (of the lot, for a product with lots);
 * - the movement (`value` negative, `price` 0, `type_mouvement` 2, origin the document,
 *   `fk_projet` 0), the warehouse's stock row (`reel` + value, made when there was none), the lot's
 *   row in it (`qty` + value, deleted at 0), the product's `stock` as the sum of its rows and `pmp`
 *   as it was, then the warehouse's row deleted when left at 0 with no lot in it.
 *
 * The caller holds the transaction; the product and its stock rows are read with FOR UPDATE, so
 * two exits of the same product at once count each other (also in the product's total). `tms` is the database's clock (CURRENT_TIMESTAMP), as
 * MariaDB's ON UPDATE and PostgreSQL's trigger set it in Dolibarr: what a phone's copy of the
 * catalogue follows.
 */
import { sql } from 'kysely';
import type { Dialect } from '../config.js';
import type { Db } from '../db/database.js';
import { forUpdate, insertId } from '../db/dialect.js';
import { toDolibarrDateTime } from './time.js';

/** The database's clock, as Dolibarr's `tms` columns take it. */
const NOW = sql<string>`current_timestamp`;

/** Dolibarr's `type_mouvement` of an automatic exit (a document takes stock). */
export const AUTOMATIC_EXIT = 2;

export interface StockExit {
  product: { id: number; ref: string; batch: boolean };
  warehouse: { id: number; ref: string };
  /** What leaves, positive. */
  qty: number;
  /** The lot or serial number, for a product with lots (null otherwise). */
  batch: string | null;
  label: string;
  /** The document the stock leaves for (Dolibarr's element name and id: commande, fichinter, …). */
  origin: { type: string; id: number };
  userId: number;
  entity: number;
  timeZone: string;
  /** STOCK_DISALLOW_NEGATIVE_TRANSFER. */
  refuseNegative: boolean;
  at?: Date;
}

/** What the warehouse held when Dolibarr's rule refuses the exit. */
export interface StockShort {
  ref: string;
  batch: string | null;
  warehouse: string;
  held: number;
  wanted: number;
}

export type StockExitResult = { movement: number } | { short: StockShort };

/** Stock quantities as Dolibarr adds them in PHP, without the float's tail (2.3 - 0.1 is 2.2). */
const add = (a: number, b: number) => Math.round((a + b) * 1e8) / 1e8;

export async function stockExit(trx: Db, dialect: Dialect, exit: StockExit): Promise<StockExitResult> {
  const lock = <Q extends { forUpdate(): Q }>(query: Q) => forUpdate(dialect, query);
  const { product, warehouse, qty, batch } = exit;
  const value = -qty;
  const at = toDolibarrDateTime(exit.at ?? new Date(), exit.timeZone);
  // The product first: two exits of it from different vans at once each sum the other's row into its total.
  if (dialect !== 'sqlite') await trx.selectFrom('product').select('rowid').where('rowid', '=', product.id).forUpdate().execute();

  if (product.batch && batch) {
    const lot = await trx
      .selectFrom('product_lot')
      .select('rowid')
      .where('fk_product', '=', product.id)
      .where('batch', '=', batch)
      .executeTakeFirst();
    // Productlot::create at the lot's first movement: the entity, no dates, no author.
    if (!lot)
      await trx.insertInto('product_lot').values({ entity: exit.entity, fk_product: product.id, batch, datec: at, tms: NOW }).execute();
  }

  const stockRow = await lock(
    trx.selectFrom('product_stock').select(['rowid', 'reel']).where('fk_entrepot', '=', warehouse.id).where('fk_product', '=', product.id),
  ).executeTakeFirst();
  const held = Number(stockRow?.reel ?? 0);
  const lotRow =
    product.batch && batch && stockRow
      ? await lock(
          trx
            .selectFrom('product_batch')
            .select(['rowid', 'qty'])
            .where('fk_product_stock', '=', stockRow.rowid)
            .where('batch', '=', batch),
        ).executeTakeFirst()
      : undefined;

  if (exit.refuseNegative) {
    // As _create checks it: the lot must be there with enough, or the warehouse must hold enough.
    const available = product.batch && batch ? (lotRow ? Number(lotRow.qty) : 0) : held;
    const missing = product.batch && batch ? !lotRow || Number(lotRow.qty) < qty : !stockRow || held === 0 || held < qty;
    if (missing)
      return { short: { ref: product.ref, batch: product.batch ? batch : null, warehouse: warehouse.ref, held: available, wanted: qty } };
  }

  const movement = await insertId(
    dialect,
    trx.insertInto('stock_mouvement').values({
      tms: NOW,
      datem: at,
      fk_product: product.id,
      batch: batch || null,
      eatby: null,
      sellby: null,
      fk_entrepot: warehouse.id,
      value,
      type_mouvement: AUTOMATIC_EXIT,
      fk_user_author: exit.userId,
      label: exit.label,
      inventorycode: null,
      price: 0,
      fk_origin: exit.origin.id,
      origintype: exit.origin.type,
      fk_projet: 0,
    }),
  );

  let stockId: number;
  if (stockRow) {
    stockId = Number(stockRow.rowid);
    await trx
      .updateTable('product_stock')
      .set({ reel: add(held, value), tms: NOW })
      .where('rowid', '=', stockId)
      .execute();
  } else {
    stockId = await insertId(
      dialect,
      trx.insertInto('product_stock').values({ reel: value, fk_entrepot: warehouse.id, fk_product: product.id, tms: NOW }),
    );
  }

  if (product.batch && batch) {
    if (lotRow) {
      const left = add(Number(lotRow.qty), value);
      if (left === 0) await trx.deleteFrom('product_batch').where('rowid', '=', lotRow.rowid).execute();
      else await trx.updateTable('product_batch').set({ qty: left, tms: NOW }).where('rowid', '=', lotRow.rowid).execute();
    } else {
      await trx.insertInto('product_batch').values({ fk_product_stock: stockId, batch, qty: value, tms: NOW }).execute();
    }
  }

  // The product's denormalised stock: the sum of its rows (an exit leaves the average price as it is).
  await trx
    .updateTable('product as p')
    .set({
      stock: (eb) =>
        eb
          .selectFrom('product_stock as ps')
          .select((e) => e.fn.sum<number>('ps.reel').as('n'))
          .whereRef('ps.fk_product', '=', 'p.rowid'),
      tms: NOW,
    })
    .where('p.rowid', '=', product.id)
    .execute();
  // A row left at 0 goes, unless a lot's row still refers to it (lot +1 and lot -1 are 0 together).
  await trx
    .deleteFrom('product_stock')
    .where('rowid', '=', stockId)
    .where('reel', '=', 0)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('product_batch').select('rowid').where('fk_product_stock', '=', stockId))),
    )
    .execute();
  return { movement };
}
