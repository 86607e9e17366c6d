/**
 * Gives memory back after heavy work. A finalize builds a PDF of many megabytes of pages, fonts and
 * images in the JavaScript heap; once it is answered that is garbage, but V8 collects only when
 * more is allocated, and a phone's service then rests: measured with the outbox drain of
 * `npm run bench`, the heap stayed 50 MB larger (and the images' buffers, outside it, with it) for as
 * long as nothing else came. So a full collection runs COLLECT_AFTER_MS after the last heavy work
 * (a finalize, a burst of print copies): one pause of a few tens of milliseconds, after the
 * answers, once per burst.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Time after the last heavy work before the collection. @default 2000 ms */
export const COLLECT_AFTER_MS = 2000;

type Collect = () => void;

/** The collection function; null when the runtime gives none. */
let collect: Collect | null | undefined;
function collector(): Collect {
  if (!collect) {
    const exposed = (globalThis as { gc?: Collect }).gc;
    if (exposed) collect = exposed;
    else {
      // V8 gives the collection function to contexts made after the flag is set.
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as Collect;
    }
  }
  return collect;
}

/** The outside memory after the last collection this module ran. */
let externalAfterCollection = 0;

/** A full, synchronous collection now (some tens of milliseconds); nothing when the runtime gives no collection function. */
export function collectNow(): void {
  if (collect === null) return;
  // A full, synchronous collection; V8 gives the freed pages back to the system soon after.
  // (Node 20's gc() does nothing synchronous when given options: called without.)
  try {
    collector()();
  } catch {
    collect = null; // a runtime that gives no collection function: memory is left to V8
  }
  externalAfterCollection = getHeapStatistics().external_memory;
}

let timer: NodeJS.Timeout | undefined;

/** Heavy work just ended: collect the garbage `afterMs` from now, or from the next call's time if another comes first. */
export function collectWhenQuiet(afterMs = COLLECT_AFTER_MS): void {
  if (timer) timer.refresh();
  else {
    timer = setTimeout(() => {
      timer = undefined;
      collectNow();
    }, afterMs);
    timer.unref();
  }
}

/**
 * Outside memory (buffers of decoded pixels, encodings, uploads' chunks) allowed to pile up before a
 * collection gives it back. @default 24 MiB
 */
export const EXTERNAL_SLACK_BYTES = 24 * 1024 * 1024;

/**
 * A photo's buffers just became garbage (an upload answered, a print copy made): when the outside
 * memory grew by more than EXTERNAL_SLACK_BYTES since the last collection run here, collect
 * everything now (some milliseconds). V8 collects by itself only once 64 MB of it has piled up, and
 * an outbox draining photos back to back piles that up in about a second; held until then, it was
 * the service's peak memory. (A collection of the young generation alone, after every photo, kept
 * the peak 0-25 MiB higher and the uploads' CPU time 10 % lower; V8 counts the memory it frees only
 * later, in the background, so it cannot tell here whether that was enough.)
 */
export function collectIfBuffersPiled(): void {
  if (collect === null) return;
  if (getHeapStatistics().external_memory - externalAfterCollection > EXTERNAL_SLACK_BYTES) collectNow();
}
