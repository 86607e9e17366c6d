/**
 * Files appear whole or not at all: written under a unique temporary name beside the target and
 * renamed into place (rename is atomic within a folder). A failed write removes its temporary file.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Runs `write(temp)` and renames the result to `target`. */
export async function replaceAtomically(target: string, write: (temp: string) => Promise<unknown>): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
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
