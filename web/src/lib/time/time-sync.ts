/**
 * The time-on-site records of the outbox (time-arrive, time-leave, time-add, time-correct, time-undo): how
 * each is sent to /api/times.php (the record's id is the Idempotency-Key; a tap carries the phone's
 * time of the tap as `at`), and how its answer goes into the order's cached intervals
 * (`times:<order>`), so the order reads right offline and after a reload.
 */
import { api, unwrap } from '../../api/client';
import type { TimeInterval, TimeList } from '../../api/types';
import type { KindHandlers, OutboxRecord, Sending, TimeUndoAnswer } from '../outbox/records';
import { elementParams } from '../app/objects';
import { readCache, writeCache } from '../store/cache';
import { withInterval, withUndone, type TimeKind } from './time-view';

type TimeAction = 'arrive' | 'leave' | 'add';

/** One of the /api/times.php changes at the record's order. */
function post<T = TimeInterval>(
  query: { action: TimeAction } | { id: number } | { action: 'undo'; id: number },
  body: object,
  { headers, fetch }: Sending,
) {
  return unwrap(api.POST('/api/times.php', { params: { query: query as never }, headers, body: body as never, fetch })) as Promise<T>;
}

const order = (record: OutboxRecord<TimeKind>) => elementParams(record.orderId);

/** The order's cached intervals take the service's answer (one interval, new or changed). */
async function delivered(record: OutboxRecord<Exclude<TimeKind, 'time-undo'>>, answer: TimeInterval): Promise<void> {
  const key = `times:${record.orderId}`;
  const cached = (await readCache<TimeList>(key))?.value;
  // Never read with signal: the order screen reads the whole list when it is next opened.
  if (!cached || !answer?.id) return;
  await writeCache(key, withInterval(cached, answer, record.userId));
}

export const timeKinds: KindHandlers<TimeKind> = {
  'time-arrive': {
    send: (record, sending) => post({ action: 'arrive' }, { ...order(record), at: record.payload.at }, sending),
    delivered,
  },
  'time-leave': {
    send: (record, sending) => post({ action: 'leave' }, { ...order(record), at: record.payload.at }, sending),
    delivered,
  },
  'time-add': {
    send: (record, sending) => post({ action: 'add' }, { ...order(record), ...record.payload }, sending),
    delivered,
  },
  'time-correct': {
    send(record, sending) {
      const { interval, ...change } = record.payload;
      return post({ id: interval }, change, sending);
    },
    delivered,
  },
  'time-undo': {
    send: (record, sending) => post<TimeUndoAnswer>({ action: 'undo', id: record.payload.interval }, { tap: record.payload.tap }, sending),
    async delivered(record, answer) {
      const key = `times:${record.orderId}`;
      const cached = (await readCache<TimeList>(key))?.value;
      if (!cached || !answer?.id) return;
      const next = withUndone(cached, answer, record.userId);
      if (next) await writeCache(key, next);
    },
  },
};
