/**
 * Benchmarks (`npm run bench`), against the built service running in its own process, as
 * `fieldreport serve` runs it, on a fresh SQLite database (or BENCH_DATABASE_URL, a MariaDB/MySQL or
 * PostgreSQL database this may fill):
 *
 * 1. Upload of a 12-megapixel phone JPEG (4000×3000, EXIF orientation 6) until its answer, which
 *    comes after both Dolibarr thumbnails are written; checked on disk.
 * 2. The order list (GET /api/orders.php) on a database of 10,000 orders, 50 concurrent clients
 *    (autocannon), as an administrator (all orders) and as a technician (the orders naming them).
 *
 * Options (environment): BENCH_DURATION seconds per load run (default 15), BENCH_CONNECTIONS
 * (default 50), BENCH_ORDERS (default 10000), BENCH_UPLOADS (default 5).
 * Results are printed and written to bench/results/<time>.json.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { insertId, toDbDateTime } from '../src/db/dialect.js';
import { migrate } from '../src/db/migrate.js';
import { hashPassword } from '../src/dolibarr/password.js';
import { RIGHTS_MODULE } from '../src/dolibarr/rights.js';
import { INSTANCE_ID, PASSWORD, ROOT, login, median, multipart, phoneJpeg, startServer } from './common.js';

const env = process.env;
const DURATION = Number(env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const ORDERS = Number(env.BENCH_ORDERS ?? 10_000);
const UPLOADS = Number(env.BENCH_UPLOADS ?? 5);


export async function seed(databaseUrl: string, dataRoot: string): Promise<{ adminLogin: string; techLogin: string; techOrders: number; orderRef: string; orderId: number }> {
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
    // After a bulk load the planner needs statistics, which a live database has (autovacuum,
    // InnoDB's persistent stats); without them PostgreSQL plans for two rows. SQLite gathers its
    // own when the server opens the file (database.ts).
    if (dialect === 'postgres') await sql`analyze`.execute(db);
    if (dialect === 'mysql') await sql`analyze table ${sql.table('commande')}, ${sql.table('societe')}, ${sql.table('user')}, ${sql.table('user_rights')}`.execute(db);
    const order = await db.selectFrom('commande').select(['rowid', 'ref']).where('fk_user_valid', '=', techId).orderBy('rowid', 'desc').executeTakeFirstOrThrow();
    return { adminLogin: `bench_admin_${tag}`, techLogin: `bench_tech_${tag}`, techOrders, orderRef: order.ref, orderId: Number(order.rowid) };
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

async function benchList(base: string, token: string, label: string) {
  const result = await autocannon({
    url: `${base}/api/orders.php?limit=50`,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    label,
    connections: CONNECTIONS,
    duration_s: DURATION,
    requests_per_s: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-'));
  const dataRoot = path.join(work, 'documents');
  const databaseUrl = env.BENCH_DATABASE_URL ?? `sqlite:${path.join(work, 'bench.sqlite')}`;
  let server: ChildProcess | undefined;
  try {
    console.log(`Seeding ${ORDERS} orders into ${databaseUrl.replace(/:[^:@/]*@/, ':***@')} …`);
    const seeded = await seed(databaseUrl, dataRoot);
    const started = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work });
    server = started.child;
    const admin = await login(started.base, seeded.adminLogin);
    const tech = await login(started.base, seeded.techLogin);

    console.log(`Upload: ${UPLOADS} × a 12-megapixel JPEG …`);
    const upload = await benchUpload(started.base, tech, seeded.orderId, path.join(dataRoot, 'commande', seeded.orderRef));
    console.log(`Order list: ${CONNECTIONS} connections × ${DURATION} s, twice …`);
    const lists = [await benchList(started.base, admin, `admin (all ${ORDERS} orders)`), await benchList(started.base, tech, `technician (${seeded.techOrders} of ${ORDERS} orders)`)];

    const results = { at: new Date().toISOString(), node: process.version, cpus: os.cpus().length, database: databaseUrl.split(':')[0], orders: ORDERS, upload, order_list: lists };
    console.log(JSON.stringify(results, null, 2));
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
