/**
 * The attachments of an order: the regular files directly in its Dolibarr folder. Left out:
 * `thumbs/` and every other folder, links (they could point anywhere), hidden files (a leading
 * '.', which includes uploads in progress, `.upload-<hex>.tmp`), `*.tmp` files, and what Dolibarr
 * keeps out of its own lists (PDF previews `*_preview*.png`, `.meta`). The type is read from each file's first bytes, never from its name, and only for the
 * page asked for, so a large folder costs one stat per file, not one read; a file's type is kept
 * while the file stays the same.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromFile } from 'file-type';
import { thumbnailFormatOf } from '../../adapters/image.js';
import { BoundedMap } from '../../bounded-map.js';
import type { ElementType } from '../../dolibarr/documents.js';
import { fileUrlOf } from '../files/file-path.js';
import type { OrderPhoto } from './orders.schemas.js';

/** Files whose type is read at the same time. @default 16 */
const TYPE_CONCURRENCY = 16;

/** File types kept, by the file's identity; the oldest goes first. @default 10000 */
const KEPT_TYPES = 10_000;

interface Entry {
  name: string;
  size: number;
  mtime: number;
  /**
   * Device, inode, size, and modification and change times in nanoseconds. A file written anew has
   * another: a deleted file's inode may be given to the next one, and a copy may keep the old
   * modification time (cp -p, rsync -t), but creating, writing or renaming a file sets its change
   * time, which no one can set back.
   */
  identity: string;
}

/** The types read, by path and identity: a list asked for again reads no file; a file written anew is read again. */
const keptTypes = new BoundedMap<string, string | null>(KEPT_TYPES);

/** Hidden and temporary files, and what Dolibarr keeps out of its own lists (PDF previews, `.meta`). */
export function isListed(name: string): boolean {
  const lower = name.toLowerCase();
  return !name.startsWith('.') && !lower.endsWith('.tmp') && !lower.endsWith('.meta') && !/_preview(-\d+)?\.png$/.test(lower);
}

/** Files of `dir`, newest first then by name; a missing folder is an empty list. */
async function entries(dir: string): Promise<Entry[]> {
  let dirents;
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
  const stats = await Promise.all(
    dirents
      .filter((d) => d.isFile() && isListed(d.name))
      .map(async (d): Promise<Entry | undefined> => {
        try {
          const s = await stat(path.join(dir, d.name), { bigint: true });
          return {
            name: d.name,
            size: Number(s.size),
            mtime: Math.floor(Number(s.mtimeMs) / 1000),
            identity: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`,
          };
        } catch {
          return undefined; // deleted since readdir
        }
      }),
  );
  return stats
    .filter((e): e is Entry => e !== undefined)
    .sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function mimeOf(file: string, identity: string): Promise<string | null> {
  const key = `${file}\u0000${identity}`;
  const kept = keptTypes.get(key);
  if (kept !== undefined) return kept;
  let type: string | null;
  try {
    type = (await fileTypeFromFile(file))?.mime ?? null;
  } catch {
    return null; // unreadable or gone: type unknown, and asked again next time
  }
  keptTypes.set(key, type);
  return type;
}

/**
 * One page of the folder's files.
 * @param folderName the folder's name (sanitized ref), the first part of the file endpoint's path
 * @param owner whose folder it is: an order's (`commande/<ref>/`) unless told
 */
export async function listOrderPhotos(
  dir: string,
  folderName: string,
  page: { limit: number; offset: number },
  owner: ElementType = 'commande',
): Promise<{ items: OrderPhoto[]; total: number }> {
  const all = await entries(dir);
  const slice = all.slice(page.offset, page.offset + page.limit);
  const items: OrderPhoto[] = [];
  for (let i = 0; i < slice.length; i += TYPE_CONCURRENCY) {
    const chunk = slice.slice(i, i + TYPE_CONCURRENCY);
    const types = await Promise.all(chunk.map((e) => mimeOf(path.join(dir, e.name), e.identity)));
    chunk.forEach((e, j) => {
      const type = types[j] ?? null;
      const url = fileUrlOf(owner, `${folderName}/${e.name}`);
      const thumbs = thumbnailFormatOf(type) !== undefined;
      items.push({
        name: e.name,
        size: e.size,
        type,
        mtime: e.mtime,
        url,
        thumb_small_url: thumbs ? fileUrlOf(owner, `${folderName}/${e.name}`, 'small') : null,
        thumb_mini_url: thumbs ? fileUrlOf(owner, `${folderName}/${e.name}`, 'mini') : null,
      });
    });
  }
  return { items, total: all.length };
}
