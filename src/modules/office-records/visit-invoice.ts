/**
 * A draft invoice of the visit, one tap away for the office (docs/dolibarr-writes.md, A draft
 * invoice): in the finalize's transaction, a report on an order makes a draft customer invoice
 * linked to the order and to the visit's intervention, or completes the draft one an earlier
 * report of the order made (found by its `ref_ext` while the clerk has not validated it). Its new
 * lines: the labour, one line per technician as Dolibarr's time billing adds it (the service named
 * by BERICHT_LABOUR_SERVICE; hours divided by the service's duration, rounded to 2 decimals), and
 * a line per material line the report settles, at the price Dolibarr picks: the order line's price
 * and discount where the product is on the order, else Product::getSellPrice's for the customer
 * (a price of the customer, PRODUIT_CUSTOMER_PRICES; the customer's level, PRODUIT_MULTIPRICES;
 * else the product's), with the VAT rate get_default_tva gives; a line of free text at 0, for the
 * clerk to price. The service never validates, numbers or logs an invoice: the clerk does in Dolibarr.
 *
 * Settings (llx_const): BERICHT_INVOICE_FROM_REPORT (1, the default; 0: the draft is left to the
 * clerk), BERICHT_LABOUR_SERVICE (the ref of the labour service), and Dolibarr's own.
 */
import { sql } from 'kysely';
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { forUpdate } from '../../db/dialect.js';
import { addInvoiceLine, createDraftInvoice, dueDay, type InvoiceLine, linkInvoice, updateInvoiceTotals } from '../../dolibarr/invoice.js';
import type { ColumnFitter } from '../../dolibarr/charset.js';
import { constOn } from '../../dolibarr/const.repository.js';
import { roundTotal, totalDecimals } from '../../dolibarr/price.js';
import { toDolibarrDateTime } from '../../dolibarr/time.js';
import type { SettledLine } from '../stock/van-stock.js';
import type { TimeInterval } from '../times/times.schemas.js';
import { html, REF_EXT_PREFIX } from './visit-intervention.js';

/**
 * A line's text from a technician's words: plain lines, as the office types them; where they hold
 * `<`, `>` or `&`, HTML with those escaped and the line breaks as <br>, since Dolibarr prints a text
 * that looks like HTML as HTML (the module's button writes the same).
 */
export const lineText = (text: string): string => (/[<>&]/.test(text) ? html(text) : text);

export const INVOICE_SETTINGS = [
  'BERICHT_INVOICE_FROM_REPORT',
  'BERICHT_LABOUR_SERVICE',
  'MAIN_MODULE_FACTURE',
  'FACTURE_ADDON_PDF',
  'MAIN_MONNAIE',
  'MAIN_INFO_SOCIETE_COUNTRY',
  'FACTURE_TVAOPTION',
  'PRODUIT_MULTIPRICES',
  'PRODUIT_CUSTOMER_PRICES',
  'PRODUIT_CUSTOMER_PRICES_AND_MULTIPRICES',
  'MAIN_UNKNOWN_CUSTOMERS_ARE_COMPANIES',
  'MAIN_MAX_DECIMALS_TOT',
] as const;

/** The member states of the European Union by ISO code (Dolibarr's c_country.eec). */
const EEC = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK MC'.split(' '));

/** A product's duration in hours, as Product::getProductDurationHours reads `duration` ('1h', '30i', '2d'; a month is 30 days); null without one. */
export function durationHours(duration: string | null | undefined): number | null {
  const match = /^(\d+(?:\.\d+)?)(s|i|mn|min|h|d|w|m|y)$/.exec((duration ?? '').trim());
  if (!match) return null;
  const value = Number(match[1]);
  const per: Record<string, number> = { s: 1 / 3600, i: 1 / 60, mn: 1 / 60, min: 1 / 60, h: 1, d: 24, w: 24 * 7, m: 24 * 30, y: 24 * 365 };
  return value > 0 ? value * per[match[2]!]! : null;
}

/** Seconds as Dolibarr's convertSecondToTime(…, 'all') prints a duration below a day: 02:15. */
export function hoursText(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  const hm = `${String(Math.floor(rest / 3600)).padStart(2, '0')}:${String(Math.floor((rest % 3600) / 60)).padStart(2, '0')}`;
  return days > 0 ? `${days} ${days === 1 ? 'Tag' : 'Tage'} ${hm}` : hm;
}

interface Buyer {
  id: number;
  priceLevel: number | null;
  country: string | null;
  /** Societe::isACompany: a VAT number or a professional id, else not marked as a private person (MAIN_UNKNOWN_CUSTOMERS_ARE_COMPANIES, 1 by default). */
  company: boolean;
}

