/**
 * The public PDF check under attack (`npm run bench:public`), against the built service in its own
 * process, as `fieldreport serve` runs it, on a fresh SQLite database (or BENCH_DATABASE_URL):
 *
 * Rounds of 20 concurrent uploads of files made to cost the check as much as possible (5,000
 * /ByteRange entries after one 1 MB hex string, test/helpers/adversarial-pdf.ts, in both of its
 * forms), each over its own connection, first all from one address, then from 20 addresses
 * (X-Forwarded-For, the service trusting its proxy), while `GET /api/health` and a technician's
 * order list (`GET /api/orders.php`, the first page of 50) are asked for over and over by a few
 * clients (the uploads are sent by a process of their own). Printed against the targets: p99 of health and of the order list meanwhile (≤ 100 ms),
 * and the longest time until a check answered (≤ 2 s), with how the checks were answered (judged,
 * refused as too costly, refused as too many; anything else counts as MISSED, target none), and
 * the server's peak resident memory. A third scenario sends files of the largest size the check
 * takes (32 MB) with 20,000 gaps that look valid. The same two lists without the uploads are printed
 * first, for comparison.
 *
 * Options (environment): BENCH_PUBLIC_ROUNDS rounds per scenario (default 3), BENCH_PROBES clients
 * asking for each of the two (default 2), BENCH_ORDERS (default 2000).
 * Results are written to bench/results/public-check-<time>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adversarialPdf } from '../test/helpers/adversarial-pdf.js';
import { against, login, multipart, ROOT, startServer } from './common.js';

const env = process.env;
const ROUNDS = Number(env.BENCH_PUBLIC_ROUNDS ?? 3);
const PROBES = Number(env.BENCH_PROBES ?? 2);
const CONCURRENT = 20;
const TARGET = { p99Ms: 100, answerMs: 2000 };
env.BENCH_ORDERS ??= '2000';

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! * 10) / 10;
}

/** Asks for `url` over and over, one request at a time, until `until` settles; the latencies. */
async function probe(
  url: string,
  headers: Record<string, string>,
  until: Promise<unknown>,
): Promise<{ times: number[]; failures: number }> {
  let done = false;
  void until.finally(() => (done = true));
  const times: number[] = [];
  let failures = 0;
  while (!done) {
    const started = performance.now();
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) failures++;
    } catch {
      failures++;
    }
    times.push(performance.now() - started);
  }
  return { times, failures };
}

/** What an answer of the public check says. */
function kindOf(status: number, body: string): string {
  const verdict = /data-verdict="([a-z_]+)"/.exec(body)?.[1];
  if (status === 200 && verdict) return `judged (${verdict})`;
  if (status === 422 && verdict === 'too_costly') return 'refused as too costly';
  if (status === 429) return 'refused: too many from the address (429)';
  if (status === 503) return 'refused: too many at once (503)';
  // Anything else (no verdict, another status, no answer at all) is a check the service missed.
  return `MISSED (${status})`;
}

/** One round: CONCURRENT uploads at once; each one's time until its answer and what it was. */
async function round(base: string, files: Buffer[], addresses: (i: number) => string | undefined) {
  return Promise.all(
    Array.from({ length: CONCURRENT }, async (_, i) => {
      const { body, contentType } = multipart('bericht.pdf', files[i % files.length]!, 'application/pdf');
      const from = addresses(i);
      const started = performance.now();
      try {
        const res = await fetch(`${base}/public/verify_signature.php`, {
          method: 'POST',
          headers: { 'content-type': contentType, ...(from ? { 'x-forwarded-for': from } : {}) },
          body,
        });
        const text = await res.text();
        return { ms: performance.now() - started, kind: kindOf(res.status, text) };
      } catch (error) {
        return { ms: performance.now() - started, kind: `MISSED (no answer: ${(error as Error).message})` };
      }
    }),
  );
}

/**
 * The uploads of one scenario, sent by a process of their own (this script with --uploads), so
 * that sending them does not slow down this process's measuring of the lists.
 */
type Mode = 'one' | 'many' | 'big';

function uploadsElsewhere(base: string, mode: Mode): Promise<Array<{ ms: number; kind: string }>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--uploads', base, mode], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as Array<{ ms: number; kind: string }>)
        : reject(new Error(`the uploading process ended with ${code}`)),
    );
  });
}

/** A file of the largest size the check takes (MAX_CHECK_BYTES, 32 MB), with many gaps that look valid. */
const bigFile = () => adversarialPdf({ entries: 20_000, hexBytes: 31 * 1024 * 1024 });

async function uploader(base: string, mode: Mode): Promise<void> {
  const many = mode === 'many';
  const files = mode === 'big' ? [bigFile()] : [adversarialPdf(), adversarialPdf({ odd: true })];
  const answers: Array<{ ms: number; kind: string }> = [];
  for (let r = 0; r < ROUNDS; r++) answers.push(...(await round(base, files, (i) => (many ? `10.99.0.${i + 1}` : undefined))));
  process.stdout.write(JSON.stringify(answers));
}

