/**
 * Report PDF benchmark (`npm run bench:pdf`), against the built service in its own process on a
 * fresh SQLite database (or BENCH_DATABASE_URL):
 *
 * 1. cold: finalize a 50-page report of 12-megapixel phone photos (4000×3000 JPEG, EXIF
 *    orientation 6) with no print-size copies made yet;
 * 2. warm: finalize new versions of it (the same photos, print-size copies already made),
 *    BENCH_PDF_RUNS times (default 3), median;
 * 3. a 500-page report (the 50 photos ten times over), warm.
 *
 * For each: the time of the finalize request, the server's resident memory before and its peak
 * during the request (Linux VmHWM, reset before each run), the PDF's size, and the slowest answer
 * to /api/health polled every 20 ms meanwhile (how long the event loop was held).
 * Results are printed and written to bench/results/pdf-<time>.json.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { insertId, toDbDateTime } from '../src/db/dialect.js';
import { migrate } from '../src/db/migrate.js';
import { hashPassword } from '../src/dolibarr/password.js';
import { RIGHTS_MODULE } from '../src/dolibarr/rights.js';
import { INSTANCE_ID, PASSWORD, ROOT, login, median, phoneJpeg, startServer } from './common.js';

const env = process.env;
const RUNS = Number(env.BENCH_PDF_RUNS ?? 3);
const PHOTOS = 50;
const BIG_REPORT_PAGES = 500;
const ORDER_REF = 'CO2611-0001';

async function seed(databaseUrl: string, dataRoot: string): Promise<{ loginName: string; orderId: number }> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, INSTANCE_UNIQUE_ID: INSTANCE_ID });
  const handle = createDb(config, { poolSize: 1 });
  try {
    await migrate(handle, config);
    const { db, dialect } = handle;
    const loginName = `bench_pdf_${Date.now()}`;
    const userId = await insertId(dialect, db.insertInto('user').values({ login: loginName, pass_crypted: await hashPassword(PASSWORD), admin: 0, statut: 1, entity: 1, firstname: 'Bench', lastname: 'Techniker' }));
    for (const r of await db.selectFrom('rights_def').select('id').where('module', '=', RIGHTS_MODULE).where('entity', '=', 1).execute()) {
      await db.insertInto('user_rights').values({ entity: 1, fk_user: userId, fk_id: r.id }).execute();
    }
    const customer = await insertId(dialect, db.insertInto('societe').values({ nom: 'Müller & Söhne GmbH', client: 1, entity: 1, status: 1, town: 'Köln' }));
    const orderId = await insertId(dialect, db.insertInto('commande').values({
      ref: `${ORDER_REF}-${Date.now() % 100000}`, entity: 1, fk_soc: customer, fk_statut: 1, fk_user_author: userId, date_commande: toDbDateTime().slice(0, 10), date_creation: toDbDateTime(),
    }));
    const order = await db.selectFrom('commande').select('ref').where('rowid', '=', orderId).executeTakeFirstOrThrow();
    const dir = path.join(dataRoot, 'commande', order.ref);
    mkdirSync(dir, { recursive: true });
    const jpeg = await phoneJpeg();
    for (let i = 0; i < PHOTOS; i++) writeFileSync(path.join(dir, `IMG_${2000 + i}.jpg`), jpeg);
    console.log(`${PHOTOS} photos of ${(jpeg.length / 1e6).toFixed(1)} MB (4000×3000) in ${dir}`);
    return { loginName, orderId };
  } finally {
    await handle.destroy();
  }
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** Resets the peak (VmHWM) to the current resident size (Linux: clear_refs 5). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

async function api(base: string, token: string, method: string, url: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function finalizeMeasured(server: ChildProcess, base: string, token: string, dataRoot: string, reportId: number, label: string) {
  const pid = server.pid!;
  resetPeak(pid);
  const before = memory(pid);
  let slowestHealth = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const t = performance.now();
      await fetch(`${base}/api/health`).then((r) => r.arrayBuffer());
      slowestHealth = Math.max(slowestHealth, performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = performance.now();
  const report = await api(base, token, 'POST', `/api/reports.php?id=${reportId}&action=finalize`);
  const ms = performance.now() - started;
  polling = false;
  await poller;
  const after = memory(pid);
  const size = statSync(path.join(dataRoot, report.final_pdf_path)).size;
  const result = { label, pages: report.page_count, ms: Math.round(ms), rss_before_mb: before.rss, peak_rss_mb: after.peak, peak_over_before_mb: after.peak - before.rss, pdf_mb: Number((size / 1e6).toFixed(1)), slowest_health_ms: Math.round(slowestHealth) };
  console.log(JSON.stringify(result));
  return result;
}

async function main(): Promise<void> {
  if (os.platform() !== 'linux') throw new Error('bench:pdf reads memory from /proc and needs Linux');
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-pdf-'));
  const dataRoot = path.join(work, 'documents');
  const databaseUrl = env.BENCH_DATABASE_URL ?? `sqlite:${path.join(work, 'bench.sqlite')}`;
  let server: ChildProcess | undefined;
  try {
    const seeded = await seed(databaseUrl, dataRoot);
    const started = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work });
    server = started.child;
    const { base } = started;
    const token = await login(base, seeded.loginName);

    const makeReport = async (title: string, pages: number) => {
      const report = await api(base, token, 'POST', '/api/reports.php?action=create', { fk_element: seeded.orderId, title });
      for (let i = 0; i < pages; i++) {
        await api(base, token, 'POST', `/api/pages.php?action=add&bericht_id=${report.id}`, { source: `IMG_${2000 + (i % PHOTOS)}.jpg`, title: `Foto ${i + 1}: Prüfung der Anlage`, note: 'Zustand dokumentiert, Maße geprüft, Öl- und Gasleitungen dicht.' });
      }
      return report.id as number;
    };
    console.log(`Building a ${PHOTOS}-page and a ${BIG_REPORT_PAGES}-page report …`);
    const fifty = await makeReport('Wartung Heizungsanlage (50 Seiten)', PHOTOS);
    const big = await makeReport('Großer Bericht (500 Seiten)', BIG_REPORT_PAGES);

    const cold = await finalizeMeasured(server, base, token, dataRoot, fifty, 'cold, 50 pages');
    const warm = [];
    for (let i = 0; i < RUNS; i++) {
      const version = await api(base, token, 'POST', `/api/reports.php?id=${fifty}&action=new_version`);
      warm.push(await finalizeMeasured(server, base, token, dataRoot, version.id, `warm, 50 pages, run ${i + 1}`));
    }
    const large = await finalizeMeasured(server, base, token, dataRoot, big, `warm, ${BIG_REPORT_PAGES} pages`);

    const results = {
      at: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      database: databaseUrl.split(':')[0],
      cold_50: cold,
      warm_50_median_ms: Math.round(median(warm.map((w) => w.ms))),
      warm_50_runs: warm,
      warm_500: large,
      peak_500_vs_50_mb: large.peak_over_before_mb - median(warm.map((w) => w.peak_over_before_mb)),
    };
    console.log(JSON.stringify(results, null, 2));
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `pdf-${results.at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    server?.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
