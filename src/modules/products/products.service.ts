/**
 * The catalogue a technician takes parts from (Dolibarr's products and services, llx_product),
 * with the stock of his van: his default warehouse (llx_user.fk_warehouse) in llx_product_stock.
 * Only what is on sale (tosell) is listed and taken on a material line; a copy on the phone
 * follows changes by `changed_since` (llx_product.tms, compared in the database's own clock, so no
 * time zone stands between them) and drops what is gone by `ids`. Internal users only: an external
 * user (a customer's login) has no catalogue.
 */
import { sql } from 'kysely';
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { anyContains, toDbDateTime } from '../../db/dialect.js';
import { AppError } from '../../errors.js';
import type { Caller } from '../access/element-access.js';
import type { Product } from './products.schemas.js';

/** How far before a sync mark changes are sent again: a change committed late is not missed. @default 60 s */
export const SYNC_OVERLAP_S = 60;

interface ProductRow {
  rowid: number;
  ref: string;
  label: string;
  fk_product_type: number | string | null;
  barcode: string | null;
  fk_unit: number | string | null;
  unit: string | null;
  price: number | string | null;
  tva_tx: number | string | null;
  tobatch: number | string | null;
  tosell: number | string | null;
  stockable_product: number | string | null;
  reel: number | string | null;
}

const num = (v: number | string | null) => (v === null ? null : Number(v));

const isService = (row: Pick<ProductRow, 'fk_product_type'>) => Number(row.fk_product_type) === 1;

/** Lots (llx_product.tobatch 1) or serial numbers (2) kept for a product; a service keeps neither. */
function batchKind(row: Pick<ProductRow, 'fk_product_type' | 'tobatch'>): 'lot' | 'serial' | null {
  if (isService(row)) return null;
  return Number(row.tobatch) === 1 ? 'lot' : Number(row.tobatch) === 2 ? 'serial' : null;
}

function toProduct(row: ProductRow, van: boolean): Product {
  const service = isService(row);
  return {
    id: Number(row.rowid),
    ref: row.ref,
    label: row.label,
    type: service ? 'service' : 'product',
    barcode: row.barcode === '' ? null : row.barcode,
    fk_unit: num(row.fk_unit),
    unit: row.unit,
    price: Number(row.price ?? 0),
    vat_rate: num(row.tva_tx),
    needs_batch: batchKind(row) !== null,
    on_sale: Number(row.tosell) === 1,
    // A product whose stock is not kept (stockable_product 0) has none in the van either.
    van_stock: van && !service && Number(row.stockable_product ?? 1) !== 0 ? Number(row.reel ?? 0) : null,
  };
}

/**
 * 'YYYY-MM-DD HH:MM:SS' `seconds` earlier, as calendar arithmetic (no time zone: the mark is the
 * database's wall clock). A mark that is no time of the calendar (month 13, 23:60, 30 February,
 * before the year 1000) is 400 on `changed_since`.
 */
export function markMinus(mark: string, seconds: number): string {
  const at = Date.parse(`${mark.replace(' ', 'T')}Z`);
  const again = Number.isNaN(at) ? '' : toDbDateTime(new Date(at));
  if (again !== mark || mark < '1000')
    throw new AppError('VALIDATION_FAILED', {
      message: 'changed_since ist kein Zeitpunkt',
      details: [{ field: 'querystring.changed_since', message: 'not a date and time of the calendar' }],
    });
  return toDbDateTime(new Date(at - seconds * 1000));
}

/** What a material line needs of its product. */
export interface LineProduct {
  id: number;
  fkUnit: number | null;
  unit: string | null;
  /** Lots (llx_product.tobatch 1) or serial numbers (2) kept; null for neither. */
  batch: 'lot' | 'serial' | null;
}

