/**
 * A checklist page's items as the phone sees them (the service's rules in src/modules/pages/checklist.ts):
 * from the service's answer, with the answers and definitions still in the outbox laid over them,
 * and the numbers a technician types (a decimal comma or a point). Pure: no screen, no store.
 */
import type { ChecklistItem } from '../../api/types.js';
import type { ChecklistItemDefinition, CheckAllPayload, CheckItemPayload, CheckState, PhotoRef } from '../outbox/records.js';

/** One item on screen. */
export interface CheckItemView {
  /** Its id on the page; 0 for an item an admin added that the service has not numbered yet. */
  id: number;
  label: string;
  unit: string | null;
  lower: number | null;
  upper: number | null;
  state: CheckState;
  value: number | null;
  note: string | null;
  photos: PhotoRef[];
  /** Unix seconds. */
  checkedAt: number | null;
  /** "OK trotz Grenzwert": why it is OK with a value outside its limits; null otherwise. */
  okReason: string | null;
  /** An answer (or a change of its definition) waits in the outbox. */
  pending: boolean;
}

/** What the service answers for an item, as far as the phone needs it (tests build such items by hand). */
export type ServerItem = Pick<ChecklistItem, 'id' | 'label' | 'unit' | 'lower' | 'upper' | 'state' | 'value' | 'note' | 'checked_at'> & {
  photos: Array<Pick<ChecklistItem['photos'][number], 'name'>>;
  /** Absent in answers of services before it was asked for. */
  ok_reason?: string | null;
};

/** The service's values and limits have at most this many decimal places. */
export const DECIMALS = 6;

export function fromServerItems(items: readonly ServerItem[] | null | undefined, cleared = false): CheckItemView[] {
  return (items ?? []).map((item) => ({
    id: item.id,
    label: item.label,
    unit: item.unit,
    lower: item.lower,
    upper: item.upper,
    state: cleared ? 'open' : item.state,
    value: cleared ? null : item.value,
    note: cleared ? null : item.note,
    photos: cleared ? [] : item.photos.map((p) => ({ name: p.name })),
    checkedAt: cleared ? null : item.checked_at,
    okReason: cleared ? null : (item.ok_reason ?? null),
    pending: false,
  }));
}

/** An item asks for a measured value when it has a unit or a limit (as the service decides). */
export const isMeasurement = (item: Pick<CheckItemView, 'unit' | 'lower' | 'upper'>): boolean =>
  !!item.unit || item.lower !== null || item.upper !== null;

/** Where a value lies against the item's limits: below the lower, above the upper, or null (within, or none). */
export function deviationOf(item: Pick<CheckItemView, 'lower' | 'upper'>, value: number | null | undefined): 'below' | 'above' | null {
  if (value === null || value === undefined) return null;
  if (item.lower !== null && value < item.lower) return 'below';
  if (item.upper !== null && value > item.upper) return 'above';
  return null;
}

/**
 * A number as typed on a phone: "6,8" and "6.8" alike; "1.234,5" and "1,234.5" with a thousands
 * mark; a sign (also "−"), spaces ignored. null for an empty field, undefined for what is no number.
 * Kept to DECIMALS places, as the service keeps it.
 */
