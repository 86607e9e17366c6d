/**
 * Which process wrote a temporary file, and whether that process still lives: what a process
 * killed mid-request (kill -9, a power cut) leaves behind is removed by the next start and by the
 * daily clean-up, and nothing a live process is still writing is touched.
 *
 * - Every process has a run id (12 hex digits, new at each start). Temporary files in the
 *   documents folder are named `.<base>.<run>.<random>.tmp`; folders in TMPDIR
 *   `fieldreport-<kind>-<pid>-<run>-XXXXXX`. Dolibarr never makes such names, so a name of that
 *   form is provably ours.
 * - A run announces itself with a marker file in the documents folder
 *   (`bericht/temp/runs/<run>.json`: host and pid), touched every 30 s while it lives and removed
 *   when it stops cleanly. Processes on other hosts share the documents folder, so the marker is
 *   the proof across hosts: on this host a run is dead when its pid is gone; on another host when
 *   its marker has not been touched for RUN_STALE_MS.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** This process's run id. */
export const RUN_ID = randomBytes(6).toString('hex');

/** How often a live run touches its marker. @default 30 s */
export const RUN_HEARTBEAT_MS = 30_000;
/** A marker of another host untouched this long belongs to a dead run. @default 5 min */
export const RUN_STALE_MS = 5 * 60_000;
/**
 * Temporary files named before run ids existed, or whose run left no marker, are left alone
 * until they are this old: longer than any request may take (REQUEST_TIMEOUT_SECONDS, 1 hour).
 * @default 6 hours
 */
export const ORPHAN_AGE_MS = 6 * 3600_000;

/** `.<base>.<run>.<random>.tmp`: a temporary file of this run beside its target. */
export function tempName(base: string): string {
  return `.${base}.${RUN_ID}.${randomBytes(6).toString('hex')}.tmp`;
}

/** The prefix for `mkdtemp` of a working folder in TMPDIR, e.g. `…/fieldreport-pdf-1234-<run>-`. */
export function tempDirPrefix(kind: 'pdf' | 'preview' | 'soffice' | 'warm-up', parent = os.tmpdir()): string {
  return path.join(parent, `fieldreport-${kind}-${process.pid}-${RUN_ID}-`);
}

const TEMP_FILE = /^\..*\.([0-9a-f]{12})\.[0-9a-f]{12}\.tmp$/;
/** Names of temporary files before run ids: `.upload-<16 hex>.tmp`, `.<base>.<12 hex>.tmp`, `.copy-<12 hex>.tmp`. */
const LEGACY_TEMP_FILE = /^\.(?:upload-[0-9a-f]{16}|copy-[0-9a-f]{12}|.+\.[0-9a-f]{12})\.tmp$/;
const TEMP_DIR = /^fieldreport-(?:pdf|preview|soffice|warm-up)-(\d+)-([0-9a-f]{12})-/;

/** Whose temporary file `name` is: a run id, 'legacy' (ours, run unknown), or undefined (not ours). */
export function runOfTempFile(name: string): string | 'legacy' | undefined {
  const m = TEMP_FILE.exec(name);
  if (m) return m[1];
  return LEGACY_TEMP_FILE.test(name) ? 'legacy' : undefined;
}

/** The pid and run of a working folder in TMPDIR, or undefined when it is not ours. */
export function runOfTempDir(name: string): { pid: number; run: string } | undefined {
  const m = TEMP_DIR.exec(name);
  return m ? { pid: Number(m[1]), run: m[2]! } : undefined;
}

/** Whether a process of this host with `pid` exists (EPERM: it exists, but is not ours to signal). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Marker {
  host: string;
  pid: number;
}

export interface RunRegistry {
  readonly dir: string;
  /** Writes this run's marker and keeps it fresh; a documents folder that refuses it is reported, not fatal. */
  start(onError?: (error: unknown) => void): void;
  /** Removes the marker: this run leaves nothing that needs it. */
  stop(): Promise<void>;
  /** 'alive', 'dead', or 'unknown' (no marker: dead, or never able to write one). */
  state(run: string): Promise<'alive' | 'dead' | 'unknown'>;
  /**
   * Removes the markers of dead runs last touched longer ago than ORPHAN_AGE_MS; returns how many.
   * Kept that long, a marker still tells a retry that its first attempt's run died.
   */
  pruneMarkers(): Promise<number>;
}

/** Markers live in `<dataRoot>/bericht/temp/runs/`, one folder for every entity and host. */
export function createRunRegistry(dataRoot: string): RunRegistry {
  const dir = path.join(dataRoot, 'bericht', 'temp', 'runs');
  const own = path.join(dir, `${RUN_ID}.json`);
  const host = os.hostname();
  let timer: NodeJS.Timeout | undefined;

  async function read(run: string): Promise<{ marker: Marker; touched: number } | undefined> {
    const file = path.join(dir, `${run}.json`);
    try {
      const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
      const marker = JSON.parse(text) as Marker;
      return { marker, touched: info.mtimeMs };
    } catch {
      return undefined;
    }
  }

  function judge(entry: { marker: Marker; touched: number }): 'alive' | 'dead' {
    if (entry.marker.host === host) return pidAlive(entry.marker.pid) ? 'alive' : 'dead';
    return Date.now() - entry.touched > RUN_STALE_MS ? 'dead' : 'alive';
  }

  const body = () => `${JSON.stringify({ host, pid: process.pid, started: new Date().toISOString() })}\n`;

  return {
    dir,
    start(onError) {
      try {
        mkdirSync(dir, { recursive: true });
        writeFileSync(own, body());
      } catch (error) {
        onError?.(error);
      }
      timer = setInterval(() => {
        const now = new Date();
        // Recreated when a clean-up took it away (it judged wrongly, or the folder was emptied).
        utimes(own, now, now)
          .catch(() => writeFile(own, body()))
          .catch((error: unknown) => onError?.(error));
      }, RUN_HEARTBEAT_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await rm(own, { force: true });
    },
    async state(run) {
      if (run === RUN_ID) return 'alive';
      const entry = await read(run);
      return entry ? judge(entry) : 'unknown';
    },
    async pruneMarkers() {
      let removed = 0;
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        const run = /^([0-9a-f]{12})\.json$/.exec(name)?.[1];
        if (!run || run === RUN_ID) continue;
        const entry = await read(run);
        if (entry && judge(entry) === 'dead' && Date.now() - entry.touched > ORPHAN_AGE_MS) {
          await rm(path.join(dir, name), { force: true });
          removed += 1;
        }
      }
      return removed;
    },
  };
}

/**
 * Whether what `run` left (last changed at `changedMs`) may go: its run is dead, or the run is
 * unknown ('legacy' names, or no marker) and it is older than any request could be. A run's state
 * is asked once per judge, so one sweep reads each marker once.
 */
export function leftoverJudge(runs: Pick<RunRegistry, 'state'>): (run: string | 'legacy', changedMs: number) => Promise<boolean> {
  const states = new Map<string, Promise<'alive' | 'dead' | 'unknown'>>();
  return async (run, changedMs) => {
    const old = Date.now() - changedMs > ORPHAN_AGE_MS;
    if (run === 'legacy') return old;
    if (run === RUN_ID) return false;
    if (!states.has(run)) states.set(run, runs.state(run));
    const state = await states.get(run)!;
    return state === 'dead' || (state === 'unknown' && old);
  };
}
