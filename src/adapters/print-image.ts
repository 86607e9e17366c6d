/**
 * Photos scaled to print size once, then reused. A phone photo is decoded, turned upright (EXIF
 * orientation), scaled to PRINT_DPI across the largest box it can get on its page
 * (pdf.ts, largestImageBox) and written as a JPEG without alpha into a cache folder, in the
 * quality that keeps it within PRINT_BITS_PER_PIXEL, so that a report of 50 photo pages stays
 * mailable (under 5 MB). The name is a hash of the source's absolute path, size and mtime plus the
 * pixel size, so an unchanged photo is prepared once per box and every later report reuses the
 * file; a replaced photo gets new entries. A copy's time is its last use; the daily clean-up
 * (sweepPrintCache) removes copies unused for PRINT_CACHE_MAX_AGE_DAYS and, beyond
 * PRINT_CACHE_MAX_BYTES, the copies unused longest: a removed copy is simply made again when a PDF
 * needs it.
 *
 * Copies are made ahead, in the background, as photos arrive and pages are made
 * (createPrintQueue), so that finalizing finds them ready.
 *
 * One file, longer than most: the copy's name, its making, the background queue and the sweep share
 * the cache's layout and its rules of reuse, which would otherwise be written twice.
 */
import { createHash } from 'node:crypto';
import { readdir, rm, stat, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { AppError } from '../errors.js';
import { writeFileAtomic } from './file-store.js';
import { collectIfBuffersPiled, collectWhenQuiet } from './heap.js';
import {
  MAX_INPUT_PIXELS,
  THUMBNAIL_SIZES,
  decodeUpright,
  jpegShrink,
  thumbnailReduction,
  uprightSize,
  withShrink,
  writeThumbnailsFrom,
} from './image.js';
import type { ImageBox } from './pdf.js';

export interface PrintImage {
  /** The prepared JPEG inside the cache folder. */
  path: string;
  /** Pixel size of the prepared JPEG, upright. */
  width: number;
  height: number;
}

/**
 * Pixels per inch of a photo's largest box on its page. A page's title and note make the drawn
 * image smaller, so what is printed has at least this resolution: 150 dpi is sharp on paper at
 * reading distance. A 4:3 photo on an A4 photo page is 1111 × 1482 px (portrait) or
 * 1122 × 842 px (landscape).
 * @default 150
 */
export const PRINT_DPI = 150;
/**
 * Size budget of a print copy: the highest of PRINT_QUALITIES that stays within it is kept, the
 * lowest when none does. 0.45 bits a pixel is about 93 kB for a full A4 photo page at 150 dpi,
 * so 50 photo pages make a PDF under 5 MB; a clean photo keeps a high quality, a grainy one
 * (high ISO) a lower one.
 * @default 0.45
 */
export const PRINT_BITS_PER_PIXEL = 0.45;
/**
 * JPEG qualities tried, highest first (see encodeWithinBudget). The copy is
 * encoded by mozjpeg (trellis quantisation, optimised progressive scans, 4:2:0 chroma) with its
 * MS-SSIM-tuned tables (quantisationTable 2): the smallest files of sharp's encoders and tables at
 * equal quality in our measurements, about 30% below libjpeg's defaults, at about 0.1 s for a full
 * A4 page.
 */
export const PRINT_QUALITIES = [70, 55, 40] as const;
/** Print-size copies unused this long are removed by the daily clean-up. @default 30 days */
export const PRINT_CACHE_MAX_AGE_DAYS = 30;
/** Beyond this size the daily clean-up removes the copies unused longest. @default 2 GiB */
export const PRINT_CACHE_MAX_BYTES = 2 * 1024 ** 3;

/** Part of every cache key: raise it when the output changes, so old entries are not reused. */
const FORMAT_VERSION = 2;
/** Cache file names: `<key>-<width>x<height>.jpg`, and `<key>.jpg` from before pixel sizes. */
const CACHE_FILE = /^[0-9a-f]{64}(?:-\d+x\d+)?\.jpg$/;

/** The hash naming `source` as it is now (absolute path, size, mtime), for one format version. */
async function keyOf(absolute: string, version = FORMAT_VERSION): Promise<string> {
  const { size, mtimeMs } = await stat(absolute);
  return createHash('sha256')
    .update(JSON.stringify([absolute, size, mtimeMs, version]))
    .digest('hex');
}

/**
 * The pixel size at which an upright image of `width` × `height` px fills `box` (points) at `dpi`:
 * never larger than the image, at least 1 px a side.
 */
export function printSize(width: number, height: number, box: ImageBox, dpi = PRINT_DPI): { width: number; height: number } {
  const pointsPerPixel = Math.min(box.width / width, box.height / height);
  const scale = Math.min(1, (pointsPerPixel * dpi) / 72);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Work in progress per cache file, so two renders (or a render and the queue) decode a photo once. */
const inFlight = new Map<string, Promise<PrintImage>>();

/**
 * What the print copy of `source` for `box` is: the photo's metadata (its header; a file sharp
 * cannot read is IMAGE_INVALID), its upright size, the copy's pixel size and its cache file.
 */
async function plannedCopy(source: string, cacheDir: string, box: ImageBox, dpi: number) {
  const absolute = path.resolve(source);
  const key = await keyOf(absolute);
  let meta: sharp.Metadata;
  try {
    meta = await sharp(absolute, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    if (!meta.width || !meta.height) throw new Error('no size');
  } catch {
    throw new AppError('IMAGE_INVALID');
  }
  const upright = uprightSize(meta);
  const size = printSize(upright.width, upright.height, box, dpi);
  return { absolute, key, meta, upright, size, target: path.join(path.resolve(cacheDir), `${key}-${size.width}x${size.height}.jpg`) };
}

/**
 * The print-size version of `source` for `box` (points) at `dpi` inside `cacheDir`, made when it is missing.
 * Throws AppError('IMAGE_INVALID') when sharp cannot read the photo; a missing source rejects with
 * the file system's error (code ENOENT).
 */
export async function preparePrintImage(source: string, cacheDir: string, box: ImageBox, dpi = PRINT_DPI): Promise<PrintImage> {
  const { absolute, key, meta, upright, size, target } = await plannedCopy(source, cacheDir, box, dpi);
  let work = inFlight.get(target);
  if (!work) {
    work = (async () => {
      // A copy made for a larger box (another layout) is already upright and print-size: scaling it
      // down takes a few milliseconds where decoding the original takes a hundred and more.
      const larger = await largerCopy(path.resolve(cacheDir), key, size, target);
      const from = larger ?? { file: absolute, width: upright.width, format: meta.format };
      const shrink = from.format === 'jpeg' ? jpegShrink(from.width / size.width) : 1;
      return reuseOrPrepare(from.file, target, size, shrink);
    })().finally(() => inFlight.delete(target));
    inFlight.set(target, work);
  }
  return work;
}

/**
 * A photo just uploaded, from one decode of it: both Dolibarr thumbnails beside `file` and its
 * print-size copy for `box` (unless that is made or being made already). The decode is at the JPEG
 * reduction that serves both (for a phone's 12 MP photo and the default layout, a quarter of each
 * side), which reads the whole image: a photo that is corrupt inside a sound structure fails here
 * (IMAGE_INVALID), and nothing is written for it.
 */
export async function preparePhoto(file: string, cacheDir: string, box: ImageBox, dpi = PRINT_DPI): Promise<void> {
  const { absolute, meta, upright, size, target } = await plannedCopy(file, cacheDir, box, dpi);
  const copyNeeded =
    !inFlight.has(target) &&
    !(await stat(target).then(
      () => true,
      () => false,
    ));
  const reduction = copyNeeded
    ? Math.min(upright.width / size.width, thumbnailReduction(upright.width, upright.height))
    : thumbnailReduction(upright.width, upright.height);
  // Scaled as it is read to the larger of what is made of it: the copy, else the small thumbnail.
  const fit = copyNeeded ? size : THUMBNAIL_SIZES.small;
  const decode = decodeUpright(absolute, meta.format, meta.format === 'jpeg' ? jpegShrink(reduction) : 1, fit).catch(() => {
    throw new AppError('IMAGE_INVALID');
  });
  const copy = copyNeeded
    ? (async () => {
        const decoded = await decode;
        // Decoded at the copy's size already, without alpha (a phone's JPEG): nothing to scale or flatten.
        if (decoded.info.width === size.width && decoded.info.height === size.height && decoded.info.channels === 3)
          return writeCopy(decoded, target);
        const pixels = await sharp(decoded.data, {
          raw: { width: decoded.info.width, height: decoded.info.height, channels: decoded.info.channels },
        })
          .resize(size.width, size.height, { fit: 'fill' })
          .flatten({ background: '#ffffff' })
          .raw()
          .toBuffer({ resolveWithObject: true });
        return writeCopy(pixels, target);
      })().finally(() => inFlight.delete(target))
    : undefined;
  if (copy) inFlight.set(target, copy);
  const thumbnails = decode.then(async (decoded) => {
    const written = await writeThumbnailsFrom(decoded, absolute, meta.format);
    // A photo deleted while they were made (a delete right after the upload) keeps no thumbnails.
    if (
      !(await stat(absolute).then(
        () => true,
        () => false,
      ))
    )
      await Promise.all(written.map((f) => rm(f, { force: true })));
  });
  // Both to their end before a failure is reported.
  const results = await Promise.allSettled([thumbnails, copy]);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The smallest existing copy of `key` at least `size` in both sides (the same photo, upright), other than `target`. */
async function largerCopy(
  cacheDir: string,
  key: string,
  size: { width: number; height: number },
  target: string,
): Promise<{ file: string; width: number; format: 'jpeg' } | null> {
  if (
    await stat(target).then(
      () => true,
      () => false,
    )
  )
    return null; // there already: reused as it is
  const names = await readdir(cacheDir).catch(() => [] as string[]);
  let best: { file: string; width: number; format: 'jpeg' } | null = null;
  for (const name of names) {
    if (!name.startsWith(`${key}-`)) continue;
    const match = /-(\d+)x(\d+)\.jpg$/.exec(name);
    if (!match) continue;
    const [width, height] = [Number(match[1]), Number(match[2])];
    // The same proportions (a copy of this photo, not a crop), and no smaller than wanted.
    if (width < size.width || height < size.height || Math.abs(width / height - size.width / size.height) > 0.02) continue;
    if (!best || width < best.width) best = { file: path.join(cacheDir, name), width, format: 'jpeg' };
  }
  return best;
}

/**
 * Removes every prepared copy of `source` (as the file is now), when a photo is deleted: a
 * print-size copy of a photo someone deleted must not stay behind. A missing source or copy is fine.
 */
export async function forgetPrintImage(source: string, cacheDir: string): Promise<void> {
  const absolute = path.resolve(source);
  let keys: string[];
  try {
    keys = [await keyOf(absolute), await keyOf(absolute, 1)];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const names = await readdir(cacheDir).catch(() => [] as string[]);
  const doomed = names.filter((name) => keys.some((key) => name.startsWith(`${key}-`) || name === `${key}.jpg`));
  await Promise.all(doomed.map((name) => rm(path.join(cacheDir, name), { force: true })));
}

async function reuseOrPrepare(
  source: string,
  target: string,
  size: { width: number; height: number },
  shrink: 1 | 2 | 4 | 8,
): Promise<PrintImage> {
  try {
    // Its time says when it was last used: the clean-up keeps what is in use.
    const now = new Date();
    await utimes(target, now, now);
    return { path: target, ...size };
  } catch {
    // not made yet (or removed by the clean-up meanwhile)
  }
  let pixels: { data: Buffer; info: sharp.OutputInfo };
  try {
    pixels = await sharp(withShrink(source, 'jpeg', shrink), { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(size.width, size.height, { fit: 'fill' })
      .flatten({ background: '#ffffff' })
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new AppError('IMAGE_INVALID');
  }
  return writeCopy(pixels, target);
}

/**
 * The copy's pixels encoded within PRINT_BITS_PER_PIXEL and written to `target`. Encoded in memory
 * (a few hundred kB), so a write failure is not mistaken for a broken photo.
 */
async function writeCopy(pixels: { data: Buffer; info: sharp.OutputInfo }, target: string): Promise<PrintImage> {
  const { width, height } = pixels.info;
  await writeFileAtomic(
    target,
    await encodeWithinBudget(pixels.data, pixels.info, Math.floor((width * height * PRINT_BITS_PER_PIXEL) / 8)),
  );
  return { path: target, width, height };
}

/**
 * Where the search of encodeWithinBudget starts: the quality the last copy got. A site's photos
 * are alike (the same phone, light and grain), so the next one mostly gets the same: one encoding
 * settles it when that is the highest quality and fits, or the lowest and does not; two when it
 * is still the right one in between; more only when the photos change. A binary search over three
 * takes two every time. Measured with a phone's grainy 12 MP photo: the copy of the default layout
 * took 60 ms of encoding and now 30 ms.
 */
let lastQuality = PRINT_QUALITIES.length - 1;

/**
 * The JPEG of the highest quality in PRINT_QUALITIES within `budget` bytes (the lowest quality when
 * none is): sizes fall with the quality, so the search walks from the last copy's quality up while
 * the next fits, or down until one fits.
 */
async function encodeWithinBudget(data: Buffer, info: sharp.OutputInfo, budget: number): Promise<Buffer> {
  const encode = (index: number) =>
    sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .jpeg({ quality: PRINT_QUALITIES[index]!, mozjpeg: true, quantisationTable: 2, chromaSubsampling: '4:2:0' })
      .toBuffer();
  const last = PRINT_QUALITIES.length - 1;
  let index = Math.min(lastQuality, last);
  let out = await encode(index);
  if (out.length <= budget) {
    while (index > 0) {
      const higher = await encode(index - 1);
      if (higher.length > budget) break;
      out = higher;
      index -= 1;
    }
  } else {
    while (index < last) {
      index += 1;
      out = await encode(index);
      if (out.length <= budget) break;
    }
  }
  lastQuality = index;
  return out;
}

/**
 * Photos worked on at once in the background: one per core (at most 4), so that the decodes keep
 * pace with an outbox sending photo after photo; the requests' own work is light beside them.
 * @default the cores, 1 to 4
 */
export const PRINT_QUEUE_CONCURRENCY = Math.max(1, Math.min(4, os.availableParallelism()));
/** Copies waiting beyond this are not queued: they are made when a PDF needs them. @default 500 */
export const PRINT_QUEUE_MAX_WAITING = 500;

export interface PrintQueue {
  /**
   * Makes the copy of `source` for `box` soon, unless one is waiting already; never throws. With
   * `photo`, a photo just uploaded: its thumbnails too, from the same decode (preparePhoto), and
   * `photo.done` is called when that is over, made or failed (also for a photo added again while
   * it waits: one job, each `done` called). A photo's work is never dropped: not for a full queue,
   * nor by close().
   */
  add(source: string, box: ImageBox, photo?: { done: () => unknown }): void;
  /** Resolves when nothing is waiting or being made. */
  idle(): Promise<void>;
  /** Drops the copies that wait, and resolves when the work begun and the photos' work are done. */
  close(): Promise<void>;
}

/**
 * A small queue that makes print copies in the background, after an upload's or a page's answer:
 * `concurrency` at a time (libvips works on its own threads, so the event loop and the API's
 * answers are not held up), at most `maxWaiting` waiting. Work lost to a crash or a full queue is
 * simply done when a PDF first needs the copy.
 */
export function createPrintQueue(
  cacheDir: string,
  options: { concurrency?: number; maxWaiting?: number; onError?: (source: string, error: unknown) => void } = {},
): PrintQueue {
  const concurrency = options.concurrency ?? PRINT_QUEUE_CONCURRENCY;
  const maxWaiting = options.maxWaiting ?? PRINT_QUEUE_MAX_WAITING;
  const waiting = new Map<string, { source: string; box: ImageBox; photo?: { done: () => unknown } }>();
  const running = new Set<Promise<void>>();
  let closed = false;
  let idleWaiters: Array<() => void> = [];
  /** Copies made since the queue was last idle. */
  let made = 0;

  function next(): void {
    while (running.size < concurrency && waiting.size > 0) {
      const [id, job] = waiting.entries().next().value!;
      waiting.delete(id);
      const work = job.photo
        ? preparePhoto(job.source, cacheDir, job.box)
        : preparePrintImage(job.source, cacheDir, job.box).then(() => undefined);
      const run: Promise<void> = work
        .then(
          () => undefined,
          (error: unknown) => {
            // A photo deleted meanwhile needs no copy; anything else is the caller's to hear about.
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') options.onError?.(job.source, error);
          },
        )
        .then(async () => {
          await job.photo?.done();
        })
        .catch((error: unknown) => options.onError?.(job.source, error));
      running.add(run);
      made += 1;
      void run.then(() => {
        running.delete(run);
        collectIfBuffersPiled();
        next();
      });
    }
    if (running.size === 0 && waiting.size === 0) {
      // The copies' pixels and encodings were buffers outside the heap, freed only when collected.
      if (made > 0) collectWhenQuiet();
      made = 0;
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  return {
    add(source, box, photo) {
      if (closed || (waiting.size >= maxWaiting && !photo)) return;
      const id = JSON.stringify([path.resolve(source), box.width, box.height, photo ? 'photo' : 'copy']);
      const already = waiting.get(id);
      if (already) {
        // The same photo again (deleted and uploaded anew under its name): one job, both settled.
        if (already.photo && photo) {
          const first = already.photo.done;
          already.photo = {
            done: async () => {
              await first();
              await photo.done();
            },
          };
        }
        return;
      }
      waiting.set(id, { source, box, photo });
      // After the current request's answer is on its way.
      setImmediate(next);
    },
    idle() {
      if (running.size === 0 && waiting.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      closed = true;
      // Copies wait for a PDF that needs them; an uploaded photo's thumbnails are finished (a few
      // tenths of a second each), so its upload is settled before the process ends.
      for (const [id, job] of waiting) if (!job.photo) waiting.delete(id);
      await new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        next();
      });
    },
  };
}

/**
 * Keeps the cache to its age and size: copies unused for `maxAgeDays` go, then the copies unused
 * longest until the rest fits `maxBytes`. Temporary files are left to the recovery (runs.ts).
 */
export async function sweepPrintCache(
  cacheDir: string,
  limits: { maxAgeDays?: number; maxBytes?: number; now?: number } = {},
): Promise<{ removed: number; kept: number; bytes: number }> {
  const maxAgeMs = (limits.maxAgeDays ?? PRINT_CACHE_MAX_AGE_DAYS) * 86_400_000;
  const maxBytes = limits.maxBytes ?? PRINT_CACHE_MAX_BYTES;
  const now = limits.now ?? Date.now();
  const names = (await readdir(cacheDir).catch(() => [] as string[])).filter((n) => CACHE_FILE.test(n));
  const entries = (
    await Promise.all(
      names.map(async (name) => {
        const file = path.join(cacheDir, name);
        const info = await stat(file).catch(() => undefined);
        return info?.isFile() ? { file, size: info.size, used: info.mtimeMs } : undefined;
      }),
    )
  ).filter((e): e is { file: string; size: number; used: number } => e !== undefined);
  entries.sort((a, b) => b.used - a.used); // most recently used first
  let bytes = 0;
  let removed = 0;
  for (const entry of entries) {
    if (now - entry.used > maxAgeMs || bytes + entry.size > maxBytes) {
      await rm(entry.file, { force: true });
      removed += 1;
    } else {
      bytes += entry.size;
    }
  }
  return { removed, kept: entries.length - removed, bytes };
}
