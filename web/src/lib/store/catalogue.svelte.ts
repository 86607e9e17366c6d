/**
 * Dolibarr's catalogue on the phone: the products and services on sale (GET /api/products.php),
 * with the stock of the person's van, kept in the `products` store so the material dialog finds a
 * part as the person types, with or without signal.
 *
 * - The first copy is read page by page (PAGE a request, by ref) up to `settings.catalogueMax`
 *   entries (later changes are added to it whatever the bound); later ones ask only for what changed since the mark of the last copy
 *   (`changed_since`: the service answers a minute back, so nothing committed late is missed),
 *   putting what changed and dropping what went off sale. The mark kept is the one of a copy's
 *   first page, so what changed while it was being read comes again next time.
 * - Once a day, and when the person asks for a refresh, the ids on sale are asked for
 *   (`action=ids`) and whatever else the copy holds is dropped (a product deleted in Dolibarr
 *   leaves no change to follow).
 * - Pages are read by offset and overlap by OVERLAP entries, so an entry that leaves the list
 *   while it is read (and moves the rest back) does not make the next page miss one.
 * - The copy is the person's (his van's stock): a login as someone else, and a logout, clear it
 *   (lib/store/db.ts).
 * Searching (`searchCatalogue`) runs in memory over every entry's ref, label and barcode, read from
 * the store once and kept while the page lives.
 */
import { api, unwrap } from '../../api/client';
import type { Product, ProductIds, ProductList } from '../../api/types';
import { settings } from '../app/settings.svelte';
import { db, userDataEpoch } from './db';

/** Entries a request (the service's largest page). */
const PAGE = 500;
/**
 * Pages overlap by this many entries: the pages are read by offset, and an entry that leaves the
 * list before the page being read (deleted, or moved to the end by a change while a copy is made)
 * moves the rest back by one. With the overlap, up to OVERLAP such moves between two requests
 * still miss nothing (an entry read twice is just put twice).
 */
const OVERLAP = 25;
/** The ids on sale are compared with the copy at most this often. */
const PRUNE_EVERY_MS = 24 * 3600_000;
/** A sync starts again only after this long, unless asked for (a refresh). */
const AGAIN_AFTER_MS = 10 * 60_000;

/** What the `settings` store keeps under 'catalogue' about the copy. */
export interface CatalogueState {
  /** Whose copy it is (his van's stock). */
  user: number;
  /** The service's sync_mark of the copy's last sync: the next `changed_since`. */
  mark: string;
  /** When the last sync ended (ms), and when the ids were last compared. */
  at: number;
  prunedAt: number;
  /** Entries kept, and whether the catalogue had more than `settings.catalogueMax`. */
  count: number;
  truncated: boolean;
}

export const catalogue = $state({ syncing: false, count: 0, at: 0, truncated: false });

/** The entries with what a search compares (lower case), in ref order; undefined until read from the store. */
let index: Array<{ product: Product; hay: string; ref: string; barcode: string }> | undefined;

const normalize = (text: string) => text.toLocaleLowerCase('de').normalize('NFC');

function indexed(product: Product) {
  return {
    product,
    hay: normalize(`${product.ref}\n${product.label}\n${product.barcode ?? ''}`),
    ref: normalize(product.ref),
    barcode: product.barcode ?? '',
  };
}

type Index = NonNullable<typeof index>;
/** The reading of the copy into memory under way: one for every search that waits for it. */
let loading: Promise<Index> | undefined;

/** The copy read into memory (once; again after a sync). Read before a logout is not kept after it. */
function loadIndex(): Promise<Index> {
  loading ??= (async () => {
    const epoch = userDataEpoch;
    await showCatalogue();
    const all = await (await db()).getAll('products');
    all.sort((a, b) => a.ref.localeCompare(b.ref));
    const made = all.map(indexed);
    if (epoch === userDataEpoch) {
      index = made;
      catalogue.count = made.length;
    }
    return made;
  })().finally(() => (loading = undefined));
  return loading;
}

/** Reads the copy into memory ahead of the first search (when the material dialog opens). */
export async function prepareCatalogue(): Promise<void> {
  index ?? (await loadIndex());
}

/**
 * Up to `max` entries whose ref, label or barcode hold every word of `text`: an exact barcode or
 * ref first, then refs that begin with the text, then the rest in ref order.
 */
export async function searchCatalogue(text: string, max = 20): Promise<Product[]> {
  const words = normalize(text).split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const entries = index ?? (await loadIndex());
  const whole = normalize(text.trim());
  const exact: Product[] = [];
  const starts: Product[] = [];
  const rest: Product[] = [];
  for (const entry of entries) {
    if (!words.every((w) => entry.hay.includes(w))) continue;
    if (entry.barcode === text.trim() || entry.ref === whole) exact.push(entry.product);
    else if (entry.ref.startsWith(whole)) starts.push(entry.product);
    else if (rest.length < max) rest.push(entry.product);
  }
  return [...exact, ...starts, ...rest].slice(0, max);
}

/**
 * What the service finds for `text` (`q`), for a copy that does not hold the whole catalogue (cut
 * at `settings.catalogueMax`, or not made yet); nothing offline or when refused.
 */
export async function searchOnline(text: string, max = 20): Promise<Product[]> {
  if (!navigator.onLine || !text.trim()) return [];
  try {
    const page = (await unwrap(
      api.GET('/api/products.php', { params: { query: { q: text.trim().slice(0, 100), limit: max } } }),
    )) as ProductList;
    return page.items;
  } catch {
    return [];
  }
}

