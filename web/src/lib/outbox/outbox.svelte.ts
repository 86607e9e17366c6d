/**
 * The outbox: every change the person makes is stored on the phone first (IndexedDB) and sent
 * from here, so nothing is lost without signal, on a reload or when the app is closed.
 * - One record per change; its id (a UUID made on the phone) is the request's Idempotency-Key, so
 *   a retry after a lost answer never makes a second photo, line, report, page or signature.
 * - Each kind of record is sent by its handler, which lib/outbox/kinds.ts (the registry of kinds)
 *   names: the order's files and lines by lib/outbox/order-sync, report records (report-create,
 *   page-*, signature, check-*) by lib/reports/report-sync, time on site (time-*) by
 *   lib/time/time-sync, a report's mail to the customer (mail-send) by lib/mail/mail-sync. A handler
 *   first learns what each answer names (the ids of things made offline) for the records behind it.
 * - One sender works the user's records strictly in creation order, on start, when the phone comes
 *   online, when the app becomes visible, after each new record, and on a timer with exponential
 *   backoff and jitter (capped at five minutes). Across tabs, a Web Lock keeps it to one sender.
 * - A mail beyond the service's limit (429 MAIL_LIMIT_REACHED) is set aside until its Retry-After:
 *   no record refers to a mail record, so the records behind it go on, and it is not tried earlier.
 * - 2xx: the record is removed and the screens showing its order take the answer (onDelivered). No answer, 408, 429,
 *   5xx or 409 "still at work": retried later. 401: the sender waits for the password
 *   (lib/app/auth). Any other refusal (415, 413, 404, 400…): the record is marked refused with the
 *   service's message and stays until the person removes it; so is a record whose report, page or
 *   photo was itself refused (it can never be sent). Nothing is dropped silently.
 */
import { ApiError, LocalError, withProgress } from '../../api/client';
import { auth } from '../app/auth.svelte';
import { errorText, refusalText } from '../i18n/i18n.svelte';
import { UnresolvedRef } from '../reports/report-sync';
import { recordReport } from '../reports/report-view';
import { db } from '../store/db';
import { KINDS } from './kinds';
import { loadLocalIds, sameRef } from './local-ids.svelte';
import type { AnswerOf, Delivered, KindHandler, OutboxKind, OutboxRecord, PayloadOf, PhotoCapture, Ref, Sending } from './records';

const MAX_DELAY_MS = 5 * 60_000;
const FIRST_DELAY_MS = 2_000;

export const outbox = $state({
  /** Every record on the phone, oldest first (all users'; screens filter). */
  items: [] as OutboxRecord[],
  /** Upload progress (0 to 1) of the record being sent. */
  progress: {} as Record<string, number>,
  /** The id of the record on its way, if any. */
  sending: '' as string,
});

async function reload(): Promise<void> {
  outbox.items = await (await db()).getAllFromIndex('outbox', 'createdAt');
}

let markReady: () => void = () => {};
/** Settles once the records and the learnt ids are loaded (a screen opened first waits for it). */
export const outboxReady = new Promise<void>((resolve) => (markReady = resolve));

/**
 * The next record of `mine` to send. A signature waits while an earlier change of its report was
 * refused (the seal would cover other pages than the customer saw), and so does everything of that
 * report after it, to keep their order; the rest of the queue goes on. A record set aside (a mail
 * beyond the limit) is passed over until its time (`now`, ms) has come.
 */
export function nextToSend(mine: OutboxRecord[], now = Date.now()): OutboxRecord | undefined {
  const refused: (number | string)[] = [];
  const held: (number | string)[] = [];
  const among = (list: (number | string)[], ref: number | string | undefined) => ref !== undefined && list.some((r) => sameRef(r, ref));
  for (const record of mine) {
    const report = recordReport(record);
    if (record.state === 'refused') {
      if (report !== undefined) refused.push(report);
      continue;
    }
    if (record.aside && record.nextAttemptAt > now) continue;
    if (among(held, report)) continue;
    if (record.kind === 'signature' && among(refused, report)) {
      held.push(report!);
      continue;
    }
    return record;
  }
  return undefined;
}

/** Whether a record is of one of `kinds`. */
export function isKind<K extends OutboxKind>(record: OutboxRecord, kinds: readonly K[]): record is OutboxRecord<K> {
  return kinds.some((kind) => kind === record.kind);
}

/** The logged-in user's records of an order, of the given kinds. */
export function pendingFor<K extends OutboxKind>(orderId: number, kinds: readonly K[]): OutboxRecord<K>[] {
  return mine().filter((r): r is OutboxRecord<K> => r.orderId === orderId && isKind(r, kinds));
}

/** A UUID, also where crypto.randomUUID is missing (a page not served over HTTPS). */
function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The records the logged-in user still has to send or to look at (refused). */
export function mine(): OutboxRecord[] {
  const id = auth.session?.user.id;
  return outbox.items.filter((r) => r.userId === id);
}

