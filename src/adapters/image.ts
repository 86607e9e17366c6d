/**
 * Images through sharp (libvips): Dolibarr's thumbnails beside a file, `thumbs/<name>_small.<ext>`
 * (fits 480×270) and `thumbs/<name>_mini.<ext>` (fits 128×72), same format as the source, never
 * enlarged, JPEG/WebP quality 50 as Dolibarr writes them. EXIF orientation is applied.
 * Written through replaceAtomically, so a crash leaves no half file under a real name.
 */
import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { AppError } from '../errors.js';
import { writeFileAtomic } from './file-store.js';

// libvips' operation cache keeps recent images, and with them the files they were read from, alive
// to reuse them. Here every file is read for one purpose and an upload's temporary file is removed
// once placed: cached, it would hold its disk space until evicted (on a full disk every later
// write fails although the files are gone). So nothing is cached: measured with `npm run bench:pdf`,
// sharp's default cache (50 MB) kept the server about 20 MB larger and made nothing faster.
sharp.cache(false);
// One thread per image (sharp's own choice on glibc, made here everywhere): uploads, thumbnails,
// print copies and PDFs already run side by side, and two threads an image made neither the
// uploads nor finalizing faster in the same benchmark.
sharp.concurrency(1);

/** Refuse images above this many pixels (decompression bombs). @default 100 megapixels */
export const MAX_INPUT_PIXELS = 100_000_000;

export const THUMBNAIL_SIZES = {
  small: { width: 480, height: 270 },
  mini: { width: 128, height: 72 },
} as const;
export type ThumbnailSize = keyof typeof THUMBNAIL_SIZES;
export const THUMBNAIL_SIZE_NAMES = Object.keys(THUMBNAIL_SIZES) as ThumbnailSize[];

/** The types that get Dolibarr thumbnails, with sharp's format name (kept for the thumbnail). */
const THUMBNAIL_FORMATS: Readonly<Record<string, 'jpeg' | 'png' | 'webp'>> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
};

/** sharp's format for a thumbnail of a file of MIME type `mime`, or undefined when it gets none. */
export function thumbnailFormatOf(mime: string | null | undefined): 'jpeg' | 'png' | 'webp' | undefined {
  return mime ? THUMBNAIL_FORMATS[mime] : undefined;
}

/** Path of a file's Dolibarr thumbnail: `<dir>/thumbs/<base>_<size><ext>`. */
export function thumbnailPath(file: string, size: ThumbnailSize): string {
  const ext = path.extname(file);
  return path.join(path.dirname(file), 'thumbs', `${path.basename(file, ext)}_${size}${ext}`);
}

/**
 * Makes `thumbs/` beside `file` and checks that it really is there: a `thumbs` link pointing
 * elsewhere would make us write outside the object's folder.
 */
export async function ensureThumbsFolder(file: string): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(path.join(dir, 'thumbs'), { recursive: true });
  const [realDir, realThumbs] = await Promise.all([realpath(dir), realpath(path.join(dir, 'thumbs'))]);
  if (realThumbs !== path.join(realDir, 'thumbs'))
    throw new AppError('FILE_PATH_INVALID', { message: 'Der Ordner thumbs verweist aus dem Objektordner hinaus' });
}

/**
 * Writes one thumbnail of `source` for the file `file` (the same unless the source is still under a
 * temporary name); `format` is the source's (from metadata), kept for the thumbnail. The image is
 * encoded in memory (a thumbnail is small) and then written: a failure to decode is sharp's, a
 * failure to write (a full disk) is the file system's, with its errno code.
 */
