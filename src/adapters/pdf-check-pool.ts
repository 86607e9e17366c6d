/**
 * The public PDF check's work off the request thread: each uploaded file is read by a worker thread
 * (pdf-check.worker.ts) with a time budget and a memory limit. A worker that runs past its budget
 * is terminated and the check answered as too costly; one that runs out of memory likewise. A
 * worker that answered in time is kept for the next check (at most `size` of them, none holding
 * the process open), and one more is started ahead of need (warm(), and whenever a worker is
 * taken or stopped), so a check does not pay for starting one.
 */
import { Worker } from 'node:worker_threads';
import type { FoundSignature } from './pdf-sign.js';
import type { ScanAnswer } from './pdf-check.worker.js';

/** The check of a file took longer than its budget, or more memory than a worker may have. */
export class CheckTooCostly extends Error {}

/**
 * A worker came free with less than half of the file's budget left (the file waited for it): the
 * file is not checked (one too many at once), and the worker is kept, never stopped for time the
 * file spent waiting.
 */
export class CheckBusy extends Error {}

export interface ScanResult {
  found: FoundSignature[];
  /** SHA-256 of the whole file, hex. */
  fileHash: string;
}

export interface ScanPoolOptions {
  /** Workers kept between checks. */
  size: number;
  /** Wall-clock time one file may take in its worker, in ms. */
  budgetMs: number;
  /** A worker's heap (V8's old generation), in MB. */
  memoryMb: number;
  /** Told of a worker's error (for the log); the check it ran, if any, fails on its own. */
  onWorkerError?: (error: Error) => void;
}

/** Time a new worker may take to start (load its code) before it is given up. */
const START_MS = 30_000;

/** Uint8Arrays (as they come back from a worker) as Buffers again, in place. */
function revive(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(revive);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revive(v)]));
}

