/**
 * What the screens read, each through the cache (lib/store/cache.ts): orders, one order, its files, its
 * material lines, time on site (of an order, of a report), a final report's mails and the proposal for a new one.
 * Offline, the orders already seen can still be searched (on the phone).
 */
import { api, unwrap } from '../../api/client';
import type {
  AgendaList,
  InterventionDetail,
  InterventionList,
  MailList,
  MailProposal,
  MaterialList,
  OrderDetail,
  OrderFileList,
  OrderList,
  OrderSummary,
  TimeList,
} from '../../api/types';
import { elementOf, elementParams, workDetail, type WorkDetail } from '../app/objects';
import { readCache, readThrough, writeCache } from './cache';
import { userDataEpoch } from './db';

const ORDERS_PAGE = 30;

let prefetched: { at: number; list: Promise<OrderList> } | undefined;

/** Asks for the first page of orders now (right after the login), for the list screen to take. */
export function prefetchOrders(): void {
  prefetched = { at: Date.now(), list: requestOrders('', 0) };
  prefetched.list.catch(() => {});
}

function requestOrders(q: string, offset: number): Promise<OrderList> {
  const query = { limit: ORDERS_PAGE, offset, ...(q ? { q } : {}) };
  return unwrap(api.GET('/api/orders.php', { params: { query } })) as Promise<OrderList>;
}

export async function fetchOrders(q: string, offset: number): Promise<OrderList> {
  const epoch = userDataEpoch;
  const early = !q && offset === 0 && prefetched && Date.now() - prefetched.at < 10_000 ? prefetched.list : undefined;
  prefetched = undefined;
  const list = await (early ?? requestOrders(q, offset));
  // The unsearched list, as far as it was scrolled, is what stays readable offline (kept in the
  // background: the screen does not wait for it).
  if (!q) void keepOrders(list, offset, epoch);
  return list;
}

async function keepOrders(list: OrderList, offset: number, epoch: number): Promise<void> {
  const known = offset === 0 ? [] : ((await readCache<OrderSummary[]>('orders'))?.value ?? []);
  const seen = new Set(known.map((o) => o.id));
  await writeCache('orders', [...known, ...list.items.filter((o) => !seen.has(o.id))], epoch);
}

/**
 * Orders on the phone, narrowed by `q` as the service would (ref, customer's ref, customer name):
 * those seen in the list and the open orders kept for offline (lib/store/offline-orders), newest first.
 */
export async function cachedOrders(q: string): Promise<OrderSummary[]> {
  const [seen, kept] = await Promise.all([readCache<OrderSummary[]>('orders'), readCache<{ summaries: OrderSummary[] }>('kept-orders')]);
  const byId = new Map<number, OrderSummary>();
  // Interventions kept for the appointments (negative keys, lib/app/objects.ts) are no orders.
  for (const order of [...(seen?.value ?? []), ...(kept?.value.summaries ?? [])])
    if (order.id > 0 && !byId.has(order.id)) byId.set(order.id, order);
  // As the service lists them: by order date, newest first, undated last, then the newest made.
  const all = [...byId.values()].sort(
    (a, b) => (a.date === b.date ? 0 : a.date === null ? 1 : b.date === null ? -1 : b.date - a.date) || b.id - a.id,
  );
  const needle = q.trim().toLowerCase();
  if (!needle) return all;
  return all.filter((o) => [o.ref, o.ref_client, o.customer?.name].some((text) => text?.toLowerCase().includes(needle)));
}

/**
 * What the phone knows of an object it has not kept (offline): an order's line of the list, an
 * intervention's from the open interventions or an appointment (its ref at least).
 */