/** What the service has with this barcode exactly (a scan the copy does not know, when it is not the whole catalogue). */
export async function searchByBarcodeOnline(code: string): Promise<Product[]> {
  if (!navigator.onLine) return [];
  try {
    return ((await unwrap(api.GET('/api/products.php', { params: { query: { barcode: code.slice(0, 180) } } }))) as ProductList).items;
  } catch {
    return [];
  }
}

/** Whether the copy may lack entries the service has (cut at the bound, or not made yet). */
export const copyIsPartial = () => catalogue.truncated || catalogue.at === 0;

/** The copy's state on screen (Settings). */
export async function showCatalogue(): Promise<void> {
  const state = await catalogueState();
  catalogue.count = state?.count ?? 0;
  catalogue.at = state?.at ?? 0;
  catalogue.truncated = state?.truncated ?? false;
}

/** A new copy from the start (the bound changed). */
export async function restartCatalogue(): Promise<void> {
  // A sync under way first ends: it would write its state back after the deletion.
  await running;
  await (await db()).delete('settings', 'catalogue');
  index = undefined;
  await syncCatalogue({ now: true });
}

/** The entries with this barcode exactly (what a scan read). */
export async function byBarcode(code: string): Promise<Product[]> {
  const entries = index ?? (await loadIndex());
  return entries.filter((e) => e.barcode === code).map((e) => e.product);
}

/** The copy's entry of a product, if kept. */
export async function catalogueProduct(id: number): Promise<Product | undefined> {
  return (await db()).get('products', id);
}

export async function catalogueState(): Promise<CatalogueState | undefined> {
  return (await (await db()).get('settings', 'catalogue')) as CatalogueState | undefined;
}

let running: Promise<void> | undefined;

/**
 * Brings the copy up to date (in the background: failures leave the copy as it was). `now`: the
 * person asked, so it runs even if it ran a moment ago. One at a time.
 */
export function syncCatalogue(options: { now?: boolean } = {}): Promise<void> {
  running ??= syncNow(options.now ?? false).finally(() => (running = undefined));
  return running;
}

async function syncNow(forced: boolean): Promise<void> {
  if (!navigator.onLine) return;
  const epoch = userDataEpoch;
  const userId = (await (await db()).get('session', 'current'))?.user.id;
  if (userId === undefined) return;
  const last = await catalogueState();
  if (!forced && last?.user === userId && Date.now() - last.at < AGAIN_AFTER_MS) return;
  catalogue.syncing = true;
  try {
    const store = await db();
    const low = { priority: 'low' as RequestPriority };
    const pages = async (query: { changed_since?: string }, each: (page: ProductList) => Promise<boolean>) => {
      let mark: string | undefined;
      for (let offset = 0; ; offset += PAGE - OVERLAP) {
        const page = (await unwrap(
          api.GET('/api/products.php', { params: { query: { ...query, limit: PAGE, offset } }, ...low }),
        )) as ProductList;
        if (epoch !== userDataEpoch) return undefined;
        mark ??= page.sync_mark;
        if (!(await each(page)) || page.items.length < PAGE) return mark;
      }
    };
    const max = settings.catalogueMax;
    let state: CatalogueState;
    if (last?.user !== userId) {
      // A first copy (or another person's was here): from the start, by ref, up to the bound.
      await store.clear('products');
      const put = new Set<number>();
      let truncated = false;
      const mark = await pages({}, async (page) => {
        // The overlap's entries are in already; the rest up to the bound.
        const fresh = page.items.filter((p) => !put.has(p.id));
        const items = fresh.slice(0, Math.max(0, max - put.size));
        const tx = store.transaction('products', 'readwrite');
        await Promise.all([...items.map((p) => tx.store.put(p)), tx.done]);
        for (const p of items) put.add(p.id);
        truncated = items.length < fresh.length || (put.size >= max && page.total > put.size);
        return !truncated;
      });
      if (mark === undefined) return;
      state = { user: userId, mark, at: Date.now(), prunedAt: Date.now(), count: put.size, truncated };
    } else {
      const mark = await pages({ changed_since: last.mark }, async (page) => {
        const tx = store.transaction('products', 'readwrite');
        await Promise.all([...page.items.map((p) => (p.on_sale ? tx.store.put(p) : tx.store.delete(p.id))), tx.done]);
        return true;
      });
      if (mark === undefined) return;
      let prunedAt = last.prunedAt;
      if (forced || Date.now() - last.prunedAt > PRUNE_EVERY_MS) {
        const answer = (await unwrap(api.GET('/api/products.php', { params: { query: { action: 'ids' } }, ...low }))) as ProductIds;
        if (epoch !== userDataEpoch) return;
        const onSale = new Set(answer.ids);
        const kept = await store.getAllKeys('products');
        const tx = store.transaction('products', 'readwrite');
        await Promise.all([...kept.filter((id) => !onSale.has(id)).map((id) => tx.store.delete(id)), tx.done]);
        prunedAt = Date.now();
      }
      const count = await store.count('products');
      state = { user: userId, mark, at: Date.now(), prunedAt, count, truncated: last.truncated };
    }
    if (epoch !== userDataEpoch) return;
    await store.put('settings', state, 'catalogue');
    catalogue.at = state.at;
    catalogue.truncated = state.truncated;
    await loadIndex();
  } catch {
    // Offline or refused: the copy stays as it was; the next sync tries again.
  } finally {
    catalogue.syncing = false;
  }
}

/** After a logout: nothing of the last person's copy stays in memory. */
export function forgetCatalogue(): void {
  index = undefined;
  loading = undefined;
  catalogue.count = 0;
  catalogue.at = 0;
  catalogue.truncated = false;
}
