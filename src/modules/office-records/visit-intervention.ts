/**
 * The visit as a Dolibarr intervention, when its report is finalized (docs/dolibarr-writes.md, The
 * visit as an intervention): in the finalize's transaction, a report on an order makes a draft
 * intervention linked to the order, or completes the draft one an earlier report of the order made
 * (found by its `ref_ext`, `fieldreport:<report ref>`, while the office has not validated it); a
 * report on an intervention completes that one while it is a draft. Its new lines are the time on
 * site the report takes (its date, seconds and who) and the material lines it settles (in the
 * format Dolibarr's intervention card gives an order's product line); its signed state is the
 * customer's signature (SignedReceiver) when the report has one. What is written is as Dolibarr
 * writes it (dolibarr/intervention.ts); the report's PDF joins its documents (finalize.ts).
 *
 * Settings (llx_const): BERICHT_INTERVENTION_FROM_REPORT (1, the default; 0: none), Dolibarr's
 * MAIN_MODULE_FICHEINTER and FICHEINTER_ADDON_PDF (the PDF model of a new intervention).
 */
import { sql } from 'kysely';
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { forUpdate } from '../../db/dialect.js';
import { SIGNED_BY_CUSTOMER, addInterventionLines, createIntervention, setInterventionSigned } from '../../dolibarr/intervention.js';
import type { ColumnFitter } from '../../dolibarr/charset.js';
import { constOn } from '../../dolibarr/const.repository.js';
import { toDolibarrDateTime } from '../../dolibarr/time.js';
import type { SettledLine } from '../stock/van-stock.js';
import type { TimeInterval } from '../times/times.schemas.js';

export const INTERVENTION_SETTINGS = ['BERICHT_INTERVENTION_FROM_REPORT', 'MAIN_MODULE_FICHEINTER', 'FICHEINTER_ADDON_PDF'] as const;

/** The prefix of `ref_ext` of the interventions this service makes. */
export const REF_EXT_PREFIX = 'fieldreport:';

/** Text into Dolibarr's HTML descriptions: `<`, `>`, `&` and quotes escaped, line breaks as <br>. */
export function html(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\r?\n/g, '<br>\n');
}

const quantity = (qty: number, unit: string | null) => `${String(qty)}${unit ? ` ${unit}` : ''}`;

/**
 * A material line as Dolibarr's card writes an order's line into an intervention: "ref - label<br>",
 * the text, "<br> (Menge: n)"; here with the unit after the quantity, and the line's own text, lot
 * or serial number and note as its text.
 */
export function materialLineText(line: SettledLine): string {
  const text = [
    line.product && line.label !== line.product.label ? line.label : '',
    line.batch ? `Charge/Serie: ${line.batch}` : '',
    line.note ?? '',
  ]
    .filter(Boolean)
    .join('\n');
  const head = line.product ? `${line.product.ref} - ${line.product.label}` : line.label;
  return `${html(head)}<br>${html(text)}<br> (Menge: ${quantity(line.qty, line.unit)})`;
}

export interface VisitInterventionInput {
  report: { ref: string; title: string; element_type: string; fk_element: number };
  userId: number;
  /** The time on site the report takes now. */
  intervals: TimeInterval[];
  /** The material lines the report settles now. */
  lines: SettledLine[];
  /** The report holds the customer's signature. */
  signed: boolean;
}

export interface VisitInterventionOutcome {
  /** The intervention the lines went to, and whether it was made now. */
  intervention: { id: number; ref: string; made: boolean } | null;
  /** What the finalize's agenda event says of it (German, as the event's other lines). */
  note: string[];
}

