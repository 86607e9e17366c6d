/**
 * The sign-off: what the customer is shown before signing, built from what the phone holds (also
 * offline): the order's work description, the time on site (the intervals the report takes, the
 * open one included), the material lines, the checklists' result (defects with their notes,
 * values outside their limits, open items), and the pages and photos counted; with what is still
 * missing (open items, no departure) for the technician to explain. It goes with the signature as
 * the field `signoff` (the service's form in src/modules/signatures/signoff.ts), so the signature's
 * hash covers the work, the hours and the material as shown. Pure: no screen, no store.
 */
import type { Material, ReportDetail, TimeInterval } from '../../api/types.js';
import type { CheckState, OutboxRecord } from '../outbox/records.js';
import type { TimesView } from '../time/time-view.js';
import { deviationOf, isDefect } from './checklist.js';
import type { ReportView } from './report-view.js';

export const MISSING_KINDS = ['open_items', 'no_departure', 'no_signature', 'pages_after_signature'] as const;
export type MissingKind = (typeof MISSING_KINDS)[number];

export interface SignoffLine {
  label: string;
  qty: number;
  unit: string | null;
  note: string | null;
  /** Still in the outbox. */
  pending: boolean;
}

export interface SignoffInterval {
  arrival: number;
  departure: number | null;
  userName: string;
}

/** A checklist item the customer must see: a defect, a value outside its limits, or one not checked. */
export interface SignoffItem {
  label: string;
  state: CheckState;
  value: number | null;
  unit: string | null;
  lower: number | null;
  upper: number | null;
  deviation: 'below' | 'above' | null;
  /** "OK trotz Grenzwert": why it is OK with its value outside the limits. */
  okReason: string | null;
  note: string | null;
}

export interface SignoffView {
  work: string | null;
  times: SignoffInterval[];
  /** Seconds of the closed intervals. */
  totalSeconds: number;
  /** Someone is still on site (an interval without departure). */
  onSite: boolean;
  materials: SignoffLine[];
  checklist: { items: number; ok: number; defects: number; na: number; open: number; outside_limits: number } | null;
  /** Defects and values outside their limits (OK only with a reason), in checklist order. */
  findings: SignoffItem[];
  /** Items not checked yet. */
  openItems: SignoffItem[];
  /** The report's pages (signature pages not counted) and the photos on them. */
  pages: number;
  photos: number;
  /** What is missing before the customer signs; each needs a reason to go on. */
  missing: MissingKind[];
}

/** A text as the service keeps it: trimmed, line breaks as \n, empty is null. */
const stored = (text: string | null | undefined): string | null => {
  const value = (text ?? '').replace(/\r\n?/g, '\n').trim();
  return value === '' ? null : value;
};

/** Quantities as the service keeps them: three decimal places. */
const quantity = (qty: number) => Math.round(qty * 1000) / 1000;

/**
 * The order's material lines the report shows, with the outbox laid over them as the material list
 * shows them: a line being removed is gone, a line being added is there (marked pending); refused
 * records change nothing. As the service's PDF prints them: lines no report settled yet, and those
 * settled by the reports the service names for the report (`material_reports`: its own and those of
 * the versions it descends from; `material_unknown`: also those settled before lines knew their
 * report); not a line an earlier visit's report settled.
 */
export function materialLines(
  lines: readonly Material[],
  records: readonly OutboxRecord[],
  orderId: number,
  report?: Partial<Pick<ReportDetail, 'material_reports' | 'material_unknown' | 'version' | 'versions'>>,
): SignoffLine[] {
  const ofOrder = records.filter((r) => r.orderId === orderId && r.state !== 'refused');
  const removing = new Set(ofOrder.flatMap((r) => (r.kind === 'material-delete' ? [r.payload.materialId] : [])));
  // A report the phone kept from before the service named them: its versions up to its own.
  const reports = report?.material_reports ?? (report?.versions ?? []).filter((v) => v.version <= (report?.version ?? 0)).map((v) => v.id);
  const shown = (line: Material) =>
    (line.fk_stock_mouvement ?? null) === null ||
    ((line.fk_bericht ?? null) === null ? report?.material_unknown === true : reports.includes(line.fk_bericht!));
  return [
    ...lines
      .filter((line) => shown(line) && !removing.has(line.id))
      .map((line) => ({ label: line.label, qty: quantity(line.qty), unit: stored(line.unit), note: stored(line.note), pending: false })),
    ...ofOrder.flatMap((r) =>
      r.kind === 'material-add'
        ? [
            {
              label: r.payload.label.trim(),
              qty: quantity(r.payload.qty),
              unit: stored(r.payload.unit),
              note: stored(r.payload.note),
              pending: true,
            },
          ]
        : [],
    ),
  ];
}

