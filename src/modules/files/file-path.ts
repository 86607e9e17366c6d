/**
 * The pure parts of the file endpoints' path handling: the syntax a client's path must have
 * (checked before any lookup, so a refused path is refused the same way whether or not its object
 * exists), the "is this inside that folder" test for real paths, and the response headers that
 * name a file.
 */
import path from 'node:path';
import { AppError } from '../../errors.js';

/**
 * Throws FILE_PATH_INVALID unless `relative` is a plain relative path: not empty, not absolute,
 * no `.`/`..`/empty segments, no backslash, NUL or control character, no %-escape left after the
 * query string's one decoding. The same rules resolveInside applies, without touching the disk.
 */
export function checkRelativePath(relative: string): string[] {
  if (!relative || relative.length > 1000) throw new AppError('FILE_PATH_INVALID');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(relative) || /%[0-9a-f]{2}/i.test(relative)) throw new AppError('FILE_PATH_INVALID');
  if (relative.startsWith('/') || path.isAbsolute(relative)) throw new AppError('FILE_PATH_INVALID');
  const segments = relative.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw new AppError('FILE_PATH_INVALID');
  return segments;
}

/** `real` (a realpath) lies strictly inside `realFolder` (a realpath). */
export function isInside(real: string, realFolder: string): boolean {
  return real.startsWith(realFolder + path.sep);
}

/**
 * RFC 8187 value of `filename*`: UTF-8, percent-encoded; encodeURIComponent leaves `'()*` as they
 * are, which are not attr-chars, so those are encoded too.
 */
export function contentDisposition(name: string): string {
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename*=UTF-8''${encoded}`;
}

/**
 * The Content-Type a file is served with, from the type its bytes show. Types a browser would
 * run as a document (markup, scripts) are never served as such, whatever the bytes say.
 */
export function servedContentType(detectedMime: string | undefined): string {
  if (!detectedMime || /html|xml|svg|javascript|ecmascript/i.test(detectedMime)) return 'application/octet-stream';
  return detectedMime;
}
