/**
 * Benchmarks (`npm run bench`), against the built service running in its own process, as
 * `fieldreport serve` runs it, on a fresh SQLite database (or BENCH_DATABASE_URL, a MariaDB/MySQL or
 * PostgreSQL database this may fill):
 *
 * 1. The order list (GET /api/orders.php, the first page of 50) on a database of 10,000 orders, 50
 *    concurrent clients (autocannon), as an administrator (all orders) and as a technician (the
 *    orders naming them); each beside its floor: the same query served by a bare Fastify +
 *    better-sqlite3 process on the same file (bench/floor.ts, SQLite only), run right after it,
 *    so that the service's share of the floor holds on a noisy machine.
 * 2. The other lists under the same load, as the technician: reports (one of 3 pages on each of
 *    the technician's 2,000 orders), customers, and the photos of an order with 50 files.
 * 3. Last, upload of a 12-megapixel phone JPEG (4000×3000, EXIF orientation 6) until its answer,
 *    which comes after both Dolibarr thumbnails are written; checked on disk. (Each upload's
 *    print-size copy is made in the background afterwards: it would share the cores with a load run.)
 *
 * Options (environment): BENCH_DURATION seconds per load run (default 15), each after
 * BENCH_WARMUP unmeasured seconds (default 3), BENCH_CONNECTIONS (default 50), BENCH_ORDERS
 * (default 10000), BENCH_UPLOADS (default 5), BENCH_WORKERS (the service's --workers, default 1).
 * Every figure is printed with its target; results are written to bench/results/<time>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import sharp from 'sharp';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { insertId, toDbDateTime } from '../src/db/dialect.js';
import { createListTotals } from '../src/db/list-total.js';
import { migrate } from '../src/db/migrate.js';
import { hashPassword } from '../src/dolibarr/password.js';
import { RIGHTS_MODULE } from '../src/dolibarr/rights.js';
import { createElementAccess, namedUserColumns } from '../src/modules/access/element-access.js';
import { ORDER_ALIAS, createOrderRepository } from '../src/modules/orders/orders.repository.js';
import { INSTANCE_ID, PASSWORD, ROOT, against, freePort, login, median, multipart, phoneJpeg, startServer, waitForServer } from './common.js';

const env = process.env;
const DURATION = Number(env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const ORDERS = Number(env.BENCH_ORDERS ?? 10_000);
const UPLOADS = Number(env.BENCH_UPLOADS ?? 5);
const WORKERS = Number(env.BENCH_WORKERS ?? 1);
const WARMUP = Number(env.BENCH_WARMUP ?? 3);
const PAGE = 50;
/** Photos in the order whose photo list is measured. */
const PHOTOS = 50;

/** The targets of the order list: printed beside each figure. */
const TARGET = { requestsPerS: 2500, p99Ms: 30, floorShare: 40 };

interface Seeded {
  adminLogin: string;
  techLogin: string;
  adminId: number;
  techId: number;
  techOrders: number;
  orderRef: string;
  orderId: number;
}


