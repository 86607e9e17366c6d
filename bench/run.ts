/**
 * Benchmarks (`npm run bench`), against the built service running in its own process, as
 * `fieldreport serve` runs it:
 *
 * 1. The order list (GET /api/orders.php, the first page of 50) on a database of 10,000 orders, 50
 *    concurrent clients (autocannon), as an administrator (all orders) and as a technician (the
 *    2,000 orders naming them and 200 given to him by contact or agenda event among Dolibarr's
 *    automatic events of every order), on SQLite, MariaDB/MySQL and PostgreSQL; each beside its floor, the same
 *    query with the same values served by a bare Fastify and the same driver from the same
 *    database (bench/order-list.ts, bench/floor.ts), the two in turns of 3 s, so that the
 *    service's share of the floor holds on a noisy machine. Printed for each: req/s, p50, p99 and answers
 *    other than 2xx of both, the share (target ≥ 90 %), the p99 ratio (target ≤ 1.2 ×) and the
 *    service's non-2xx (target 0), each marked met or MISSED. A database server that cannot be
 *    reached is skipped with the reason printed. With BENCH_AGAINST, that checkout's lists are
 *    measured first, each beside its own floor, in the same run. After the lists, the technician's
 *    day (GET /api/agenda.php, his appointments of the next 7 days) under the same load, printed
 *    beside his list's first page of the same run.
 * 2. The other lists under the same load, as the technician, on SQLite (or BENCH_DATABASE_URL, a
 *    MariaDB/MySQL or PostgreSQL database this may fill): reports (one of 3 pages on each of the
 *    technician's 2,000 orders), customers, and the photos of an order with 50 files.
 * 3. Last, the outbox drain (bench/drain.ts): 50 12-megapixel phone photos uploaded back to back,
 *    then a report of them finalized at once; and the same with the uploads paced at
 *    BENCH_UPLINK_MBIT (default 20 Mbit/s). Each upload's answer, the finalize, and the server's
 *    memory at start, at its peak and 15 s later, against their targets, beside an upload floor
 *    and an image floor. BENCH_AGAINST: another built checkout (its dist/, e.g. a worktree of an
 *    earlier commit) measured first in the same run, lists and drain.
 *
 * Options (environment): BENCH_DURATION seconds per load run (default 15), each after
 * BENCH_WARMUP unmeasured seconds (default 3), BENCH_CONNECTIONS (default 50), BENCH_ORDERS
 * (default 10000), BENCH_WORKERS (the service's --workers, default 1),
 * BENCH_DIALECTS (the order list's databases, comma-separated, default sqlite,mysql,postgres),
 * BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306) and BENCH_PG_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres): the servers on which a fresh database is made and
 * dropped; BENCH_ONLY=order-list measures the order list only. Results are written to
 * bench/results/<time>.json.
 *
 * The order list alone, for a check of its ratios: `measureOrderList` of bench/order-list.ts,
 * exported here too.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import sharp from 'sharp';
import type { ChildProcess } from 'node:child_process';
import { ROOT, login, phoneJpeg, startServer, stopProcess } from './common.js';
import {
  ORDER_LIST_TARGETS,
  SkippedDialect,
  describeDay,
  describeOrderList,
  measureOrderList,
  type BenchDialect,
  type DayMeasurement,
  type OrderListMeasurement,
} from './order-list.js';
import { seed } from './seed.js';
import { describeDrain, runDrainBench } from './drain.js';

export { seed, type Seeded } from './seed.js';
export { measureOrderList, ORDER_LIST_TARGETS, type OrderListMeasurement, type OrderListOptions } from './order-list.js';

const env = process.env;
const DURATION = Number(env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const ORDERS = Number(env.BENCH_ORDERS ?? 10_000);
const WORKERS = Number(env.BENCH_WORKERS ?? 1);
const WARMUP = Number(env.BENCH_WARMUP ?? 3);
const DIALECTS = (env.BENCH_DIALECTS ?? 'sqlite,mysql,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter(Boolean) as BenchDialect[];
const PAGE = 50;
/** Photos in the order whose photo list is measured. */
const PHOTOS = 50;

