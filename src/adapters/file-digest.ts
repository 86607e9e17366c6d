/**
 * A file's SHA-256, kept while the file stays the same, so finalizing a new version of a report
 * (or a report showing the same photo on several pages) reads each photo once, not once per PDF.
 *
 * "The same" is the file's identity: device, inode, size, and modification and change times in
 * nanoseconds (as order-photos.ts keeps a file's type). A file written anew has another: a deleted
 * file's inode may be given to the next one, and a copy may keep the old modification time
 * (cp -p, rsync -t), but creating, writing or renaming a file sets its change time, which no one
 * can set back. A digest is kept only when the identity before and after reading is the same, so
 * a file written while it was read is read again next time.
 */
import { stat } from 'node:fs/promises';
import { BoundedMap } from '../bounded-map.js';
import { hashFile } from './file-store.js';

/** Digests kept, by path and identity; the oldest goes first. @default 10000 */
const KEPT_DIGESTS = 10_000;

const kept = new BoundedMap<string, string>(KEPT_DIGESTS);

async function identityOf(file: string): Promise<string> {
  const s = await stat(file, { bigint: true });
  return `${file}\u0000${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** SHA-256 hex of `file`'s bytes (read again only when the file changed); rejects as the file system does (ENOENT). */
export async function sha256OfFile(file: string): Promise<string> {
  const before = await identityOf(file);
  const known = kept.get(before);
  if (known !== undefined) return known;
  const digest = await hashFile(file, 'sha256');
  if ((await identityOf(file)) === before) kept.set(before, digest);
  return digest;
}

/**
 * Keeps `digest` as `file`'s SHA-256 as the file is now, when the caller computed it from the very
 * bytes the file holds (an upload hashed on its way in), so no later PDF reads the file for it.
 */
export async function rememberSha256(file: string, digest: string): Promise<void> {
  kept.set(await identityOf(file), digest);
}
