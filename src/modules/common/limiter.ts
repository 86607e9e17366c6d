/**
 * A counting semaphore with a bounded queue, for work that is heavy per request (PDFs, signature
 * checks): at most `max` run at once, `maxWaiting` more wait, and beyond that `busy()` is thrown.
 * A finishing task hands its slot straight to the next waiter, so the limit holds exactly.
 * A waiter whose `signal` aborts (its client hung up) leaves the queue at once with the signal's
 * reason and never takes a slot; once running, the work itself must end (the slot is given back
 * whenever it settles, however).
 */
export function createLimiter(max: number, maxWaiting: number, busy: () => Error) {
  let running = 0;
  const waiting: Array<() => void> = [];
  async function run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (running < max) running++;
    else if (waiting.length >= maxWaiting) throw busy();
    else {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const at = waiting.indexOf(wake);
          if (at >= 0) waiting.splice(at, 1);
          reject(signal!.reason);
        };
        // The slot comes with the wake-up: from then on the work owns it, aborted or not.
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        waiting.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  }
  /** Tasks running and waiting now (for tests and logs). */
  run.load = () => ({ running, waiting: waiting.length });
  return run;
}

/**
 * At most `max` tasks in flight per key (a client's address): `acquire` answers a release
 * function, or undefined when the key has its `max` already. A release counts once however often
 * it is called. Keys without tasks are forgotten, so the map holds only addresses with work.
 */
export function createKeyedCounter(max: number) {
  const counts = new Map<string, number>();
  return {
    acquire(key: string): (() => void) | undefined {
      const now = counts.get(key) ?? 0;
      if (now >= max) return undefined;
      counts.set(key, now + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(key) ?? 1) - 1;
        if (left <= 0) counts.delete(key);
        else counts.set(key, left);
      };
    },
    /** Tasks in flight for `key` (for tests and logs). */
    count: (key: string) => counts.get(key) ?? 0,
    /** Keys with tasks in flight (for tests and logs). */
    keys: () => counts.size,
  };
}

/** A client's address as the per-address limits count it: see client-address.ts. */
export { addressKey } from './client-address.js';
