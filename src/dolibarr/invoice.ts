/**
 * A draft customer invoice and its lines, written as Dolibarr 22's own PHP writes them
 * (compta/facture/class/facture.class.php, core/lib/price.lib.php; the rows kept in
 * test/fixtures/dolibarr22/invoice.json, docs/dolibarr-writes.md):
 *
 * - `Facture::create`: `ref` '(PROV)' then '(PROV<id>)', a standard invoice (`type` 0) in draft,
 *   the customer, `datec` now, `datef` the day, the customer's payment terms and mode with
 *   `date_lim_reglement` as calculate_date_lim_reglement gives it, the module's PDF model, the
 *   order's project, the company's currency at rate 1, then its links in `llx_element_element`;
 * - `Facture::addline` (prices without tax): `rang` the last + 1, the totals as
 *   `calcul_price_total` rounds them (the line's net total and its total with tax each rounded
 *   from the exact amount, the tax their difference), the same in the invoice's currency;
 * - `Facture::update_price`: the invoice's totals as the sums of its lines.
 *
 * The service never validates or numbers an invoice; Dolibarr does, when the clerk validates it.
 */
import { sql } from 'kysely';
import type { Dialect } from '../config.js';
import type { Db } from '../db/database.js';
import { forUpdate, insertId } from '../db/dialect.js';
import { DEFAULT_TOTAL_DECIMALS, roundTotal } from './price.js';

const NOW = sql<string>`current_timestamp`;

export interface NewInvoice {
  entity: number;
  socId: number;
  userId: number;
  refExt: string;
  refClient: string | null;
  projectId: number | null;
  /** llx_c_payment_term and llx_c_paiement ids; 0 for none. */
  paymentTerm: number;
  paymentMode: number;
  modelPdf: string | null;
  /** The company's currency (MAIN_MONNAIE). */
  currency: string;
  /** Dolibarr's wall time now, and the invoice's day ('YYYY-MM-DD'). */
  datec: string;
  day: string;
  links: Array<{ type: string; id: number }>;
}

/** The day a payment is due, as CommonInvoice::calculate_date_lim_reglement gives it for `day` ('YYYY-MM-DD'). */
export function dueDay(day: string, term: { type_cdr: number | null; nbjour: number | null; decalage: number | null } | undefined): string {
  if (!term) return day;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const at = (date: Date) => date.toISOString().slice(0, 10);
  const plus = new Date(Date.UTC(y, m - 1, d + Number(term.nbjour ?? 0)));
  const type = Number(term.type_cdr ?? 0);
  if (type === 1) {
    // The end of the month the days lead to, then the offset.
    const end = new Date(Date.UTC(plus.getUTCFullYear(), plus.getUTCMonth() + 1, 0 + Number(term.decalage ?? 0)));
    return at(end);
  }
  if (type === 2 && term.decalage) {
    const current = new Date(Date.UTC(plus.getUTCFullYear(), plus.getUTCMonth(), Number(term.decalage)));
    return plus.getTime() - current.getTime() < 0
      ? at(current)
      : at(new Date(Date.UTC(plus.getUTCFullYear(), plus.getUTCMonth() + 1, Number(term.decalage))));
  }
  return at(new Date(plus.getTime() + Number(term.decalage ?? 0) * 86400000));
}

export async function createDraftInvoice(
  trx: Db,
  dialect: Dialect,
  inv: NewInvoice & { dueDay: string },
): Promise<{ id: number; ref: string }> {
  const id = await insertId(
    dialect,
    trx.insertInto('facture').values({
      ref: '(PROV)',
      entity: inv.entity,
      ref_ext: inv.refExt,
      type: 0,
      subtype: null,
      fk_soc: inv.socId,
      datec: inv.datec,
      datef: inv.day,
      date_pointoftax: null,
      note_private: null,
      note_public: null,
      ref_client: inv.refClient || null,
      fk_account: null,
      module_source: null,
      pos_source: null,
      fk_fac_rec_source: null,
      fk_facture_source: null,
      fk_user_author: inv.userId,
      fk_projet: inv.projectId && inv.projectId > 0 ? inv.projectId : null,
      fk_cond_reglement: inv.paymentTerm,
      fk_mode_reglement: inv.paymentMode,
      date_lim_reglement: inv.dueDay,
      model_pdf: inv.modelPdf,
      fk_input_reason: null,
      situation_cycle_ref: null,
      situation_counter: null,
      situation_final: 0,
      fk_incoterms: 0,
      location_incoterms: '',
      fk_multicurrency: 0,
      multicurrency_code: inv.currency,
      multicurrency_tx: 1,
      retained_warranty: 0,
      retained_warranty_date_limit: null,
      retained_warranty_fk_cond_reglement: 0,
      fk_statut: 0,
      paye: 0,
      tms: NOW,
    } as never),
  );
  const ref = `(PROV${id})`;
  await trx.updateTable('facture').set({ ref }).where('rowid', '=', id).execute();
  for (const link of inv.links) await linkInvoice(trx, dialect, link, id);
  return { id, ref };
}

