/**
 * The time-on-site records of the outbox (time-arrive, time-leave, time-add, time-correct): how
 * each is sent to /api/times.php (the record's id is the Idempotency-Key; a tap carries the phone's
 * time of the tap as `at`), and how its answer goes into the order's cached intervals
 * (`times:<order>`), so the order reads right offline and after a reload.
 */
import { api, unwrap } from '../../api/client';
import type { TimeInterval, TimeList } from '../../api/types';
import { readCache, writeCache } from '../store/cache';
import type { OutboxRecord, TimeAddPayload, TimeCorrectPayload, TimeTapPayload } from '../store/db';
import { withInterval, type TimeKind } from './time-view';

type Fetch = (request: Request) => Promise<Response>;

export function sendTimeRecord(record: OutboxRecord, headers: Record<string, string>, fetch: Fetch): Promise<TimeInterval> {
  const object = { element_type: 'commande' as const, fk_element: record.orderId };
  switch (record.kind as TimeKind) {
    case 'time-arrive':
    case 'time-leave': {
      const { at } = record.payload as TimeTapPayload;
      const action = record.kind === 'time-arrive' ? 'arrive' : 'leave';
      return unwrap(
        api.POST('/api/times.php', { params: { query: { action } }, headers, body: { ...object, at } as never, fetch }),
      ) as Promise<TimeInterval>;
    }
    case 'time-add': {
      const entry = record.payload as TimeAddPayload;
      return unwrap(
        api.POST('/api/times.php', { params: { query: { action: 'add' } }, headers, body: { ...object, ...entry } as never, fetch }),
      ) as Promise<TimeInterval>;
    }
    case 'time-correct': {
      const { interval, ...change } = record.payload as TimeCorrectPayload;
      return unwrap(
        api.POST('/api/times.php', { params: { query: { id: interval } }, headers, body: change as never, fetch }),
      ) as Promise<TimeInterval>;
    }
  }
}

/** The order's cached intervals take the service's answer (one interval, new or changed). */
export async function afterTimeDelivery(record: OutboxRecord, answer: TimeInterval): Promise<void> {
  const key = `times:${record.orderId}`;
  const cached = (await readCache<TimeList>(key))?.value;
  // Never read with signal: the order screen reads the whole list when it is next opened.
  if (!cached || !answer?.id) return;
  await writeCache(key, withInterval(cached, answer, record.userId));
}