export function parseDecimal(text: string): number | null | undefined {
  let s = text.replace(/[\s\u00a0\u202f']/g, '').replace(/^\u2212/, '-');
  if (s === '') return null;
  const comma = s.lastIndexOf(',');
  const point = s.lastIndexOf('.');
  if (comma >= 0 && point >= 0) {
    // The later mark is the decimal one; the earlier ones group the thousands (1.234,5 or 1,234.5).
    const [decimal, group] = comma > point ? [',', '\\.'] : ['.', ','];
    const parts = s.split(decimal);
    if (parts.length !== 2 || !new RegExp(`^[+-]?\\d{1,3}(${group}\\d{3})+$`).test(parts[0]!)) return undefined;
    s = `${parts[0]!.replace(/[.,]/g, '')}.${parts[1]}`;
  } else if (comma >= 0) {
    if (s.indexOf(',') !== comma) return undefined;
    s = s.replace(',', '.');
  } else if (point >= 0 && s.indexOf('.') !== point) {
    return undefined;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(s)) return undefined;
  const value = Number(s);
  if (!Number.isFinite(value)) return undefined;
  return Math.round(value * 10 ** DECIMALS) / 10 ** DECIMALS;
}

/**
 * Whether the item counts as a defect (the service's rule, src/modules/pages/checklist.ts isDefect):
 * marked as one, or OK with a value outside its limits and no reason.
 */
export const isDefect = (item: Pick<CheckItemView, 'state' | 'value' | 'lower' | 'upper' | 'okReason'>): boolean =>
  item.state === 'defect' || (item.state === 'ok' && deviationOf(item, item.value) !== null && !item.okReason);

/**
 * Whether "alle übrigen OK" makes the item OK: it is still open and is no measurement without a
 * value or with one outside its limits (those need the person's eye); the service decides alike.
 */
export function becomesOk(item: CheckItemView): boolean {
  if (item.state !== 'open') return false;
  return !isMeasurement(item) || (item.value !== null && deviationOf(item, item.value) === null);
}

/** The items after one answer waiting in the outbox. */
export function applyCheck(items: CheckItemView[], answer: CheckItemPayload): CheckItemView[] {
  return items.map((item) =>
    item.id === answer.item && item.id !== 0
      ? {
          ...item,
          state: answer.state,
          ...(answer.value !== undefined ? { value: answer.value } : {}),
          note: answer.note,
          photos: answer.photos,
          checkedAt: answer.checked_at,
          // As the service keeps it: only while the item is OK with a value outside its limits.
          okReason: (() => {
            const value = answer.value !== undefined ? answer.value : item.value;
            const reason = answer.ok_reason !== undefined ? answer.ok_reason : item.okReason;
            return answer.state === 'ok' && deviationOf(item, value) !== null ? (reason ?? null) : null;
          })(),
          pending: true,
        }
      : item,
  );
}

/** The items after "alle übrigen OK" waiting in the outbox. */
export function applyCheckAll(items: CheckItemView[], answer: CheckAllPayload): CheckItemView[] {
  return items.map((item) => (becomesOk(item) ? { ...item, state: 'ok', checkedAt: answer.checked_at, pending: true } : item));
}

/**
 * The items after an admin's definition waiting in the outbox: items named by id keep their
 * answers, others are new (id 0 until the service numbers them), the rest are gone.
 */
export function applyDefinitions(items: CheckItemView[], definitions: readonly ChecklistItemDefinition[]): CheckItemView[] {
  return definitions.map((def) => {
    const kept = def.id === undefined ? undefined : items.find((item) => item.id === def.id);
    const base: CheckItemView = kept ?? {
      id: 0,
      label: '',
      unit: null,
      lower: null,
      upper: null,
      state: 'open',
      value: null,
      note: null,
      photos: [],
      checkedAt: null,
      okReason: null,
      pending: true,
    };
    return { ...base, label: def.label, unit: def.unit?.trim() || null, lower: def.lower ?? null, upper: def.upper ?? null, pending: true };
  });
}

/** The definitions of the items as they are (for an admin's change of the list). */
export function definitionsOf(items: readonly CheckItemView[]): ChecklistItemDefinition[] {
  return items.map((item) => ({
    ...(item.id > 0 ? { id: item.id } : {}),
    label: item.label,
    unit: item.unit,
    lower: item.lower,
    upper: item.upper,
  }));
}

export interface ChecklistCount {
  total: number;
  /** Answered: ok, defect or n/a. */
  checked: number;
  defects: number;
  open: number;
  /** Values outside their limits. */
  deviations: number;
}

export function countItems(items: readonly CheckItemView[]): ChecklistCount {
  const checked = items.filter((i) => i.state !== 'open').length;
  return {
    total: items.length,
    checked,
    defects: items.filter(isDefect).length,
    open: items.length - checked,
    deviations: items.filter((i) => deviationOf(i, i.value) !== null).length,
  };
}