/** The link source → invoice (CommonObject::add_object_linked), unless there. */
export async function linkInvoice(trx: Db, dialect: Dialect, source: { type: string; id: number }, invoice: number): Promise<void> {
  // A locking read sees what committed after the transaction's snapshot (MariaDB's REPEATABLE READ).
  const query = trx
    .selectFrom('element_element')
    .select('rowid')
    .where('fk_source', '=', source.id)
    .where('sourcetype', '=', source.type)
    .where('fk_target', '=', invoice)
    .where('targettype', '=', 'facture');
  const there = await forUpdate(dialect, query).executeTakeFirst();
  if (!there)
    await trx
      .insertInto('element_element')
      .values({ fk_source: source.id, sourcetype: source.type, fk_target: invoice, targettype: 'facture' })
      .execute();
}

export interface InvoiceLine {
  description: string;
  /** Unit price without tax. */
  price: number;
  qty: number;
  vat: number;
  discount: number;
  productId: number | null;
  /** 0 product, 1 service. */
  productType: number;
  unitId: number | null;
}

/** A line's totals as calcul_price_total gives them for a price without tax (no local taxes, no global discount). */
export function lineTotals(
  line: Pick<InvoiceLine, 'price' | 'qty' | 'vat' | 'discount'>,
  decimals = DEFAULT_TOTAL_DECIMALS,
): { ht: number; tva: number; ttc: number } {
  const net = line.price * line.qty * (1 - line.discount / 100);
  const ht = roundTotal(net, decimals);
  const ttc = roundTotal(net * (1 + line.vat / 100), decimals);
  return { ht, tva: roundTotal(ttc - ht, decimals), ttc };
}

/** The invoice's lines, locked: a locking read sees what committed after the transaction's snapshot. */
function linesOf(trx: Db, dialect: Dialect, invoice: number) {
  const query = trx
    .selectFrom('facturedet')
    .select(['rowid', 'rang', 'total_ht', 'total_tva', 'total_ttc'])
    .where('fk_facture', '=', invoice);
  return forUpdate(dialect, query).execute();
}

export async function addInvoiceLine(
  trx: Db,
  dialect: Dialect,
  invoice: number,
  userId: number,
  currency: string,
  line: InvoiceLine,
  decimals = DEFAULT_TOTAL_DECIMALS,
): Promise<number> {
  const last = Math.max(0, ...(await linesOf(trx, dialect, invoice)).map((l) => Number(l.rang ?? 0)));
  const totals = lineTotals(line, decimals);
  return insertId(
    dialect,
    trx.insertInto('facturedet').values({
      fk_facture: invoice,
      fk_parent_line: null,
      fk_product: line.productId,
      label: null,
      description: line.description,
      vat_src_code: '',
      tva_tx: line.vat,
      localtax1_tx: 0,
      localtax1_type: '0',
      localtax2_tx: 0,
      localtax2_type: '0',
      qty: line.qty,
      remise_percent: line.discount,
      remise: 0,
      subprice: line.price,
      subprice_ttc: 0,
      price: null,
      total_ht: totals.ht,
      total_tva: totals.tva,
      total_localtax1: 0,
      total_localtax2: 0,
      total_ttc: totals.ttc,
      product_type: line.productType,
      info_bits: 0,
      buy_price_ht: 0,
      batch: '',
      fk_warehouse: 0,
      special_code: 0,
      rang: last + 1,
      fk_unit: line.unitId,
      fk_code_ventilation: 0,
      situation_percent: 100,
      fk_user_author: userId,
      fk_user_modif: userId,
      fk_multicurrency: 0,
      multicurrency_code: currency,
      multicurrency_subprice: line.price,
      multicurrency_subprice_ttc: 0,
      multicurrency_total_ht: totals.ht,
      multicurrency_total_tva: totals.tva,
      multicurrency_total_ttc: totals.ttc,
      ref_ext: '',
    }),
  );
}

/** The invoice's totals as the sums of its lines (Facture::update_price). */
export async function updateInvoiceTotals(
  trx: Db,
  dialect: Dialect,
  invoice: number,
  decimals = DEFAULT_TOTAL_DECIMALS,
): Promise<{ ht: number; tva: number; ttc: number }> {
  const lines = await linesOf(trx, dialect, invoice);
  const sum = (key: 'total_ht' | 'total_tva' | 'total_ttc') =>
    roundTotal(
      lines.reduce((n, l) => n + Number(l[key] ?? 0), 0),
      decimals,
    );
  const [ht, tva, ttc] = [sum('total_ht'), sum('total_tva'), sum('total_ttc')];
  await trx
    .updateTable('facture')
    .set({
      total_ht: ht,
      total_tva: tva,
      total_ttc: ttc,
      localtax1: 0,
      localtax2: 0,
      multicurrency_total_ht: ht,
      multicurrency_total_tva: tva,
      multicurrency_total_ttc: ttc,
      tms: NOW,
    } as never)
    .where('rowid', '=', invoice)
    .execute();
  return { ht, tva, ttc };
}