/** The server's resident memory (Linux: /proc), sampled every 100 ms until `until` settles: the highest, in MB. */
async function peakRss(pid: number | undefined, until: Promise<unknown>): Promise<number | undefined> {
  if (!pid) return undefined;
  let done = false;
  void until.finally(() => (done = true));
  let peak = 0;
  while (!done) {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      if (kb > peak) peak = kb;
    } catch {
      return undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Math.round(peak / 1024);
}

async function scenario(label: string, base: string, token: string, mode: Mode, serverPid?: number) {
  const uploads = uploadsElsewhere(base, mode);
  const rss = peakRss(serverPid, uploads);
  const health = Array.from({ length: PROBES }, () => probe(`${base}/api/health`, {}, uploads));
  const orders = Array.from({ length: PROBES }, () =>
    probe(`${base}/api/orders.php?limit=50`, { authorization: `Bearer ${token}` }, uploads),
  );
  const answers = await uploads;
  const h = await Promise.all(health);
  const o = await Promise.all(orders);
  const kinds: Record<string, number> = {};
  for (const a of answers) kinds[a.kind] = (kinds[a.kind] ?? 0) + 1;
  const healthTimes = h.flatMap((x) => x.times);
  const orderTimes = o.flatMap((x) => x.times);
  return {
    label,
    uploads: answers.length,
    answers: kinds,
    missed: answers.filter((a) => a.kind.startsWith('MISSED')).length,
    server_rss_peak_mb: await rss,
    check_answer_max_ms: Math.round(Math.max(...answers.map((a) => a.ms))),
    check_answer_p50_ms: percentile(
      answers.map((a) => a.ms),
      50,
    ),
    health: {
      requests: healthTimes.length,
      failures: h.reduce((n, x) => n + x.failures, 0),
      p50_ms: percentile(healthTimes, 50),
      p99_ms: percentile(healthTimes, 99),
      max_ms: percentile(healthTimes, 100),
    },
    order_list: {
      requests: orderTimes.length,
      failures: o.reduce((n, x) => n + x.failures, 0),
      p50_ms: percentile(orderTimes, 50),
      p99_ms: percentile(orderTimes, 99),
      max_ms: percentile(orderTimes, 100),
    },
  };
}

async function quiet(base: string, token: string, ms: number) {
  const until = new Promise((resolve) => setTimeout(resolve, ms));
  const [h, o] = await Promise.all([
    probe(`${base}/api/health`, {}, until),
    probe(`${base}/api/orders.php?limit=50`, { authorization: `Bearer ${token}` }, until),
  ]);
  return { health_p99_ms: percentile(h.times, 99), order_list_p99_ms: percentile(o.times, 99) };
}

function describe(s: Awaited<ReturnType<typeof scenario>>): string {
  return [
    `${s.label}: ${s.uploads} uploads in rounds of ${CONCURRENT}`,
    `  answers: ${Object.entries(s.answers)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ')}; MISSED: ${s.missed}${s.missed > 0 ? ' (target 0: FAILED)' : ' (target 0: ok)'}`,
    `  server's resident memory meanwhile: peak ${s.server_rss_peak_mb ?? '?'} MB`,
    `  longest time until a check answered: ${against(s.check_answer_max_ms, TARGET.answerMs, 'ms')} (median ${s.check_answer_p50_ms} ms)`,
    `  /api/health meanwhile: p99 ${against(s.health.p99_ms, TARGET.p99Ms, 'ms')} (${s.health.requests} requests, ${s.health.failures} not 200, max ${s.health.max_ms} ms)`,
    `  order list meanwhile: p99 ${against(s.order_list.p99_ms, TARGET.p99Ms, 'ms')} (${s.order_list.requests} requests, ${s.order_list.failures} not 200, max ${s.order_list.max_ms} ms)`,
  ].join('\n');
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-public-'));
  const dataRoot = path.join(work, 'documents');
  const databaseUrl = env.BENCH_DATABASE_URL ?? `sqlite:${path.join(work, 'bench.sqlite')}`;
  let server: ChildProcess | undefined;
  try {
    console.log(`Seeding ${env.BENCH_ORDERS} orders into ${databaseUrl.replace(/:[^:@/]*@/, ':***@')} …`);
    // The seeding of bench/run.ts, with the order count set above.
    const { seed } = await import('./run.js');
    const seeded = await seed(databaseUrl, dataRoot);
    const started = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work, TRUST_PROXY: 'true' });
    server = started.child;
    const token = await login(started.base, seeded.techLogin);
    const files = [adversarialPdf(), adversarialPdf({ odd: true })];
    console.log(
      `Adversarial files: ${files.map((f) => `${(f.length / 1e6).toFixed(2)} MB`).join(', ')}; ${ROUNDS} round(s) of ${CONCURRENT} concurrent uploads per scenario, ${PROBES} client(s) each on health and the order list …`,
    );
    const baseline = await quiet(started.base, token, 3000);
    const oneAddress = await scenario('From one address', started.base, token, 'one', server.pid);
    const manyAddresses = await scenario(`From ${CONCURRENT} addresses`, started.base, token, 'many', server.pid);
    const biggest = await scenario(
      'Files of the largest size (32 MB, 20,000 gaps), from one address',
      started.base,
      token,
      'big',
      server.pid,
    );
    const results = {
      at: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      database: databaseUrl.split(':')[0],
      files: files.map((f) => f.length),
      baseline,
      scenarios: [oneAddress, manyAddresses, biggest],
    };
    console.log(JSON.stringify(results, null, 2));
    console.log(
      [
        '',
        `Without uploads: /api/health p99 ${baseline.health_p99_ms} ms, order list p99 ${baseline.order_list_p99_ms} ms`,
        describe(oneAddress),
        describe(manyAddresses),
        describe(biggest),
      ].join('\n'),
    );
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `public-check-${results.at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    server?.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--uploads') await uploader(process.argv[3]!, process.argv[4] as Mode);
else await main();
