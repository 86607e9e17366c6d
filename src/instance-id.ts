/**
 * The instance unique id: from INSTANCE_UNIQUE_ID or a Dolibarr conf.php. Only in the standalone
 * SQLite default is it generated, once, and kept in STATE_DIR/instance_unique_id (outside the
 * database and outside the documents folder, which Dolibarr's document.php can serve). With
 * MariaDB/MySQL or PostgreSQL several processes may share the database, and each must sign tokens
 * with the same secret: there the id has to be given.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createFileOnceSync } from './adapters/file-store.js';
import { ConfigError, type Config } from './config.js';

export const INSTANCE_ID_FILE = 'instance_unique_id';

export function resolveInstanceId(config: Config): Config {
  if (config.instanceUniqueId) return config;
  if (config.database.dialect !== 'sqlite') {
    throw new ConfigError([
      `INSTANCE_UNIQUE_ID is required with ${config.database.dialect} (every process must sign tokens with the same ` +
        'secret): set it, or DOLIBARR_CONF to read $dolibarr_main_instance_unique_id',
    ]);
  }
  const file = path.join(config.stateDir, INSTANCE_ID_FILE);
  let id = readId(file);
  if (id === undefined) {
    // As Dolibarr's installer: 32 lowercase hex characters.
    createFileOnceSync(file, `${randomBytes(16).toString('hex')}\n`);
    id = readId(file);
  }
  if (!id || id.length < 16) throw new ConfigError([`${file} holds no usable instance id; remove it to make a new one`]);
  return Object.freeze({ ...config, instanceUniqueId: id });
}

function readId(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
