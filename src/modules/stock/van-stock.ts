/**
 * The parts of a visit out of the technicians' vans, when its report is finalized
 * (docs/dolibarr-writes.md, Stock out of the van): every material line of the report's object not
 * yet settled is settled exactly once, in the finalize's transaction. A product line leaves the van
 * of the technician who entered it (his default warehouse, llx_user.fk_warehouse) by a stock
 * movement as Dolibarr writes it (dolibarr/stock.ts) and keeps that movement's id
 * (`fk_stock_mouvement`); any other line is settled with 0 and the reason is said: free text, a
 * service, a product whose stock is not kept, a kit, no van, the module or the setting off, or a
 * Dolibarr rule that takes the same parts itself when the office validates the invoice (every part)
 * or the order or its shipment (the parts on the order: STOCK_CALCULATE_ON_*), so nothing leaves
 * the van twice.
 *
 * Settings (llx_const): BERICHT_STOCK_FROM_VAN (1, the default: when the report is finalized; 0:
 * never), and Dolibarr's own MAIN_MODULE_STOCK, MAIN_MODULE_PRODUCTBATCH, STOCK_SUPPORTS_SERVICES,
 * STOCK_DISALLOW_NEGATIVE_TRANSFER, STOCK_CALCULATE_ON_BILL, STOCK_CALCULATE_ON_VALIDATE_ORDER,
 * STOCK_CALCULATE_ON_SHIPMENT, STOCK_CALCULATE_ON_SHIPMENT_CLOSE, PRODUIT_SOUSPRODUITS and
 * INDEPENDANT_SUBPRODUCT_STOCK.
 */
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { forUpdate, fromDbDateTime } from '../../db/dialect.js';
import type { ColumnFitter } from '../../dolibarr/charset.js';
import { type ConstRepository, constOn } from '../../dolibarr/const.repository.js';
import { type StockShort, stockExit } from '../../dolibarr/stock.js';
import { AppError } from '../../errors.js';

export const STOCK_SETTINGS = [
  'BERICHT_STOCK_FROM_VAN',
  'MAIN_MODULE_STOCK',
  'MAIN_MODULE_PRODUCTBATCH',
  'STOCK_SUPPORTS_SERVICES',
  'STOCK_DISALLOW_NEGATIVE_TRANSFER',
  'STOCK_CALCULATE_ON_BILL',
  'STOCK_CALCULATE_ON_VALIDATE_ORDER',
  'STOCK_CALCULATE_ON_SHIPMENT',
  'STOCK_CALCULATE_ON_SHIPMENT_CLOSE',
  'PRODUIT_SOUSPRODUITS',
  'INDEPENDANT_SUBPRODUCT_STOCK',
] as const;

/** Why a line was settled without a movement. */
export type LeftReason =
  | 'free_text'
  | 'service'
  | 'no_stock_kept'
  | 'kit'
  | 'no_van'
  | 'product_gone'
  | 'stock_module_off'
  | 'setting_off'
  | 'dolibarr_bill'
  | 'dolibarr_order'
  | 'dolibarr_shipment';

/** A material line settled by a finalize, as the intervention and the invoice take it. */
export interface SettledLine {
  id: number;
  label: string;
  qty: number;
  unit: string | null;
  note: string | null;
  batch: string | null;
  /** When it was entered (Unix seconds). */
  at: number | null;
  product: { id: number; ref: string; label: string; service: boolean } | null;
}

export interface VanStockOutcome {
  /** Every line settled, in the order entered. */
  lines: SettledLine[];
  taken: Array<{
    line: number;
    label: string;
    qty: number;
    unit: string | null;
    ref: string;
    batch: string | null;
    warehouse: string;
    movement: number;
  }>;
  left: Array<{ line: number; label: string; reason: LeftReason }>;
}

/** The Dolibarr rule that takes a report's parts itself, if any: the office's invoice, or the order it is on. */
function dolibarrRule(settings: Map<string, string>, elementType: string): LeftReason | null {
  if (constOn(settings.get('STOCK_CALCULATE_ON_BILL'))) return 'dolibarr_bill';
  if (elementType === 'commande' && constOn(settings.get('STOCK_CALCULATE_ON_VALIDATE_ORDER'))) return 'dolibarr_order';
  if (
    elementType === 'commande' &&
    (constOn(settings.get('STOCK_CALCULATE_ON_SHIPMENT')) || constOn(settings.get('STOCK_CALCULATE_ON_SHIPMENT_CLOSE')))
  )
    return 'dolibarr_shipment';
  return null;
}

