/**
 * What the screens read, each through the cache (lib/cache.ts): orders, one order, its files, its
 * material lines. Offline, the orders already seen can still be searched (on the phone).
 */
import { api, unwrap } from '../api/client';
import type { MaterialList, OrderDetail, OrderFileList, OrderList, OrderSummary } from '../api/types';
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

/** Orders seen before, narrowed by `q` as the service would (ref, customer's ref, customer name). */
export async function cachedOrders(q: string): Promise<OrderSummary[]> {
  const all = (await readCache<OrderSummary[]>('orders'))?.value ?? [];
  const needle = q.trim().toLowerCase();
  if (!needle) return all;
  return all.filter((o) => [o.ref, o.ref_client, o.customer?.name].some((text) => text?.toLowerCase().includes(needle)));
}

export function readOrder(id: number, show: (order: OrderDetail, fromCache: boolean) => void): Promise<void> {
  return readThrough(`order:${id}`, async () => (await unwrap(api.GET('/api/orders.php', { params: { query: { id } } }))) as OrderDetail, show);
}

/** An order's files as the screen now knows them (after an upload), for offline. */
export function keepOrderFiles(id: number, items: OrderFileList['items']): Promise<void> {
  return writeCache(`order-files:${id}`, { items, total: items.length });
}

export function readOrderFiles(id: number, show: (files: OrderFileList, fromCache: boolean) => void): Promise<void> {
  return readThrough(
    `order-files:${id}`,
    async () => (await unwrap(api.GET('/api/orders.php', { params: { query: { id, action: 'photos', limit: 500 } } }))) as OrderFileList,
    show,
  );
}

/** An order's material lines as the screen now knows them (after a change), for offline. */
export function keepMaterials(orderId: number, items: MaterialList['items']): Promise<void> {
  return writeCache(`materials:${orderId}`, { items, total: items.length });
}

export function readMaterials(orderId: number, show: (list: MaterialList, fromCache: boolean) => void): Promise<void> {
  return readThrough(
    `materials:${orderId}`,
    () => unwrap(api.GET('/api/materials.php', { params: { query: { element_type: 'commande', fk_element: orderId, limit: 500 } } })),
    show,
  );
}
