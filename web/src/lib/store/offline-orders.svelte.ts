/**
 * The orders a technician is likely to visit, readable offline without having been opened: after
 * the order list was read from the service (after a login, on a refresh), the phone keeps the detail
 * of the caller's open orders (draft, validated, in progress), the first `settings.keepOrders` by
 * order date, newest first: the order with its customer and reports, its file list and its
 * material lines, in the same cache entries the order screen reads (`order:<id>`,
 * `order-files:<id>`, `materials:<id>`); and the same of the orders and interventions of his
 * appointments (lib/store/agenda; an intervention under its key, lib/app/objects.ts), whatever
 * their state, with the appointments themselves (`agenda`). Photos
 * themselves are not fetched ahead (the list is).
 * It runs in the background, a few requests at a time at low priority (each given up after 30 s),
 * at most every ten minutes unless the person refreshes; one asked for while another runs follows
 * it. Orders that left the kept set are dropped from the phone, unless the person opened them in
 * the last 30 days. Settings shows what is kept (`keptOrders`); a logout forgets it (`forgetKept`).
 */
import { api, unwrap } from '../../api/client';
import type { OrderList, OrderSummary } from '../../api/types';
import { appointmentOrders, objectKey, summaryOf, workDetail } from '../app/objects';
import { cachedAgenda, loadAgenda } from './agenda';
import { readCache, writeCache } from './cache';
import { db, userDataEpoch } from './db';
import { loadMaterials, loadOpenInterventions, loadOrder, loadOrderFiles, openedOrders } from './reads';
import { settings } from '../app/settings.svelte';
import { syncCatalogue } from './catalogue.svelte';

/** fk_statut of orders still to be worked on: draft, validated, shipment in progress. */
export const OPEN_STATUSES = '0,1,2';
/** Requests at once: enough to fill a slow line, few enough to leave room for what the person opens. */
const AT_ONCE = 2;
/** A start of the app or a return to the list keeps them again only after this long. */
const AGAIN_AFTER_MS = 10 * 60_000;
/** The list is on screen first: the person's own next step goes before this background work. */
const START_DELAY_MS = 1500;
/** A request of this background work that takes longer is given up (a stalled line must not hold it). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface KeptOrders {
  /** When the last keeping finished (ms). */
  at: number;
  /** The bound it was made with. */
  limit: number;
  /** Open orders the caller has at the service (may be more than kept). */
  total: number;
  /** The orders kept, as the list shows them. */
  summaries: OrderSummary[];
  /** How many could not be read (their earlier copy, if any, stays). */
  failed: number;
}

export const keeping = $state({ running: false, done: 0, of: 0, last: undefined as KeptOrders | undefined });

/** What the last keeping left on the phone (for Settings). */
export async function keptOrders(): Promise<KeptOrders | undefined> {
  keeping.last = (await readCache<KeptOrders>('kept-orders'))?.value;
  return keeping.last;
}

let queued: ReturnType<typeof setTimeout> | undefined;
/** Asked for while a keeping ran (after a logout and a new login, a changed bound): run again after it. */
let again: { forced: boolean } | undefined;

/** After a logout: nothing of the last person's keeping is shown. */
export function forgetKept(): void {
  keeping.last = undefined;
  keeping.done = 0;
  keeping.of = 0;
}

/**
 * Keeps the open orders for offline, in the background. `now`: the person asked (a refresh, a
 * changed bound), so it runs even if it ran a moment ago.
 */
export function keepOpenOrders(options: { now?: boolean } = {}): void {
  clearTimeout(queued);
  queued = setTimeout(() => void keepNow(options.now ?? false), options.now ? 0 : START_DELAY_MS);
}

async function keepNow(forced: boolean): Promise<void> {
  if (keeping.running) {
    again = { forced: forced || !!again?.forced };
    return;
  }
  if (!navigator.onLine) return;
  const epoch = userDataEpoch;
  const last = await keptOrders();
  const limit = settings.keepOrders;
  if (!forced && last && last.limit === limit && Date.now() - last.at < AGAIN_AFTER_MS) return;
  keeping.running = true;
  keeping.done = 0;
  try {
    const list = (await unwrap(
      api.GET('/api/orders.php', { params: { query: { status: OPEN_STATUSES, limit } }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
    )) as OrderList;
    const low = () => ({ priority: 'low' as const, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    // The appointments' orders first: the next visits are where the phone is needed offline. When
    // the appointments cannot be read now, those read last time still count.
    const agenda = (await loadAgenda(low()).catch(() => undefined)) ?? (await cachedAgenda());
    if (agenda) await writeCache('agenda', agenda, epoch);
    const open = new Set(list.items.map((o) => o.id));
    // His open interventions too (under their keys, lib/app/objects.ts), after the appointments'.
    const interventions = await loadOpenInterventions(low()).catch(() => undefined);
    if (interventions) await writeCache('interventions', interventions, epoch);
    const visits = [
      ...(agenda ? appointmentOrders(agenda.items) : []),
      ...(interventions?.items ?? []).map((i) => objectKey('fichinter', i.id)),
    ];
    const ids = [...new Set([...visits, ...list.items.map((o) => o.id)])];
    const summaries = new Map<number, OrderSummary>(list.items.map((o) => [o.id, o]));
    // An order whose reading fails keeps its line of last time (and its earlier copy stays).
    for (const o of last?.summaries ?? []) if (ids.includes(o.id) && !summaries.has(o.id)) summaries.set(o.id, o);
    keeping.of = ids.length;
    let failed = 0;
    let next = 0;
    const worker = async () => {
      while (next < ids.length && epoch === userDataEpoch) {
        const id = ids[next++]!;
        try {
          const [order, files, materials] = await Promise.all([loadOrder(id, low()), loadOrderFiles(id, low()), loadMaterials(id, low())]);
          await Promise.all([
            writeCache(`order:${id}`, order, epoch),
            writeCache(`order-files:${id}`, files, epoch),
            writeCache(`materials:${id}`, materials, epoch),
          ]);
          if (!open.has(id)) summaries.set(id, summaryOf(workDetail(id, order)));
        } catch {
          failed++;
        }
        keeping.done++;
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, worker));
    if (epoch !== userDataEpoch) return;
    // Orders kept last time and no longer open (or beyond the bound) leave the phone, but not one
    // the person opened lately (what was seen stays readable offline).
    const now = new Set(ids);
    const opened = await openedOrders();
    const dropped = (last?.summaries ?? []).filter((o) => !now.has(o.id) && !opened.has(o.id)).map((o) => o.id);
    if (dropped.length > 0) {
      const tx = (await db()).transaction('cache', 'readwrite');
      await Promise.all([
        ...dropped.flatMap((id) => [`order:${id}`, `order-files:${id}`, `materials:${id}`].map((key) => tx.store.delete(key))),
        tx.done,
      ]);
    }
    const kept: KeptOrders = { at: Date.now(), limit, total: list.total, summaries: [...summaries.values()], failed };
    await writeCache('kept-orders', kept, epoch);
    keeping.last = kept;
  } catch {
    // No network, or the service refused: what was kept stays; the next refresh tries again.
  } finally {
    keeping.running = false;
    // Then the catalogue the material lines are taken from (its own pace: a copy once, then what
    // changed), also when the orders could not be kept.
    if (epoch === userDataEpoch) void syncCatalogue({ now: forced });
    const next = again;
    again = undefined;
    if (next) void keepNow(next.forced);
  }
}