export function createVanStock(deps: {
  dialect: Dialect;
  entity: number;
  timeZone: string;
  consts: ConstRepository;
  /** Text into Dolibarr's columns fitted to their character set (charset.ts). */
  fitter: ColumnFitter;
  /** llx_user.fk_warehouse exists (Dolibarr 13 and later). */
  userHasWarehouse: boolean;
  /** llx_product.stockable_product exists (newer Dolibarr versions). */
  productHasStockable: boolean;
}) {
  const { dialect, entity, timeZone } = deps;

  return {
    /** The settings, read before the transaction (they are the office's, not the visit's). */
    settings: () => deps.consts.getMany(STOCK_SETTINGS),

    /**
     * Settles the printed lines of `report`'s object not yet settled, in `trx`; refuses (409 STOCK_INSUFFICIENT, nothing
     * written) where Dolibarr refuses an exit below zero.
     */
    async settle(
      trx: Db,
      settings: Map<string, string>,
      report: { id: number; ref: string; element_type: string; fk_element: number },
      userId: number,
      /** The material lines the report's PDF printed not yet settled (their ids): those it settles. */
      printed: number[],
    ): Promise<VanStockOutcome> {
      // The lines the PDF printed, locked; one deleted meanwhile, or settled meanwhile by another
      // report of the object, means render again. A line added meanwhile is not printed, so it waits
      // for the next report.
      const lines =
        printed.length === 0
          ? []
          : await (() => {
              const query = trx
                .selectFrom('bericht_material')
                .select(['rowid', 'label', 'qty', 'unit', 'note', 'datec', 'fk_product', 'batch', 'fk_user_creat', 'fk_stock_mouvement'])
                .where('entity', '=', entity)
                .where('element_type', '=', report.element_type)
                .where('fk_element', '=', report.fk_element)
                .where('rowid', 'in', printed)
                .orderBy('rowid');
              return forUpdate(dialect, query).execute();
            })();
      if (lines.length !== printed.length || lines.some((r) => r.fk_stock_mouvement !== null))
        throw new AppError('CONFLICT', { message: 'Das Material wurde während des Abschließens geändert; bitte erneut abschließen' });
      const outcome: VanStockOutcome = { lines: [], taken: [], left: [] };
      if (lines.length === 0) return outcome;

      const settle = (line: number, movement: number) =>
        trx
          .updateTable('bericht_material')
          .set({ fk_stock_mouvement: movement, fk_bericht: report.id })
          .where('rowid', '=', line)
          .execute();
      const leave = async (line: (typeof lines)[number], reason: LeftReason) => {
        await settle(Number(line.rowid), 0);
        outcome.left.push({ line: Number(line.rowid), label: line.label, reason });
      };

      const whole: LeftReason | null = !constOn(settings.get('MAIN_MODULE_STOCK'))
        ? 'stock_module_off'
        : (settings.get('BERICHT_STOCK_FROM_VAN') ?? '1').trim() === '0'
          ? 'setting_off'
          : null;
      const rule = dolibarrRule(settings, report.element_type);
      // The products on the order (llx_commandedet): what an order's own stock rule takes.
      const onOrder = new Set(
        rule === 'dolibarr_order' || rule === 'dolibarr_shipment'
          ? (
              await trx
                .selectFrom('commandedet')
                .select('fk_product')
                .where('fk_commande', '=', report.fk_element)
                .where('fk_product', 'is not', null)
                .execute()
            ).map((r) => Number(r.fk_product))
          : [],
      );
      const productIds = [
        ...new Set(
          lines
            .map((l) => l.fk_product)
            .filter((id): id is number => id !== null)
            .map(Number),
        ),
      ];
      const products = new Map(
        (productIds.length === 0
          ? []
          : await trx
              .selectFrom('product')
              .select([
                'rowid',
                'ref',
                'label',
                'fk_product_type',
                'tobatch',
                ...(deps.productHasStockable ? (['stockable_product'] as const) : []),
              ])
              .where('rowid', 'in', productIds)
              .where('entity', '=', entity)
              .execute()
        ).map((p) => [Number(p.rowid), p as typeof p & { stockable_product?: number }]),
      );
      const kits =
        constOn(settings.get('PRODUIT_SOUSPRODUITS')) && productIds.length > 0 && !whole
          ? new Set(
              (
                await trx.selectFrom('product_association').select('fk_product_pere').where('fk_product_pere', 'in', productIds).execute()
              ).map((r) => Number(r.fk_product_pere)),
            )
          : new Set<number>();
      const authors = [...new Set(lines.map((l) => Number(l.fk_user_creat)))];
      const vans = new Map(
        (!deps.userHasWarehouse || whole
          ? []
          : await trx
              .selectFrom('user as u')
              .innerJoin('entrepot as e', 'e.rowid', 'u.fk_warehouse')
              .select(['u.rowid as user', 'e.rowid as id', 'e.ref'])
              .where('u.rowid', 'in', authors)
              .where('e.entity', '=', entity)
              // A closed warehouse (statut 0) is no van any more.
              .where('e.statut', '<>', 0)
              .execute()
        ).map((r) => [Number(r.user), { id: Number(r.id), ref: r.ref }]),
      );
      const batches = constOn(settings.get('MAIN_MODULE_PRODUCTBATCH'));
      const services = constOn(settings.get('STOCK_SUPPORTS_SERVICES'));
      const refuseNegative = constOn(settings.get('STOCK_DISALLOW_NEGATIVE_TRANSFER'));
      const short: StockShort[] = [];

      for (const line of lines) {
        const known = line.fk_product === null ? undefined : products.get(Number(line.fk_product));
        outcome.lines.push({
          id: Number(line.rowid),
          label: line.label,
          qty: Number(line.qty),
          unit: line.unit,
          note: line.note,
          batch: line.batch,
          at: fromDbDateTime(line.datec),
          product: known
            ? { id: Number(known.rowid), ref: known.ref, label: known.label, service: Number(known.fk_product_type) === 1 }
            : null,
        });
        if (whole) {
          await leave(line, whole);
          continue;
        }
        if (line.fk_product === null) {
          await leave(line, 'free_text');
          continue;
        }
        const product = products.get(Number(line.fk_product));
        if (!product) {
          await leave(line, 'product_gone');
          continue;
        }
        if (Number(product.fk_product_type) === 1 && !services) {
          await leave(line, 'service');
          continue;
        }
        if (product.stockable_product !== undefined && Number(product.stockable_product) === 0) {
          await leave(line, 'no_stock_kept');
          continue;
        }
        if (kits.has(Number(product.rowid))) {
          await leave(line, 'kit');
          continue;
        }
        // The invoice's rule takes every part; an order's rule only what is on the order (Dolibarr never takes the rest).
        if (rule === 'dolibarr_bill' || (rule && onOrder.has(Number(product.rowid)))) {
          await leave(line, rule);
          continue;
        }
        const van = vans.get(Number(line.fk_user_creat));
        if (!van) {
          await leave(line, 'no_van');
          continue;
        }
        const withBatch = batches && Number(product.tobatch) > 0;
        const result = await stockExit(trx, dialect, {
          product: { id: Number(product.rowid), ref: product.ref, batch: withBatch },
          warehouse: van,
          qty: Number(line.qty),
          batch: withBatch ? line.batch : null,
          // llx_stock_mouvement.label is varchar(255), in Dolibarr's character set.
          label: await deps.fitter.fit('stock_mouvement', 'label', [...`Bericht ${report.ref}: ${line.label}`].slice(0, 255).join('')),
          origin: { type: report.element_type, id: report.fk_element },
          userId,
          entity,
          timeZone,
          refuseNegative,
        });
        if ('short' in result) {
          short.push(result.short);
          continue;
        }
        await settle(Number(line.rowid), result.movement);
        outcome.taken.push({
          line: Number(line.rowid),
          label: line.label,
          qty: Number(line.qty),
          unit: line.unit,
          ref: product.ref,
          batch: withBatch ? line.batch : null,
          warehouse: van.ref,
          movement: result.movement,
        });
      }
      if (short.length > 0) throw new AppError('STOCK_INSUFFICIENT', { details: { short } });
      return outcome;
    },
  };
}

