/**
 * Another process holds SQLite's write lock (BEGIN IMMEDIATE, as a backup tool or a second
 * service on the same file may): reads and the health check go on while a write waits for it;
 * the write succeeds once the lock frees, or answers 503 DATABASE_BUSY with Retry-After when the
 * lock is held longer than a write waits (5 s). Also a read-only database file: reads go on,
 * writes are 503 DATABASE_READ_ONLY, health says so.
 * The latencies while the lock is held are printed as figures, not asserted: timings on a shared
 * machine are no test. What is asserted is that reads were answered while the write waited.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { login, startService, type ServiceProcess } from '../helpers/service-process.js';

/** A process that takes the write lock of `file`, says "locked", holds it `ms`, then commits. */
function holdWriteLock(file: string, ms: number): Promise<{ child: ChildProcess; released: Promise<void> }> {
  const code = `
    const SQLite = require('better-sqlite3');
    const db = new SQLite(${JSON.stringify(file)});
    db.pragma('busy_timeout = 10000');
    db.prepare('begin immediate').run();
    db.prepare("update llx_const set note = 'held' where rowid = (select min(rowid) from llx_const)").run();
    process.stdout.write('locked\\n');
    setTimeout(() => { db.prepare('commit').run(); db.close(); process.stdout.write('released\\n'); }, ${ms});
  `;
  const child = spawn(process.execPath, ['-e', code], {
    cwd: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (String(d).includes('locked')) resolve({ child, released });
    });
    child.once('exit', (c) => reject(new Error(`lock holder ended (${c}) before it held the lock`)));
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

describe('another process holds the SQLite write lock [sqlite]', { timeout: 120_000 }, () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-lock-'));
  const dbFile = path.join(folder, 'fieldreport.sqlite');
  const env = { DATABASE_URL: `sqlite:${dbFile}`, DATA_ROOT: path.join(folder, 'documents'), STATE_DIR: folder };
  let service: ServiceProcess;
  let auth: Record<string, string>;
  let orderId: number;

  before(async () => {
    service = await startService({ env, args: ['serve', '--demo'] });
    auth = { authorization: `Bearer ${await login(service.base, 'techniker')}` };
    const list = (await (await fetch(`${service.base}/api/orders.php`, { headers: auth })).json()) as { items: Array<{ id: number }> };
    orderId = list.items[0]!.id;
  });
  after(async () => {
    await service?.kill();
    rmSync(folder, { recursive: true, force: true });
  });

  const addMaterial = (label: string) =>
    fetch(`${service.base}/api/materials.php`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ element_type: 'commande', fk_element: orderId, label, qty: 1 }),
    });

  /** Reads (order list and health, alternating) until `done` settles; their latencies in ms. */
  async function readWhile(done: Promise<unknown>): Promise<{ orders: number[]; health: number[]; healthWrites: Set<string> }> {
    let finished = false;
    void done.finally(() => (finished = true));
    const orders: number[] = [];
    const health: number[] = [];
    const healthWrites = new Set<string>();
    while (!finished) {
      let t = performance.now();
      const list = await fetch(`${service.base}/api/orders.php?limit=50`, { headers: auth });
      assert.equal(list.status, 200);
      await list.arrayBuffer();
      orders.push(performance.now() - t);
      t = performance.now();
      const h = await fetch(`${service.base}/api/health`);
      assert.equal(h.status, 200);
      healthWrites.add(((await h.json()) as { writes: string }).writes);
      health.push(performance.now() - t);
    }
    return { orders, health, healthWrites };
  }

  test('a write waits for a lock held 2 s and succeeds; reads and health go on meanwhile', async () => {
    const { released } = await holdWriteLock(dbFile, 2000);
    const started = performance.now();
    const write = addMaterial('Dichtung 1/2"');
    const reads = await readWhile(write);
    const res = await write;
    const waited = performance.now() - started;
    assert.equal(res.status, 201, await res.clone().text());
    await released;
    console.log(
      `# lock held 2 s: the write waited ${Math.round(waited)} ms and succeeded; meanwhile ${reads.orders.length} order lists (p50 ${percentile(reads.orders, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(reads.orders, 99).toFixed(1)} ms) and ${reads.health.length} health checks (p50 ${percentile(reads.health, 50).toFixed(1)} ms)`,
    );
    assert.ok(reads.orders.length >= 5, `reads were answered while the write waited (${reads.orders.length})`);
    assert.ok(reads.healthWrites.has('busy'), 'health said writes are busy while the lock was held');
  });

  test('a lock held longer than a write waits: 503 DATABASE_BUSY with Retry-After; reads go on', async () => {
    const { released } = await holdWriteLock(dbFile, 8000);
    const write = addMaterial('Kupferrohr 15 mm');
    const reads = await readWhile(write);
    const res = await write;
    assert.equal(res.status, 503, await res.clone().text());
    const body = (await res.json()) as { code: string; error: string };
    assert.equal(body.code, 'DATABASE_BUSY');
    assert.match(body.error, /belegt/);
    assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After');
    console.log(
      `# lock held 8 s: the write gave up with 503 after its wait; meanwhile ${reads.orders.length} order lists (p50 ${percentile(reads.orders, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(reads.orders, 99).toFixed(1)} ms) and ${reads.health.length} health checks (p50 ${percentile(reads.health, 50).toFixed(1)} ms, p99 ${percentile(reads.health, 99).toFixed(1)} ms)`,
    );
    assert.ok(reads.orders.length >= 10, `reads were answered while the write waited (${reads.orders.length})`);
    await released;
    assert.equal((await addMaterial('Kupferrohr 15 mm')).status, 201, 'the same write succeeds once the lock is free');
  });
});