async function load(url: string, token?: string) {
  const options = { url, connections: CONNECTIONS, headers: token ? { authorization: `Bearer ${token}` } : {} };
  // Unmeasured first: what a server does once (compiling its code, filling its caches) is no steady-state figure.
  if (WARMUP > 0) await autocannon({ ...options, duration: WARMUP });
  const result = await autocannon({ ...options, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} answers other than 2xx, ${result.errors} errors`);
  return { requests_per_s: Math.round(result.requests.average), latency_p50_ms: result.latency.p50, latency_p99_ms: result.latency.p99 };
}

/** `count` photos (640×480 JPEGs, a minute apart) written into the order's folder, as Dolibarr keeps attachments. */
async function photosInto(orderDir: string, count: number): Promise<void> {
  mkdirSync(orderDir, { recursive: true });
  const jpeg = await sharp(await phoneJpeg())
    .resize(640, 480)
    .jpeg({ quality: 80 })
    .toBuffer();
  const start = Date.now() / 1000 - count * 60;
  for (let i = 0; i < count; i++) {
    const file = path.join(orderDir, `Foto_${String(i).padStart(3, '0')}.jpg`);
    writeFileSync(file, jpeg);
    utimesSync(file, start + i * 60, start + i * 60);
  }
}

/** Another list endpoint under the same load: no target of its own, printed for comparison. */
async function benchOther(base: string, token: string, label: string, url: string) {
  return { label, url, connections: CONNECTIONS, duration_s: DURATION, workers: WORKERS, ...(await load(`${base}${url}`, token)) };
}

/** The order list on each of DIALECTS, printed as it is measured; a dialect whose server is not reachable is skipped with its reason. */
async function orderLists(): Promise<{
  measured: OrderListMeasurement[];
  days: DayMeasurement[];
  skipped: Array<{ dialect: BenchDialect; reason: string }>;
}> {
  const measured: OrderListMeasurement[] = [];
  const days: DayMeasurement[] = [];
  const skipped: Array<{ dialect: BenchDialect; reason: string }> = [];
  const t = ORDER_LIST_TARGETS;
  console.log(
    `Order list: ${CONNECTIONS} connections × ${DURATION} s (after ${WARMUP} s unmeasured), ${ORDERS} orders, on ${DIALECTS.join(', ')}; targets: ≥ ${t.minSharePercent} % of the floor's req/s, p99 ≤ ${t.maxP99Ratio} × the floor's, ${t.maxNon2xx} non-2xx`,
  );
  const roots = [...(env.BENCH_AGAINST ? [path.resolve(env.BENCH_AGAINST)] : []), ROOT];
  for (const dialect of DIALECTS) {
    try {
      for (const root of roots) {
        const day: DayMeasurement[] = [];
        const results = await measureOrderList({
          dialect,
          durationS: DURATION,
          connections: CONNECTIONS,
          warmupS: WARMUP,
          orders: ORDERS,
          workers: WORKERS,
          root,
          log: (line) => console.log(`  ${line}`),
          onDay: (m) => day.push(m),
        });
        for (const r of results) console.log(describeOrderList(r));
        for (const d of day) console.log(describeDay(d));
        days.push(...day);
        measured.push(...results);
      }
    } catch (error) {
      if (!(error instanceof SkippedDialect)) throw error;
      console.log(`Order list on ${dialect}: SKIPPED, ${error.message}`);
      skipped.push({ dialect, reason: error.message });
    }
  }
  return { measured, days, skipped };
}

async function main(): Promise<void> {
  const orderList = await orderLists();
  const at = new Date().toISOString();
  const save = (results: object) => {
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(results, null, 2)}\n`);
  };
  const common = {
    at,
    node: process.version,
    cpus: os.cpus().length,
    orders: ORDERS,
    connections: CONNECTIONS,
    duration_s: DURATION,
    workers: WORKERS,
    order_list: orderList.measured,
    technician_day: orderList.days,
    order_list_skipped: orderList.skipped,
  };
  if (env.BENCH_ONLY === 'order-list') return save(common);

  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-'));
  const dataRoot = path.join(work, 'documents');
  const databaseUrl = env.BENCH_DATABASE_URL ?? `sqlite:${path.join(work, 'bench.sqlite')}`;
  let server: ChildProcess | undefined;
  try {
    console.log(`Seeding ${ORDERS} orders into ${databaseUrl.replace(/:[^:@/]*@/, ':***@')} for the other lists and the upload …`);
    const seeded = await seed(databaseUrl, dataRoot, ORDERS);
    const started = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work, WORKERS: String(WORKERS) });
    server = started.child;
    const tech = await login(started.base, seeded.techLogin);
    console.log('The other lists, as the technician …');
    await photosInto(path.join(dataRoot, 'commande', seeded.orderRef), PHOTOS);
    const others = [
      await benchOther(started.base, tech, `reports (${seeded.techOrders} reports of 3 pages each)`, `/api/reports.php?limit=${PAGE}`),
      await benchOther(started.base, tech, "customers (those of the technician's orders)", `/api/customers.php?limit=${PAGE}`),
      await benchOther(
        started.base,
        tech,
        `an order's photos (${PHOTOS} files)`,
        `/api/orders.php?id=${seeded.orderId}&action=photos&limit=${PAGE}`,
      ),
    ];
    await stopProcess(server);
    server = undefined;
    // Last, on their own: uploads and finalize as a phone's outbox drains them, and paced.
    console.log('The outbox drain: 50 photos back to back, then finalize; and the same paced …');
    const drain = await runDrainBench();

    const results = { ...common, database: databaseUrl.split(':')[0], other_lists: others, drain };
    console.log(JSON.stringify(results, null, 2));
    console.log(
      [
        '',
        ...orderList.measured.map(describeOrderList),
        ...orderList.skipped.map((s) => `Order list on ${s.dialect}: SKIPPED, ${s.reason}`),
        ...drain.runs.map((run) => describeDrain(run, drain.floors)),
        ...others.map(
          (o) => `List of ${o.label}: ${o.requests_per_s} req/s, p50 ${o.latency_p50_ms} ms, p99 ${o.latency_p99_ms} ms (no target)`,
        ),
      ].join('\n'),
    );
    save(results);
  } finally {
    await stopProcess(server);
    rmSync(work, { recursive: true, force: true });
  }
}

// Run when started as a script (not when imported for its seeding).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