export function createProductService(deps: {
  db: Db;
  dialect: Dialect;
  entity: number;
  /** llx_user.fk_warehouse exists (Dolibarr 13 and later). */
  userHasWarehouse: boolean;
  /** llx_product.stockable_product exists (newer Dolibarr versions): without it every product keeps stock. */
  productHasStockable: boolean;
}) {
  const { db, dialect, entity, userHasWarehouse, productHasStockable } = deps;

  /** The database's clock, 'YYYY-MM-DD HH:MM:SS', in the terms llx_product.tms is written in. */
  async function syncMark(): Promise<string> {
    const now = dialect === 'postgres' ? sql<string>`localtimestamp(0)` : sql<string>`current_timestamp`;
    const row = await sql<{ now: string | Date }>`select ${now} as now`.execute(db);
    const value = row.rows[0]!.now;
    return value instanceof Date ? toDbDateTime(value) : String(value).replace('T', ' ').slice(0, 19);
  }

  /** The caller's van: his default warehouse, if the database keeps one and it is a warehouse of this entity. */
  async function vanOf(user: Caller): Promise<number | null> {
    if (!userHasWarehouse) return null;
    const row = await db
      .selectFrom('user as u')
      .innerJoin('entrepot as e', 'e.rowid', 'u.fk_warehouse')
      .select('e.rowid')
      .where('u.rowid', '=', user.id)
      .where('e.entity', '=', entity)
      // A closed warehouse (statut 0) is no van any more.
      .where('e.statut', '<>', 0)
      .executeTakeFirst();
    return row ? Number(row.rowid) : null;
  }

  function internalOnly(user: Caller): void {
    if (user.fkSoc !== null && user.fkSoc !== undefined) throw new AppError('AUTH_RIGHT_MISSING');
  }

  function selectProducts(van: number | null) {
    return db
      .selectFrom('product as p')
      .leftJoin('c_units as u', 'u.rowid', 'p.fk_unit')
      .leftJoin('product_stock as s', (j) => j.onRef('s.fk_product', '=', 'p.rowid').on('s.fk_entrepot', '=', van ?? 0))
      .where('p.entity', '=', entity);
  }

  const columns = [
    'p.rowid',
    'p.ref',
    'p.label',
    'p.fk_product_type',
    'p.barcode',
    'p.fk_unit',
    'u.short_label as unit',
    'p.price',
    'p.tva_tx',
    'p.tobatch',
    'p.tosell',
    's.reel',
  ] as const;
  const stockable = productHasStockable ? sql<number>`p.stockable_product` : sql<number>`1`;

  return {
    /**
     * A page of the catalogue: on sale, searched by `q` (ref, label, barcode) or found by
     * `barcode`, by ref; or, with `changedSince`, what changed since (on sale or not), oldest first.
     */
    async list(
      user: Caller,
      query: { id?: number; q?: string; barcode?: string; changedSince?: string },
      page: { limit: number; offset: number },
    ): Promise<{ items: Product[]; total: number; sync_mark: string }> {
      internalOnly(user);
      const mark = await syncMark();
      const van = await vanOf(user);
      let base = selectProducts(van);
      if (query.changedSince !== undefined) {
        const since = markMinus(query.changedSince, SYNC_OVERLAP_S);
        // The product changed, or its stock in the van did (a stock movement leaves llx_product as it is when the total stays).
        base = base.where((eb) => eb.or([eb('p.tms', '>=', since), eb('s.tms', '>=', since)]));
      } else base = base.where('p.tosell', '=', 1);
      if (query.id !== undefined) base = base.where('p.rowid', '=', query.id);
      const q = query.q?.trim();
      if (q) base = base.where(() => anyContains(['p.ref', 'p.label', 'p.barcode'], q));
      if (query.barcode !== undefined) {
        const barcode = query.barcode.trim();
        if (!barcode)
          throw new AppError('VALIDATION_FAILED', {
            message: 'barcode leer',
            details: [{ field: 'querystring.barcode', message: 'empty' }],
          });
        base = base.where('p.barcode', '=', barcode);
      }
      const ordered =
        query.changedSince !== undefined ? base.orderBy('p.tms').orderBy('p.rowid') : base.orderBy('p.ref').orderBy('p.rowid');
      const [rows, count] = await Promise.all([
        ordered
          .select([...columns, stockable.as('stockable_product')])
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map((r) => toProduct(r as ProductRow, van !== null)), total: Number(count.n), sync_mark: mark };
    },

    /** The ids of everything on sale: a copy drops what is not among them. */
    async ids(user: Caller): Promise<{ ids: number[]; sync_mark: string }> {
      internalOnly(user);
      const mark = await syncMark();
      const rows = await db
        .selectFrom('product')
        .select('rowid')
        .where('entity', '=', entity)
        .where('tosell', '=', 1)
        .orderBy('rowid')
        .execute();
      return { ids: rows.map((r) => Number(r.rowid)), sync_mark: mark };
    },

    /** The product of a material line: on sale in this entity, else 404 PRODUCT_NOT_FOUND. */
    async forLine(user: Caller, id: number): Promise<LineProduct> {
      internalOnly(user);
      const row = (await selectProducts(null).select(columns).where('p.rowid', '=', id).where('p.tosell', '=', 1).executeTakeFirst()) as
        | ProductRow
        | undefined;
      if (!row) throw new AppError('PRODUCT_NOT_FOUND', { details: { fk_product: id } });
      return {
        id: Number(row.rowid),
        fkUnit: num(row.fk_unit),
        unit: row.unit,
        batch: batchKind(row),
      };
    },
  };
}

export type ProductService = ReturnType<typeof createProductService>;
