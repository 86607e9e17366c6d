/**
 * Material lines of an order, invoice, proposal or intervention (contract endpoint 22). The caller must see the
 * object (docs/architecture.md, Visibility): an object it may not see, and the lines of one, are "not found".
 * A line may be added with an Idempotency-Key (the app sends lines from an offline queue and
 * repeats one whose answer was lost): the line and the key's answer are written in one
 * transaction, so a repeat finds both or neither, never a line without its answer.
 */
import type { RunRegistry } from '../../adapters/runs.js';
import type { Db } from '../../db/database.js';
import type { Dialect } from '../../config.js';
import { fromDbDateTime, insertId, toDbDateTime } from '../../db/dialect.js';
import type { ElementType } from '../../dolibarr/documents.js';
import { AppError } from '../../errors.js';
import { notFoundCode, type Caller, type ElementAccess } from '../access/element-access.js';
import { idempotent } from '../common/idempotency.js';
import type { LineProduct, ProductService } from '../products/products.service.js';
import { MATERIAL_ELEMENT_TYPES, QTY_DECIMALS, type CreateMaterialBody, type Material } from './materials.schemas.js';

interface MaterialRow {
  rowid: number;
  element_type: string;
  fk_element: number;
  label: string;
  qty: number | string;
  unit: string | null;
  note: string | null;
  fk_user_creat: number;
  datec: string | null;
  fk_product: number | null;
  fk_unit: number | null;
  batch: string | null;
  fk_stock_mouvement: number | null;
  fk_bericht: number | null;
}

function toMaterial(row: MaterialRow): Material {
  return {
    id: Number(row.rowid),
    element_type: row.element_type,
    fk_element: Number(row.fk_element),
    label: row.label,
    qty: Number(row.qty),
    unit: row.unit,
    note: row.note,
    fk_user_creat: Number(row.fk_user_creat),
    datec: fromDbDateTime(row.datec),
    fk_product: row.fk_product === null ? null : Number(row.fk_product),
    fk_unit: row.fk_unit === null ? null : Number(row.fk_unit),
    batch: row.batch,
    fk_stock_mouvement: row.fk_stock_mouvement === null ? null : Number(row.fk_stock_mouvement),
    fk_bericht: row.fk_bericht === null ? null : Number(row.fk_bericht),
  };
}

/** Free text as stored: trimmed, empty is null. */
const text = (value: string | null | undefined) => (value === undefined || value === null || value.trim() === '' ? null : value.trim());

/**
 * A line's product against what came with it: a lot or serial number exactly where the product
 * keeps them (a serial number is one piece), and no unit other than the product's.
 */
function checkProductLine(product: LineProduct | undefined, line: { batch: string | null; unit: string | null; qty: number }): void {
  const refuse = (field: string, message: string, why: string) =>
    new AppError('VALIDATION_FAILED', { message, details: [{ field: `body.${field}`, message: why }] });
  if (product?.batch && !line.batch) throw new AppError('BATCH_REQUIRED', { details: [{ field: 'body.batch', message: 'required' }] });
  if (line.batch && !product?.batch)
    throw refuse(
      'batch',
      'batch nur für einen Artikel mit Charge oder Seriennummer',
      'only for a product that keeps lots or serial numbers',
    );
  if (product?.batch === 'serial' && line.qty !== 1)
    throw refuse('qty', 'qty 1 für einen Artikel mit Seriennummer (eine Position je Nummer)', 'a serial number is one piece: 1');
  if (product?.unit && line.unit && line.unit !== product.unit)
    throw refuse('unit', `unit ist beim Artikel ${product.unit}`, `the product's unit is ${product.unit}`);
}

