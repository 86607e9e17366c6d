/**
 * The rhythm of a durable job queue (mails, time stamps): a round now and every `pollSeconds`,
 * a round at once when work was queued (`kick`), never two rounds at a time (a kick during a
 * round runs one more right after it), and `stop` waiting for the round at work. With
 * `pollSeconds` 0 there are no rounds of its own: `runOnce` alone runs one.
 */
export interface Poller {
  start(): void;
  /** Work was queued: a round now rather than at the next tick. */
  kick(): void;
  /** Runs a round now (or right after the one at work); resolves with what it took. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
  /** True once stopped: a round ends early. */
  readonly stopped: boolean;
}

export function createPoller(pollSeconds: number, round: () => Promise<number>, onError: (error: unknown) => void): Poller {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;

  function runOnce(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = round()
      .catch((error: unknown) => {
        onError(error);
        return 0;
      })
      .finally(() => {
        running = undefined;
        if (again && !stopped) {
          again = false;
          void runOnce();
        }
      });
    return running;
  }

  function schedule(): void {
    if (stopped || pollSeconds <= 0) return;
    timer = setTimeout(() => void runOnce().finally(schedule), pollSeconds * 1000);
    timer.unref();
  }

  return {
    start(): void {
      schedule();
      if (pollSeconds > 0) void runOnce();
    },
    kick(): void {
      if (!stopped && pollSeconds > 0) void runOnce();
    },
    runOnce,
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
    get stopped() {
      return stopped;
    },
  };
}