export async function cachedSummary(key: number): Promise<OrderSummary | undefined> {
  if (key > 0) return (await cachedOrders('')).find((o) => o.id === key);
  const [open, agenda] = await Promise.all([readCache<InterventionList>('interventions'), readCache<AgendaList>('agenda')]);
  const item = open?.value.items.find((i) => i.id === -key);
  if (item) {
    const { date_start, date_end, date_creation, ref, ref_client, status, customer } = item;
    return { id: key, ref, ref_client, status, date: date_start, date_delivery: date_end, date_creation, total_ttc: 0, customer };
  }
  const visit = agenda?.value.items.find((a) => a.object?.element_type === 'fichinter' && a.object.id === -key);
  if (!visit?.object) return undefined;
  const { ref, ref_client, status } = visit.object;
  const customer = visit.customer ? { id: visit.customer.id, name: visit.customer.name } : null;
  return { id: key, ref, ref_client, status, date: visit.start, date_delivery: null, date_creation: null, total_ttc: 0, customer };
}

/**
 * An order's or an intervention's detail, by its key (lib/app/objects.ts), as the service gives it.
 * `init`: e.g. `{ priority: 'low', signal }` for what is read ahead in the background.
 */
export async function loadOrder(
  key: number,
  init: { priority?: RequestPriority; signal?: AbortSignal } = {},
): Promise<OrderDetail | InterventionDetail> {
  const { element_type, id } = elementOf(key);
  if (element_type === 'fichinter')
    return (await unwrap(api.GET('/api/interventions.php', { ...init, params: { query: { id } } }))) as InterventionDetail;
  return (await unwrap(api.GET('/api/orders.php', { ...init, params: { query: { id } } }))) as OrderDetail;
}

/** The files of an order's or an intervention's folder. */
export async function loadOrderFiles(key: number, init: { priority?: RequestPriority; signal?: AbortSignal } = {}): Promise<OrderFileList> {
  const { element_type, id } = elementOf(key);
  const query = { id, action: 'photos', limit: 500 };
  if (element_type === 'fichinter')
    return (await unwrap(api.GET('/api/interventions.php', { ...init, params: { query } }))) as OrderFileList;
  return (await unwrap(api.GET('/api/orders.php', { ...init, params: { query } }))) as OrderFileList;
}

export function loadMaterials(key: number, init: { priority?: RequestPriority; signal?: AbortSignal } = {}): Promise<MaterialList> {
  return unwrap(api.GET('/api/materials.php', { ...init, params: { query: { ...elementParams(key), limit: 500 } } }));
}

/** fk_statut of interventions still to be done: draft, validated. */
export const OPEN_INTERVENTIONS = '0,1';

export function loadOpenInterventions(init: { priority?: RequestPriority; signal?: AbortSignal } = {}): Promise<InterventionList> {
  // The records of visits the service made from reports on orders are done work, not work to do.
  const query = { status: OPEN_INTERVENTIONS, visit_records: '0' as const, limit: 50 };
  return unwrap(api.GET('/api/interventions.php', { ...init, params: { query } })) as Promise<InterventionList>;
}

/** The caller's open interventions (cache `interventions`): the phone's copy at once, then the service's. */
export function readOpenInterventions(show: (list: InterventionList, fromCache: boolean) => void): Promise<void> {
  return readThrough('interventions', () => loadOpenInterventions(), show);
}

/** An order or an intervention, by its key: the phone's copy at once, then the service's. */
export async function readOrder(key: number, show: (order: WorkDetail, fromCache: boolean) => void): Promise<void> {
  await readThrough(
    `order:${key}`,
    () => loadOrder(key),
    (answer, cached) => show(workDetail(key, answer), cached),
  );
  await noteOpened(key);
}

/** How many opened orders are remembered (the newest), and for how long they count. */
const OPENED_KEEP = 300;
const OPENED_FOR_MS = 30 * 24 * 3600_000;

