/**
 * A server starts itself again in place with the process settings it lacks (server-process.ts):
 * Node's options the process was not given, glibc's settings its environment does not name;
 * nothing it was given is changed or doubled, and a process started again is not started a third
 * time. The real start again (process.execve) keeps the process id and the arguments.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  RESTARTED_ENV,
  SERVER_MALLOC_ENV,
  SERVER_NODE_OPTIONS,
  missingServerOptions,
  restartWithServerSettings,
} from '../../src/server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const onLinux = process.platform === 'linux';

/** What restartWithServerSettings would start, or null when it returns. */
function restartOf(
  env: NodeJS.ProcessEnv,
  execArgv: string[] = [],
  platform: NodeJS.Platform = 'linux',
): { args: string[]; env: NodeJS.ProcessEnv } | null {
  class Restarted extends Error {
    constructor(
      readonly args: string[],
      readonly env: NodeJS.ProcessEnv,
    ) {
      super('restarted');
    }
  }
  try {
    restartWithServerSettings({
      env,
      execArgv,
      argv: ['/usr/bin/node', '/srv/fieldreport/bin/fieldreport.js', 'serve', '--workers', '2'],
      execPath: '/usr/bin/node',
      platform,
      execve: (_file, args, newEnv) => {
        throw new Restarted(args, newEnv);
      },
    });
    return null;
  } catch (error) {
    if (error instanceof Restarted) return { args: error.args, env: error.env };
    throw error;
  }
}

describe('the server process settings', () => {
  test("a process without them starts again with the options first, its own options and arguments after, and glibc's settings", () => {
    const restart = restartOf({ PATH: '/usr/bin', PORT: '9000' }, ['--enable-source-maps']);
    assert.ok(restart);
    assert.deepEqual(restart.args, [
      '/usr/bin/node',
      ...SERVER_NODE_OPTIONS,
      '--enable-source-maps',
      '/srv/fieldreport/bin/fieldreport.js',
      'serve',
      '--workers',
      '2',
    ]);
    assert.equal(restart.env.PORT, '9000');
    assert.equal(restart.env.PATH, '/usr/bin');
    if (onLinux) {
      assert.equal(restart.env.MALLOC_ARENA_MAX, SERVER_MALLOC_ENV.MALLOC_ARENA_MAX);
      assert.equal(restart.env.MALLOC_MMAP_THRESHOLD_, SERVER_MALLOC_ENV.MALLOC_MMAP_THRESHOLD_);
    }
    assert.equal(restart.env[RESTARTED_ENV], '1');
  });

  test('what the operator set wins, and is not doubled', () => {
    // The option given on the command line, in NODE_OPTIONS, or with V8's underscores: not added.
    assert.deepEqual(missingServerOptions(['--max-semi-space-size=64']), []);
    assert.deepEqual(missingServerOptions([], '--max-old-space-size=512 --max_semi_space_size=32'), []);
    assert.deepEqual(missingServerOptions(['--max-old-space-size=512'], ''), [...SERVER_NODE_OPTIONS]);
    const restart = restartOf({ MALLOC_ARENA_MAX: '4' });
    assert.ok(restart);
    if (onLinux) {
      assert.equal(restart.env.MALLOC_ARENA_MAX, '4', "the environment's value stays");
      assert.equal(restart.env.MALLOC_MMAP_THRESHOLD_, SERVER_MALLOC_ENV.MALLOC_MMAP_THRESHOLD_);
    }
  });

  test('nothing to do: everything set, already started again, Windows, or no process.execve', () => {
    const all = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' };
    assert.equal(restartOf(all, ['--max-semi-space-size=8']), null);
    assert.equal(restartOf({ [RESTARTED_ENV]: '1' }), null);
    assert.equal(restartOf({}, [], 'win32'), null);
    assert.doesNotThrow(() =>
      restartWithServerSettings({ env: {}, execArgv: [], argv: ['node', 'x.js', 'serve'], execPath: process.execPath, platform: 'linux' }),
    );
  });

  test('the real start again keeps the process id and the arguments, and V8 and glibc get the settings', {
    skip: typeof process.execve !== 'function' ? `this Node (${process.version}) has no process.execve` : false,
  }, () => {
    const script = [
      "import { restartWithServerSettings } from './src/server-process.ts';",
      'const before = process.env.FIELDREPORT_TEST_SEEN ?? String(process.pid);',
      'process.env.FIELDREPORT_TEST_SEEN = before;',
      'restartWithServerSettings();',
      "console.log(JSON.stringify({ pid: process.pid, before: Number(before), execArgv: process.execArgv.filter((a) => a.startsWith('--max')), args: process.argv.slice(1), malloc: [process.env.MALLOC_ARENA_MAX, process.env.MALLOC_MMAP_THRESHOLD_] }));",
    ].join('\n');
    const env = { ...process.env };
    for (const name of ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', RESTARTED_ENV, 'FIELDREPORT_TEST_SEEN', 'NODE_OPTIONS'])
      delete env[name];
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, '--', 'serve', '--port', '1'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const seen = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
      pid: number;
      before: number;
      execArgv: string[];
      args: string[];
      malloc: string[];
    };
    assert.equal(seen.pid, seen.before, 'the same process');
    assert.deepEqual(seen.execArgv, [...SERVER_NODE_OPTIONS]);
    assert.deepEqual(seen.args, ['serve', '--port', '1']);
    if (onLinux) assert.deepEqual(seen.malloc, [SERVER_MALLOC_ENV.MALLOC_ARENA_MAX, SERVER_MALLOC_ENV.MALLOC_MMAP_THRESHOLD_]);
  });
});
