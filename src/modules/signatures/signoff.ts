/**
 * The sign-off: what the customer was shown before signing, as the phone sends it with the
 * signature (multipart part `signoff`, JSON). The customer confirms the work, the time on site and
 * the material, not only the pages; so the signature's hash covers them too (form
 * `fieldreport-pages/4`, signature-hash.ts), the sealed metadata keeps the whole sign-off, and a
 * check compares it with what the service holds now: whatever was added, changed or removed since
 * is "not covered" by that signature (visitCoverage).
 *
 * The wire form (docs/features.md, The sign-off):
 *
 *   { "work": "<the work description shown>" | null,
 *     "times": [ { "arrival": <Unix s>, "departure": <Unix s> | null } ],
 *     "materials": [ { "label": "…", "qty": 2.5, "unit": "m" | null, "note": "…" | null } ],
 *     "checklist": { "items", "ok", "defects", "na", "open", "outside_limits" } | null,
 *     "pages": <count>, "photos": <count>,
 *     "missing": [ { "what": "open_items" | "no_departure" | "no_signature" | "pages_after_signature", "reason": "…" } ] }
 *
 * `work`, `times` and `materials` are what the hash covers (SignedVisit); texts are taken as the
 * service stores them (trimmed, empty is null; line breaks as \n), quantities to QTY_DECIMALS.
 * The counts and `missing` are kept in the metadata as shown (the pages themselves are hashed).
 */
import { htmlToText } from '../../dolibarr/html.js';
import { AppError } from '../../errors.js';
import { FORBIDDEN_TEXT_CHARACTERS } from '../../plugins/validation.js';
import { MAX_QTY, QTY_DECIMALS } from '../materials/materials.schemas.js';

/** The hash form with the sign-off's work, times and material (signature-hash.ts). */
export const HASH_FORM_VISIT = 'fieldreport-pages/4';

/** The `signoff` part in bytes: 500 lines of the longest label and note fit. */
export const MAX_SIGNOFF_BYTES = 4 * 1024 * 1024;
export const MAX_SIGNOFF_MATERIALS = 1000;
export const MAX_SIGNOFF_TIMES = 500;
/** Dolibarr's note_public is a `text` column: at most 65,535 bytes. */
export const MAX_WORK_LENGTH = 65_535;
export const MAX_MISSING_REASON = 500;
export const MISSING_KINDS = ['open_items', 'no_departure', 'no_signature', 'pages_after_signature'] as const;
export type MissingKind = (typeof MISSING_KINDS)[number];

export interface SignedInterval {
  arrival: number;
  departure: number | null;
}
export interface SignedMaterial {
  label: string;
  qty: number;
  unit: string | null;
  note: string | null;
}
/** What the hash covers beside the pages. */
export interface SignedVisit {
  work: string | null;
  times: SignedInterval[];
  materials: SignedMaterial[];
}
export interface ChecklistCounts {
  items: number;
  ok: number;
  defects: number;
  na: number;
  open: number;
  outside_limits: number;
}
export interface Signoff extends SignedVisit {
  checklist: ChecklistCounts | null;
  pages: number;
  photos: number;
  missing: Array<{ what: MissingKind; reason: string }>;
}

const refuse = (field: string, message: string, german: string): never => {
  throw new AppError('VALIDATION_FAILED', {
    message: `Abnahme (signoff): ${german}`,
    details: [{ field: `body.signoff${field}`, message }],
  });
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A text as the service stores what people type: trimmed, line breaks as \n, empty is null. */
export const storedText = (value: string | null | undefined): string | null => {
  if (value === null || value === undefined) return null;
  const text = value.replace(/\r\n?/g, '\n').normalize('NFC').trim();
  return text === '' ? null : text;
};

function text(value: unknown, field: string, max: number, required = false): string | null {
  if (value === undefined || value === null) return required ? refuse(field, 'required', 'ein Pflichtfeld fehlt') : null;
  if (typeof value !== 'string') return refuse(field, 'must be a string or null', 'ein Text wird erwartet');
  if (FORBIDDEN_TEXT_CHARACTERS.test(value))
    return refuse(field, 'must not contain control or bidirectional override characters', 'Steuerzeichen im Text');
  const stored = storedText(value);
  // Characters as the service's other fields count them (code points, as JSON Schema's maxLength).
  if (stored !== null && [...stored].length > max) return refuse(field, `at most ${max} characters`, `höchstens ${max} Zeichen`);
  if (required && stored === null) return refuse(field, 'required', 'ein Pflichtfeld ist leer');
  return stored;
}

function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 1_000_000)
    return refuse(field, 'must be an integer from 0 to 1000000', 'eine Anzahl wird erwartet');
  return value;
}

/** Unix seconds within years 2000-2200 (a phone's clock far off shows as it is, but no nonsense). */
function instant(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 946_684_800 || value > 7_258_118_400)
    return refuse(field, 'must be Unix seconds (an integer, years 2000-2200)', 'ein Zeitpunkt in Unix-Sekunden wird erwartet');
  return value;
}

