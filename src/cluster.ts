/**
 * `fieldreport serve --workers N` (WORKERS): N processes serving one port, with node:cluster.
 *
 * The primary serves nothing itself. It migrates (and fills demo data) once, then forks the
 * workers and hands each the configuration it resolved over the IPC channel, so no worker migrates
 * or makes an instance id at the same time as another. Every worker builds the app and listens on
 * the same address; the primary accepts the connections and hands them to the workers in turn
 * (cluster's round robin, Node's default except on Windows).
 *
 * - A worker that ends while the service runs is replaced: at once when it had run for a while
 *   (RESTART_STABLE_MS), otherwise after 1 s, 2 s, 4 s … up to RESTART_MAX_MS, so a crash loop (a
 *   database that is down) does not spin. Each end and each new worker is logged.
 * - A worker that cannot start while the service starts (a port in use, a database that refuses)
 *   ends the start: `serve` exits 1 with that worker's message, as a single process would.
 * - SIGTERM or SIGINT to the primary: every worker is told to stop; each stops taking connections,
 *   answers the requests it holds (drain.ts) and exits 0. The primary exits 0 when all are gone, or,
 *   after SHUTDOWN_TIMEOUT_SECONDS, kills those still at work and exits 1. A worker that gets the
 *   signal itself (Ctrl-C reaches the whole process group; systemd signals every process of the
 *   service) drains the same way.
 *
 * Each worker is a process as on another machine: its own run id and marker (runs.ts), its own
 * database connections, its own daily clean-up; nothing is shared in memory. The recovery of what
 * dead runs left runs in the first worker at start and in every replacement (which follows a
 * worker that died), not in all N at once. The primary does not load the app (it stays near 85 MB).
 */
import { documentsOwnerWarning } from './documents-owner.js';
import cluster, { type Address, type Worker } from 'node:cluster';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { deepFreeze, describeDatabase, type Config } from './config.js';
import { createDb } from './db/database.js';
import { migrate } from './db/migrate.js';
import { demoLogins } from './demo/logins.js';
import { resolveInstanceId } from './instance-id.js';
import { missingServerOptions, serverMallocEnv } from './server-process.js';
import type { ServeOptions } from './server.js';
import { addressUrl, startBanner } from './start-banner.js';

/** A worker that ran at least this long before it ended is replaced at once. @default 30 s */
export const RESTART_STABLE_MS = 30_000;
/** The first wait before replacing a worker that ended soon after its start; doubles each time. @default 1 s */
export const RESTART_BASE_MS = 1000;
/** The longest wait before a replacement. @default 60 s */
export const RESTART_MAX_MS = 60_000;

/**
 * How long to wait before replacing a worker that ran `ranMs` and ended, after `quickEnds` ends
 * in a row soon after their start: at once after a worker that ran a while; 1 s, 2 s, 4 s … up to
 * RESTART_MAX_MS while workers keep ending soon after they start.
 */
export function restartDelay(ranMs: number, quickEnds: number): { delayMs: number; quickEnds: number } {
  if (ranMs >= RESTART_STABLE_MS) return { delayMs: 0, quickEnds: 0 };
  const ends = quickEnds + 1;
  return { delayMs: Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** Math.min(ends - 1, 30)), quickEnds: ends };
}

type ToWorker = { type: 'fieldreport:start'; config: Config; recover: boolean } | { type: 'fieldreport:stop' };
type ToPrimary = { type: 'fieldreport:ready' } | { type: 'fieldreport:failed'; message: string };

const here = fileURLToPath(import.meta.url);
/** The workers' entry: cluster-worker.js beside this file (.ts when the sources run through tsx). */
const WORKER_ENTRY = path.join(path.dirname(here), `cluster-worker${path.extname(here)}`);

/**
 * Node's options for the workers: this process's (such as the tsx loader of the tests) without
 * those that name code to run instead of a file (`-e`, `-p`, `--input-type`).
 */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const takesValue = new Set(['-e', '--eval', '-p', '--print', '--input-type']);
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (takesValue.has(arg)) i++;
    else if (!/^--(eval|print|input-type)=/.test(arg)) out.push(arg);
  }
  return out;
}

