/** The workers of `serve --workers N`: the Node options they start with, the wait before a replacement. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RESTART_MAX_MS, RESTART_STABLE_MS, restartDelay, workerExecArgv } from '../../src/cluster.js';

describe('workerExecArgv', () => {
  test('keeps loaders and other options, drops the code given on the command line', () => {
    assert.deepEqual(workerExecArgv([]), []);
    assert.deepEqual(workerExecArgv(['--import', 'tsx']), ['--import', 'tsx']);
    assert.deepEqual(
      workerExecArgv(['--import', 'tsx', '--input-type=module', '-e', "import('./src/cli.ts')", '--max-old-space-size=512']),
      ['--import', 'tsx', '--max-old-space-size=512'],
    );
    assert.deepEqual(workerExecArgv(['--eval=1', '--print', '2', '--input-type', 'module', '--enable-source-maps']), [
      '--enable-source-maps',
    ]);
  });
});

describe('restartDelay', () => {
  test('a worker that ran a while is replaced at once, and the count of quick ends starts again', () => {
    assert.deepEqual(restartDelay(RESTART_STABLE_MS, 5), { delayMs: 0, quickEnds: 0 });
    assert.deepEqual(restartDelay(3_600_000, 0), { delayMs: 0, quickEnds: 0 });
  });

  test('workers that keep ending soon after their start wait 1 s, 2 s, 4 s … up to the longest wait', () => {
    let quickEnds = 0;
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) {
      const next = restartDelay(500, quickEnds);
      delays.push(next.delayMs);
      quickEnds = next.quickEnds;
    }
    assert.deepEqual(delays, [
      1000,
      2000,
      4000,
      8000,
      16000,
      32000,
      RESTART_MAX_MS,
      RESTART_MAX_MS,
      RESTART_MAX_MS,
      RESTART_MAX_MS,
      RESTART_MAX_MS,
      RESTART_MAX_MS,
    ]);
    assert.equal(RESTART_MAX_MS, 60_000);
    // No overflow however long the loop runs.
    assert.equal(restartDelay(0, 10_000).delayMs, RESTART_MAX_MS);
  });
});
