/**
 * A checklist page's items (layout `checklist`): what an admin defines in a template (label, unit,
 * limits) and what the technician records on the visit (state, measured value, note, photos).
 *
 * Stored as JSON in `bericht_page.checklist` (migration 0012): an array of StoredItem in their
 * order. Item ids are small integers unique within the page, never reused while the page lives, so
 * an answer sent from an offline queue names the item it meant even after others were added or
 * removed. When the items with the highest ids were removed, the array ends with a mark of the
 * highest id used, `{ "max_id": n }` (no label: readers of items pass over it). Every rule is
 * checked here, and a refusal names the item (position and label).
 */
import { AppError } from '../../errors.js';

export const CHECK_STATES = ['open', 'ok', 'defect', 'na'] as const;
export type CheckState = (typeof CHECK_STATES)[number];

/** Most items a checklist page may have. */
export const MAX_CHECKLIST_ITEMS = 200;
export const MAX_ITEM_LABEL = 200;
export const MAX_ITEM_UNIT = 16;
export const MAX_ITEM_NOTE = 2000;
/** Most photos one item may point at. */
export const MAX_ITEM_PHOTOS = 10;
/** Values and limits lie within ±this. */
export const MAX_ITEM_MAGNITUDE = 1_000_000_000;
/** Values and limits are kept to this many decimal places. */
export const ITEM_DECIMALS = 6;

export interface StoredItem {
  id: number;
  label: string;
  unit: string | null;
  lower: number | null;
  upper: number | null;
  state: CheckState;
  value: number | null;
  note: string | null;
  /** Photos of the parent object's attachments, as `source_path` (relative to the documents root). */
  photos: string[];
  /** When it was last answered: the phone's time when it sent one, else the service's (Unix seconds). */
  checked_at: number | null;
  checked_by: number | null;
  /**
   * "OK trotz Grenzwert": why an item answered OK may keep a value outside its limits; null
   * otherwise. Without it such a value is a defect (isDefect).
   */
  ok_reason: string | null;
}

/** An item as an admin defines it; with `id`, an item the page already has (its answer is kept). */
export interface ItemDefinition {
  id?: number;
  label: string;
  unit?: string | null;
  lower?: number | null;
  upper?: number | null;
}

/** One answer to one item. */
export interface ItemAnswer {
  item: number;
  state?: CheckState;
  value?: number | null;
  note?: string | null;
  /** source paths, already checked by the caller. */
  photos?: string[];
  checked_at?: number;
  /** Why OK despite a value outside the limits; null clears it. */
  ok_reason?: string | null;
}

/** Where a value lies against its limits: below the lower, above the upper, or null (within, or no value or limit). */
export type Deviation = 'below' | 'above' | null;

export function deviationOf(item: Pick<StoredItem, 'value' | 'lower' | 'upper'>): Deviation {
  if (item.value === null) return null;
  if (item.lower !== null && item.value < item.lower) return 'below';
  if (item.upper !== null && item.value > item.upper) return 'above';
  return null;
}

/**
 * Whether an item is a defect: marked as one, or answered OK with a value outside its limits and
 * no reason (as answers made before the reason was asked for may be). The app, the sign-off and
 * the PDF count by this one rule.
 */
export const isDefect = (item: Pick<StoredItem, 'state' | 'value' | 'lower' | 'upper' | 'ok_reason'>): boolean =>
  item.state === 'defect' || (item.state === 'ok' && deviationOf(item) !== null && !item.ok_reason);

/** Whether an item asks for a measured value: it has a unit or a limit. */
export const isMeasurement = (item: Pick<StoredItem, 'unit' | 'lower' | 'upper'>): boolean =>
  item.unit !== null || item.lower !== null || item.upper !== null;

/** The items of a page's `checklist` column; [] for null or unreadable JSON (written by other software). */
export function readItems(json: string | null | undefined): StoredItem[] {
  if (!json) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return parsed
    .filter(
      (v): v is Record<string, unknown> => typeof v === 'object' && v !== null && typeof (v as { label?: unknown }).label === 'string',
    )
    .map((v, index) => ({
      id: typeof v.id === 'number' && Number.isInteger(v.id) ? v.id : index + 1,
      label: v.label as string,
      unit: str(v.unit),
      lower: num(v.lower),
      upper: num(v.upper),
      state: (CHECK_STATES as readonly unknown[]).includes(v.state) ? (v.state as CheckState) : 'open',
      value: num(v.value),
      note: str(v.note),
      photos: Array.isArray(v.photos) ? v.photos.filter((p): p is string => typeof p === 'string') : [],
      checked_at: num(v.checked_at),
      checked_by: num(v.checked_by),
      ok_reason: str(v.ok_reason),
    }));
}