/** Remembers that the person opened an order: keeping open orders for offline never drops it (lib/store/offline-orders). */
async function noteOpened(id: number): Promise<void> {
  const epoch = userDataEpoch;
  const opened = (await readCache<Record<string, number>>('opened-orders'))?.value ?? {};
  opened[id] = Date.now();
  const newest = Object.entries(opened)
    .sort((a, b) => b[1] - a[1])
    .slice(0, OPENED_KEEP);
  await writeCache('opened-orders', Object.fromEntries(newest), epoch);
}

/** Orders the person opened in the last 30 days. */
export async function openedOrders(): Promise<Set<number>> {
  const opened = (await readCache<Record<string, number>>('opened-orders'))?.value ?? {};
  return new Set(
    Object.entries(opened)
      .filter(([, at]) => Date.now() - at < OPENED_FOR_MS)
      .map(([id]) => Number(id)),
  );
}

/** An order's files as the screen now knows them (after an upload), for offline. */
export function keepOrderFiles(id: number, items: OrderFileList['items']): Promise<void> {
  return writeCache(`order-files:${id}`, { items, total: items.length });
}

export function readOrderFiles(id: number, show: (files: OrderFileList, fromCache: boolean) => void): Promise<void> {
  return readThrough(`order-files:${id}`, () => loadOrderFiles(id), show);
}

/** An order's material lines as the screen now knows them (after a change), for offline. */
export function keepMaterials(orderId: number, items: MaterialList['items']): Promise<void> {
  return writeCache(`materials:${orderId}`, { items, total: items.length });
}

export function readMaterials(orderId: number, show: (list: MaterialList, fromCache: boolean) => void): Promise<void> {
  return readThrough(`materials:${orderId}`, () => loadMaterials(orderId), show);
}

/** Time on site at an order: every technician's intervals, their total, the person's open one. */
export function readOrderTimes(orderId: number, show: (list: TimeList, fromCache: boolean) => void): Promise<void> {
  const query = { ...elementParams(orderId), limit: 500 };
  return readThrough(`times:${orderId}`, () => unwrap(api.GET('/api/times.php', { params: { query } })) as Promise<TimeList>, show);
}

/** Time on site a report shows (its total goes on the report's screen). */
export function readReportTimes(reportId: number, show: (list: TimeList, fromCache: boolean) => void): Promise<void> {
  return readThrough(
    `report-times:${reportId}`,
    () => unwrap(api.GET('/api/times.php', { params: { query: { bericht_id: reportId, limit: 500 } } })) as Promise<TimeList>,
    show,
  );
}

/**
 * What a mail of a final report would say (recipients, the settings' copies, subject and text):
 * read when the final report is shown with signal, so the send dialog has it offline later.
 */
export function readMailProposal(reportId: number, show: (proposal: MailProposal, fromCache: boolean) => void): Promise<void> {
  const query = { action: 'propose', bericht_id: reportId };
  return readThrough(
    `mail-proposal:${reportId}`,
    () => unwrap(api.GET('/api/mails.php', { params: { query } })) as Promise<MailProposal>,
    show,
  );
}

/** The proposal the phone has for a report, if any (offline: the last one read). */
export async function cachedMailProposal(reportId: number): Promise<MailProposal | undefined> {
  return (await readCache<MailProposal>(`mail-proposal:${reportId}`))?.value;
}

function loadReportMails(reportId: number): Promise<MailList> {
  return unwrap(api.GET('/api/mails.php', { params: { query: { bericht_id: reportId, limit: 50 } } })) as Promise<MailList>;
}

/** A report's mails, newest first: the phone's last answer at once, then the service's. */
export function readReportMails(reportId: number, show: (list: MailList, fromCache: boolean) => void): Promise<void> {
  return readThrough(`mails:${reportId}`, () => loadReportMails(reportId), show);
}

/** The service's list again (while a mail is on its way), kept for offline. */
export async function refreshReportMails(reportId: number): Promise<MailList> {
  const epoch = userDataEpoch;
  const list = await loadReportMails(reportId);
  await writeCache(`mails:${reportId}`, list, epoch);
  return list;
}