export function createScanPool(options: ScanPoolOptions) {
  const idle: Worker[] = [];
  const busy = new Set<Worker>();
  let closed = false;
  /** Workers started and ended, over the pool's life (for tests and logs). */
  let started = 0;
  let ended = 0;

  /** A worker of the compiled service, or of the sources when running under tsx (tests, benchmarks from source). */
  function spawn(): Worker {
    const worker = load();
    started++;
    // For the worker's whole life, idle or not: an 'error' never goes unheard (which would end the
    // process; a check running on it is failed by its own listener), and a worker that ended, by
    // itself or stopped from outside, is never handed a file again; another is loaded ahead.
    worker.on('error', (error) => options.onWorkerError?.(error));
    worker.once('exit', () => {
      ended++;
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      busy.delete(worker);
      if (at >= 0) replenish();
    });
    return worker;
  }

  function load(): Worker {
    const fromSource = import.meta.url.endsWith('.ts');
    const url = new URL(`./pdf-check.worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
    const resourceLimits = { maxOldGenerationSizeMb: options.memoryMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
    if (!fromSource) return new Worker(url, { resourceLimits });
    const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`;
    return new Worker(boot, { eval: true, resourceLimits });
  }

  /** Workers loading their code, and checks waiting for a worker that has. */
  let starting = 0;
  const waiters: Array<{ resolve: (worker: Worker) => void; reject: (error: Error) => void }> = [];

  /** A worker ready for a check: to the first check waiting for one, else kept idle (at most `size`). */
  function offer(worker: Worker): void {
    const waiter = waiters.shift();
    if (waiter) {
      busy.add(worker);
      return waiter.resolve(worker);
    }
    if (!closed && idle.length < options.size) {
      worker.unref();
      idle.push(worker);
    } else void worker.terminate();
  }

  /**
   * Starts workers ahead of need: one more than the checks waiting, ready or loading, as far as
   * `size` workers in all allow. So a check finds a loaded worker and its budget is not spent on
   * starting one.
   */
  function replenish(): void {
    while (!closed && idle.length + starting < waiters.length + 1 && idle.length + starting + busy.size < options.size) {
      starting++;
      const worker = spawn();
      worker.unref();
      let done = false;
      const timer = setTimeout(() => fail(new Error('the check worker did not start')), START_MS);
      timer.unref();
      const fail = (error: Error) => {
        if (done) return;
        done = true;
        starting--;
        clearTimeout(timer);
        worker.off('message', ready);
        void worker.terminate();
        // Each waiting check beyond the workers still loading is told.
        if (waiters.length > starting + idle.length) waiters.shift()!.reject(error);
      };
      const ready = () => {
        if (done) return;
        done = true;
        starting--;
        clearTimeout(timer);
        worker.off('error', fail);
        worker.off('exit', exited);
        offer(worker);
      };
      const exited = () => fail(new Error('the check worker ended while starting'));
      // The worker says so once its code is loaded (pdf-check.worker.ts).
      worker.once('message', ready);
      worker.once('error', fail);
      worker.once('exit', exited);
    }
  }

  /** A started worker: an idle one, else the next one loaded; another is started ahead of the next check. */
  function take(): Promise<Worker> {
    const kept = idle.pop();
    if (kept) busy.add(kept);
    const taken = kept ? Promise.resolve(kept) : new Promise<Worker>((resolve, reject) => waiters.push({ resolve, reject }));
    replenish();
    return taken;
  }

  return {
    /**
     * The signatures and the SHA-256 of `bytes`, read in a worker; CheckTooCostly beyond the
     * budget (`budgetMs`, else the pool's), counted from `since` (the file's arrival, Unix ms;
     * default now). A worker that comes free with less than half the budget left is not used:
     * CheckBusy, the worker kept. `bytes` is handed to the worker: empty afterwards when it was a buffer of its own.
     */
    async scan(bytes: Buffer, budgetMs = options.budgetMs, since = Date.now()): Promise<ScanResult> {
      if (closed) throw new Error('the check pool is closed');
      const worker = await take();
      const left = since + budgetMs - Date.now();
      if (left < budgetMs / 2) {
        busy.delete(worker);
        offer(worker);
        throw new CheckBusy(`${budgetMs - left} ms of the ${budgetMs} ms budget spent before a worker was free`);
      }
      worker.ref();
      busy.add(worker);
      // The file's own memory goes to the worker. A Buffer that does not own its whole
      // ArrayBuffer (a view into a larger one, or a small one cut from Node's shared pool, which
      // may not be transferred from Node 21 on) is copied into memory of its own first.
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.byteLength > Buffer.poolSize >>> 1;
      const data = owned ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes);
      return new Promise<ScanResult>((resolve, reject) => {
        let settled = false;
        const finish = (keep: boolean) => {
          settled = true;
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          busy.delete(worker);
          if (keep) offer(worker);
          else {
            void worker.terminate();
            replenish();
          }
        };
        const timer = setTimeout(() => {
          if (settled) return;
          finish(false);
          reject(new CheckTooCostly(`the check took longer than ${budgetMs} ms`));
        }, left);
        const onMessage = (answer: ScanAnswer) => {
          if (settled) return;
          finish(true);
          if ('error' in answer) reject(new Error(answer.error));
          else resolve({ found: revive(answer.found) as FoundSignature[], fileHash: answer.fileHash });
        };
        const onError = (error: Error & { code?: string }) => {
          if (settled) return;
          finish(false);
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new CheckTooCostly('the check needed more memory than a worker may have') : error,
          );
        };
        const onExit = () => {
          if (settled) return;
          finish(false);
          reject(new Error('the check worker ended'));
        };
        worker.on('message', onMessage);
        worker.once('error', onError);
        worker.once('exit', onExit);
        try {
          worker.postMessage({ bytes: data }, [data.buffer as ArrayBuffer]);
        } catch (error) {
          // Nothing reached the worker: it stays usable, the check fails as such.
          finish(true);
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    },
    /** Starts a worker ahead of the first check (a file being received), unless one is ready or loading. */
    warm: () => replenish(),
    /** The pool's workers now: idle, busy, and started and ended so far (for tests and logs). */
    stats: () => ({ idle: idle.length, busy: busy.size, started, ended }),
    /** The idle workers themselves (for tests: to stop one from outside). */
    idleWorkersForTests: (): readonly Worker[] => [...idle],
    /** Ends every worker. */
    async close(): Promise<void> {
      closed = true;
      for (const waiter of waiters.splice(0)) waiter.reject(new Error('the check pool is closed'));
      await Promise.all([...idle.splice(0), ...busy].map((w) => w.terminate()));
    },
  };
}

export type ScanPool = ReturnType<typeof createScanPool>;