/**
 * The highest item id the page has had (`json`: its `checklist` column): its items' ids and the
 * mark kept once the items with the highest ids were removed; 0 for none.
 */
export function highestId(json: string | null | undefined): number {
  let parsed: unknown = [];
  try {
    parsed = json ? JSON.parse(json) : [];
  } catch {
    return 0;
  }
  const marks = Array.isArray(parsed)
    ? parsed.map((v) =>
        typeof v === 'object' && v !== null && Number.isInteger((v as { max_id?: unknown }).max_id) ? (v as { max_id: number }).max_id : 0,
      )
    : [];
  return Math.max(0, ...marks, ...readItems(json).map((i) => i.id));
}

/** The column's JSON: the items and, when no item has it any more, the highest id used before (`used`, highestId of the page as it was). */
export const writeItems = (items: StoredItem[], used = 0): string =>
  JSON.stringify(used > Math.max(0, ...items.map((i) => i.id)) ? [...items, { max_id: used }] : items);

/**
 * A LIKE pattern (escape character `!`) that matches a `checklist` column whose items point at the
 * photo `relPath`, as writeItems stores it (a JSON string): a photo a checklist item shows is in use.
 */
export function checklistPhotoPattern(relPath: string): string {
  return `%${JSON.stringify(relPath).replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/** An item's answer before anyone gave one: a new item's, and every item's in a report made from a template. */
const NO_ANSWER = {
  state: 'open',
  value: null,
  note: null,
  photos: [],
  checked_at: null,
  checked_by: null,
  ok_reason: null,
} as const satisfies Partial<StoredItem>;

/** The items as a fresh report gets them from a template: every answer cleared. */
export const clearedItems = (items: StoredItem[]): StoredItem[] => items.map((item) => ({ ...item, ...NO_ANSWER, photos: [] }));

type Detail = { field: string; item: number; label: string | null; message: string };

function refuse(message: string, details: Detail[]): never {
  throw new AppError('VALIDATION_FAILED', { message, details });
}

/** `Punkt 3 „Abgasverlust“` (the item's position from 1 and its label), for messages. */
const named = (position: number, label: string | null | undefined) => (label ? `Punkt ${position} „${label}“` : `Punkt ${position}`);

function decimalsOk(value: number): boolean {
  const scaled = value * 10 ** ITEM_DECIMALS;
  return Math.abs(scaled - Math.round(scaled)) <= 1e-6 * Math.max(1, Math.abs(scaled) / 1e9);
}

/** A value or limit: a finite number within ±MAX_ITEM_MAGNITUDE with at most ITEM_DECIMALS places, or refused naming the item. */
function checkNumber(value: number | null | undefined, what: string, field: string, position: number, label: string | null): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    refuse(`${named(position, label)}: ${what} muss eine Zahl sein`, [{ field, item: position, label, message: 'must be a number' }]);
  }
  if (Math.abs(value) > MAX_ITEM_MAGNITUDE) {
    refuse(`${named(position, label)}: ${what} liegt außerhalb von ±${MAX_ITEM_MAGNITUDE}`, [
      { field, item: position, label, message: `must be within ±${MAX_ITEM_MAGNITUDE}` },
    ]);
  }
  if (!decimalsOk(value)) {
    refuse(`${named(position, label)}: ${what} mit höchstens ${ITEM_DECIMALS} Nachkommastellen`, [
      { field, item: position, label, message: `at most ${ITEM_DECIMALS} decimal places` },
    ]);
  }
  return Math.round(value * 10 ** ITEM_DECIMALS) / 10 ** ITEM_DECIMALS;
}

const trimmed = (text: string | null | undefined): string | null =>
  text === null || text === undefined || text.trim() === '' ? null : text.trim();

/**
 * The page's items after an admin's (or technician's) definition `defs`: items named by `id` keep
 * their answers (and id), others are new (answers cleared) with ids above `highest` (highestId of
 * the page), items not named are removed. Refuses an unknown or repeated id, an empty label, a limit
 * that is no number and a lower limit above the upper.
 */
export function defineItems(current: StoredItem[], defs: ItemDefinition[], highest = 0): StoredItem[] {
  if (defs.length > MAX_CHECKLIST_ITEMS) {
    refuse(`Eine Prüfliste hat höchstens ${MAX_CHECKLIST_ITEMS} Punkte`, [
      { field: 'body.checklist', item: defs.length, label: null, message: `at most ${MAX_CHECKLIST_ITEMS} items` },
    ]);
  }
  const byId = new Map(current.map((item) => [item.id, item]));
  const used = new Set<number>();
  let nextId = Math.max(highest, ...current.map((i) => i.id)) + 1;
  return defs.map((def, index) => {
    const position = index + 1;
    const field = (name: string) => `body.checklist.${index}.${name}`;
    const label = trimmed(def.label);
    if (!label)
      refuse(`${named(position, null)}: Bezeichnung erforderlich`, [
        { field: field('label'), item: position, label: null, message: 'required' },
      ]);
    const unit = trimmed(def.unit);
    const lower = checkNumber(def.lower, 'die untere Grenze', field('lower'), position, label);
    const upper = checkNumber(def.upper, 'die obere Grenze', field('upper'), position, label);
    if (lower !== null && upper !== null && lower > upper) {
      refuse(`${named(position, label)}: die untere Grenze (${lower}) liegt über der oberen (${upper})`, [
        { field: field('lower'), item: position, label, message: 'lower limit above upper limit' },
      ]);
    }
    let kept: StoredItem | undefined;
    if (def.id !== undefined) {
      kept = byId.get(def.id);
      if (!kept || used.has(def.id)) {
        refuse(`${named(position, label)}: unbekannter oder doppelter Punkt (id ${def.id})`, [
          { field: field('id'), item: position, label, message: kept ? 'repeated id' : 'unknown id' },
        ]);
      }
      used.add(def.id);
    }
    const base: StoredItem = kept ?? { id: nextId++, label, unit: null, lower: null, upper: null, ...NO_ANSWER, photos: [] };
    return { ...base, label, unit, lower, upper };
  });
}

/** The items after one answer; refuses an unknown item, a value that is no number and a defect without a note. */
export function answerItem(items: StoredItem[], answer: ItemAnswer, user: number, now: number): StoredItem[] {
  const index = items.findIndex((i) => i.id === answer.item);
  if (index < 0)
    refuse(`Punkt ${answer.item} gibt es auf dieser Seite nicht`, [
      { field: 'body.item', item: answer.item, label: null, message: 'unknown item' },
    ]);
  const current = items[index]!;
  const position = index + 1;
  const value =
    answer.value === undefined ? current.value : checkNumber(answer.value, 'der Messwert', 'body.value', position, current.label);
  const note = answer.note === undefined ? current.note : trimmed(answer.note);
  const state = answer.state ?? current.state;
  if (state === 'defect' && !note) {
    refuse(`${named(position, current.label)}: ein Mangel braucht eine Notiz`, [
      { field: 'body.note', item: position, label: current.label, message: 'a defect needs a note' },
    ]);
  }
  // A value outside its limits is a defect unless the person confirms "OK trotz Grenzwert" with a reason.
  const deviation = deviationOf({ value, lower: current.lower, upper: current.upper });
  const given = answer.ok_reason === undefined ? current.ok_reason : trimmed(answer.ok_reason);
  const okReason = state === 'ok' && deviation !== null ? given : null;
  if (state === 'ok' && deviation !== null && !okReason) {
    refuse(
      `${named(position, current.label)}: der Messwert liegt ${deviation === 'above' ? 'über' : 'unter'} dem Grenzwert; „OK trotz Grenzwert“ braucht eine Begründung (ok_reason), sonst ist es ein Mangel`,
      [{ field: 'body.ok_reason', item: position, label: current.label, message: 'a value outside its limits is OK only with a reason' }],
    );
  }
  const next: StoredItem = {
    ...current,
    state,
    value,
    note,
    ok_reason: okReason,
    photos: answer.photos ?? current.photos,
    checked_at: answer.checked_at ?? now,
    checked_by: user,
  };
  return items.map((item, i) => (i === index ? next : item));
}

/**
 * "Alle übrigen OK": every item not yet checked becomes OK, except a measurement without a value or
 * with one outside its limits (those need the person's eye). Answers the items and the ids left open.
 */
export function allRemainingOk(items: StoredItem[], user: number, now: number): { items: StoredItem[]; skipped: number[] } {
  const skipped: number[] = [];
  const next = items.map((item) => {
    if (item.state !== 'open') return item;
    if (isMeasurement(item) && (item.value === null || deviationOf(item) !== null)) {
      skipped.push(item.id);
      return item;
    }
    return { ...item, state: 'ok' as const, checked_at: now, checked_by: user };
  });
  return { items: next, skipped };
}

/**
 * The items as the signature's hash covers them (signature-hash.ts): everything a person recorded
 * or defined, in order; the photos by their path and the SHA-256 of their bytes. Who answered and
 * when is not content (it changes nothing the customer sees), so it is left out.
 */
export async function hashedItems(items: StoredItem[], digest: (relPath: string) => Promise<string>) {
  const hashed = [];
  for (const [index, item] of items.entries()) {
    const photos = [];
    for (const photo of item.photos) photos.push({ path: photo, sha256: await digest(photo) });
    hashed.push({
      position: index + 1,
      label: item.label,
      unit: item.unit,
      lower: item.lower,
      upper: item.upper,
      state: item.state,
      value: item.value,
      note: item.note,
      photos,
      // Only where given: every item answered before the reason existed hashes as it did.
      ...(item.ok_reason ? { ok_reason: item.ok_reason } : {}),
    });
  }
  return hashed;
}

/** AJV's messages that a person may read, in German. */
const GERMAN: Record<string, string> = {
  'must be number': 'muss eine Zahl sein',
  'must be string': 'muss ein Text sein',
  'must be integer': 'muss eine ganze Zahl sein',
  'must NOT have additional properties': 'hat ein unbekanntes Feld',
  'must NOT have fewer than 1 characters': 'darf nicht leer sein',
};

/**
 * A schema refusal of a body with checklist items, said in words that name the item: AJV's
 * `body.checklist.3.lower must be number` becomes `Punkt 4 „Abgasverlust“: lower must be number`,
 * and each detail gets `item` (position from 1) and `label`. Other refusals pass unchanged.
 */
export function nameItemsIn(error: unknown, body: unknown): unknown {
  if (!(error instanceof AppError) || error.code !== 'VALIDATION_FAILED' || !Array.isArray(error.details)) return error;
  const defs = (body as { checklist?: unknown })?.checklist;
  const labelAt = (index: number) => {
    const def = Array.isArray(defs) ? (defs[index] as { label?: unknown } | undefined) : undefined;
    return typeof def?.label === 'string' && def.label.trim() ? def.label.trim().slice(0, MAX_ITEM_LABEL) : null;
  };
  const details = (error.details as Array<{ field?: string; message?: string }>).map((d) => {
    const match = /^body\.checklist(?:\.(\d+))?(?:\.(\w+))?/.exec(d.field ?? '');
    if (!match) return d;
    if (match[1] === undefined) return { ...d, message: d.message };
    const index = Number(match[1]);
    return { ...d, item: index + 1, label: labelAt(index) };
  });
  const first = details.find((d) => (d as { item?: number }).item !== undefined) as
    | { item: number; label: string | null; field: string; message: string }
    | undefined;
  const tooMany = details.some((d) => d.field === 'body.checklist' && /more than/.test(d.message ?? ''));
  const message = tooMany
    ? `Eine Prüfliste hat höchstens ${MAX_CHECKLIST_ITEMS} Punkte`
    : first
      ? `${named(first.item, first.label)}: ${first.field.split('.').slice(3).join('.') || 'Eintrag'} ${GERMAN[first.message] ?? first.message}`
      : error.message;
  return new AppError('VALIDATION_FAILED', { message, details });
}

/**
 * A schema refusal of an answer (action=check) in words that name its item: `body.value must be
 * number` becomes `Punkt 3 „Vordruck“: value muss eine Zahl sein`, and each detail gets `item`
 * (position from 1) and `label`. `items` are the page's, `itemId` the item the body names; a refusal
 * of an item the page does not have, or of another kind, passes unchanged.
 */
export function nameAnswerIn(error: unknown, items: StoredItem[], itemId: unknown): unknown {
  if (!(error instanceof AppError) || error.code !== 'VALIDATION_FAILED' || !Array.isArray(error.details)) return error;
  const index = items.findIndex((i) => i.id === itemId);
  if (index < 0) return error;
  const position = index + 1;
  const label = items[index]!.label;
  const details = (error.details as Array<{ field?: string; message?: string }>).map((d) => ({ ...d, item: position, label }));
  const first = details[0];
  const what = first
    ? `${(first.field ?? '').replace(/^body\.?/, '') || 'Eintrag'} ${GERMAN[first.message ?? ''] ?? first.message}`
    : 'ungültige Eingabe';
  return new AppError('VALIDATION_FAILED', { message: `${named(position, label)}: ${what}`, details });
}
