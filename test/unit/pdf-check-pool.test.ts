import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CheckBusy, createScanPool } from '../../src/adapters/pdf-check-pool.js';

const tinyPdf = () => Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');

describe("the public PDF check's worker pool", () => {
  const pool = createScanPool({ size: 1, budgetMs: 20_000, memoryMb: 64 });
  after(() => pool.close());

  test('a file that waited past half its budget is refused as busy, and the free worker is kept, not stopped', async () => {
    const first = await pool.scan(tinyPdf());
    assert.match(first.fileHash, /^[0-9a-f]{64}$/);
    const before = pool.stats();
    assert.equal(before.idle, 1);
    // The file arrived 15 s of its 20 s ago: a worker is free, but less than half the budget is left.
    await assert.rejects(pool.scan(tinyPdf(), 20_000, Date.now() - 15_000), CheckBusy);
    const now = pool.stats();
    assert.equal(now.started, before.started, 'no worker started for it');
    assert.equal(now.ended, before.ended, 'no worker stopped for time spent waiting');
    assert.equal(now.idle, 1, 'the worker is back among the idle ones');
    // With more than half left, the file is checked by that same worker.
    const next = await pool.scan(tinyPdf(), 20_000, Date.now() - 5_000);
    assert.equal(next.fileHash, first.fileHash);
    assert.equal(pool.stats().started, before.started);
  });
});

describe("the public PDF check's workers are started ahead of need", () => {
  test("warm() loads a worker before any file arrives; the check then starts none of its own; the budget is counted from the file's arrival", async () => {
    const pool = createScanPool({ size: 1, budgetMs: 20_000, memoryMb: 64 });
    try {
      pool.warm();
      assert.equal(pool.stats().started, 1);
      while (pool.stats().idle === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const result = await pool.scan(tinyPdf());
      assert.match(result.fileHash, /^[0-9a-f]{64}$/);
      assert.deepEqual({ ...pool.stats(), idle: undefined }, { idle: undefined, busy: 0, started: 1, ended: 0 });
    } finally {
      await pool.close();
    }
  });

  test('with room for two, taking a worker starts the next one ahead', async () => {
    const pool = createScanPool({ size: 2, budgetMs: 20_000, memoryMb: 64 });
    try {
      await pool.scan(tinyPdf());
      // The first check took the worker it found loading; a second was started ahead for the next.
      assert.equal(pool.stats().started, 2);
      while (pool.stats().idle < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      await Promise.all([pool.scan(tinyPdf()), pool.scan(tinyPdf())]);
      assert.equal(pool.stats().started, 2, 'two checks at once found two loaded workers');
    } finally {
      await pool.close();
    }
  });
});

describe("a small PDF (cut from Node's shared buffer pool) is copied before it goes to a worker", () => {
  test('a tiny PDF is checked, and other small buffers of the same pool keep their bytes', async () => {
    const pool = createScanPool({ size: 1, budgetMs: 20_000, memoryMb: 64 });
    try {
      const sibling = Buffer.from('a neighbour in the shared pool', 'latin1');
      const tiny = tinyPdf();
      assert.ok(tiny.length < 4096 && tiny.buffer.byteLength > tiny.length, 'the file is a slice of the shared pool');
      const result = await pool.scan(tiny);
      assert.match(result.fileHash, /^[0-9a-f]{64}$/);
      // Transferring the pool's memory would have emptied every buffer cut from it (Node 20), or thrown DataCloneError (Node 21 on).
      assert.equal(sibling.toString('latin1'), 'a neighbour in the shared pool');
      assert.equal(tiny.subarray(0, 5).toString('latin1'), '%PDF-');
      // A view into a larger buffer of its own is copied too: the larger buffer stays whole.
      const big = Buffer.alloc(64 * 1024, 0x20);
      tinyPdf().copy(big, 100);
      await pool.scan(big.subarray(100, 100 + tiny.length));
      assert.equal(big.length, 64 * 1024);
      assert.equal(big.subarray(100, 105).toString('latin1'), '%PDF-');
    } finally {
      await pool.close();
    }
  });
});

describe('an idle worker that ends or fails is never handed a file', () => {
  test('an idle worker stopped from outside leaves the pool; the next check is made by another; an error of an idle worker does not end the process', async () => {
    const pool = createScanPool({ size: 1, budgetMs: 5_000, memoryMb: 64 });
    try {
      await pool.scan(tinyPdf());
      const [worker] = pool.idleWorkersForTests();
      assert.ok(worker);
      // An 'error' with nobody listening would be thrown right here (and end the process).
      worker.emit('error', new Error('a failure while idle'));
      await worker.terminate();
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(!pool.idleWorkersForTests().includes(worker), 'the ended worker is no longer idle');
      const next = await pool.scan(tinyPdf());
      assert.match(next.fileHash, /^[0-9a-f]{64}$/);
      assert.equal(pool.stats().started, 2);
    } finally {
      await pool.close();
    }
  });
});
