/**
 * Runs `migrate` in a child process, as a second server starting at the same moment would.
 * SQLite's driver waits for a lock synchronously, so concurrency on SQLite is only real across
 * processes.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.js';
import type { MigrateReport } from '../../src/db/migrate.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The child loads everything, says READY, and starts migrating only when told GO on stdin.
const SCRIPT = `
  import { createDb } from './src/db/database.ts';
  import { migrate } from './src/db/migrate.ts';
  const config = JSON.parse(process.env.MIGRATE_CONFIG);
  const handle = createDb(config);
  process.stdout.write('READY\\n');
  await new Promise((go) => process.stdin.once('data', go));
  try {
    process.stdout.write('REPORT ' + JSON.stringify(await migrate(handle, config)) + '\\n');
  } finally {
    await handle.destroy();
    process.stdin.destroy();
  }
`;

/**
 * Runs `migrate` in `count` processes that start it at the same moment (each waits, loaded, for
 * the others), as several servers starting together would.
 */
export async function migrateInProcesses(config: Pick<Config, 'database' | 'dbPrefix' | 'entity'>, count = 2): Promise<MigrateReport[]> {
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      cwd: ROOT,
      env: { ...process.env, MIGRATE_CONFIG: JSON.stringify(config) },
    });
    let out = '';
    let err = '';
    let onReady: () => void;
    const ready = new Promise<void>((r) => (onReady = r));
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('READY\n')) onReady();
    });
    child.stderr.on('data', (d) => (err += d));
    const done = new Promise<MigrateReport>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => {
        const line = out.split('\n').find((l) => l.startsWith('REPORT '));
        if (code === 0 && line) resolve(JSON.parse(line.slice('REPORT '.length)) as MigrateReport);
        else reject(new Error(`migrate process exited ${code}: ${err.trim()}`));
      });
    });
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.child.stdin.write('GO\n');
  return Promise.all(children.map((c) => c.done));
}