export async function enqueue<K extends OutboxKind>(
  kind: K,
  order: { id: number; ref: string },
  payload: PayloadOf<K>,
  extra: { fileName?: string; reportRef?: Ref; capture?: PhotoCapture } = {},
): Promise<OutboxRecord<K>> {
  if (!auth.session) throw new Error('not logged in');
  const now = Date.now();
  // One record of kind K: its payload is PayloadOf<K> (TypeScript does not see it through the generic K).
  const record = {
    id: uuid(),
    kind,
    userId: auth.session.user.id,
    orderId: order.id,
    orderRef: order.ref,
    payload,
    createdAt: now,
    attempts: 0,
    nextAttemptAt: now,
    state: 'waiting',
    ...(extra.fileName ? { fileName: extra.fileName } : {}),
    ...(extra.reportRef !== undefined ? { reportRef: extra.reportRef } : {}),
    ...(extra.capture ? { capture: extra.capture } : {}),
  } as OutboxRecord<K>;
  // Two records made in the same millisecond keep their order.
  const last = outbox.items.at(-1);
  if (last && last.createdAt >= record.createdAt) record.createdAt = last.createdAt + 1;
  await (await db()).put('outbox', record);
  await reload();
  kick();
  return record;
}

/**
 * Removes a record the person gave up (a refused one, or one still waiting). Not the one on its
 * way (the screens disable that): false then.
 */
export async function remove(id: string): Promise<boolean> {
  if (outbox.sending === id) return false;
  await (await db()).delete('outbox', id);
  await reload();
  return true;
}

/**
 * Sends a refused record again (what made the service refuse it may be fixed, or it only waited for
 * its report); with it, the refused records of the same report, in their order.
 */
export async function retry(id: string): Promise<void> {
  const store = await db();
  const first = await store.get('outbox', id);
  if (!first) return;
  const report = recordReport(first);
  const again = outbox.items.filter(
    (r) =>
      r.state === 'refused' &&
      (r.id === id || (report !== undefined && recordReport(r) !== undefined && sameRef(recordReport(r)!, report))),
  );
  for (const record of again) {
    const fresh = await store.get('outbox', record.id);
    if (!fresh) continue;
    await store.put('outbox', { ...fresh, state: 'waiting', attempts: 0, nextAttemptAt: Date.now() });
  }
  await reload();
  kick({ now: true });
}

/** Sends now what waits, ignoring the backoff (the person pressed "send now", or the phone came online). */
export function kick(options: { now?: boolean } = {}): void {
  if (options.now) {
    ignoreBackoff = true;
    // A send that has been quiet for a while is likely on a dead connection: start it afresh.
    if (current && Date.now() - current.lastActivity > QUIET_MS) current.abort.abort();
  }
  void work();
}

const QUIET_MS = 10_000;
let ignoreBackoff = true;
let running = false;
/** A wake-up that came while a round was running: run another round after it. */
let again = false;
let timer: ReturnType<typeof setTimeout> | undefined;
let current: { abort: AbortController; lastActivity: number } | undefined;

async function work(): Promise<void> {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    do {
      again = false;
      const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
      let held = true;
      if (locks) {
        await locks.request('fieldreport-outbox', { ifAvailable: true }, async (lock) => {
          held = !!lock;
          if (lock) await drain();
        });
      } else {
        await drain();
      }
      // Another tab is sending: look again shortly (it may close, or leave records of ours).
      if (!held && !timer) schedule(5_000);
    } while (again);
  } finally {
    running = false;
  }
}

function schedule(ms: number): void {
  clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    void work();
  }, ms);
}

async function drain(): Promise<void> {
  clearTimeout(timer);
  timer = undefined;
  for (;;) {
    await reload();
    const session = auth.session;
    if (!session || auth.needsLogin || !navigator.onLine) return;
    const records = outbox.items.filter((r) => r.userId === session.user.id);
    const now = Date.now();
    // A record set aside is looked at again when its time comes, not earlier.
    const aside = records.filter((r) => r.aside && r.state === 'waiting' && r.nextAttemptAt > now).map((r) => r.nextAttemptAt - now);
    const next = nextToSend(records, now);
    if (!next) {
      if (aside.length) schedule(Math.min(...aside));
      return;
    }
    const wait = next.nextAttemptAt - now;
    if (wait > 0 && !ignoreBackoff) {
      schedule(Math.min(wait, ...aside));
      return;
    }
    ignoreBackoff = false;
    const outcome = await attempt(next);
    if (outcome === 'stop') return;
  }
}

