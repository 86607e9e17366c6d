/**
 * A counting semaphore with a bounded queue, for work that is heavy per request (PDFs, signature
 * checks): at most `max` run at once, `maxWaiting` more wait, and beyond that `busy()` is thrown.
 * A finishing task hands its slot straight to the next waiter, so the limit holds exactly.
 */
export function createLimiter(max: number, maxWaiting: number, busy: () => Error) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async function run<T>(work: () => Promise<T>): Promise<T> {
    if (running < max) running++;
    else if (waiting.length >= maxWaiting) throw busy();
    else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot comes with the wake-up
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
