/**
 * A photo as it is queued: reduced on the phone to at most 2,560 px on the longest side (a 12 MP
 * photo would take over 10 s on a slow mobile line), in a worker, unless the person's setting says
 * to send originals. The name keeps the original's, with .jpg when the photo was re-encoded.
 */
import { settings } from '../app/settings.svelte';

export const MAX_SIDE = 2560;

/** A photo that takes longer than this to reduce is sent as it is. */
const REDUCE_TIMEOUT_MS = 60_000;

let worker: Worker | undefined;
let nextId = 1;
const waiting = new Map<number, (blob: Blob | null) => void>();

/** The worker failed (it could not load, or ran out of memory): every photo waiting goes as it is. */
function giveUp(): void {
  worker?.terminate();
  worker = undefined;
  for (const resolve of waiting.values()) resolve(null);
  waiting.clear();
}

function photoWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('./photo-worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<{ id: number; blob: Blob | null }>) => {
      waiting.get(event.data.id)?.(event.data.blob);
      waiting.delete(event.data.id);
    };
    worker.onerror = giveUp;
    worker.onmessageerror = giveUp;
  }
  return worker;
}

export async function preparePhoto(file: File): Promise<{ blob: Blob; name: string }> {
  const name = file.name || `Foto_${Date.now()}.jpg`;
  if (settings.sendOriginals || typeof OffscreenCanvas === 'undefined') return { blob: file, name };
  const id = nextId++;
  const reduced = await new Promise<Blob | null>((resolve) => {
    const timeout = setTimeout(() => {
      waiting.delete(id);
      resolve(null);
    }, REDUCE_TIMEOUT_MS);
    waiting.set(id, (blob) => {
      clearTimeout(timeout);
      resolve(blob);
    });
    try {
      photoWorker().postMessage({ id, file, maxSide: MAX_SIDE });
    } catch {
      giveUp();
    }
  });
  if (!reduced) return { blob: file, name };
  return { blob: reduced, name: name.replace(/\.[^.]*$/, '') + '.jpg' };
}
