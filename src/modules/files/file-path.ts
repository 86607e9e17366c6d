/**
 * The file endpoint's links, and the response headers that name and type a served file. (The path
 * rules are in src/dolibarr/documents.ts.)
 */
import type { ThumbnailSize } from '../../adapters/image.js';
import type { FileOwner } from '../../dolibarr/documents.js';

/** The file endpoint's link to `file` (`<folder>/<name>`) of `owner`'s files (`size` for a thumbnail). */
export function fileUrlOf(owner: FileOwner, file: string, size?: ThumbnailSize): string {
  const base = `/api/photo.php?modulepart=${owner}&file=${encodeURIComponent(file)}`;
  return size ? `${base}&size=${size}` : base;
}

/** The file endpoint's link to a file of an order's folder (`size` for a thumbnail). */
export function fileUrl(folder: string, name: string, size?: ThumbnailSize): string {
  return fileUrlOf('commande', `${folder}/${name}`, size);
}

/**
 * RFC 8187 value of `filename*`: UTF-8, percent-encoded; encodeURIComponent leaves `'()*` as they
 * are, which are not attr-chars, so those are encoded too.
 */
export function contentDisposition(name: string): string {
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename*=UTF-8''${encoded}`;
}

/** The types a file is served as, when its bytes show one of them (photos, sound, video, PDF). */
const SERVED_TYPES =
  /^(image\/(jpeg|png|webp|gif|heic|heif|avif)|audio\/[a-z0-9.+-]+|video\/(mp4|webm|ogg|quicktime)|application\/(pdf|ogg))$/;

/**
 * The Content-Type a file is served with: the type its bytes show when it is one we serve as
 * such, otherwise application/octet-stream, so that nothing a browser would run or render as a
 * document (markup, scripts, Flash, help files) is ever served as one.
 */
export function servedContentType(detectedMime: string | undefined): string {
  return detectedMime && SERVED_TYPES.test(detectedMime) ? detectedMime : 'application/octet-stream';
}
