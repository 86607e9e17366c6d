/**
 * Photos scaled to print size once, then reused. A 12-megapixel phone photo is decoded, turned
 * upright (EXIF orientation), fitted inside 2000×2000 px (about 270 dpi across the 190 mm of an A4 page) and written as a
 * JPEG without alpha into a cache folder. The name is a hash of the source's absolute path, size
 * and mtime, so an unchanged photo is prepared once and every later report reuses the file; a
 * replaced photo gets a new entry. A copy's time is its last use; the daily clean-up
 * (sweepPrintCache) removes copies unused for PRINT_CACHE_MAX_AGE_DAYS and, beyond
 * PRINT_CACHE_MAX_BYTES, the copies unused longest: a removed copy is simply made again when a PDF
 * needs it.
 */
import { createHash } from 'node:crypto';
import { readdir, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { AppError } from '../errors.js';
import { writeFileAtomic } from './file-store.js';
import { MAX_INPUT_PIXELS } from './image.js';

export interface PrintImage {
  /** The prepared JPEG inside the cache folder. */
  path: string;
  /** Pixel size of the prepared JPEG, upright. */
  width: number;
  height: number;
}

/**
 * Longest side of a prepared image: about 270 dpi across the 190 mm of an A4 page, more than a
 * print needs, and a third less PDF than 2400 px. (sharp decodes a JPEG at reduced size only from a
 * reduction of 4 on, so a 12-megapixel photo is decoded whole either way: about 0.3 s of one core.)
 * @default 2000
 */
export const PRINT_IMAGE_MAX_SIDE = 2000;
/** JPEG quality of prepared images. @default 82 */
export const PRINT_IMAGE_QUALITY = 82;
/** Print-size copies unused this long are removed by the daily clean-up. @default 30 days */
export const PRINT_CACHE_MAX_AGE_DAYS = 30;
/** Beyond this size the daily clean-up removes the copies unused longest. @default 2 GiB */
export const PRINT_CACHE_MAX_BYTES = 2 * 1024 ** 3;

/** Part of every cache key: raise it when the output changes, so old entries are not reused. */
const FORMAT_VERSION = 1;

/** The cache file of `source` as it is now: named by its absolute path, size and mtime. */
async function cacheFileOf(source: string, cacheDir: string): Promise<string> {
  const absolute = path.resolve(source);
  const { size, mtimeMs } = await stat(absolute);
  const key = createHash('sha256').update(JSON.stringify([absolute, size, mtimeMs, FORMAT_VERSION])).digest('hex');
  return path.join(path.resolve(cacheDir), `${key}.jpg`);
}

/** Work in progress per cache file, so two renders needing the same photo decode it once. */
const inFlight = new Map<string, Promise<PrintImage>>();

/**
 * The print-size version of `source` inside `cacheDir`, made when it is missing.
 * Throws AppError('IMAGE_INVALID') when sharp cannot read the photo; a missing source rejects with
 * the file system's error (code ENOENT).
 */
export async function preparePrintImage(source: string, cacheDir: string): Promise<PrintImage> {
  const absolute = path.resolve(source);
  const target = await cacheFileOf(absolute, cacheDir);
  let work = inFlight.get(target);
  if (!work) {
    work = reuseOrPrepare(absolute, target).finally(() => inFlight.delete(target));
    inFlight.set(target, work);
  }
  return work;
}

/**
 * Removes the prepared copy of `source` (as the file is now), when a photo is deleted: a print-size
 * copy of a photo someone deleted must not stay behind. A missing source or copy is fine.
 */
export async function forgetPrintImage(source: string, cacheDir: string): Promise<void> {
  try {
    await rm(await cacheFileOf(source, cacheDir), { force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function reuseOrPrepare(source: string, target: string): Promise<PrintImage> {
  const cached = await describeCached(target);
  if (cached) {
    // Its time says when it was last used: the clean-up keeps what is in use.
    const now = new Date();
    await utimes(target, now, now).catch(() => undefined);
    return cached;
  }
  let output: { data: Buffer; info: sharp.OutputInfo };
  try {
    // resize() right after the input keeps libvips' shrink-on-load for JPEG and WebP.
    output = await sharp(source, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(PRINT_IMAGE_MAX_SIDE, PRINT_IMAGE_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: PRINT_IMAGE_QUALITY })
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new AppError('IMAGE_INVALID');
  }
  // Encoded in memory (under 2 MB), so a write failure is not mistaken for a broken photo.
  await writeFileAtomic(target, output.data);
  return { path: target, width: output.info.width, height: output.info.height };
}

/** The cache entry's size from its header; undefined when there is none yet (or it is unreadable, so it is made again). */
async function describeCached(target: string): Promise<PrintImage | undefined> {
  try {
    const { width, height } = await sharp(target).metadata();
    return width && height ? { path: target, width, height } : undefined;
  } catch {
    return undefined;
  }
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
  const names = (await readdir(cacheDir).catch(() => [] as string[])).filter((n) => /^[0-9a-f]{64}\.jpg$/.test(n));
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
