/** What the benchmarks share: the built service in its own process, logins, a phone-sized photo. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { SERVER_MALLOC_ENV } from '../src/server-process.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PASSWORD = 'bench-password';
export const INSTANCE_ID = randomBytes(16).toString('hex');

/** The app's benchmarks' phone (bench/app.ts, bench/catalogue.ts): a browser context of its size, touch and language. */
export const PHONE = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
  locale: 'de-DE',
  serviceWorkers: 'allow',
} as const;
/** Its line: a slow 4G (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up), for Network.emulateNetworkConditions. */
export const SLOW_4G = { offline: false, latency: 150, downloadThroughput: (1.6 * 1_000_000) / 8, uploadThroughput: (750 * 1000) / 8 };

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** `value` beside its target: "1234 ms (target ≤ 1500 ms: met)". */
export function against(value: number, target: number, unit: string, atLeast = false): string {
  const met = atLeast ? value >= target : value <= target;
  return `${value} ${unit} (target ${atLeast ? '≥' : '≤'} ${target} ${unit}: ${met ? 'met' : 'MISSED'})`;
}

/** A port free right now (the server takes it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts `fieldreport serve` (the build in dist/ of the checkout `root`, this one by default) with `settings` and waits until it answers. */
export async function startServer(
  settings: Record<string, string>,
  root = ROOT,
  serveArgs: string[] = [],
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS: Node options for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return waitForServer(
    spawn(process.execPath, [...nodeArgs, path.join(root, 'bin/fieldreport.js'), 'serve', ...serveArgs], {
      cwd: root,
      // glibc's allocator set as docs/operating.md (Memory) advises for a server (SERVER_MALLOC_ENV), unless the environment says otherwise.
      env: {
        ...SERVER_MALLOC_ENV,
        ...process.env,
        INSTANCE_UNIQUE_ID: INSTANCE_ID,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
        ...settings,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    port,
    '/api/health',
  );
}

/** Ends `child` and waits for it (SIGKILL after 10 s). */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Waits until `child`, a server on `port`, answers `probe` with a 2xx. */
export async function waitForServer(child: ChildProcess, port: number, probe: string): Promise<{ child: ChildProcess; base: string }> {
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}:\n${out}`);
    try {
      if ((await fetch(`${base}${probe}`)).ok) return { child, base };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not start:\n${out}`);
}

export async function login(base: string, loginName: string): Promise<string> {
  const res = await fetch(`${base}/api/auth.php`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: loginName, password: PASSWORD }),
  });
  if (!res.ok) throw new Error(`login ${loginName}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

export async function phoneJpeg(): Promise<Buffer> {
  // A real photo scaled to 4000×3000 with sensor-like grain: a JPEG of a phone's size (a few MB),
  // stored sideways with EXIF orientation 6, as phones do.
  const width = 4000;
  const height = 3000;
  const photo = await sharp(path.join(ROOT, 'assets/demo-photos/Kies_Unterbau.jpg'))
    .resize(width, height, { fit: 'cover' })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const grain = await sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 10 } },
  })
    .raw()
    .toBuffer();
  const mixed = Buffer.alloc(width * height * 3);
  const channels = photo.info.channels;
  for (let i = 0, j = 0; i < mixed.length; i++, j++) {
    const source = photo.data[Math.floor(i / 3) * channels + (channels >= 3 ? i % 3 : 0)]!;
    mixed[i] = Math.max(0, Math.min(255, source + grain[j]! - 128));
  }
  return sharp(mixed, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

export function multipart(name: string, data: Buffer, type: string): { body: Buffer; contentType: string } {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, data, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Pieces of an upload sent at an uplink's speed (atUplinkSpeed). */
const UPLINK_PIECE = 64 * 1024;

/** When atUplinkSpeed sends the last piece of `bytes`, in ms from its start. */
export function uplinkMs(bytes: number, mbit: number): number {
  return ((Math.max(0, Math.ceil(bytes / UPLINK_PIECE) - 1) * UPLINK_PIECE * 8) / (mbit * 1e6)) * 1000;
}

/** `data` as a stream sent at `mbit` Mbit/s, in 64 kB pieces, as a phone's radio sends it. */
export function atUplinkSpeed(data: Buffer, mbit: number): ReadableStream<Uint8Array> {
  const piece = UPLINK_PIECE;
  const started = performance.now();
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent >= data.length) return controller.close();
      const due = started + ((sent * 8) / (mbit * 1e6)) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      controller.enqueue(new Uint8Array(data.subarray(sent, sent + piece)));
      sent += piece;
    },
  });
}

/** A JSON request to the service as `token`; its parsed answer, or an error naming the status and body. */
export async function api(base: string, token: string, method: string, url: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/**
 * Seeds a technician with every right of the module and an order for it, migrating the database
 * first. `root`: the checkout whose build (dist/) does it, for a measurement against another
 * checkout (BENCH_AGAINST); without one, this checkout's sources.
 */
export async function seedTechnician(
  databaseUrl: string,
  dataRoot: string,
  names: { loginName: string; orderRef: string },
  root?: string,
): Promise<{ loginName: string; orderId: number }> {
  const load = (file: string) =>
    import(root ? pathToFileURL(path.join(root, 'dist', `${file}.js`)).href : new URL(`../src/${file}.ts`, import.meta.url).href);
  const [{ loadConfig }, { createDb }, { migrate }, { insertId, toDbDateTime }, { hashPassword }, { RIGHTS_MODULE }] = await Promise.all([
    load('config'),
    load('db/database'),
    load('db/migrate'),
    load('db/dialect'),
    load('dolibarr/password'),
    load('dolibarr/rights'),
  ]);
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, INSTANCE_UNIQUE_ID: INSTANCE_ID });
  const handle = createDb(config, { poolSize: 1 });
  try {
    await migrate(handle, config);
    const { db, dialect } = handle;
    const userId: number = await insertId(
      dialect,
      db.insertInto('user').values({
        login: names.loginName,
        pass_crypted: await hashPassword(PASSWORD),
        admin: 0,
        statut: 1,
        entity: 1,
        firstname: 'Bench',
        lastname: 'Techniker',
      }),
    );
    for (const r of await db.selectFrom('rights_def').select('id').where('module', '=', RIGHTS_MODULE).where('entity', '=', 1).execute()) {
      await db.insertInto('user_rights').values({ entity: 1, fk_user: userId, fk_id: r.id }).execute();
    }
    const customer: number = await insertId(
      dialect,
      db.insertInto('societe').values({ nom: 'Müller & Söhne GmbH', client: 1, entity: 1, status: 1, town: 'Köln' }),
    );
    const orderId: number = await insertId(
      dialect,
      db.insertInto('commande').values({
        ref: names.orderRef,
        entity: 1,
        fk_soc: customer,
        fk_statut: 1,
        fk_user_author: userId,
        date_commande: toDbDateTime().slice(0, 10),
        date_creation: toDbDateTime(),
      }),
    );
    return { loginName: names.loginName, orderId };
  } finally {
    await handle.destroy();
  }
}

/** CPU ticks of the whole machine: busy and total (Linux /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const n = fields.map(Number);
  const idle = n[3]! + (n[4] ?? 0); // idle + iowait
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** CPU ticks so far of every process, by pid with its command (Linux /proc). */
function processTicks(): Map<number, { command: string; ticks: number }> {
  const all = new Map<number, { command: string; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      all.set(Number(entry), { command, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  return all;
}

/**
 * The machine's CPU over `ms`: the share busy (0-1, all cores) and the processes that used the most
 * (excluding this one), e.g. "chromium 93 %, soffice.bin 12 %".
 */
export async function machineLoad(ms = 2000): Promise<{ busy: number; top: string }> {
  const t0 = machineTicks();
  const p0 = processTicks();
  await new Promise((r) => setTimeout(r, ms));
  const t1 = machineTicks();
  const used: Array<{ command: string; pid: number; pct: number }> = [];
  for (const [pid, p] of processTicks()) {
    if (pid === process.pid) continue;
    const before = p0.get(pid)?.ticks ?? 0;
    const pct = ((p.ticks - before) / 100 / (ms / 1000)) * 100; // of one core
    if (pct >= 5) used.push({ command: p.command, pid, pct });
  }
  used.sort((a, b) => b.pct - a.pct);
  return {
    busy: (t1.busy - t0.busy) / Math.max(1, t1.total - t0.total),
    top: used
      .slice(0, 5)
      .map((u) => `${u.command} (${u.pid}) ${Math.round(u.pct)} %`)
      .join(', '),
  };
}

/**
 * Waits, up to `maxMs`, until the machine is quiet (at most `share` of its CPU busy over two
 * seconds, this process excluded as far as /proc/stat allows); says what kept it busy. A figure
 * measured beside another process's work measures that work.
 */
export async function untilQuiet(share = 0.15, maxMs = 120_000): Promise<void> {
  const started = Date.now();
  let load = await machineLoad();
  if (load.busy <= share) return;
  console.log(
    `  the machine is busy (${Math.round(load.busy * 100)} % of its CPU: ${load.top || 'no single process'}); waiting for it to be quiet`,
  );
  while (load.busy > share && Date.now() - started < maxMs) load = await machineLoad();
  console.log(
    load.busy <= share
      ? `  quiet after ${Math.round((Date.now() - started) / 1000)} s`
      : `  still busy after ${maxMs / 1000} s (${Math.round(load.busy * 100)} %: ${load.top || 'no single process'}); measuring anyway`,
  );
}
