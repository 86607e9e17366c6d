/**
 * Time on site at an order as the person sees it: the service's intervals with the taps, entries
 * and corrections still in the outbox laid over them, in the order they were made (docs/app-design.md, the
 * outbox). Refused records are not laid over; they are listed for the person. Pure: the order
 * screen gives it the records and the cached list.
 */
import type { TimeInterval, TimeList } from '../../api/types.js';
import type { OutboxKind, OutboxRecord, TimeUndoAnswer } from '../outbox/records.js';

export const TIME_KINDS = ['time-arrive', 'time-leave', 'time-add', 'time-correct', 'time-undo'] as const satisfies readonly OutboxKind[];
export type TimeKind = (typeof TIME_KINDS)[number];
const timeKindSet: ReadonlySet<OutboxKind> = new Set(TIME_KINDS);

/** Whether a record (or a delivered one) is of time on site. */
export function isTime<T extends { kind: OutboxKind }>(item: T): item is Extract<T, { kind: TimeKind }> {
  return timeKindSet.has(item.kind);
}

export interface IntervalView {
  /** The service's id; undefined while only the phone knows the interval. */
  id?: number;
  /** A key for the list: the id, or the record that makes it. */
  key: string;
  userId: number;
  userName: string;
  /** Unix seconds. */
  arrival: number;
  departure: number | null;
  /** Entered or corrected by hand. */
  corrected: boolean;
  /** Taken by a finalized report: it no longer changes. */
  reported: boolean;
  /** A change of it waits in the outbox. */
  pending: boolean;
}

export interface TimesView {
  intervals: IntervalView[];
  /** The person's interval still open (arrived, not left), if any. */
  open?: IntervalView;
  /** Seconds of every closed interval. */
  totalSeconds: number;
  /** This order's time records the service refused. */
  refused: OutboxRecord<TimeKind>[];
  /** This order's time records that wait. */
  waiting: OutboxRecord<TimeKind>[];
}

function fromServer(interval: TimeInterval): IntervalView {
  return {
    id: interval.id,
    key: String(interval.id),
    userId: interval.fk_user,
    userName: interval.user_name,
    arrival: interval.arrival,
    departure: interval.departure,
    corrected: interval.corrections.length > 0,
    reported: interval.fk_bericht !== null,
    pending: false,
  };
}

/** `records`: the person's outbox records (any kind, any order: this order's time records are picked). */
export function viewTimes(
  base: TimeList | undefined,
  records: readonly OutboxRecord[],
  orderId: number,
  me: { id: number; name: string },
): TimesView {
  const mine = records.filter(isTime).filter((r) => r.orderId === orderId);
  const intervals = (base?.items ?? []).map(fromServer);
  const openOf = () => intervals.findLast((i) => i.userId === me.id && i.departure === null);
  for (const record of mine) {
    if (record.state === 'refused') continue;
    switch (record.kind) {
      case 'time-arrive': {
        // The service refuses a second arrival (TIME_ALREADY_OPEN): the screen does not offer one.
        if (openOf()) break;
        const { at } = record.payload;
        intervals.push({
          key: record.id,
          userId: me.id,
          userName: me.name,
          arrival: at,
          departure: null,
          corrected: false,
          reported: false,
          pending: true,
        });
        break;
      }
      case 'time-leave': {
        const open = openOf();
        if (open) Object.assign(open, { departure: record.payload.at, pending: true });
        break;
      }
      case 'time-add': {
        const { arrival, departure } = record.payload;
        intervals.push({
          key: record.id,
          userId: me.id,
          userName: me.name,
          arrival,
          departure,
          corrected: true,
          reported: false,
          pending: true,
        });
        break;
      }
      case 'time-undo': {
        // A tap taken back: the arrival's interval goes, the departure's is open again.
        const { interval: id, tap } = record.payload;
        const at = intervals.findIndex((i) => i.id === id);
        if (at < 0) break;
        if (tap === 'arrive') intervals.splice(at, 1);
        else if (!openOf()) Object.assign(intervals[at]!, { departure: null, pending: true });
        break;
      }
      case 'time-correct': {
        const change = record.payload;
        const interval = intervals.find((i) => i.id === change.interval);
        if (!interval) break;
        Object.assign(interval, {
          ...(change.arrival !== undefined ? { arrival: change.arrival } : {}),
          ...(change.departure !== undefined ? { departure: change.departure } : {}),
          corrected: true,
          pending: true,
        });
        break;
      }
    }
  }
  intervals.sort((a, b) => a.arrival - b.arrival);
  const open = openOf();
  return {
    intervals,
    ...(open ? { open } : {}),
    totalSeconds: intervals.reduce((sum, i) => sum + (i.departure === null ? 0 : Math.max(0, i.departure - i.arrival)), 0),
    refused: mine.filter((r) => r.state === 'refused'),
    waiting: mine.filter((r) => r.state !== 'refused'),
  };
}

/** The order's list after a tap was taken back: the interval open again, or gone. */
export function withUndone(list: TimeList | undefined, answer: TimeUndoAnswer, userId: number): TimeList | undefined {
  if (answer.interval) return withInterval(list, answer.interval, userId);
  if (!list) return list;
  const items = list.items.filter((i) => i.id !== answer.id);
  return {
    items,
    total: Math.max(items.length, list.total - (list.items.length - items.length)),
    total_seconds: items.reduce((sum, i) => sum + (i.seconds ?? 0), 0),
    open: list.open?.id === answer.id ? null : list.open,
  };
}

/** The order's list after the service's answer to one record (an interval, new or changed). */
export function withInterval(list: TimeList | undefined, answer: TimeInterval, userId: number): TimeList {
  const known = list?.items ?? [];
  const items = [...known.filter((i) => i.id !== answer.id), answer].sort((a, b) => a.arrival - b.arrival || a.id - b.id);
  const before = list?.open ?? null;
  const open = answer.fk_user !== userId ? before : answer.departure === null ? answer : before?.id === answer.id ? null : before;
  return {
    items,
    total: Math.max(items.length, (list?.total ?? 0) + (items.length - known.length)),
    total_seconds: items.reduce((sum, i) => sum + (i.seconds ?? 0), 0),
    open,
  };
}
