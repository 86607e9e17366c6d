/**
 * The app's storage on the phone (IndexedDB through idb). One database, six stores:
 * - `session`: the login (token, expiry, user, rights), key 'current';
 * - `cache`: the last answer of each GET the app shows (orders, an order, its files, materials),
 *   so a screen shows at once and offline;
 * - `blobs`: thumbnails and files fetched with the token, as Blobs;
 * - `outbox`: every change waiting to be sent (lib/outbox/outbox.svelte.ts), in creation order;
 * - `settings`: the person's choices on this phone, and which service ids the reports, pages and
 *   photos made on the phone got (lib/outbox/local-ids.svelte.ts; records waiting to be sent refer to them);
 * - `products`: the copy of Dolibarr's catalogue the material lines are searched in offline, with
 *   the stock of the person's van (lib/store/catalogue.ts), by product id.
 * Logout clears everything but what is still waiting to be sent (a shared phone must not show the
 * last user's orders; nothing the person captured is dropped silently).
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Product } from '../../api/types';
import type { OutboxRecord } from '../outbox/records';

export interface Session {
  token: string;
  /** Unix seconds. */
  expires: number;
  user: { id: number; login: string; name: string; admin: boolean };
  perms: { read: boolean; write: boolean; delete: boolean; admin: boolean };
}

interface Schema extends DBSchema {
  session: { key: string; value: Session };
  cache: { key: string; value: { value: unknown; savedAt: number } };
  blobs: { key: string; value: { blob: Blob; savedAt: number }; indexes: { savedAt: number } };
  outbox: { key: string; value: OutboxRecord; indexes: { createdAt: number } };
  settings: { key: string; value: unknown };
  products: { key: number; value: Product };
}

let opened: Promise<IDBPDatabase<Schema>> | undefined;

export function db(): Promise<IDBPDatabase<Schema>> {
  opened ??= openDB<Schema>('fieldreport', 2, {
    upgrade(database, oldVersion) {
      if (oldVersion < 1) {
        database.createObjectStore('session');
        database.createObjectStore('cache');
        database.createObjectStore('blobs').createIndex('savedAt', 'savedAt');
        database.createObjectStore('outbox', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
        database.createObjectStore('settings');
      }
      if (oldVersion < 2) database.createObjectStore('products', { keyPath: 'id' });
    },
  });
  return opened;
}

/**
 * Counts the clearings: a read that started before one must not write its answer after it (a slow
 * answer for the last user arriving after the logout).
 */
export let userDataEpoch = 0;

/** Everything a user's reads left on the phone (the catalogue copy too: it holds his van's stock); the outbox stays. */
export async function clearUserData(): Promise<void> {
  userDataEpoch++;
  const d = await db();
  const tx = d.transaction(['session', 'cache', 'blobs', 'products', 'settings'], 'readwrite');
  await Promise.all([
    tx.objectStore('session').clear(),
    tx.objectStore('cache').clear(),
    tx.objectStore('blobs').clear(),
    tx.objectStore('products').clear(),
    tx.objectStore('settings').delete('catalogue'),
    tx.done,
  ]);
}
