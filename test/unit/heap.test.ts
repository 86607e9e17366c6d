/**
 * The service gives back the memory of buffers that became garbage (heap.ts, collectIfBuffersPiled):
 * beyond EXTERNAL_SLACK_BYTES of memory outside V8's heap it collects, young buffers and old ones
 * (kept a while, as a photo's during its work).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EXTERNAL_SLACK_BYTES, collectIfBuffersPiled } from '../../src/adapters/heap.js';

const MiB = 1024 * 1024;
/** Memory of the buffers alive (V8's own count of outside memory is brought up to date lazily). */
const buffers = () => process.memoryUsage().arrayBuffers;
/** V8 frees a young collection's buffers in the background, soon after it. */
const swept = () => new Promise((resolve) => setTimeout(resolve, 200));
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' }) => void;

/** Buffers of `bytes` in all, dropped at once; `old`: kept over a full collection first, which makes them old. */
function pileUp(bytes: number, old = false): void {
  let kept: Buffer[] = [];
  for (let made = 0; made < bytes; made += MiB) kept.push(Buffer.alloc(MiB, 1));
  if (old) gc();
  kept = [];
  void kept;
}

test('buffers piled beyond the slack are collected, old ones too (V8 leaves those for up to 64 MB)', async () => {
  collectIfBuffersPiled();
  pileUp(EXTERNAL_SLACK_BYTES + 16 * MiB, true);
  gc({ type: 'minor' }); // old: a young collection does not free them
  await swept();
  const piled = buffers();
  assert.ok(piled > EXTERNAL_SLACK_BYTES, 'the old buffers are still held before the full collection');
  collectIfBuffersPiled();
  await swept();
  assert.ok(piled - buffers() >= 16 * MiB, `${(piled / MiB).toFixed(0)} MiB before, ${(buffers() / MiB).toFixed(0)} MiB after`);
});
