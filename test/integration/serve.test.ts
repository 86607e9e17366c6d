/**
 * `serve --demo` as `npm start` runs it, in its own process: a new standalone database is
 * migrated and filled, the demo login is printed, and that login works over real HTTP.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('serve --demo [sqlite]', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-serve-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', "import { main } from './src/cli.ts'; await main(['serve', '--demo']);"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: `sqlite:${path.join(folder, 'fieldreport.sqlite')}`,
        DATA_ROOT: path.join(folder, 'documents'),
        STATE_DIR: folder,
        PORT: '0',
        LOG_LEVEL: 'warn',
      },
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  after(() => {
    child.kill('SIGTERM');
    rmSync(folder, { recursive: true, force: true });
  });

  test('prints a demo login that logs in over HTTP and yields the contract claims', async () => {
    const deadline = Date.now() + 60_000;
    while (!/Demo login: .*password: (\S+)\)/.test(out)) {
      assert.ok(child.exitCode === null, `serve exited ${child.exitCode}:\n${out}`);
      assert.ok(Date.now() < deadline, `no demo login printed within 60 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const base = /running on (http:\/\/\S+)/.exec(out)![1]!;
    const [, logins, password] = /Demo login: (.*) \(password: (\S+)\)/.exec(out)!;
    const first = logins!.split(', ')[0]!;

    const res = await fetch(`${base}/api/auth.php`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: first, password }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { token: string; expires: number; user: { id: number; login: string } };
    const claims = decodeJwt(body.token);
    assert.equal(claims.sub as unknown, body.user.id);
    assert.equal(claims.login, first);
    assert.equal(claims.iss, 'bericht-api');
    assert.equal(claims.exp, claims.iat! + 7 * 24 * 3600);
    assert.equal(body.expires, claims.exp);

    const health = await fetch(`${base}/api/health`);
    assert.equal(health.status, 200);
  });
});
