/**
 * The SHA-256 of files a signature covers, remembered by each file's identity so a repeated check
 * (the QR code's link opened again and again) does not hash a report's photos each time.
 *
 * A file's identity is its device, inode, size, modification and change time (ns). Whoever changes
 * the file (this process, another process of the cluster, Dolibarr, an administrator) changes its
 * change time, which nobody can set back by hand; a file replaced by another (a rename, a copy)
 * has another inode. The file system keeps these times at a clock tick's grain, so a change within
 * the tick of an earlier one could keep the time: a hash is only remembered for a file that has
 * not changed for SETTLED_NS before it was read, and only when its identity was the same after
 * reading as before. Anything else is hashed afresh, every time.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { BoundedMap } from '../../bounded-map.js';

/** How long a file must have been left alone before its hash is remembered: far beyond a clock tick. */
const SETTLED_NS = 2_000_000_000n;

const identityOf = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

export function createDigestCache(limit: number) {
  const known = new BoundedMap<string, { identity: string; sha256: string }>(limit);
  let hashes = 0;
  return {
    /** The SHA-256 of `file` (hex); rejects as reading the file would (ENOENT when it is gone). */
    async sha256(file: string): Promise<string> {
      // The time first: a file changed after it still counts as changed too lately to remember.
      const now = BigInt(Date.now()) * 1_000_000n;
      // One open file for the identity and the bytes: a file swapped at its path in between cannot
      // have its hash remembered under the other's identity.
      const handle = await open(file, 'r');
      try {
        const before = await handle.stat({ bigint: true });
        const identity = identityOf(before);
        const hit = known.get(file);
        if (hit && hit.identity === identity) return hit.sha256;
        hashes++;
        const hash = createHash('sha256');
        await pipeline(handle.createReadStream({ start: 0, autoClose: false }), hash);
        const sha256 = hash.digest('hex');
        const after = await handle.stat({ bigint: true });
        const settled = now - (before.ctimeNs > before.mtimeNs ? before.ctimeNs : before.mtimeNs) >= SETTLED_NS;
        if (identityOf(after) === identity && settled) known.set(file, { identity, sha256 });
        else known.delete(file);
        return sha256;
      } finally {
        await handle.close();
      }
    },
    /** Files hashed (read whole) so far, remembered or not (for tests). */
    get hashes() {
      return hashes;
    },
    /** Files remembered (for tests). */
    get size() {
      return known.size;
    },
  };
}

export type DigestCache = ReturnType<typeof createDigestCache>;