export function createMaterialService(deps: {
  db: Db;
  dialect: Dialect;
  access: ElementAccess;
  entity: number;
  runs: Pick<RunRegistry, 'state'>;
  products: Pick<ProductService, 'forLine'>;
}) {
  const { db, dialect, access, entity, runs, products } = deps;

  async function visibleElement(user: Caller, type: ElementType, id: number) {
    const element = await access.getById(type, id, user);
    if (!element) throw new AppError(notFoundCode(type));
    return element;
  }

  return {
    async list(user: Caller, type: ElementType, id: number, page: { limit: number; offset: number }) {
      await visibleElement(user, type, id);
      const base = db
        .selectFrom('bericht_material')
        .where('entity', '=', entity)
        .where('element_type', '=', type)
        .where('fk_element', '=', id);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('rowid').limit(page.limit).offset(page.offset).execute(),
        base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map((r) => toMaterial(r as MaterialRow)), total: Number(count.n) };
    },

    /** Adds a line; with `idempotencyKey`, a repeat answers the line the key added first (common/idempotency.ts). */
    async create(user: Caller, body: CreateMaterialBody, idempotencyKey?: string): Promise<Material> {
      // Decimal places beyond QTY_DECIMALS would be lost silently in a report; refuse them instead.
      const scaled = body.qty * 10 ** QTY_DECIMALS;
      if (Math.abs(scaled - Math.round(scaled)) > 1e-6) {
        throw new AppError('VALIDATION_FAILED', {
          message: `qty mit höchstens ${QTY_DECIMALS} Nachkommastellen`,
          details: [{ field: 'body.qty', message: `at most ${QTY_DECIMALS} decimal places` }],
        });
      }
      const label = body.label.trim();
      if (!label)
        throw new AppError('VALIDATION_FAILED', { message: 'label erforderlich', details: [{ field: 'body.label', message: 'required' }] });
      await visibleElement(user, body.element_type, body.fk_element);
      const scope = `material:${body.element_type}:${body.fk_element}`;
      return idempotent({ db, runs }, { entity, userId: user.id, key: idempotencyKey, scope }, async (claim) => {
        // A line of the catalogue (checked once the key is claimed: a repeat of a line whose product
        // went off sale since gets its first answer): its product on sale, its unit, its lot or
        // serial number where it keeps them.
        const product = body.fk_product ? await products.forLine(user, body.fk_product) : undefined;
        const batch = text(body.batch);
        const unit = text(body.unit);
        checkProductLine(product, { batch, unit, qty: body.qty });
        return db.transaction().execute(async (trx) => {
          const id = await insertId(
            dialect,
            trx.insertInto('bericht_material').values({
              entity,
              element_type: body.element_type,
              fk_element: body.fk_element,
              label,
              qty: Math.round(scaled) / 10 ** QTY_DECIMALS,
              unit: unit ?? product?.unit ?? null,
              note: text(body.note),
              fk_product: product?.id ?? null,
              fk_unit: product?.fkUnit ?? null,
              batch,
              fk_user_creat: user.id,
              datec: toDbDateTime(),
            }),
          );
          const material = toMaterial(
            (await trx.selectFrom('bericht_material').selectAll().where('rowid', '=', id).executeTakeFirstOrThrow()) as MaterialRow,
          );
          await claim?.complete(201, material, trx);
          return material;
        });
      });
    },

    async remove(user: Caller, id: number): Promise<{ id: number; deleted: true }> {
      const row = await db
        .selectFrom('bericht_material')
        .selectAll()
        .where('rowid', '=', id)
        .where('entity', '=', entity)
        .executeTakeFirst();
      const visible =
        row &&
        MATERIAL_TYPES.has(row.element_type) &&
        (await access.getById(row.element_type as ElementType, Number(row.fk_element), user));
      if (!row || !visible) throw new AppError('MATERIAL_NOT_FOUND');
      // Out of the van, the line stays with its movement: the office corrects stock in Dolibarr. On a
      // final report at all (settled), it stays as the signed report shows it, to be billed from it.
      const settled = (movement: number | null) =>
        movement === null
          ? undefined
          : movement > 0
            ? new AppError('MATERIAL_TAKEN', { details: { stock_movement: movement } })
            : new AppError('MATERIAL_REPORTED');
      const refused = settled(row.fk_stock_mouvement === null ? null : Number(row.fk_stock_mouvement));
      if (refused) throw refused;
      const gone = await db
        .deleteFrom('bericht_material')
        .where('rowid', '=', id)
        .where('fk_stock_mouvement', 'is', null)
        .executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) {
        // Settled by a finalize meanwhile, or deleted by another request.
        const still = await db.selectFrom('bericht_material').select('fk_stock_mouvement').where('rowid', '=', id).executeTakeFirst();
        if (!still) throw new AppError('MATERIAL_NOT_FOUND');
        throw settled(still.fk_stock_mouvement === null ? null : Number(still.fk_stock_mouvement)) ?? new AppError('CONFLICT');
      }
      return { id, deleted: true };
    },
  };
}

const MATERIAL_TYPES = new Set<string>(MATERIAL_ELEMENT_TYPES);

export type MaterialService = ReturnType<typeof createMaterialService>;