/** Root may write any file: the read-only case runs the service as an unprivileged user. */
const NOBODY = 65534;
const readOnlyReason = process.platform === 'win32' ? 'needs POSIX file modes' : undefined;
if (readOnlyReason) console.log(`# read-only database test skipped: ${readOnlyReason}`);
const describeReadOnly = readOnlyReason ? describe.skip : describe;

describeReadOnly('a read-only database file [sqlite]', { timeout: 120_000 }, () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-readonly-'));
  const dbFile = path.join(folder, 'fieldreport.sqlite');
  const env = { DATABASE_URL: `sqlite:${dbFile}`, DATA_ROOT: path.join(folder, 'documents'), STATE_DIR: folder };
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? { uid: NOBODY, gid: NOBODY } : {};
  let service: ServiceProcess | undefined;
  let token = '';

  before(async () => {
    chmodSync(folder, 0o755);
    if (asRoot) chownSync(folder, NOBODY, NOBODY);
    // Made and filled as the service's user, a login taken (a login counts its attempt, a write),
    // then stopped cleanly; then the file is made read-only.
    const first = await startService({ env, args: ['serve', '--demo'], ...user });
    token = await login(first.base, 'techniker');
    await first.stop();
    for (const name of readdirSync(folder)) if (name.startsWith('fieldreport.sqlite')) chmodSync(path.join(folder, name), 0o444);
    service = await startService({ env, ...user });
  });
  after(async () => {
    await service?.kill();
    rmSync(folder, { recursive: true, force: true });
  });

  test('reads go on; writes (and logins, which count their attempt) are 503 DATABASE_READ_ONLY; health says so', async () => {
    const auth = { authorization: `Bearer ${token}` };
    // A login counts its attempt first: on a read-only file it is refused as a write is.
    const refused = await fetch(`${service!.base}/api/auth.php`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'techniker', password: 'demo' }),
    });
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { code: string }).code, 'DATABASE_READ_ONLY');
    const list = await fetch(`${service!.base}/api/orders.php`, { headers: auth });
    assert.equal(list.status, 200);
    const orderId = ((await list.json()) as { items: Array<{ id: number }> }).items[0]!.id;
    const res = await fetch(`${service!.base}/api/materials.php`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ element_type: 'commande', fk_element: orderId, label: 'Dichtung', qty: 1 }),
    });
    assert.equal(res.status, 503, await res.clone().text());
    assert.equal(((await res.json()) as { code: string }).code, 'DATABASE_READ_ONLY');

    const health = await fetch(`${service!.base}/api/health`);
    assert.equal(health.status, 503);
    const body = (await health.json()) as { code: string; details: { database: string } };
    assert.equal(body.code, 'DATABASE_READ_ONLY');
    assert.equal(body.details.database, 'read_only');
  });
});
