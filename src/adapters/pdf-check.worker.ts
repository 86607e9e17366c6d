/**
 * The worker thread of the public PDF check (pdf-check-pool.ts): reads the signatures of one
 * uploaded file (findSignatures) and its SHA-256, off the service's request thread. Buffers go back
 * as plain Uint8Arrays of their own (a view into a larger buffer would copy all of it).
 */
import { createHash } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { FoundSignature } from './pdf-sign.js';

// First of all, before the PDF reader's code is loaded (which takes CPU too), the check gives way to the request thread (nice 10: about a tenth of a core where both want
// one, all of an idle one): on Linux a thread has a nice value of its own,
// set through its id (/proc/thread-self names it). Elsewhere it runs at the process's priority.
try {
  const tid = Number(path.basename(readlinkSync('/proc/thread-self')));
  if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, 10);
} catch {
  // not Linux, or not allowed: the same priority as the requests
}

const { findSignatures } = await import('./pdf-sign.js');

export interface ScanRequest {
  bytes: Uint8Array;
}

export type ScanAnswer = { found: FoundSignature[]; fileHash: string } | { error: string };

/** `value` with every Buffer copied into a Uint8Array of exactly its bytes. */
function detached(value: unknown): unknown {
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(detached);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, detached(v)]));
}

parentPort?.on('message', ({ bytes }: ScanRequest) => {
  let answer: ScanAnswer;
  try {
    const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const found = findSignatures(pdf);
    answer = { found: detached(found) as FoundSignature[], fileHash: createHash('sha256').update(pdf).digest('hex') };
  } catch (error) {
    answer = { error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(answer);
});
// Loaded: the pool starts a check's budget from here.
parentPort?.postMessage({ ready: true });