export async function seed(databaseUrl: string, dataRoot: string): Promise<Seeded> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, INSTANCE_UNIQUE_ID: INSTANCE_ID });
  const handle = createDb(config, { poolSize: 2 });
  try {
    await migrate(handle, config);
    const { db, dialect } = handle;
    const pass = await hashPassword(PASSWORD);
    const rights = await db.selectFrom('rights_def').select(['id']).where('module', '=', RIGHTS_MODULE).where('entity', '=', 1).execute();
    const tag = randomBytes(3).toString('hex');
    const users: number[] = [];
    for (const [login, admin] of [[`bench_admin_${tag}`, 1], [`bench_tech_${tag}`, 0]] as const) {
      const id = await insertId(dialect, db.insertInto('user').values({ login, pass_crypted: pass, admin, statut: 1, entity: 1, firstname: 'Bench', lastname: login }));
      for (const r of rights) await db.insertInto('user_rights').values({ entity: 1, fk_user: id, fk_id: r.id }).execute();
      users.push(id);
    }
    const [adminId, techId] = users as [number, number];
    const customers: number[] = [];
    for (let i = 0; i < 200; i++) {
      customers.push(await insertId(dialect, db.insertInto('societe').values({ nom: `Kunde ${i} GmbH`, client: 1 + (i % 3), entity: 1, status: 1, town: 'München', code_client: `BCU${tag}-${i}` })));
    }
    // Orders over two years; every fifth names the technician (as validator), the rest the admin.
    const now = Date.now();
    let techOrders = 0;
    for (let start = 0; start < ORDERS; start += 500) {
      const rows = [];
      for (let i = start; i < Math.min(ORDERS, start + 500); i++) {
        const at = new Date(now - ((i * 63_113) % (730 * 86_400)) * 1000);
        const forTech = i % 5 === 0;
        if (forTech) techOrders++;
        rows.push({
          ref: `CO-B${tag}-${String(i).padStart(5, '0')}`, entity: 1, ref_client: `Auftrag ${100000 + i}`, fk_soc: customers[i % customers.length]!,
          fk_statut: 1 + (i % 3), fk_user_author: adminId, fk_user_valid: forTech ? techId : adminId, total_ht: 100 + i, total_tva: 19, total_ttc: 119 + i,
          date_creation: toDbDateTime(at), date_commande: toDbDateTime(at).slice(0, 10), date_valid: toDbDateTime(at), tms: toDbDateTime(at),
        });
      }
      await db.insertInto('commande').values(rows).execute();
    }
    // Reports: one on each of the technician's orders, made by the technician, with three pages each.
    const techOrderIds = (await db.selectFrom('commande').select('rowid').where('fk_user_valid', '=', techId).execute()).map((r) => Number(r.rowid));
    for (let start = 0; start < techOrderIds.length; start += 250) {
      const chunk = techOrderIds.slice(start, start + 250);
      await db
        .insertInto('bericht')
        .values(chunk.map((orderId, i) => ({ ref: `BRB${tag}-${String(start + i).padStart(5, '0')}`, entity: 1, element_type: 'commande', fk_element: orderId, title: `Wartung ${start + i}`, format: 'A4', orientation: 'portrait', status: (start + i) % 2, version: 1, is_template: 0, fk_user_creat: techId, datec: toDbDateTime(new Date(now - (start + i) * 3_600_000)), tms: toDbDateTime(new Date(now - (start + i) * 3_600_000)) })))
        .execute();
    }
    const reportIds = (await db.selectFrom('bericht').select('rowid').where('fk_user_creat', '=', techId).execute()).map((r) => Number(r.rowid));
    for (let start = 0; start < reportIds.length; start += 150) {
      const pages = reportIds.slice(start, start + 150).flatMap((id) => [1, 2, 3].map((n) => ({ fk_bericht: id, page_order: n, title: `Seite ${n}`, layout: 'title', datec: toDbDateTime(), tms: toDbDateTime() })));
      await db.insertInto('bericht_page').values(pages).execute();
    }
    const order = await db.selectFrom('commande').select(['rowid', 'ref']).where('fk_user_valid', '=', techId).orderBy('rowid', 'desc').executeTakeFirstOrThrow();
    // After a bulk load the planner needs statistics, which a live database has (autovacuum,
    // InnoDB's persistent stats); without them PostgreSQL plans for two rows. SQLite gathers its
    // own when the server opens the file (database.ts).
    if (dialect === 'postgres') await sql`analyze`.execute(db);
    if (dialect === 'mysql') await sql`analyze table ${sql.table('commande')}, ${sql.table('societe')}, ${sql.table('user')}, ${sql.table('user_rights')}, ${sql.table('bericht')}, ${sql.table('bericht_page')}`.execute(db);
    return { adminLogin: `bench_admin_${tag}`, techLogin: `bench_tech_${tag}`, adminId, techId, techOrders, orderRef: order.ref, orderId: Number(order.rowid) };
  } finally {
    await handle.destroy();
  }
}