export async function writeThumbnail(file: string, size: ThumbnailSize, format?: string, source: string = file): Promise<string> {
  const target = thumbnailPath(file, size);
  await ensureThumbsFolder(file);
  const { width, height } = THUMBNAIL_SIZES[size];
  const kind = format ?? (await sharp(source, { limitInputPixels: MAX_INPUT_PIXELS }).metadata()).format;
  const image = sharp(source, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize(width, height, { fit: 'inside', withoutEnlargement: true });
  if (kind === 'jpeg') image.jpeg({ quality: 50 });
  else if (kind === 'webp') image.webp({ quality: 50 });
  else if (kind === 'png') image.png({ compressionLevel: 5 });
  const data = await image.toBuffer();
  await writeFileAtomic(target, data);
  return target;
}

/**
 * The JPEG decoder's own reduction (1, 2, 4 or 8) that leaves at least the wanted pixels, for a
 * reduction of `factor`: decoding a 12-megapixel photo at an eighth of its size takes a fifth of
 * the time. Asked for through libvips' load options in the file name (`photo.jpg[shrink=8]`).
 */
export function jpegShrink(factor: number): 1 | 2 | 4 | 8 {
  return factor >= 8 ? 8 : factor >= 4 ? 4 : factor >= 2 ? 2 : 1;
}

/** `file` with libvips' load option `shrink` in its name when it is a JPEG reduced on load. */
export function withShrink(file: string, format: string | undefined, shrink: 1 | 2 | 4 | 8): string {
  // libvips takes the options of the last [...] of a name; whatever brackets the name has before are its own.
  return format === 'jpeg' && shrink > 1 ? `${file}[shrink=${shrink}]` : file;
}

/** An image decoded upright in sRGB, as raw pixels (see decodeUpright). */
export interface Decoded {
  data: Buffer;
  info: sharp.OutputInfo;
}

/**
 * The upright size of an image (EXIF orientation 5-8 swaps the sides), from its metadata.
 */
export function uprightSize(meta: sharp.Metadata): { width: number; height: number } {
  const sideways = (meta.orientation ?? 1) > 4;
  return sideways ? { width: meta.height ?? 0, height: meta.width ?? 0 } : { width: meta.width ?? 0, height: meta.height ?? 0 };
}

/** The reduction a thumbnail of an upright `width` × `height` image takes at most (the small one fits inside its box). */
export function thumbnailReduction(width: number, height: number): number {
  const { small } = THUMBNAIL_SIZES;
  return Math.max(width / small.width, height / small.height);
}

/**
 * `source` decoded upright in sRGB, reduced on load by `shrink` when it is a JPEG, and scaled as it
 * is read to fit inside `fit` (upright pixels; never enlarged), so that a large PNG or WebP, which
 * has no reduction on load, is never held whole. The decode reads all of the image: a corrupt one
 * fails here (sharp's error).
 */
export async function decodeUpright(
  source: string,
  format: string | undefined,
  shrink: 1 | 2 | 4 | 8,
  fit: { width: number; height: number },
): Promise<Decoded> {
  return sharp(withShrink(source, format, shrink), { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize(fit.width, fit.height, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
}

/** Both thumbnails of `file` from its decoded pixels, in `format` (the source's). */
export async function writeThumbnailsFrom(decoded: Decoded, file: string, format: string | undefined): Promise<string[]> {
  await ensureThumbsFolder(file);
  // Both run to their end before a failure is reported, so nothing is still being written when
  // the caller cleans up after it.
  const results = await Promise.allSettled(
    THUMBNAIL_SIZE_NAMES.map(async (size) => {
      const box = THUMBNAIL_SIZES[size];
      const image = sharp(decoded.data, {
        raw: { width: decoded.info.width, height: decoded.info.height, channels: decoded.info.channels },
      }).resize(box.width, box.height, { fit: 'inside', withoutEnlargement: true });
      if (format === 'jpeg') image.jpeg({ quality: 50 });
      else if (format === 'webp') image.webp({ quality: 50 });
      else image.png({ compressionLevel: 5 });
      const target = thumbnailPath(file, size);
      await writeFileAtomic(target, await image.toBuffer());
      return target;
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<string>).value);
}

/**
 * Both thumbnails of `file`, read from `source` (see writeThumbnail), from one decode of it at the
 * JPEG reduction that still serves the larger one.
 */
export async function writeThumbnails(file: string, source: string = file): Promise<string[]> {
  const meta = await sharp(source, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  const { width, height } = uprightSize(meta);
  const decoded = await decodeUpright(source, meta.format, jpegShrink(thumbnailReduction(width, height)), THUMBNAIL_SIZES.small);
  return writeThumbnailsFrom(decoded, file, meta.format);
}