interface PrimaryLog {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

const LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** The primary's log: JSON lines as the workers' logger (pino) writes them, so one reader takes both. */
function primaryLog(level: string): PrimaryLog {
  const min = LEVELS[level] ?? Number.POSITIVE_INFINITY; // silent
  const hostname = os.hostname();
  const at = (n: number) => (fields: Record<string, unknown>, msg: string) => {
    if (n >= min)
      process.stdout.write(
        `${JSON.stringify({ level: n, time: Date.now(), pid: process.pid, hostname, role: 'primary', ...fields, msg })}\n`,
      );
  };
  return { info: at(30), warn: at(40), error: at(50) };
}

interface Slot {
  /** 1…N, as the log names the worker. */
  index: number;
  worker: Worker | undefined;
  /** It registered for messages: a message sent earlier could be lost. */
  ready: boolean;
  listening: boolean;
  startedAt: number;
  /** Ends in a row, each within RESTART_STABLE_MS of its start (restartDelay). */
  quickEnds: number;
  restart: NodeJS.Timeout | undefined;
}

/**
 * The primary: migrate once, fork `config.workers` workers, wait until all listen, print the
 * banner once. Rejects when a worker cannot start; afterwards the primary lives until a signal.
 */
export async function startCluster(baseConfig: Config, options: ServeOptions): Promise<void> {
  const config = resolveInstanceId(baseConfig);
  const log = primaryLog(config.logLevel);
  let applied: string[];
  let logins: string[];
  let standalone = true;
  const handle = createDb(config, { poolSize: 2 });
  try {
    const report = await migrate(handle, config);
    if (options.demo) await (await import('./demo/seed.js')).seedDemo(handle, config);
    applied = report.applied;
    standalone = report.standalone;
    logins = report.standalone ? await demoLogins(handle.db) : [];
  } finally {
    await handle.destroy();
  }

  const execArgv = workerExecArgv(process.execArgv);
  // The server's Node options (server-process.ts) where the primary was started without them.
  cluster.setupPrimary({
    exec: WORKER_ENTRY,
    args: [],
    execArgv: [...missingServerOptions(execArgv), ...execArgv],
    serialization: 'advanced',
  });
  const slots: Slot[] = Array.from({ length: config.workers }, (_, i) => ({
    index: i + 1,
    worker: undefined,
    ready: false,
    listening: false,
    startedAt: 0,
    quickEnds: 0,
    restart: undefined,
  }));
  let starting = true;
  let stopping = false;
  /** Whether every worker ended cleanly since stopping began. */
  let clean = true;
  let firstAddress: Address | undefined;
  let startup!: { resolve: () => void; reject: (error: Error) => void };
  const started = new Promise<void>((resolve, reject) => (startup = { resolve, reject }));
  let allGone: (() => void) | undefined;

  const send = (worker: Worker, message: ToWorker) => {
    // A worker whose channel just closed is ending anyway; its 'exit' follows.
    worker.send(message, undefined, () => undefined);
  };

  const fork = (slot: Slot, recover: boolean) => {
    slot.restart = undefined;
    // glibc's allocator as a server of photos wants it (server-process.ts; docs/operating.md, Memory). A value set outside wins.
    const worker = cluster.fork(serverMallocEnv());
    Object.assign(slot, { worker, ready: false, listening: false, startedAt: Date.now() });
    let failure: string | undefined;
    worker.on('message', (message: ToPrimary) => {
      if (message?.type === 'fieldreport:ready') {
        slot.ready = true;
        send(worker, stopping ? { type: 'fieldreport:stop' } : { type: 'fieldreport:start', config, recover });
      } else if (message?.type === 'fieldreport:failed') {
        failure = message.message;
      }
    });
    worker.on('listening', (address: Address) => {
      if (slot.worker !== worker || slot.listening) return;
      slot.listening = true;
      firstAddress ??= address;
      log.info({ worker: slot.index, workerPid: worker.process.pid }, `worker ${slot.index} of ${slots.length} is serving`);
      if (starting && slots.every((s) => s.listening)) {
        starting = false;
        startup.resolve();
      }
    });
    worker.on('exit', (code, signal) => ended(slot, worker, code, signal, failure));
  };

  const ended = (slot: Slot, worker: Worker, code: number | null, signal: string | null, failure: string | undefined) => {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    if (stopping) {
      if (signal || code !== 0) clean = false;
      log.info({ worker: slot.index, workerPid: worker.process.pid, code, signal }, `worker ${slot.index} stopped (${how})`);
      if (slots.every((s) => !s.worker)) allGone?.();
      return;
    }
    if (starting) {
      const error = new Error(failure ?? `worker ${slot.index} ended while starting (${how})`);
      void stopAll(`worker ${slot.index} could not start`).then(() => startup.reject(error));
      return;
    }
    const { delayMs: delay, quickEnds } = restartDelay(Date.now() - slot.startedAt, slot.quickEnds);
    slot.quickEnds = quickEnds;
    log.error(
      { worker: slot.index, workerPid: worker.process.pid, code, signal, ...(failure ? { error: failure } : {}), restartInMs: delay },
      `worker ${slot.index} ended unexpectedly (${how}); a new one starts ${delay ? `in ${delay / 1000} s` : 'now'}`,
    );
    slot.restart = setTimeout(() => fork(slot, true), delay);
  };

  /** Every worker drains and exits; the workers still at work after the time limit are killed. */
  const stopAll = async (reason: string): Promise<boolean> => {
    if (stopping) return new Promise<boolean>(() => undefined); // the first stop exits
    stopping = true;
    for (const slot of slots) clearTimeout(slot.restart);
    const live = slots.filter((s) => s.worker);
    log.info(
      { reason, workers: live.length, limitSeconds: config.shutdownSeconds },
      'stopping: the workers answer the requests they hold, then exit',
    );
    const gone = new Promise<void>((resolve) => (allGone = resolve));
    if (live.length === 0) allGone!();
    // A worker not yet ready is told when it says it is (above).
    for (const slot of live) if (slot.ready) send(slot.worker!, { type: 'fieldreport:stop' });
    const limit = setTimeout(() => {
      const busy = slots.filter((s) => s.worker);
      log.error(
        { workers: busy.map((s) => s.worker!.process.pid) },
        `still at work after ${config.shutdownSeconds} s, killed: worker ${busy.map((s) => s.index).join(', ')}`,
      );
      clean = false;
      for (const slot of busy) slot.worker!.process.kill('SIGKILL');
    }, config.shutdownSeconds * 1000);
    await gone;
    clearTimeout(limit);
    return clean;
  };

  const onSignal = (signal: NodeJS.Signals) => {
    void stopAll(signal).then((ok) => {
      log.info({ signal, clean: ok }, ok ? 'stopped' : 'stopped; some requests may have been cut off');
      process.exit(ok ? 0 : 1);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  for (const [i, slot] of slots.entries()) fork(slot, i === 0);
  await started;

  log.info(
    { workers: slots.length, database: describeDatabase(config.database), dataRoot: config.dataRoot, migrations: applied },
    `fieldreport ready: ${slots.length} workers`,
  );
  const ownerWarning = standalone ? null : documentsOwnerWarning(config.dataRoot);
  if (ownerWarning) log.warn({ dataRoot: config.dataRoot }, ownerWarning);
  if (logins.length > 0 && firstAddress && typeof firstAddress.address === 'string') {
    process.stdout.write(startBanner(addressUrl(firstAddress.address, firstAddress.port, !!config.tls), logins));
  }
}

/** A worker (cluster-worker.ts): waits for its configuration, serves, and drains when told to stop. */
export function runWorker(): void {
  let app: FastifyInstance | undefined;
  let stopping = false;
  const tell = (message: ToPrimary, then?: () => void) => process.send!(message, undefined, undefined, () => then?.());

  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    // Not listening yet: nothing to answer.
    if (!app) process.exit(0);
    app.log.info({ reason }, 'stopping: no new connections; answering the requests in flight');
    try {
      await app.close();
    } catch (error) {
      app.log.error({ err: error }, 'closing failed');
      process.exit(1);
    }
    app.log.info('stopped');
    process.exit(0);
  };

  const start = async (config: Config, recover: boolean) => {
    let recoverInBackground: (app: FastifyInstance) => void;
    try {
      // The app is loaded here, in the worker: the primary stays small.
      const server = await import('./server.js');
      recoverInBackground = server.recoverInBackground;
      app = await server.listenApp(config, createDb(config));
    } catch (error) {
      if (stopping) process.exit(0);
      tell({ type: 'fieldreport:failed', message: (error as Error).message }, () => process.exit(1));
      return;
    }
    if (recover) recoverInBackground(app);
  };

  process.on('message', (message: ToWorker) => {
    if (message?.type === 'fieldreport:start') void start(deepFreeze(message.config), message.recover);
    else if (message?.type === 'fieldreport:stop') void stop('told by the primary');
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop(signal));
  tell({ type: 'fieldreport:ready' });
}