export function viewSignoff(input: {
  work: string | null | undefined;
  times: TimesView;
  /** Intervals the report (or an earlier version of it) took already, as the service lists them for the report. */
  taken?: readonly TimeInterval[];
  materials: SignoffLine[];
  report: Pick<ReportView, 'pages'>;
}): SignoffView {
  // The intervals the report shows: those it or an earlier version took, and those no final report took yet (the open one too).
  const intervals = [
    ...(input.taken ?? []).map((i) => ({ arrival: i.arrival, departure: i.departure, userName: i.user_name })),
    ...input.times.intervals.filter((i) => !i.reported),
  ].sort((a, b) => a.arrival - b.arrival);
  const pages = input.report.pages.filter((p) => p.layout !== 'signature');
  const items = pages.flatMap((p) => p.checklist ?? []);
  const itemView = (i: (typeof items)[number]): SignoffItem => ({
    label: i.label,
    state: i.state,
    value: i.value,
    unit: i.unit,
    lower: i.lower,
    upper: i.upper,
    deviation: deviationOf(i, i.value),
    okReason: i.okReason,
    note: i.note,
  });
  const checklist = pages.some((p) => p.checklist)
    ? {
        items: items.length,
        ok: items.filter((i) => i.state === 'ok').length,
        defects: items.filter(isDefect).length,
        na: items.filter((i) => i.state === 'na').length,
        open: items.filter((i) => i.state === 'open').length,
        outside_limits: items.filter((i) => deviationOf(i, i.value) !== null).length,
      }
    : null;
  const onSite = intervals.some((i) => i.departure === null);
  const missing: MissingKind[] = [];
  if (checklist && checklist.open > 0) missing.push('open_items');
  if (onSite) missing.push('no_departure');
  return {
    work: stored(input.work),
    times: intervals.map((i) => ({ arrival: i.arrival, departure: i.departure, userName: i.userName })),
    totalSeconds: intervals.reduce((sum, i) => sum + (i.departure === null ? 0 : Math.max(0, i.departure - i.arrival)), 0),
    onSite,
    materials: input.materials,
    checklist,
    findings: items.filter((i) => isDefect(i) || deviationOf(i, i.value) !== null).map(itemView),
    openItems: items.filter((i) => i.state === 'open').map(itemView),
    pages: pages.length,
    photos: pages.reduce((sum, p) => sum + p.images.length, 0),
    missing,
  };
}

/** Something missing, with how many (checklist items not checked; pages after the signature); 1 for the others. */
export interface Missing {
  what: MissingKind;
  count: number;
}

/**
 * What a report lacks before it is finalized, as the service's PDF names it: checklist items not
 * checked, someone still on site (`onSite`: an interval of the order without departure), no
 * signature, pages after the last signature. Each needs a reason to go on; the PDF prints it.
 */
export function missingAtFinalize(report: Pick<ReportView, 'pages'>, onSite: boolean): Missing[] {
  const last = report.pages.findLastIndex((p) => p.layout === 'signature');
  const open = report.pages.reduce((sum, p) => sum + (p.checklist ?? []).filter((i) => i.state === 'open').length, 0);
  const after = last < 0 ? 0 : report.pages.length - 1 - last;
  return [
    ...(open > 0 ? [{ what: 'open_items' as const, count: open }] : []),
    ...(onSite ? [{ what: 'no_departure' as const, count: 1 }] : []),
    ...(last < 0 ? [{ what: 'no_signature' as const, count: 1 }] : []),
    ...(after > 0 ? [{ what: 'pages_after_signature' as const, count: after }] : []),
  ];
}

/** The field `signoff` as the service takes it: what was shown, with the reasons given for what is missing. */
export function signoffField(view: SignoffView, reasons: Partial<Record<MissingKind, string>>): string {
  return JSON.stringify({
    work: view.work,
    times: view.times.map(({ arrival, departure }) => ({ arrival, departure })),
    materials: view.materials.map(({ label, qty, unit, note }) => ({ label, qty, unit, note })),
    checklist: view.checklist,
    pages: view.pages,
    photos: view.photos,
    missing: view.missing.map((what) => ({ what, reason: (reasons[what] ?? '').trim() })),
  });
}
