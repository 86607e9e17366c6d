/**
 * Files of the service (thumbnails, photos, voice notes) fetched with the token in the
 * Authorization header, never in the URL. Thumbnails are kept as Blobs on the phone (the newest
 * KEEP_THUMBNAILS), so a grid seen once shows offline too; whole files only while on screen, and
 * the last few whole photos in memory (to mark one up offline after it was seen).
 *
 * A list of many thumbnails (a report's 50 pages, an order's photos) does not fetch them all at
 * once: a thumbnail is fetched and drawn when it comes near the screen (`whenNear`,
 * `showThumbnail`); those not shown yet are fetched afterwards one at a time, when no thumbnail on
 * screen is loading and the phone is idle, and kept without being drawn (`keepLater`), so the
 * whole list still shows offline later, as when they were all fetched at the start.
 */
import { api, NetworkError, unwrap } from '../../api/client';
import { db, userDataEpoch } from './db';

const KEEP_THUMBNAILS = 600;

/**
 * The whole photos last fetched (the viewer's), in memory only and for this login: a photo seen in
 * full can be shown and marked up again without a connection. Bounded in count and bytes (a phone's
 * photos are 3 to 15 MB); a reload or a logout forgets them.
 */
const WHOLE_PHOTOS = 4;
const WHOLE_PHOTO_BYTES = 64 * 1024 * 1024;
const wholePhotos = new Map<string, { blob: Blob; epoch: number }>();

function rememberWhole(url: string, blob: Blob, epoch: number): void {
  if (!blob.type.startsWith('image/') || blob.size > WHOLE_PHOTO_BYTES || epoch !== userDataEpoch) return;
  wholePhotos.delete(url);
  wholePhotos.set(url, { blob, epoch });
  let bytes = [...wholePhotos.values()].reduce((sum, w) => sum + w.blob.size, 0);
  for (const [oldest, whole] of wholePhotos) {
    if (wholePhotos.size <= WHOLE_PHOTOS && bytes <= WHOLE_PHOTO_BYTES) break;
    wholePhotos.delete(oldest);
    bytes -= whole.blob.size;
  }
}

/** The service's file URL (`/api/photo.php?modulepart=…&file=…[&size=…]`) as a Blob. */
export async function fileBlob(url: string, options: { keep?: boolean } = {}): Promise<Blob> {
  const epoch = userDataEpoch;
  if (options.keep) {
    const kept = await keptBlob(url);
    if (kept) return kept;
  } else {
    const whole = wholePhotos.get(url);
    if (whole?.epoch === epoch) return whole.blob;
    // Another login's: none of them is shown again.
    if (whole) wholePhotos.clear();
  }
  const target = new URL(url, location.origin);
  const query = Object.fromEntries(target.searchParams) as { modulepart: string; file: string; size?: 'small' | 'mini' };
  // Not into the browser's HTTP cache: after a logout the next person must not see them.
  const blob = (await unwrap(api.GET('/api/photo.php', { params: { query }, parseAs: 'blob', cache: 'no-store' }))) as Blob;
  if (options.keep && epoch === userDataEpoch) {
    await (await db()).put('blobs', { blob, savedAt: Date.now() }, url);
    trimSoon();
  } else if (!options.keep && !query.size) {
    rememberWhole(url, blob, epoch);
  }
  return blob;
}

/**
 * Kept thumbnails asked for at the same moment (the rows a list draws at once) are read in one
 * transaction and handed over together: one update of the screen, not one for each.
 */
let reads: { url: string; done: (blob: Blob | undefined) => void; failed: (failure: unknown) => void }[] = [];

function keptBlob(url: string): Promise<Blob | undefined> {
  return new Promise((done, failed) => {
    if (reads.push({ url, done, failed }) === 1) queueMicrotask(() => void readKept());
  });
}

async function readKept(): Promise<void> {
  const batch = reads;
  reads = [];
  try {
    const tx = (await db()).transaction('blobs');
    const kept = await Promise.all(batch.map((read) => tx.store.get(read.url)));
    for (const [i, read] of batch.entries()) read.done(kept[i]?.blob);
  } catch (failure) {
    for (const read of batch) read.failed(failure);
  }
}

/** The oldest thumbnails beyond KEEP_THUMBNAILS go once a burst of new ones is stored. */
let trimming: ReturnType<typeof setTimeout> | undefined;
function trimSoon(): void {
  clearTimeout(trimming);
  trimming = setTimeout(() => void trim(), 2000);
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

// ---- thumbnails as they come into view -------------------------------------------------------

/** How far beyond the screen's top and bottom a thumbnail starts loading: half a screen. */
const AHEAD = '50% 0px';
let observer: IntersectionObserver | undefined;
const watched = new Map<Element, () => void>();

/** Calls `near` once, when `element` comes within half a screen of the view; returns the clean-up. */
export function whenNear(element: Element, near: () => void): () => void {
  if (typeof IntersectionObserver === 'undefined') {
    near();
    return () => {};
  }
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const callback = entry.isIntersecting ? watched.get(entry.target) : undefined;
        if (!callback) continue;
        observer!.unobserve(entry.target);
        watched.delete(entry.target);
        callback();
      }
    },
    { rootMargin: AHEAD },
  );
  watched.set(element, near);
  observer.observe(element);
  return () => {
    if (!watched.delete(element)) return;
    observer!.unobserve(element);
  };
}

/** Thumbnails loading for the screen now; the ones kept for later wait for these. */
let onScreen = 0;
/** Thumbnails to keep that no screen has shown yet (URL → the user data's epoch when asked). */
const later = new Map<string, number>();
let keeping = false;

/** A thumbnail for the screen (kept on the phone, as `fileBlob(url, { keep: true })`). */
export async function showThumbnail(url: string): Promise<Blob> {
  later.delete(url);
  onScreen++;
  try {
    return await fileBlob(url, { keep: true });
  } finally {
    onScreen--;
    keepNext();
  }
}

/** A thumbnail not near the screen: fetched and kept later, one at a time, unless shown before. */
export function keepLater(url: string): void {
  if (!later.has(url)) later.set(url, userDataEpoch);
  keepNext();
}

const whenIdle: (run: () => void) => void =
  typeof requestIdleCallback === 'function' ? (run) => requestIdleCallback(run, { timeout: 2000 }) : (run) => setTimeout(run, 200);

function keepNext(): void {
  if (keeping || onScreen > 0 || later.size === 0) return;
  keeping = true;
  whenIdle(() => {
    const next = onScreen > 0 ? undefined : later.entries().next().value;
    if (!next) {
      keeping = false;
      keepNext();
      return;
    }
    const [url, epoch] = next;
    later.delete(url);
    const done = () => {
      keeping = false;
      keepNext();
    };
    if (epoch !== userDataEpoch) return done();
    fileBlob(url, { keep: true }).then(done, (failure: unknown) => {
      // Without a connection the rest would fail too: they are fetched when shown.
      if (failure instanceof NetworkError) later.clear();
      done();
    });
  });
}
