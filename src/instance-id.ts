/**
 * The instance unique id: from INSTANCE_UNIQUE_ID or a Dolibarr conf.php; in standalone mode it is
 * generated once and kept in STATE_DIR/instance_unique_id (outside the database and outside the
 * documents folder, which Dolibarr's document.php can serve).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

export const INSTANCE_ID_FILE = 'instance_unique_id';

export function resolveInstanceId(config: Config): Config {
  if (config.instanceUniqueId) return config;
  const file = path.join(config.stateDir, INSTANCE_ID_FILE);
  let id: string;
  try {
    id = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(config.stateDir, { recursive: true });
    // As Dolibarr's installer: 32 lowercase hex characters. 'wx' loses no race to a second process.
    try {
      writeFileSync(file, `${randomBytes(16).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    id = readFileSync(file, 'utf8').trim();
  }
  if (id.length < 16) throw new Error(`${file} holds no usable instance id; remove it to make a new one`);
  return Object.freeze({ ...config, instanceUniqueId: id });
}