function list<T>(value: unknown, field: string, max: number, item: (v: unknown, at: string) => T): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return refuse(field, 'must be an array', 'eine Liste wird erwartet');
  if (value.length > max) return refuse(field, `at most ${max} entries`, `höchstens ${max} Einträge`);
  return value.map((v, i) => item(v, `${field}[${i}]`));
}

function only(value: Record<string, unknown>, field: string, keys: readonly string[]): void {
  const extra = Object.keys(value).find((k) => !keys.includes(k));
  if (extra !== undefined) refuse(`${field}.${extra.slice(0, 50)}`, 'unknown field', `unbekanntes Feld ${extra.slice(0, 50)}`);
}

/** A quantity as the service stores a material line's: at least 0, at most MAX_QTY, QTY_DECIMALS places. */
function quantity(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_QTY)
    return refuse(field, `must be a number from 0 to ${MAX_QTY}`, 'eine Menge wird erwartet');
  const scaled = value * 10 ** QTY_DECIMALS;
  if (Math.abs(scaled - Math.round(scaled)) > 1e-6)
    return refuse(field, `at most ${QTY_DECIMALS} decimal places`, `Menge mit höchstens ${QTY_DECIMALS} Nachkommastellen`);
  return Math.round(scaled) / 10 ** QTY_DECIMALS;
}

export const signoffTooLarge = () =>
  new AppError('SIGNOFF_TOO_LARGE', {
    message: `Die Abnahme (signoff) ist zu groß: mehr als ${MAX_SIGNOFF_BYTES} Bytes`,
    details: [{ field: 'body.signoff', message: `at most ${MAX_SIGNOFF_BYTES} bytes` }],
  });

/** The `signoff` part, checked; any fault is 400 VALIDATION_FAILED naming its place (`body.signoff.materials[2].qty`). */
export function parseSignoff(raw: Buffer): Signoff {
  if (raw.length > MAX_SIGNOFF_BYTES) throw signoffTooLarge();
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    return refuse('', 'must be JSON', 'kein gültiges JSON');
  }
  if (!isObject(value)) return refuse('', 'must be a JSON object', 'ein JSON-Objekt wird erwartet');
  only(value, '', ['work', 'times', 'materials', 'checklist', 'pages', 'photos', 'missing']);
  const times = list(value.times, '.times', MAX_SIGNOFF_TIMES, (v, at) => {
    if (!isObject(v)) return refuse(at, 'must be an object', 'ein Objekt wird erwartet');
    only(v, at, ['arrival', 'departure']);
    const arrival = instant(v.arrival, `${at}.arrival`);
    const departure = v.departure === null || v.departure === undefined ? null : instant(v.departure, `${at}.departure`);
    if (departure !== null && departure < arrival)
      refuse(`${at}.departure`, 'must not be before arrival', 'die Abfahrt liegt vor der Ankunft');
    return { arrival, departure };
  });
  const materials = list(value.materials, '.materials', MAX_SIGNOFF_MATERIALS, (v, at) => {
    if (!isObject(v)) return refuse(at, 'must be an object', 'ein Objekt wird erwartet');
    only(v, at, ['label', 'qty', 'unit', 'note']);
    return {
      label: text(v.label, `${at}.label`, 255, true)!,
      qty: quantity(v.qty, `${at}.qty`),
      unit: text(v.unit, `${at}.unit`, 32),
      note: text(v.note, `${at}.note`, 2000),
    };
  });
  let checklist: ChecklistCounts | null = null;
  if (value.checklist !== undefined && value.checklist !== null) {
    const c = value.checklist;
    if (!isObject(c)) return refuse('.checklist', 'must be an object or null', 'ein Objekt wird erwartet');
    const keys = ['items', 'ok', 'defects', 'na', 'open', 'outside_limits'] as const;
    only(c, '.checklist', keys);
    checklist = Object.fromEntries(keys.map((k) => [k, count(c[k], `.checklist.${k}`)])) as unknown as ChecklistCounts;
  }
  const missing = list(value.missing, '.missing', MISSING_KINDS.length, (v, at) => {
    if (!isObject(v)) return refuse(at, 'must be an object', 'ein Objekt wird erwartet');
    only(v, at, ['what', 'reason']);
    if (!(MISSING_KINDS as readonly unknown[]).includes(v.what))
      refuse(`${at}.what`, `must be one of ${MISSING_KINDS.join(', ')}`, 'unbekannte Angabe, was fehlt');
    return { what: v.what as MissingKind, reason: text(v.reason, `${at}.reason`, MAX_MISSING_REASON, true)! };
  });
  return {
    work: text(value.work, '.work', MAX_WORK_LENGTH),
    times,
    materials,
    checklist,
    pages: value.pages === undefined ? 0 : count(value.pages, '.pages'),
    photos: value.photos === undefined ? 0 : count(value.photos, '.photos'),
    missing,
  };
}

/** The sign-off a metadata file holds, checked as the service took it; undefined for none or one that is damaged. */
export function signoffIn(metadata: Record<string, unknown> | null | undefined): Signoff | undefined {
  const value = metadata?.signoff;
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return parseSignoff(Buffer.from(JSON.stringify(value)));
  } catch {
    return undefined;
  }
}