export type VanStock = ReturnType<typeof createVanStock>;

/** Why a line did not leave the van, as Dolibarr's agenda says it (German, as the event's other lines). */
const LEFT_WORDS: Record<LeftReason, string> = {
  free_text: 'Freitext',
  service: 'Dienstleistung',
  no_stock_kept: 'ohne Lagerführung',
  kit: 'Bausatz (PRODUIT_SOUSPRODUITS): nicht gebucht, bitte seine Teile im Dolibarr buchen',
  no_van: 'kein Fahrzeuglager beim Techniker',
  product_gone: 'Artikel nicht mehr vorhanden',
  stock_module_off: 'Modul Lager aus',
  setting_off: 'Buchung aus dem Fahrzeug abgeschaltet (BERICHT_STOCK_FROM_VAN)',
  dolibarr_bill: 'bucht Dolibarr bei der Freigabe der Rechnung (STOCK_CALCULATE_ON_BILL)',
  dolibarr_order: 'bucht Dolibarr mit dem Auftrag (STOCK_CALCULATE_ON_VALIDATE_ORDER)',
  dolibarr_shipment: 'bucht Dolibarr mit der Lieferung (STOCK_CALCULATE_ON_SHIPMENT)',
};

const qtyText = (qty: number) => String(qty).replace('.', ',');

/** The lines of the finalize's agenda event that say what left which van, and what did not and why. */
export function vanStockNote(outcome: VanStockOutcome): string[] {
  const out: string[] = [];
  for (const t of outcome.taken)
    out.push(
      `Aus ${t.warehouse} gebucht: ${qtyText(t.qty)}${t.unit ? ` ${t.unit}` : ''} ${t.ref} ${t.label}${t.batch ? ` (Charge/Serie ${t.batch})` : ''}`,
    );
  for (const l of outcome.left) out.push(`Nicht aus dem Fahrzeug gebucht: ${l.label} (${LEFT_WORDS[l.reason]})`);
  return out;
}