export function createVisitIntervention(deps: {
  dialect: Dialect;
  entity: number;
  timeZone: string;
  orderHasProject: boolean;
  /** Text into Dolibarr's columns fitted to their character set (charset.ts): a phone's text may hold emoji. */
  fitter: ColumnFitter;
}) {
  const { dialect, entity, timeZone } = deps;
  const lock = <Q extends { forUpdate(): Q }>(query: Q) => forUpdate(dialect, query);

  function timeLine(interval: TimeInterval) {
    const arrival = new Date(interval.arrival * 1000);
    const departure = new Date((interval.departure ?? interval.arrival) * 1000);
    const day = (d: Date) => toDolibarrDateTime(d, timeZone).slice(0, 10);
    const hm = (d: Date) => toDolibarrDateTime(d, timeZone).slice(11, 16);
    const dm = (d: Date) => `${day(d).slice(8, 10)}.${day(d).slice(5, 7)}.`;
    const until = day(departure) === day(arrival) ? hm(departure) : `${dm(departure)} ${hm(departure)}`;
    return {
      date: toDolibarrDateTime(arrival, timeZone),
      description: html(`${interval.user_name}: vor Ort ${hm(arrival)}–${until}`),
      seconds: interval.seconds ?? 0,
    };
  }

  /** The draft intervention of the order this service made, locked; undefined when there is none. */
  async function draftOfOrder(trx: Db, order: number) {
    return lock(
      trx
        .selectFrom('fichinter as f')
        .innerJoin('element_element as ee', (j) =>
          j.onRef('ee.fk_target', '=', 'f.rowid').on('ee.targettype', '=', 'fichinter').on('ee.sourcetype', '=', 'commande'),
        )
        .select(['f.rowid', 'f.ref'])
        .where('ee.fk_source', '=', order)
        .where('f.entity', '=', entity)
        .where('f.fk_statut', '=', 0)
        .where('f.ref_ext', 'like', `${REF_EXT_PREFIX}%`)
        .orderBy('f.rowid', 'desc')
        .limit(1),
    ).executeTakeFirst();
  }

  return {
    async record(trx: Db, settings: Map<string, string>, input: VisitInterventionInput): Promise<VisitInterventionOutcome> {
      const { report } = input;
      if (report.element_type !== 'commande' && report.element_type !== 'fichinter') return { intervention: null, note: [] };
      if (!constOn(settings.get('MAIN_MODULE_FICHEINTER'))) return { intervention: null, note: [] };
      if ((settings.get('BERICHT_INTERVENTION_FROM_REPORT') ?? '1').trim() === '0')
        return { intervention: null, note: ['Keine Intervention (BERICHT_INTERVENTION_FROM_REPORT 0)'] };

      let target: { id: number; ref: string; made: boolean };
      if (report.element_type === 'fichinter') {
        const fi = await lock(
          trx
            .selectFrom('fichinter')
            .select(['rowid', 'ref', 'fk_statut'])
            .where('rowid', '=', report.fk_element)
            .where('entity', '=', entity),
        ).executeTakeFirst();
        if (!fi) return { intervention: null, note: [] };
        if (Number(fi.fk_statut) !== 0)
          return { intervention: null, note: [`Intervention ${fi.ref} ist schon freigegeben: Zeit und Material nicht ergänzt`] };
        target = { id: Number(fi.rowid), ref: fi.ref, made: false };
      } else {
        // The order locked first: two reports of it finalized at once make one intervention.
        const order = await lock(
          trx
            .selectFrom('commande')
            .select(['rowid', 'fk_soc', (deps.orderHasProject ? sql<number | null>`fk_projet` : sql<null>`null`).as('fk_projet')])
            .where('rowid', '=', report.fk_element),
        ).executeTakeFirst();
        if (!order) return { intervention: null, note: [] };
        const draft = await draftOfOrder(trx, report.fk_element);
        if (draft) target = { id: Number(draft.rowid), ref: draft.ref, made: false };
        else {
          const made = await createIntervention(trx, dialect, {
            entity,
            socId: Number(order.fk_soc),
            projectId: order.fk_projet === null ? null : Number(order.fk_projet),
            userId: input.userId,
            description: await deps.fitter.fit('fichinter', 'description', html(`Bericht ${report.ref} „${report.title}“`)),
            modelPdf: settings.get('FICHEINTER_ADDON_PDF') ?? '',
            datec: toDolibarrDateTime(new Date(), timeZone),
            refExt: `${REF_EXT_PREFIX}${report.ref}`,
            origin: { type: 'commande', id: report.fk_element },
          });
          target = { ...made, made: true };
        }
      }

      // A part dated when the technician recorded it (not the day's midnight, as the card dates an
      // order's product line): Dolibarr lists the lines by date, so the card shows the visit in order.
      const recorded = (at: number | null) => toDolibarrDateTime(at === null ? new Date() : new Date(at * 1000), timeZone);
      const lines = [
        ...input.intervals.map(timeLine),
        ...input.lines.map((line) => ({ date: recorded(line.at), description: materialLineText(line), seconds: 0 })),
      ];
      for (const line of lines) line.description = await deps.fitter.fit('fichinterdet', 'description', line.description);
      await addInterventionLines(trx, dialect, target.id, lines);
      if (input.signed) await setInterventionSigned(trx, target.id, SIGNED_BY_CUSTOMER);
      const seconds = input.intervals.reduce((sum, i) => sum + (i.seconds ?? 0), 0);
      const hours = `${Math.floor(seconds / 3600)} h ${String(Math.round((seconds % 3600) / 60)).padStart(2, '0')} min`;
      return {
        intervention: target,
        note: [
          `Intervention ${target.ref} ${target.made ? 'angelegt' : 'ergänzt'}: ${input.intervals.length} Zeile(n) Zeit vor Ort (${hours}), ${input.lines.length} Zeile(n) Material${input.signed ? ', vom Kunden unterschrieben' : ''}`,
        ],
      };
    },
  };
}

export type VisitIntervention = ReturnType<typeof createVisitIntervention>;
