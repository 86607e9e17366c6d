/**
 * The fixture of the crash tests: the real service on SQLite in its own folders (TMPDIR too, so
 * its working folders and LibreOffice profiles can be found), killed and started again, and what
 * to look at afterwards.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { pidAlive } from '../../src/adapters/runs.js';
import { login, startService, type ServiceProcess } from './service-process.js';

export const SEED = Number(process.env.CRASH_SEED ?? 20261123);

/** mulberry32: a small seeded PRNG, so a failing run can be repeated with CRASH_SEED. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every file below `dir` (relative), folders included as `name/`. */
export function walk(dir: string, rel = ''): string[] {
  let out: string[] = [];
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const name = path.join(rel, entry.name);
    out.push(entry.isDirectory() ? `${name}/` : name);
    if (entry.isDirectory()) out = out.concat(walk(dir, name));
  }
  return out;
}

/** LibreOffice processes of a dead run (a killed service) working in TMPDIR `tmp`: what recovery must have ended. */
export function sofficeProcessesOf(tmp: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      // The folder names the run's process: a live service's LibreOffice kept running is not left over.
      const owner = /fieldreport-soffice-(\d+)-/.exec(cmd)?.[1];
      if (cmd.includes(tmp) && owner && !pidAlive(Number(owner))) found.push(`${pid}: ${cmd.replace(/\0/g, ' ').slice(0, 200)}`);
    } catch {
      // gone
    }
  }
  return found;
}

/**
 * Cover sheets being converted now in TMPDIR `tmp`: each conversion has a working folder of its
 * own (the LibreOffice kept running has one too, with its bridge in it, and is not counted).
 */
export function conversionsAtWork(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => {
    if (!name.startsWith('fieldreport-soffice-')) return false;
    try {
      return !readdirSync(path.join(tmp, name)).includes('bridge.py');
    } catch {
      return false;
    }
  });
}

/** Ends what LibreOffice processes still work in `tmp` (a service killed with SIGKILL leaves its own for a moment). */
export function stopLibreOfficeIn(tmp: string): void {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(tmp)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone
    }
  }
}

export interface CrashFixture {
  folder: string;
  tmp: string;
  dbFile: string;
  dataRoot: string;
  service(): ServiceProcess;
  token(): string;
  /** Starts the service (the first time with demo data) and waits until it settled what a killed run left. */
  start(demo?: boolean): Promise<ServiceProcess>;
  query<T>(text: string, ...params: unknown[]): T[];
  close(): Promise<void>;
}

export function crashFixture(): CrashFixture {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-crash-'));
  const tmp = path.join(folder, 'tmp');
  mkdirSync(tmp);
  const dbFile = path.join(folder, 'fieldreport.sqlite');
  const dataRoot = path.join(folder, 'documents');
  const env = { DATABASE_URL: `sqlite:${dbFile}`, DATA_ROOT: dataRoot, STATE_DIR: folder, TMPDIR: tmp };
  let service: ServiceProcess | undefined;
  let token = '';
  return {
    folder,
    tmp,
    dbFile,
    dataRoot,
    service: () => service!,
    token: () => token,
    async start(demo = false) {
      service = await startService({ env, args: demo ? ['serve', '--demo'] : ['serve'] });
      await service.waitFor(/recovery after earlier runs done/);
      if (!token) token = await login(service.base, 'techniker');
      return service;
    },
    query<T>(text: string, ...params: unknown[]): T[] {
      const db = new SQLite(dbFile, { readonly: true });
      try {
        return db.prepare(text).all(...params) as T[];
      } finally {
        db.close();
      }
    },
    async close() {
      await service?.kill();
      stopLibreOfficeIn(tmp);
      rmSync(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}