async function benchUpload(base: string, token: string, orderId: number, orderDir: string) {
  const jpeg = await phoneJpeg();
  const times: number[] = [];
  for (let i = 0; i < UPLOADS; i++) {
    const { body, contentType } = multipart(`IMG_${1000 + i}.jpg`, jpeg, 'image/jpeg');
    const started = performance.now();
    const res = await fetch(`${base}/api/orders.php?id=${orderId}&action=upload_photo`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
    const elapsed = performance.now() - started;
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    const { name } = (await res.json()) as { name: string };
    const stem = name.replace(/\.[^.]+$/, '');
    for (const size of ['small', 'mini']) {
      if (!existsSync(path.join(orderDir, 'thumbs', `${stem}_${size}.jpg`))) throw new Error(`thumbnail ${size} of ${name} missing after the answer`);
    }
    times.push(elapsed);
  }
  return { bytes: jpeg.length, megapixels: 12, runs: UPLOADS, median_ms: Math.round(median(times)), min_ms: Math.round(Math.min(...times)), max_ms: Math.round(Math.max(...times)) };
}

/** The SQL and values of the first page of the order list as the service sends them for `user`. */
async function listQuery(databaseUrl: string, user: { id: number; admin: boolean }): Promise<{ sql: string; parameters: readonly unknown[] }> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, INSTANCE_UNIQUE_ID: INSTANCE_ID });
  const handle = createDb(config, { poolSize: 1 });
  try {
    const access = createElementAccess(handle.db, { entity: config.entity, userColumns: namedUserColumns(await handle.db.introspection.getTables(), config.dbPrefix) });
    const orders = createOrderRepository(handle, { access, totals: createListTotals(handle) });
    const { sql, parameters } = orders.listQuery({ visible: access.visible('commande', { ...user, fkSoc: null }, ORDER_ALIAS), limit: PAGE, offset: 0 }).compile();
    return { sql, parameters };
  } finally {
    await handle.destroy();
  }
}

/** bench/floor.ts serving `query` on the SQLite file `file`. */
async function startFloor(file: string, query: { sql: string; parameters: readonly unknown[] }): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/floor.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), FLOOR_DATABASE: file, FLOOR_SQL: query.sql, FLOOR_PARAMETERS: JSON.stringify(query.parameters) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return waitForServer(child, port, '/api/orders.php');
}

