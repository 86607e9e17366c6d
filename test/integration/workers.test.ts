/**
 * `serve --workers 2` in its own process, as an operator runs it: two worker processes answer on
 * one port; a worker killed with SIGKILL is replaced while the other goes on serving; on SIGTERM
 * uploads that both workers hold are answered in full (the bodies are finished only after the
 * workers began to stop), new connections are refused, the service exits 0 and no worker is left.
 * A request that does not end within SHUTDOWN_TIMEOUT_SECONDS is cut off: exit 1, no worker left.
 * A port in use stops the start with exit 1 and the worker's message.
 * Which process answered a request is read from the log (each line has its pid, the answer's
 * X-Request-Id names its line); the workers are the primary's children in /proc.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import sharp from 'sharp';
import { SERVER_NODE_OPTIONS } from '../../src/server-process.js';
import { multipart } from '../helpers/multipart.js';
import { login, startService, type ServiceProcess } from '../helpers/service-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const describeLinux = process.platform === 'linux' ? describe : describe.skip;

/** The worker processes of `primary`: its children running cluster-worker (tsx's esbuild is a child too). */
function workersOf(primary: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === primary && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('cluster-worker')) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found.sort((a, b) => a - b);
}

/** Worker processes (of any primary) whose environment names `folder`: none may outlive their primary. */
function workersIn(folder: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (
        readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('cluster-worker') &&
        readFileSync(`/proc/${name}/environ`, 'utf8').includes(folder)
      )
        found.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface LogLine {
  pid: number;
  msg: string;
  reqId?: string;
  req?: { url: string };
  role?: string;
}

function logLines(service: ServiceProcess): LogLine[] {
  return service
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** The pid whose log has the request `reqId`. */
async function pidOf(service: ServiceProcess, reqId: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = logLines(service).find((l) => l.reqId === reqId);
    if (line) return line.pid;
    assert.ok(Date.now() < deadline, `no log line for request ${reqId}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** GET on a new connection each time (so the primary hands each to the next worker); status, body and the answering pid. */
function getFresh(base: string, urlPath: string, token: string): Promise<{ status: number; body: string; requestId: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${urlPath}`, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, requestId: String(res.headers['x-request-id']) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function exitOf(service: ServiceProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { child } = service;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describeLinux('serve --workers 2 [sqlite]', { timeout: 240_000 }, () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-workers-'));
  const dataRoot = path.join(folder, 'documents');
  let service: ServiceProcess;
  let token: string;
  let order: { id: number; ref: string };

  before(async () => {
    service = await startService({
      // The flag wins over WORKERS.
      args: ['serve', '--demo', '--workers', '2'],
      // Logins in parallel count each other until each is checked (login-throttle.repository.ts): room for a burst.
      env: {
        WORKERS: '3',
        LOGIN_MAX_FAILURES: '1000',
        LOGIN_MAX_FAILURES_PER_ADDRESS: '1000',
        DATABASE_URL: `sqlite:${path.join(folder, 'fieldreport.sqlite')}`,
        DATA_ROOT: dataRoot,
        STATE_DIR: folder,
      },
    });
    await service.waitFor(/"msg":"fieldreport ready: 2 workers"/);
    token = await login(service.base, 'techniker');
    const list = JSON.parse((await getFresh(service.base, '/api/orders.php', token)).body) as { items: Array<{ id: number; ref: string }> };
    order = list.items[0]!;
  });
  after(async () => {
    await service?.kill();
    rmSync(folder, { recursive: true, force: true });
  });

  test('two worker processes answer on the one port; migrations, demo data and the banner happen once', async () => {
    const workers = workersOf(service.child.pid!);
    assert.equal(workers.length, 2, `two workers, not WORKERS=3: ${workers.join(', ')}`);
    const pids = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const res = await getFresh(service.base, '/api/orders.php?limit=5', token);
      assert.equal(res.status, 200, res.body);
      pids.add(await pidOf(service, res.requestId));
    }
    assert.deepEqual(
      [...pids].sort((a, b) => a - b),
      workers,
      'both workers answered, and only they',
    );
    const out = service.output();
    assert.equal(out.match(/fieldreport is running on/g)?.length, 1, 'one banner');
    assert.equal(out.match(/Demo login:/g)?.length, 1, 'one demo login line');
    assert.equal(logLines(service).filter((l) => l.msg.startsWith('fieldreport ready')).length, 1, 'one ready line');
    // Both workers wrote their run marker: each is a run of its own.
    const markers = readdirSync(path.join(dataRoot, 'bericht', 'temp', 'runs')).map(
      (n) => JSON.parse(readFileSync(path.join(dataRoot, 'bericht', 'temp', 'runs', n), 'utf8')) as { pid: number },
    );
    assert.deepEqual(
      markers.map((m) => m.pid).sort((a, b) => a - b),
      workers,
    );
    // Each worker runs with glibc's allocator set as a server of photos wants it (docs/operating.md, Memory) unless the environment says otherwise.
    for (const pid of workers) {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const malloc = environ.filter((e) => e.startsWith('MALLOC'));
      assert.ok(
        environ.includes(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}`),
        `worker ${pid}: ${malloc.join(' ') || 'no MALLOC_ARENA_MAX'}`,
      );
      assert.ok(
        environ.includes(`MALLOC_MMAP_THRESHOLD_=${process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072'}`),
        `worker ${pid}: ${malloc.join(' ') || 'no MALLOC_MMAP_THRESHOLD_'}`,
      );
      // And with the server's Node options (server-process.ts), which the primary here was started without.
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      for (const option of SERVER_NODE_OPTIONS) assert.ok(cmdline.includes(option), `worker ${pid}: ${cmdline.join(' ')}`);
    }
  });

  test('both workers write to the one SQLite file at once (WAL): 30 logins in parallel all succeed', async () => {
    // Each login writes its attempt before the password check and removes it after (login throttling).
    const results = await Promise.all(
      Array.from(
        { length: 30 },
        () =>
          new Promise<{ status: number; requestId: string }>((resolve, reject) => {
            const body = JSON.stringify({ login: 'techniker', password: 'demo' });
            const req = http.request(
              `${service.base}/api/auth.php`,
              { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
              (res) => {
                res.resume();
                res.on('end', () => resolve({ status: res.statusCode!, requestId: String(res.headers['x-request-id']) }));
              },
            );
            req.on('error', reject);
            req.end(body);
          }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      Array(30).fill(200),
    );
    const pids = new Set(await Promise.all(results.map((r) => pidOf(service, r.requestId))));
    assert.equal(pids.size, 2, 'both workers wrote');
    const db = new SQLite(path.join(folder, 'fieldreport.sqlite'), { readonly: true });
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(
        (db.prepare('select count(*) as n from llx_bericht_login_failure').get() as { n: number }).n,
        0,
        'every successful attempt released',
      );
    } finally {
      db.close();
    }
  });

  test('a worker killed with SIGKILL is replaced; the port keeps answering meanwhile', async () => {
    const [victim, survivor] = workersOf(service.child.pid!) as [number, number];
    const servingBefore = logLines(service).filter((l) => / is serving$/.test(l.msg)).length;
    process.kill(victim, 'SIGKILL');
    await service.waitFor(new RegExp(`"workerPid":${victim},"code":null,"signal":"SIGKILL".*ended unexpectedly`));
    // Until the replacement listens, the other worker answers every connection.
    for (let i = 0; i < 4; i++) {
      const res = await getFresh(service.base, '/api/orders.php?limit=5', token);
      assert.equal(res.status, 200, res.body);
    }
    await until('a replacement worker serving', () => logLines(service).filter((l) => / is serving$/.test(l.msg)).length > servingBefore);
    const workers = workersOf(service.child.pid!);
    assert.equal(workers.length, 2, `two workers again: ${workers.join(', ')}`);
    assert.ok(workers.includes(survivor) && !workers.includes(victim), `${survivor} kept, ${victim} replaced: ${workers.join(', ')}`);
    const replacement = workers.find((p) => p !== survivor)!;
    // The replacement cleans up after the worker that died.
    await until('the replacement recovered after the dead run', () =>
      logLines(service).some((l) => l.pid === replacement && l.msg === 'recovery after earlier runs done'),
    );
    const pids = new Set<number>();
    for (let i = 0; i < 4; i++) {
      const res = await getFresh(service.base, '/api/orders.php?limit=5', token);
      assert.equal(res.status, 200, res.body);
      pids.add(await pidOf(service, res.requestId));
    }
    assert.deepEqual(
      [...pids].sort((a, b) => a - b),
      workers,
      'both workers answer again',
    );
  });

  test('SIGTERM: uploads both workers hold are answered in full, new connections are refused, exit 0, no worker left', async () => {
    const workers = workersOf(service.child.pid!);
    assert.equal(workers.length, 2);
    const photo = await sharp({
      create: { width: 800, height: 600, channels: 3, background: '#4a7', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    })
      .jpeg({ quality: 90 })
      .toBuffer();
    const UPLOADS = 4;
    const isUpload = (l: LogLine) => l.msg === 'incoming request' && !!l.req?.url.includes('action=upload_photo');

    // Each upload on its own keep-alive connection (the ones before are busy), sent as far as half
    // its body; the next starts once the service has taken the previous one, so the primary hands
    // them to the workers in turn.
    const agent = new http.Agent({ keepAlive: true });
    const uploads: Array<{
      request: http.ClientRequest;
      rest: Buffer;
      answer: Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>;
    }> = [];
    for (let i = 0; i < UPLOADS; i++) {
      const { payload, contentType } = multipart([{ filename: `Drain_${i}.jpg`, type: 'image/jpeg', data: photo }]);
      const request = http.request(`${service.base}/api/orders.php?id=${order.id}&action=upload_photo`, {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-length': payload.length },
      });
      const answer = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
        request.on('response', (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        });
        request.on('error', reject);
      });
      answer.catch(() => undefined); // awaited below; a failure must not be unhandled meanwhile
      const half = Math.floor(payload.length / 2);
      request.write(payload.subarray(0, half));
      uploads.push({ request, rest: payload.subarray(half), answer });
      await until(`upload ${i} taken by a worker`, () => logLines(service).filter(isUpload).length === i + 1);
    }
    const holders = new Set(
      logLines(service)
        .filter(isUpload)
        .map((l) => l.pid),
    );
    assert.deepEqual(
      [...holders].sort((a, b) => a - b),
      workers,
      'both workers hold uploads',
    );

    const exited = exitOf(service);
    service.child.kill('SIGTERM');
    const signalled = Date.now();
    await until('both workers stopping', () =>
      workers.every((pid) => logLines(service).some((l) => l.pid === pid && l.msg.startsWith('stopping: no new connections'))),
    );
    // No new connection is taken while the uploads are still open.
    await until('new connections refused', () =>
      getFresh(service.base, '/api/health', token).then(
        () => false,
        () => true,
      ),
    );
    for (const upload of uploads) assert.equal(upload.request.writableEnded, false, 'the uploads are still open');

    for (const upload of uploads) upload.request.end(upload.rest);
    const answers = await Promise.all(uploads.map((u) => u.answer));
    const digest = createHash('sha256').update(photo).digest('hex');
    for (const [i, answer] of answers.entries()) {
      assert.equal(answer.status, 201, `upload ${i}: ${answer.body}`);
      // Asked to keep the connection, but the answer ends it: else it would hold the stop for the keep-alive time (72 s).
      assert.equal(answer.headers.connection, 'close', 'an answer while stopping ends its connection');
      const { name } = JSON.parse(answer.body) as { name: string };
      const file = path.join(dataRoot, 'commande', order.ref, name);
      assert.ok(existsSync(file), `upload ${i} stored as ${name}`);
      assert.equal(createHash('sha256').update(readFileSync(file)).digest('hex'), digest, `upload ${i} complete`);
    }

    assert.deepEqual(await exited, { code: 0, signal: null });
    agent.destroy();
    // Far below the keep-alive time an idle connection would have held it open for.
    assert.ok(Date.now() - signalled < 30_000, `stopped ${Date.now() - signalled} ms after SIGTERM`);
    for (const pid of workers) assert.equal(alive(pid), false, `worker ${pid} gone`);
    assert.deepEqual(workersIn(folder), [], 'no worker left');
    const lines = logLines(service);
    assert.ok(
      lines.some((l) => l.role === 'primary' && l.msg === 'stopped'),
      'the primary says it stopped',
    );
    for (const pid of workers)
      assert.ok(
        lines.some((l) => l.pid === pid && l.msg === 'stopped'),
        `worker ${pid} stopped after draining`,
      );
  });
});

describeLinux(
  'serve with WORKERS=2: a request that does not end is cut off after SHUTDOWN_TIMEOUT_SECONDS [sqlite]',
  { timeout: 120_000 },
  () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-workers-'));
    let service: ServiceProcess;
    after(async () => {
      await service?.kill();
      rmSync(folder, { recursive: true, force: true });
    });

    test('the straggling worker is killed and the service exits 1; no worker is left', async () => {
      service = await startService({
        env: {
          WORKERS: '2',
          SHUTDOWN_TIMEOUT_SECONDS: '2',
          BODY_TIMEOUT_SECONDS: '120',
          DATABASE_URL: `sqlite:${path.join(folder, 'fieldreport.sqlite')}`,
          DATA_ROOT: path.join(folder, 'documents'),
          STATE_DIR: folder,
        },
      });
      await service.waitFor(/"msg":"fieldreport ready: 2 workers"/);
      const workers = workersOf(service.child.pid!);
      assert.equal(workers.length, 2);
      // A login whose body never arrives in full: in flight until BODY_TIMEOUT_SECONDS.
      const stuck = http.request(`${service.base}/api/auth.php`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': 100 },
      });
      const stuckEnd = new Promise<string>((resolve) => {
        stuck.on('response', (res) => resolve(`answered ${res.statusCode}`));
        stuck.on('error', (error) => resolve(`cut off (${(error as NodeJS.ErrnoException).code ?? error.message})`));
      });
      stuck.write('{"login":"x",');
      await until('the login taken by a worker', () =>
        logLines(service).some((l) => l.msg === 'incoming request' && !!l.req?.url.startsWith('/api/auth.php')),
      );

      const exited = exitOf(service);
      service.child.kill('SIGTERM');
      assert.deepEqual(await exited, { code: 1, signal: null });
      assert.match(service.output(), /still at work after 2 s, killed: worker [12]"/);
      assert.match(await stuckEnd, /^cut off/);
      for (const pid of workers) assert.equal(alive(pid), false, `worker ${pid} gone`);
      assert.deepEqual(workersIn(folder), [], 'no worker left');
    });
  },
);

describeLinux('serve --workers 2 on a port in use [sqlite]', { timeout: 120_000 }, () => {
  test("exits 1 with the worker's message; no worker is left", async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-workers-'));
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as net.AddressInfo).port;
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          "import { main } from './src/cli.ts'; process.exitCode = await main(['serve', '--workers', '2']);",
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            PORT: String(port),
            HOST: '127.0.0.1',
            LOG_LEVEL: 'warn',
            CLEANUP_AT: 'off',
            DATABASE_URL: `sqlite:${path.join(folder, 'fieldreport.sqlite')}`,
            DATA_ROOT: path.join(folder, 'documents'),
            STATE_DIR: folder,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      assert.equal(code, 1, out);
      assert.match(out, /^fieldreport: .*EADDRINUSE/m);
      assert.deepEqual(workersIn(folder), [], 'no worker left');
    } finally {
      blocker.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
