/**
 * The last answer of each read the app shows, kept in IndexedDB: a screen shows it at once (also
 * offline) and then asks the service again. Keys name what was read (`order:12`), per phone; logout
 * and a login as someone else clear them (lib/store/db.ts).
 */
import { db, userDataEpoch } from './db';

export async function readCache<T>(key: string): Promise<{ value: T; savedAt: number } | undefined> {
  return (await (await db()).get('cache', key)) as { value: T; savedAt: number } | undefined;
}

/**
 * `value` must be plain data (an answer of the service), not a Svelte state proxy. `epoch` is
 * `userDataEpoch` when the read began: after a logout since then, nothing is written.
 */
export async function writeCache(key: string, value: unknown, epoch = userDataEpoch): Promise<void> {
  if (epoch !== userDataEpoch) return;
  await (await db()).put('cache', { value, savedAt: Date.now() }, key);
}

/**
 * Shows the cached value (if any) through `show`, then the fresh one, and stores it. A failed load
 * leaves the cached value on screen and throws. The load is started at once, while the cache is
 * read (the cached value is still shown first), and the fresh value is shown before it is stored:
 * on a slow phone neither waits for the other.
 */
export async function readThrough<T>(key: string, load: () => Promise<T>, show: (value: T, fromCache: boolean) => void): Promise<void> {
  const epoch = userDataEpoch;
  const loading = load();
  // Awaited below; not an unhandled rejection while the cache is read.
  loading.catch(() => {});
  const cached = await readCache<T>(key);
  if (cached) show(cached.value, true);
  const fresh = await loading;
  show(fresh, false);
  await writeCache(key, fresh, epoch);
}