async function load(url: string, token?: string) {
  const options = { url, connections: CONNECTIONS, headers: token ? { authorization: `Bearer ${token}` } : {} };
  // Unmeasured first: what a server does once (compiling its code, filling its caches) is no steady-state figure.
  if (WARMUP > 0) await autocannon({ ...options, duration: WARMUP });
  const result = await autocannon({ ...options, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} answers other than 2xx, ${result.errors} errors`);
  return { requests_per_s: Math.round(result.requests.average), latency_p50_ms: result.latency.p50, latency_p99_ms: result.latency.p99 };
}

async function benchList(base: string, token: string, label: string, floor?: { file: string; query: { sql: string; parameters: readonly unknown[] } }) {
  const url = `/api/orders.php?limit=${PAGE}`;
  const service = await load(`${base}${url}`, token);
  let floorResult;
  if (floor) {
    const started = await startFloor(floor.file, floor.query);
    try {
      floorResult = await load(`${started.base}${url}`);
    } finally {
      started.child.kill('SIGTERM');
    }
  }
  return {
    label,
    connections: CONNECTIONS,
    duration_s: DURATION,
    workers: WORKERS,
    ...service,
    floor: floorResult ? { ...floorResult, share_percent: Math.round((100 * service.requests_per_s) / floorResult.requests_per_s) } : null,
  };
}

/** `count` photos (640×480 JPEGs, a minute apart) written into the order's folder, as Dolibarr keeps attachments. */
async function photosInto(orderDir: string, count: number): Promise<void> {
  mkdirSync(orderDir, { recursive: true });
  const jpeg = await sharp(await phoneJpeg()).resize(640, 480).jpeg({ quality: 80 }).toBuffer();
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

function describeList(list: Awaited<ReturnType<typeof benchList>>): string {
  const lines = [
    `Order list, ${list.label}, ${list.connections} connections × ${list.duration_s} s, ${list.workers} worker(s):`,
    `  ${against(list.requests_per_s, TARGET.requestsPerS, 'req/s', true)}, p99 ${against(list.latency_p99_ms, TARGET.p99Ms, 'ms')}, p50 ${list.latency_p50_ms} ms`,
  ];
  lines.push(
    list.floor
      ? `  floor (bare Fastify + better-sqlite3, the same query): ${list.floor.requests_per_s} req/s, p99 ${list.floor.latency_p99_ms} ms; the service at ${against(list.floor.share_percent, TARGET.floorShare, '%', true)} of it`
      : '  floor: measured on SQLite only',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-'));
  const dataRoot = path.join(work, 'documents');
  const sqliteFile = path.join(work, 'bench.sqlite');
  const databaseUrl = env.BENCH_DATABASE_URL ?? `sqlite:${sqliteFile}`;
  let server: ChildProcess | undefined;
  try {
    console.log(`Seeding ${ORDERS} orders into ${databaseUrl.replace(/:[^:@/]*@/, ':***@')} …`);
    const seeded = await seed(databaseUrl, dataRoot);
    const floorOf = async (user: { id: number; admin: boolean }) => (env.BENCH_DATABASE_URL ? undefined : { file: sqliteFile, query: await listQuery(databaseUrl, user) });
    const floors = { admin: await floorOf({ id: seeded.adminId, admin: true }), tech: await floorOf({ id: seeded.techId, admin: false }) };
    const started = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work, WORKERS: String(WORKERS) });
    server = started.child;
    const admin = await login(started.base, seeded.adminLogin);
    const tech = await login(started.base, seeded.techLogin);

    console.log(`Order list: ${CONNECTIONS} connections × ${DURATION} s, for two users, each beside its floor …`);
    const lists = [
      await benchList(started.base, admin, `administrator (all ${ORDERS} orders)`, floors.admin),
      await benchList(started.base, tech, `technician (${seeded.techOrders} of ${ORDERS} orders)`, floors.tech),
    ];
    console.log('The other lists, as the technician …');
    await photosInto(path.join(dataRoot, 'commande', seeded.orderRef), PHOTOS);
    const others = [
      await benchOther(started.base, tech, `reports (${seeded.techOrders} reports of 3 pages each)`, `/api/reports.php?limit=${PAGE}`),
      await benchOther(started.base, tech, 'customers (those of the technician\'s orders)', `/api/customers.php?limit=${PAGE}`),
      await benchOther(started.base, tech, `an order's photos (${PHOTOS} files)`, `/api/orders.php?id=${seeded.orderId}&action=photos&limit=${PAGE}`),
    ];
    // Last: each upload has its print-size copy made in the background afterwards, which would share the cores with a load run.
    console.log(`Upload: ${UPLOADS} × a 12-megapixel JPEG …`);
    const upload = await benchUpload(started.base, tech, seeded.orderId, path.join(dataRoot, 'commande', seeded.orderRef));

    const results = { at: new Date().toISOString(), node: process.version, cpus: os.cpus().length, database: databaseUrl.split(':')[0], orders: ORDERS, upload, order_list: lists, other_lists: others };
    console.log(JSON.stringify(results, null, 2));
    console.log(
      [
        '',
        `Upload of a 12-megapixel JPEG with both thumbnails: median ${upload.median_ms} ms (${upload.runs} runs, max ${upload.max_ms} ms)`,
        ...lists.map(describeList),
        ...others.map((o) => `List of ${o.label}: ${o.requests_per_s} req/s, p50 ${o.latency_p50_ms} ms, p99 ${o.latency_p99_ms} ms (no target)`),
      ].join('\n'),
    );
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${results.at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    server?.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

// Run when started as a script (not when imported for its seeding).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