/** One try of one record; 'stop' ends this round (retry scheduled, or waiting for the login). */
async function attempt<K extends OutboxKind>(record: OutboxRecord<K>): Promise<'next' | 'stop'> {
  // Marked as on its way before anything is awaited, so the person cannot remove it meanwhile.
  outbox.sending = record.id;
  outbox.progress[record.id] = 0;
  const store = await db();
  try {
    // Removed by the person just before: not sent.
    if (!(await store.get('outbox', record.id))) return 'next';
    const handler = handlerOf(record);
    const answer = await handler.send(record, sending(record));
    // What the answer names is learnt before the record goes: the records behind it refer to it.
    await handler.delivered?.(record, answer);
    await store.delete('outbox', record.id);
    // Gone from the screen's view before the screens take the answer (else it shows twice a moment).
    outbox.items = outbox.items.filter((r) => r.id !== record.id);
    announce(record, answer);
    return 'next';
  } catch (error) {
    const fresh = await store.get('outbox', record.id);
    if (!fresh) return 'next';
    fresh.attempts += 1;
    delete fresh.aside;
    if (error instanceof ApiError) {
      fresh.lastStatus = error.status;
      fresh.lastError = refusalText(error);
      const handler: KindHandler<K> | undefined = KINDS[record.kind];
      if (error.status === 404 && handler?.goneIsDone?.(error)) {
        // Already gone: what the person wanted (its kind's answer is `unknown`: none here).
        await store.delete('outbox', record.id);
        announce(record, undefined as AnswerOf<K>);
        return 'next';
      }
      if (error.status === 401) {
        fresh.nextAttemptAt = Date.now();
        await store.put('outbox', fresh);
        return 'stop';
      }
      if (error.status === 429 && error.code === 'MAIL_LIMIT_REACHED' && handler?.setAsideOverLimit) {
        // Waits for its Retry-After (up to a day) without holding up the records behind it.
        await setAside(fresh, error.retryAfter);
        return 'next';
      }
      if (error.status === 408 || error.status === 429 || error.status >= 500 || error.code === 'IDEMPOTENCY_IN_PROGRESS') {
        await retryLater(fresh, error.retryAfter);
        return 'stop';
      }
      fresh.state = 'refused';
      await store.put('outbox', fresh);
      return 'next';
    }
    // Refused on the phone, where trying again will not help: what it belongs to (a report, a page,
    // a photo made on the phone) was refused or removed, or its stored file cannot be read any more.
    const local =
      error instanceof UnresolvedRef ? 'LOCAL_DEPENDENCY_REFUSED' : error instanceof LocalError ? 'LOCAL_FILE_UNREADABLE' : undefined;
    if (local) {
      fresh.state = 'refused';
      fresh.lastStatus = 0;
      fresh.lastError = errorText(local, undefined);
      await store.put('outbox', fresh);
      return 'next';
    }
    fresh.lastStatus = 0;
    fresh.lastError = errorText('NETWORK', undefined);
    await retryLater(fresh);
    return 'stop';
  } finally {
    outbox.sending = '';
    current = undefined;
    delete outbox.progress[record.id];
  }
}

async function setAside(record: OutboxRecord, retryAfterSeconds?: number): Promise<void> {
  record.state = 'waiting';
  record.aside = true;
  record.nextAttemptAt = Date.now() + (retryAfterSeconds && retryAfterSeconds > 0 ? retryAfterSeconds : 60) * 1000;
  await (await db()).put('outbox', record);
  outbox.items = outbox.items.map((r) => (r.id === record.id ? record : r));
}

async function retryLater(record: OutboxRecord, retryAfterSeconds?: number): Promise<void> {
  const backoff = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, record.attempts - 1));
  const delay = retryAfterSeconds ? Math.min(MAX_DELAY_MS, retryAfterSeconds * 1000) : backoff / 2 + Math.random() * (backoff / 2);
  record.state = 'waiting';
  record.nextAttemptAt = Date.now() + delay;
  await (await db()).put('outbox', record);
  // The screens show when it is tried again and why (the round ends here, before its next reload).
  outbox.items = outbox.items.map((r) => (r.id === record.id ? record : r));
  schedule(delay);
}

const listeners = new Set<(delivered: Delivered) => void>();

/** Hears of each record that arrived, with the service's answer (a screen adds it to what it shows). */
export function onDelivered(listener: (delivered: Delivered) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function announce<K extends OutboxKind>(record: OutboxRecord<K>, answer: AnswerOf<K>): void {
  const delivered = { kind: record.kind, record, answer } as Delivered<K>;
  for (const listener of listeners) listener(delivered);
}

/** The handler of the record's kind (lib/outbox/kinds.ts); a kind this version does not know cannot be sent. */
function handlerOf<K extends OutboxKind>(record: OutboxRecord<K>): KindHandler<K> {
  const handler: KindHandler<K> | undefined = KINDS[record.kind];
  if (!handler) throw new LocalError(`unknown outbox record kind ${record.kind}`);
  return handler;
}

/** How the record goes: its id as the Idempotency-Key, through the one XMLHttpRequest path (progress, a stalled request given up). */
function sending(record: OutboxRecord): Sending {
  const now = { abort: new AbortController(), lastActivity: Date.now() };
  current = now;
  const fetch = withProgress((fraction) => {
    now.lastActivity = Date.now();
    outbox.progress[record.id] = fraction;
  }, now.abort.signal);
  return { headers: { 'Idempotency-Key': record.id }, fetch };
}

/** Starts the sender: now, when the phone comes online, when the app is shown again. */
export async function startOutbox(): Promise<void> {
  await Promise.all([reload(), loadLocalIds()]);
  markReady();
  window.addEventListener('online', () => kick({ now: true }));
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') kick({ now: true });
  });
  // Another tab may have sent or added records: show the truth when this one is looked at again.
  window.addEventListener('focus', () => void reload());
  kick({ now: true });
}
