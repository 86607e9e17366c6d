/**
 * The service gives back the memory of buffers that became garbage (heap.ts): once more than
 * EXTERNAL_SLACK_BYTES of memory outside V8's heap has piled up since its last collection,
 * collectIfBuffersPiled collects; below that it leaves V8 alone.
 */
import assert from 'node:assert/strict';
import { getHeapStatistics } from 'node:v8';
import { test } from 'node:test';
import { EXTERNAL_SLACK_BYTES, collectIfBuffersPiled } from '../../src/adapters/heap.js';

const external = () => getHeapStatistics().external_memory;

/** Buffers of `bytes` in all, made and dropped at once (garbage outside the heap, as a photo's pixels). */
function pileUp(bytes: number): void {
  let kept: Buffer[] = [];
  for (let made = 0; made < bytes; made += 1024 * 1024) kept.push(Buffer.alloc(1024 * 1024, 1));
  kept = [];
  void kept;
}

test('buffers piled beyond the slack are collected; a small pile is left to V8', () => {
  collectIfBuffersPiled(); // whatever came before this test
  pileUp(EXTERNAL_SLACK_BYTES + 40 * 1024 * 1024);
  const piled = external();
  collectIfBuffersPiled();
  const after = external();
  assert.ok(
    piled - after >= 40 * 1024 * 1024,
    `collected: ${(piled / 2 ** 20).toFixed(0)} MiB before, ${(after / 2 ** 20).toFixed(0)} MiB after`,
  );

  pileUp(EXTERNAL_SLACK_BYTES / 2);
  const small = external();
  collectIfBuffersPiled();
  assert.ok(external() >= small - 1024 * 1024, 'a pile within the slack is not collected here');
});