export interface VisitInvoiceInput {
  report: { ref: string; element_type: string; fk_element: number };
  userId: number;
  intervals: TimeInterval[];
  lines: SettledLine[];
  /** The intervention the visit made or completed, linked to the invoice too. */
  intervention: { id: number } | null;
}

export interface VisitInvoiceOutcome {
  invoice: { id: number; ref: string; made: boolean; total_ht: number } | null;
  note: string[];
}

export function createVisitInvoice(deps: {
  dialect: Dialect;
  entity: number;
  timeZone: string;
  orderHasProject: boolean;
  /** Dolibarr's countries are there (a real Dolibarr; the standalone database keeps none: every customer counts as the company's country). */
  hasCountries: boolean;
  /** Text into Dolibarr's columns fitted to their character set (charset.ts): a phone's text may hold emoji. */
  fitter: ColumnFitter;
}) {
  const { dialect, entity, timeZone } = deps;
  const lock = <Q extends { forUpdate(): Q }>(query: Q) => forUpdate(dialect, query);

  /** The VAT rate of a product for this buyer, as get_default_tva gives it for the usual cases. */
  function vatFor(settings: Map<string, string>, buyer: Buyer, productRate: number): number {
    const option = (settings.get('FACTURE_TVAOPTION') ?? '1').trim();
    if (option === '0' || option === 'franchise') return 0; // the seller is not liable for VAT
    const seller = (settings.get('MAIN_INFO_SOCIETE_COUNTRY') ?? '').split(':')[1] ?? null;
    if (!seller || !buyer.country || seller === buyer.country) return productRate;
    if (EEC.has(seller) && EEC.has(buyer.country)) return buyer.company ? 0 : productRate; // within the EU: reverse charge for a business
    return 0; // outside the EU
  }

  /** The price Dolibarr picks for a product and this buyer (Product::getSellPrice). */
  async function sellPrice(
    trx: Db,
    settings: Map<string, string>,
    buyer: Buyer,
    product: ProductRow,
  ): Promise<{ price: number; vat: number }> {
    let price = Number(product.price ?? 0);
    let vat = vatFor(settings, buyer, Number(product.tva_tx ?? 0));
    const customerPrice = async () => {
      const today = toDolibarrDateTime(new Date(), timeZone).slice(0, 10);
      const rows = await trx
        .selectFrom('product_customer_price')
        .select(['price', 'tva_tx', 'date_begin', 'date_end'])
        .where('fk_product', '=', product.rowid)
        .where('fk_soc', '=', buyer.id)
        .orderBy('date_begin', 'desc')
        .orderBy('rowid', 'desc')
        .execute();
      return rows.find(
        (r) => (!r.date_begin || String(r.date_begin).slice(0, 10) <= today) && (!r.date_end || today <= String(r.date_end).slice(0, 10)),
      );
    };
    const levelPrice = async (level: number) =>
      Number(
        (
          await trx
            .selectFrom('product_price')
            .select('price')
            .where('fk_product', '=', product.rowid)
            .where('price_level', '=', level)
            .orderBy('date_price', 'desc')
            .orderBy('rowid', 'desc')
            .limit(1)
            .executeTakeFirst()
        )?.price ?? 0,
      );
    if (constOn(settings.get('PRODUIT_CUSTOMER_PRICES_AND_MULTIPRICES'))) {
      const own = await customerPrice();
      if (own) return { price: Number(own.price ?? 0), vat: Number(own.tva_tx ?? 0) };
      if (buyer.priceLevel) price = await levelPrice(buyer.priceLevel);
    } else if (constOn(settings.get('PRODUIT_MULTIPRICES')) && buyer.priceLevel) {
      price = await levelPrice(buyer.priceLevel);
    } else if (constOn(settings.get('PRODUIT_CUSTOMER_PRICES'))) {
      const own = await customerPrice();
      if (own) {
        price = Number(own.price ?? 0);
        vat = Number(own.tva_tx ?? 0);
      }
    }
    return { price, vat };
  }

  interface ProductRow {
    rowid: number;
    ref: string;
    label: string;
    price: number | string | null;
    tva_tx: number | string | null;
    fk_product_type: number | string;
    fk_unit: number | null;
    duration: string | null;
  }
  const productColumns = ['rowid', 'ref', 'label', 'price', 'tva_tx', 'fk_product_type', 'fk_unit', 'duration'] as const;

  /** The draft invoice of the order this service made, locked; undefined when there is none. */
  async function draftOfOrder(trx: Db, order: number) {
    return lock(
      trx
        .selectFrom('facture as f')
        .innerJoin('element_element as ee', (j) =>
          j.onRef('ee.fk_target', '=', 'f.rowid').on('ee.targettype', '=', 'facture').on('ee.sourcetype', '=', 'commande'),
        )
        .select(['f.rowid', 'f.ref'])
        .where('ee.fk_source', '=', order)
        .where('f.entity', '=', entity)
        .where('f.fk_statut', '=', 0)
        .where('f.type', '=', 0)
        .where('f.ref_ext', 'like', `${REF_EXT_PREFIX}%`)
        .orderBy('f.rowid', 'desc')
        .limit(1),
    ).executeTakeFirst();
  }

  return {
    async record(trx: Db, settings: Map<string, string>, input: VisitInvoiceInput): Promise<VisitInvoiceOutcome> {
      const { report } = input;
      if (report.element_type !== 'commande') return { invoice: null, note: [] };
      if (!constOn(settings.get('MAIN_MODULE_FACTURE'))) return { invoice: null, note: [] };
      if ((settings.get('BERICHT_INVOICE_FROM_REPORT') ?? '1').trim() === '0')
        return { invoice: null, note: ['Kein Rechnungsentwurf (BERICHT_INVOICE_FROM_REPORT 0): die Rechnung macht das Büro'] };
      if (input.intervals.length === 0 && input.lines.length === 0) return { invoice: null, note: [] };

      // The order locked: two reports of it finalized at once make one draft.
      const order = await lock(
        trx.selectFrom('commande').select(['rowid', 'fk_soc', 'ref_client']).where('rowid', '=', report.fk_element),
      ).executeTakeFirst();
      if (!order) return { invoice: null, note: [] };
      const customer = await trx
        .selectFrom('societe')
        .select(['rowid', 'price_level', 'cond_reglement', 'mode_reglement', 'fk_pays', 'tva_intra', 'siren', 'siret', 'ape', 'idprof4'])
        .select((eb) =>
          (deps.hasCountries
            ? eb.selectFrom('c_typent as t').select('t.code').whereRef('t.id', '=', 'societe.fk_typent')
            : sql<string | null>`null`
          ).as('typent'),
        )
        .where('rowid', '=', order.fk_soc)
        .executeTakeFirst();
      const country =
        customer?.fk_pays && deps.hasCountries
          ? await trx.selectFrom('c_country').select('code').where('rowid', '=', customer.fk_pays).executeTakeFirst()
          : undefined;
      const buyer: Buyer = {
        id: Number(order.fk_soc),
        priceLevel: customer?.price_level ? Number(customer.price_level) : null,
        country: country?.code ?? null,
        company:
          Boolean(customer?.tva_intra?.trim()) ||
          [customer?.siren, customer?.siret, customer?.ape, customer?.idprof4].some((v) => Boolean(v?.trim())) ||
          ((settings.get('MAIN_UNKNOWN_CUSTOMERS_ARE_COMPANIES') ?? '1').trim() !== '0' &&
            !/^TE_PRIVATE/.test(String(customer?.typent ?? ''))),
      };
      const currency = settings.get('MAIN_MONNAIE') || 'EUR';
      const lines: InvoiceLine[] = [];
      const notes: string[] = [];

      // The order's lines: a product on the order keeps the order line's price, discount and VAT.
      const orderLines = await trx
        .selectFrom('commandedet')
        .select(['fk_product', 'subprice', 'remise_percent', 'tva_tx'])
        .where('fk_commande', '=', report.fk_element)
        .where('fk_product', 'is not', null)
        .orderBy('rang')
        .orderBy('rowid')
        .execute();
      const onOrder = new Map<number, (typeof orderLines)[number]>();
      for (const l of orderLines) if (!onOrder.has(Number(l.fk_product))) onOrder.set(Number(l.fk_product), l);
      const priceOf = async (product: ProductRow) => {
        const line = onOrder.get(Number(product.rowid));
        if (line) return { price: Number(line.subprice ?? 0), vat: Number(line.tva_tx ?? 0), discount: Number(line.remise_percent ?? 0) };
        return { ...(await sellPrice(trx, settings, buyer, product)), discount: 0 };
      };

      // Labour: one line per technician, as the time billing adds it.
      const labourRef = settings.get('BERICHT_LABOUR_SERVICE')?.trim();
      if (input.intervals.length > 0) {
        const labour = labourRef
          ? ((await trx
              .selectFrom('product')
              .select([...productColumns])
              .where('ref', '=', labourRef)
              .where('entity', '=', entity)
              .executeTakeFirst()) as unknown as ProductRow | undefined)
          : undefined;
        const hours = labour ? durationHours(labour.duration) : null;
        if (!labour)
          notes.push(
            `Arbeitszeit nicht berechnet: ${labourRef ? `keine Dienstleistung ${labourRef}` : 'BERICHT_LABOUR_SERVICE nicht gesetzt'}`,
          );
        else if (hours === null) notes.push(`Arbeitszeit nicht berechnet: die Dienstleistung ${labour.ref} hat keine Dauer`);
        else {
          const price = await priceOf(labour);
          const byUser = new Map<number, { name: string; seconds: number }>();
          for (const i of input.intervals) {
            const seen = byUser.get(i.fk_user) ?? { name: i.user_name, seconds: 0 };
            seen.seconds += i.seconds ?? 0;
            byUser.set(i.fk_user, seen);
          }
          for (const { name, seconds } of byUser.values())
            lines.push({
              description: `Zeitaufwand ${name} : ${hoursText(seconds)}`,
              price: price.price,
              qty: roundTotal(seconds / 3600 / hours, 2),
              vat: price.vat,
              discount: price.discount,
              productId: Number(labour.rowid),
              productType: 1,
              // As the time billing adds it: no unit of its own.
              unitId: null,
            });
        }
      }

      // The parts: each material line the report settles.
      const ids = [...new Set(input.lines.map((l) => l.product?.id).filter((id): id is number => id !== undefined))];
      const products = new Map(
        (ids.length === 0
          ? []
          : ((await trx
              .selectFrom('product')
              .select([...productColumns])
              .where('rowid', 'in', ids)
              .execute()) as unknown as ProductRow[])
        ).map((p) => [Number(p.rowid), p]),
      );
      for (const line of input.lines) {
        const product = line.product ? products.get(line.product.id) : undefined;
        const text = lineText(
          [product && line.label !== product.label ? line.label : '', line.batch ? `Charge/Serie: ${line.batch}` : '', line.note ?? '']
            .filter(Boolean)
            .join('\n'),
        );
        if (!product) {
          lines.push({
            description: lineText([line.label, line.note ?? '', '(Freitext: Preis und USt. prüfen)'].filter(Boolean).join('\n')),
            price: 0,
            qty: line.qty,
            vat: 0,
            discount: 0,
            productId: null,
            productType: 0,
            unitId: null,
          });
          continue;
        }
        const price = await priceOf(product);
        lines.push({
          description: text,
          price: price.price,
          qty: line.qty,
          vat: price.vat,
          discount: price.discount,
          productId: Number(product.rowid),
          productType: Number(product.fk_product_type) === 1 ? 1 : 0,
          unitId: product.fk_unit === null ? null : Number(product.fk_unit),
        });
      }
      if (lines.length === 0) return { invoice: null, note: notes };

      const draft = await draftOfOrder(trx, report.fk_element);
      let target: { id: number; ref: string; made: boolean };
      if (draft) target = { id: Number(draft.rowid), ref: draft.ref, made: false };
      else {
        const day = toDolibarrDateTime(new Date(), timeZone).slice(0, 10);
        const termId = customer?.cond_reglement ? Number(customer.cond_reglement) : 0;
        const term = termId
          ? await trx.selectFrom('c_payment_term').select(['type_cdr', 'nbjour', 'decalage']).where('rowid', '=', termId).executeTakeFirst()
          : undefined;
        const project = deps.orderHasProject
          ? ((await trx
              .selectFrom('commande')
              .select('fk_projet' as never)
              .where('rowid', '=', report.fk_element)
              .executeTakeFirst()) as { fk_projet: number | null } | undefined)
          : undefined;
        const made = await createDraftInvoice(trx, dialect, {
          entity,
          socId: Number(order.fk_soc),
          userId: input.userId,
          refExt: `${REF_EXT_PREFIX}${report.ref}`,
          refClient: order.ref_client,
          projectId: project?.fk_projet ? Number(project.fk_projet) : null,
          paymentTerm: termId,
          paymentMode: customer?.mode_reglement ? Number(customer.mode_reglement) : 0,
          modelPdf: settings.get('FACTURE_ADDON_PDF') ?? null,
          currency,
          datec: toDolibarrDateTime(new Date(), timeZone),
          day,
          dueDay: termId ? dueDay(day, term) : day,
          links: [{ type: 'commande', id: report.fk_element }],
        });
        target = { ...made, made: true };
      }
      if (input.intervention) await linkInvoice(trx, dialect, { type: 'fichinter', id: input.intervention.id }, target.id);
      const decimals = totalDecimals(settings.get('MAIN_MAX_DECIMALS_TOT'));
      for (const line of lines) line.description = await deps.fitter.fit('facturedet', 'description', line.description);
      for (const line of lines) await addInvoiceLine(trx, dialect, target.id, input.userId, currency, line, decimals);
      const totals = await updateInvoiceTotals(trx, dialect, target.id, decimals);
      return {
        invoice: { ...target, total_ht: totals.ht },
        note: [
          ...notes,
          `Rechnungsentwurf ${target.ref} ${target.made ? 'angelegt' : 'ergänzt'}: ${lines.length} Zeile(n), netto ${totals.ht.toFixed(2).replace('.', ',')} ${currency} (freigeben im Dolibarr)`,
        ],
      };
    },
  };
}

export type VisitInvoice = ReturnType<typeof createVisitInvoice>;