/** What the hash covers of a sign-off: its work, times (by arrival) and material lines (as shown). */
export function signedVisit(signoff: SignedVisit): SignedVisit {
  return {
    work: signoff.work,
    times: [...signoff.times].sort((a, b) => a.arrival - b.arrival || (a.departure ?? Infinity) - (b.departure ?? Infinity)),
    materials: signoff.materials.map(({ label, qty, unit, note }) => ({ label, qty, unit, note })),
  };
}

/** What changed since the signature: empty lists and `work: false` when it covers everything there is now. */
export interface VisitCoverage {
  /** True when nothing was added, changed or removed since the signature. */
  covered: boolean;
  /** The work description differs from the one signed. */
  work_changed: boolean;
  /** Material lines there now that the signature does not cover (added, or changed: the changed line is also among `materials_removed`). */
  materials_added: SignedMaterial[];
  /** Material lines signed that are not there any more (removed or changed). */
  materials_removed: SignedMaterial[];
  /** Intervals there now that the signature does not cover: new ones, and signed ones whose times changed (such as a departure recorded after signing). */
  times_added: SignedInterval[];
  /** Intervals signed that are not there any more as signed. */
  times_removed: SignedInterval[];
}

/** A work description as read (Dolibarr may keep it as HTML, which the PDF prints as text): the same words are the same work. */
const workText = (work: string | null) => storedText(htmlToText(work ?? ''));

/** One key for equal material lines (label, quantity, unit, note). */
export const materialKey = (m: SignedMaterial) => JSON.stringify([m.label, m.qty, m.unit, m.note]);
const timeKey = (t: SignedInterval) => `${t.arrival}/${t.departure ?? ''}`;

/** For each of `now`: whether no one of `signed` matches it (equal ones are matched once each, in order). */
export function unmatchedFlags<T>(now: readonly T[], signed: readonly T[], key: (t: T) => string): boolean[] {
  const left = new Map<string, number>();
  for (const s of signed) left.set(key(s), (left.get(key(s)) ?? 0) + 1);
  return now.map((n) => {
    const k = key(n);
    const count = left.get(k) ?? 0;
    if (count === 0) return true;
    left.set(k, count - 1);
    return false;
  });
}

/** Each of `now` not matched by one of `signed` (as many times as it is there more often). */
function unmatched<T>(now: readonly T[], signed: readonly T[], key: (t: T) => string): T[] {
  const flags = unmatchedFlags(now, signed, key);
  return now.filter((_, i) => flags[i]);
}

/** The signed visit against the visit now (both as signedVisit gives them). */
export function visitCoverage(signed: SignedVisit, now: SignedVisit): VisitCoverage {
  const coverage = {
    work_changed: workText(now.work) !== workText(signed.work),
    materials_added: unmatched(now.materials, signed.materials, materialKey),
    materials_removed: unmatched(signed.materials, now.materials, materialKey),
    times_added: unmatched(now.times, signed.times, timeKey),
    times_removed: unmatched(signed.times, now.times, timeKey),
  };
  const covered =
    !coverage.work_changed &&
    coverage.materials_added.length === 0 &&
    coverage.materials_removed.length === 0 &&
    coverage.times_added.length === 0 &&
    coverage.times_removed.length === 0;
  return { covered, ...coverage };
}

/** How many lines changed, were added or were removed since the signature (a line added and one removed count as one changed). */
export interface ChangeCounts {
  changed: number;
  added: number;
  removed: number;
}

/** The coverage as counts, for people: intervals are paired by their arrival, material lines one added with one removed. */
export function coverageCounts(c: VisitCoverage): { work: boolean; materials: ChangeCounts; times: ChangeCounts } {
  const arrivals = new Set(c.times_removed.map((t) => t.arrival));
  const timesChanged = c.times_added.filter((t) => arrivals.has(t.arrival)).length;
  const materialsChanged = Math.min(c.materials_added.length, c.materials_removed.length);
  return {
    work: c.work_changed,
    materials: {
      changed: materialsChanged,
      added: c.materials_added.length - materialsChanged,
      removed: c.materials_removed.length - materialsChanged,
    },
    times: { changed: timesChanged, added: c.times_added.length - timesChanged, removed: c.times_removed.length - timesChanged },
  };
}

/** What changed since the signature, in German words with counts only (no content: the public check shows no more); null when nothing did. */
export function notCoveredInWords(c: VisitCoverage | null | undefined): string | null {
  if (!c || c.covered) return null;
  const counts = coverageCounts(c);
  const parts: string[] = [];
  if (counts.work) parts.push('die Arbeitsbeschreibung geändert');
  const lines = (n: ChangeCounts, one: string, many: string) => {
    const noun = (k: number) => `${k} ${k === 1 ? one : many}`;
    if (n.changed) parts.push(`${noun(n.changed)} geändert`);
    if (n.added) parts.push(`${noun(n.added)} hinzugefügt`);
    if (n.removed) parts.push(`${noun(n.removed)} entfernt`);
  };
  lines(counts.times, 'Zeitraum', 'Zeiträume');
  lines(counts.materials, 'Materialposition', 'Materialpositionen');
  return parts.join(', ');
}
