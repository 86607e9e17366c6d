/**
 * Preview and finalize with an ODT cover sheet (`npm run bench:cover`), against the built service in
 * its own process on a fresh demo database (`serve --demo`): the demo's maintenance visit as the
 * phone makes it (test/helpers/maintenance-visit.ts: the template, 7 photos, the checklist, time
 * on site, material, the signature), then its preview and its finalize, each with the demo's cover
 * sheet filled and converted by LibreOffice, BENCH_COVER_RUNS times (default 3; a new version
 * each time), median against the target of 2 s each. The floor in the same run: the same preview
 * without a cover. BENCH_AGAINST=<another built checkout> measures that checkout's service the
 * same way (before the LibreOffice kept running: each cover started its own). Results go to
 * bench/results/cover-<time>.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeMaintenanceVisit, ok, type VisitCall } from '../test/helpers/maintenance-visit.js';
import { ROOT, against, median, startServer } from './common.js';

const RUNS = Number(process.env.BENCH_COVER_RUNS ?? 3);
/** The targets: preview and finalize with the cover, each on this machine. */
const TARGET = { previewMs: 2000, finalizeMs: 2000 };

const send =
  (base: string) =>
  (token: string | null): VisitCall =>
  async ({ method, url, json, form }) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    let body: Uint8Array | string | undefined;
    if (form) {
      headers['content-type'] = form.contentType;
      body = new Uint8Array(form.payload);
    } else if (json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(json);
    }
    const res = await fetch(`${base}${url}`, { method, headers, body });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };

async function timed(call: VisitCall, method: 'GET' | 'POST', url: string, json?: unknown): Promise<number> {
  const started = performance.now();
  await ok(call, method, url, json);
  return Math.round(performance.now() - started);
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-cover-'));
  const { child, base } = await startServer(
    { DATABASE_URL: `sqlite:${path.join(work, 'db.sqlite')}`, DATA_ROOT: path.join(work, 'documents'), STATE_DIR: work },
    path.resolve(process.env.BENCH_AGAINST ?? ROOT),
    ['--demo'],
  );
  try {
    const visit = await makeMaintenanceVisit(send(base));
    // The floor: the same visit without a cover, made the day before.
    const plain = await makeMaintenanceVisit(send(base), { cover: null, earlierMinutes: 24 * 60 });
    const call = send(base)(visit.token);
    const previews: number[] = [];
    const finalizes: number[] = [];
    const floors: number[] = [];
    let current = visit.reportId;
    for (let run = 0; run < RUNS; run++) {
      if (run > 0) current = ((await ok(call, 'POST', `/api/reports.php?id=${current}&action=new_version`, {})) as { id: number }).id;
      floors.push(await timed(call, 'GET', `/api/pdf.php?id=${plain.reportId}&preview=1`));
      previews.push(await timed(call, 'GET', `/api/pdf.php?id=${current}&preview=1`));
      finalizes.push(await timed(call, 'POST', `/api/reports.php?id=${current}&action=finalize`, {}));
    }
    // The cover must be the ODT one LibreOffice made, not the built-in one a failure falls back to.
    const pdf = path.join(work, 'final.pdf');
    writeFileSync(pdf, (await call({ method: 'GET', url: `/api/pdf.php?id=${current}` })).body);
    const cover = execFileSync('pdftotext', ['-f', '1', '-l', '1', pdf, '-'], { encoding: 'utf8' });
    if (!cover.includes('Sehr geehrte')) throw new Error(`the first sheet is not the ODT cover:\n${cover}`);
    const sheets = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1]);
    const results = {
      sheets,
      runs: RUNS,
      preview_ms: median(previews),
      finalize_ms: median(finalizes),
      preview_without_cover_ms: median(floors),
      all: { previews, finalizes, floors },
    };
    if (process.env.BENCH_AGAINST) console.log(`Measured: ${path.resolve(process.env.BENCH_AGAINST)}`);
    console.log(`The demo maintenance visit's final PDF: ${sheets} sheets, the first the ODT cover`);
    console.log(`Preview with the ODT cover:  ${against(results.preview_ms, TARGET.previewMs, 'ms')}`);
    console.log(`Finalize with the ODT cover: ${against(results.finalize_ms, TARGET.finalizeMs, 'ms')}`);
    console.log(
      `Preview without a cover (floor): ${results.preview_without_cover_ms} ms; the cover costs ${(results.preview_ms / Math.max(1, results.preview_without_cover_ms)).toFixed(2)}× the floor`,
    );
    mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(
      path.join(ROOT, `bench/results/cover-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify(results, null, 2),
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
