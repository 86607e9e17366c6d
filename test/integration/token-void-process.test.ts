/**
 * Tokens voided by another process: the service runs as an operator runs it (`fieldreport serve`,
 * its own process, AUTH_CACHE_SECONDS=5), and the command line changes a password, deactivates
 * and reactivates a user meanwhile. A token issued two seconds before `user passwd` is refused
 * within AUTH_CACHE_SECONDS; one issued before `user disable` stays refused after `user enable`;
 * a login after each change works.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { TEST_INSTANCE_ID } from '../helpers/build-app.js';
import { databaseUrl, runCli } from '../helpers/cli.js';
import { createTestDatabase, testDialects } from '../helpers/databases.js';
import { login, startService, type ServiceProcess } from '../helpers/service-process.js';

const WINDOW_MS = 5_000;
/** A request's own time on a busy machine, beyond the window. */
const SLACK_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of testDialects()) {
  describe(`tokens voided by the command line while the service runs [${dialect}]`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const c of cleanups.reverse()) await c();
    });

    async function setup(): Promise<{ env: NodeJS.ProcessEnv; service: ServiceProcess }> {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-void-'));
      const database = await createTestDatabase(dialect);
      cleanups.push(async () => {
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      });
      const env: NodeJS.ProcessEnv = {
        DATABASE_URL: databaseUrl(database.config),
        DATA_ROOT: path.join(dir, 'documents'),
        STATE_DIR: path.join(dir, 'state'),
        INSTANCE_UNIQUE_ID: TEST_INSTANCE_ID,
        LOG_LEVEL: 'silent',
        AUTH_CACHE_SECONDS: String(WINDOW_MS / 1000),
      };
      await cli(['migrate'], env);
      await cli(['user', 'add', 'anna', '--password', 'alt123', '--rights', 'read'], env);
      const service = await startService({ env: { ...env, LOG_LEVEL: 'info' } });
      cleanups.push(() => service.stop());
      return { env, service };
    }

    async function cli(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
      const r = await runCli(argv, env);
      assert.equal(r.code, 0, `${argv.join(' ')}: exit ${r.code}\n${r.stderr}`);
    }

    const list = (base: string, token: string) =>
      fetch(`${base}/api/orders.php?limit=1`, { headers: { authorization: `Bearer ${token}` } });

    /** Polls until the token is refused with `status`; the milliseconds from `since`. */
    async function refusedAfter(base: string, token: string, since: number, status: number): Promise<number> {
      for (;;) {
        const res = await list(base, token);
        await res.arrayBuffer();
        if (res.status !== 200) {
          assert.equal(res.status, status);
          return performance.now() - since;
        }
        assert.ok(performance.now() - since < WINDOW_MS + 15_000, 'the token still works long after the window');
        await sleep(100);
      }
    }

    test('user passwd: a token issued 2 s before is refused within AUTH_CACHE_SECONDS, a new login works', async () => {
      const { env, service } = await setup();
      const token = await login(service.base, 'anna', 'alt123');
      assert.equal((await list(service.base, token)).status, 200);
      await sleep(2_000);
      assert.equal((await list(service.base, token)).status, 200, 'kept by the service before the change');
      await cli(['user', 'passwd', 'anna', '--password', 'neu456'], env);
      // From the moment the change is written (the command has returned), not from the command's start-up.
      const changed = performance.now();
      const ms = await refusedAfter(service.base, token, changed, 401);
      assert.ok(ms <= WINDOW_MS + SLACK_MS, `refused only after ${Math.round(ms)} ms`);
      const fresh = await login(service.base, 'anna', 'neu456');
      assert.equal((await list(service.base, fresh)).status, 200, 'a token issued after the change works');
      // Still refused 30 s later would need waiting; the old token stays refused after a new login.
      assert.equal((await list(service.base, token)).status, 401);
    });

    test('user disable then user enable: the token issued before stays refused, a new login works', async () => {
      const { env, service } = await setup();
      const token = await login(service.base, 'anna', 'alt123');
      assert.equal((await list(service.base, token)).status, 200);
      // Disabled and enabled again before the service is asked anything with the token.
      await cli(['user', 'disable', 'anna'], env);
      await cli(['user', 'enable', 'anna'], env);
      const since = performance.now();
      const ms = await refusedAfter(service.base, token, since, 401);
      assert.ok(ms <= WINDOW_MS + SLACK_MS, `refused only after ${Math.round(ms)} ms`);
      const fresh = await login(service.base, 'anna', 'alt123');
      assert.equal((await list(service.base, fresh)).status, 200, 'a token issued after the reactivation works');
    });
  });
}
