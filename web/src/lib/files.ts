/**
 * Files of the service (thumbnails, photos, voice notes) fetched with the token in the
 * Authorization header, never in the URL. Thumbnails are kept as Blobs on the phone (the newest
 * KEEP_THUMBNAILS), so a grid seen once shows offline too; whole files only while on screen.
 */
import { api, unwrap } from '../api/client';
import { db, userDataEpoch } from './db';

const KEEP_THUMBNAILS = 600;

/** The service's file URL (`/api/photo.php?modulepart=…&file=…[&size=…]`) as a Blob. */
export async function fileBlob(url: string, options: { keep?: boolean } = {}): Promise<Blob> {
  const store = await db();
  const epoch = userDataEpoch;
  if (options.keep) {
    const kept = await store.get('blobs', url);
    if (kept) return kept.blob;
  }
  const target = new URL(url, location.origin);
  const query = Object.fromEntries(target.searchParams) as { modulepart: string; file: string; size?: 'small' | 'mini' };
  // Not into the browser's HTTP cache: after a logout the next person must not see them.
  const blob = (await unwrap(api.GET('/api/photo.php', { params: { query }, parseAs: 'blob', cache: 'no-store' }))) as Blob;
  if (options.keep && epoch === userDataEpoch) {
    await store.put('blobs', { blob, savedAt: Date.now() }, url);
    void trim();
  }
  return blob;
}

async function trim(): Promise<void> {
  const store = await db();
  const count = await store.count('blobs');
  if (count <= KEEP_THUMBNAILS) return;
  const tx = store.transaction('blobs', 'readwrite');
  let cursor = await tx.store.index('savedAt').openCursor();
  for (let over = count - KEEP_THUMBNAILS; cursor && over > 0; over--) {
    await cursor.delete();
    cursor = await cursor.continue();
  }
  await tx.done;
}
