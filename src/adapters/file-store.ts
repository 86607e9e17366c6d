/**
 * Files appear whole or not at all: written under a unique temporary name beside the target and
 * renamed into place (rename is atomic within a folder). A failed write removes its temporary file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, linkSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { tempName } from './runs.js';

/** Runs `write(temp)` and renames the result to `target`. */
export async function replaceAtomically(target: string, write: (temp: string) => Promise<unknown>): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const temp = path.join(path.dirname(target), tempName(path.basename(target)));
  try {
    await write(temp);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export function writeFileAtomic(target: string, data: Buffer | string): Promise<void> {
  return replaceAtomically(target, (temp) => writeFile(temp, data));
}

/**
 * Creates `file` with `data` unless it exists, for a secret made once at start (instance id,
 * signing key): written whole under a temporary name and hard-linked into place, so of two
 * processes starting at once one wins and the other finds the complete file. Returns nothing;
 * read the file afterwards to get what is there.
 */
export function createFileOnceSync(file: string, data: string, mode = 0o600): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, data, { mode });
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
}

/** The hex digest of a file's bytes, read as a stream (files may be hundreds of megabytes). */
export async function hashFile(file: string, algorithm: 'md5' | 'sha256'): Promise<string> {
  const hash = createHash(algorithm);
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}
