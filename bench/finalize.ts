/**
 * Report PDF benchmark (`npm run bench:pdf`), against the built service in its own process on a
 * fresh SQLite database (or BENCH_DATABASE_URL):
 *
 * 1. cold, as in the field: 50 12-megapixel phone photos (4000×3000 JPEG, EXIF orientation 6) are
 *    uploaded one after another as a phone's outbox sends them, at a phone's uplink speed
 *    (BENCH_UPLINK_MBIT, default 20 Mbit/s, a good 4G or 5G uplink; 0: as fast as the server takes
 *    them), each answer measured; a 50-page report is made of them and finalized at once, while
 *    the print-size copies are made in the background;
 * 2. warm: finalize new versions of it (print-size copies ready), BENCH_PDF_RUNS times
 *    (default 3), median;
 * 3. a 500-page report (the 50 photos ten times over), warm;
 * 4. a before/after page, for the resolution of that layout.
 *
 * For each finalize: its time, the server's resident memory before and its peak during the
 * request (Linux VmHWM, reset before each run), the PDF's size, and the slowest answer to
 * /api/health polled every 20 ms meanwhile (how long the event loop was held). Then the resident
 * memory after the work, and the effective resolution of the photos on the printed page
 * (`pdfimages -list`, poppler-utils). Every figure is printed with its target.
 * Results are written to bench/results/pdf-<time>.json.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, against, api, atUplinkSpeed, login, median, multipart, phoneJpeg, startServer, seedTechnician } from './common.js';

const env = process.env;
const RUNS = Number(env.BENCH_PDF_RUNS ?? 3);
const UPLINK_MBIT = Number(env.BENCH_UPLINK_MBIT ?? 20);
const PHOTOS = 50;
const BIG_REPORT_PAGES = 500;
const ORDER_REF = 'CO2611-0001';

/** The targets (issue of the finalize and PDF speed): printed beside each figure. */
const TARGET = { coldMs: 1500, warmMs: 300, pdfMb: 5, dpi: 150, peakMb: 250 };

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

/** Uploads the photos one after another, as a phone's outbox sends them; the answers' times in ms. */
async function uploadPhotos(base: string, token: string, orderId: number): Promise<number[]> {
  const jpeg = await phoneJpeg();
  console.log(
    `Uploading ${PHOTOS} photos of ${(jpeg.length / 1e6).toFixed(1)} MB (4000×3000) ${UPLINK_MBIT > 0 ? `at ${UPLINK_MBIT} Mbit/s` : 'as fast as the server takes them'} …`,
  );
  const times: number[] = [];
  for (let i = 0; i < PHOTOS; i++) {
    const { body, contentType } = multipart(`IMG_${2000 + i}.jpg`, jpeg, 'image/jpeg');
    const started = performance.now();
    const res = await fetch(`${base}/api/orders.php?id=${orderId}&action=upload_photo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body: UPLINK_MBIT > 0 ? atUplinkSpeed(body, UPLINK_MBIT) : body,
      duplex: 'half',
    } as RequestInit);
    const text = await res.text();
    times.push(performance.now() - started);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${text}`);
    if (JSON.parse(text).name !== `IMG_${2000 + i}.jpg`) throw new Error(`upload stored as ${text}`);
  }
  return times;
}

/** The effective resolution of the photos in a PDF (pdfimages -list: x-ppi, y-ppi), smallest and largest. */
function imageResolution(
  file: string,
  pages?: [number, number],
): { images: number; min_ppi: number; max_ppi: number } | { skipped: string } {
  let out: string;
  try {
    out = execFileSync('pdfimages', ['-list', ...(pages ? ['-f', String(pages[0]), '-l', String(pages[1])] : []), file], {
      encoding: 'utf8',
    });
  } catch (error) {
    return { skipped: `pdfimages (poppler-utils) not usable: ${(error as Error).message.split('\n')[0]}` };
  }
  // Rows: page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio; photos are the large images.
  const ppi = out
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 14 && cols[2] === 'image' && Number(cols[3]) >= 400)
    .flatMap((cols) => [Number(cols[12]), Number(cols[13])]);
  return { images: ppi.length / 2, min_ppi: Math.min(...ppi), max_ppi: Math.max(...ppi) };
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
  const pdf = path.join(dataRoot, report.final_pdf_path);
  const result = {
    label,
    pages: report.page_count,
    ms: Math.round(ms),
    rss_before_mb: before.rss,
    peak_rss_mb: after.peak,
    peak_over_before_mb: after.peak - before.rss,
    pdf_mb: Number((size / 1e6).toFixed(2)),
    slowest_health_ms: Math.round(slowestHealth),
    pdf,
  };
  console.log(JSON.stringify({ ...result, pdf: undefined }));
  return result;
}

/** How many sheets a PDF has (pdfinfo, poppler-utils). */
function sheetsOf(file: string): number | string {
  try {
    return Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1]);
  } catch {
    return 'pdfinfo (poppler-utils) not installed';
  }
}

async function main(): Promise<void> {
  if (os.platform() !== 'linux') throw new Error('bench:pdf reads memory from /proc and needs Linux');
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-pdf-'));
  const dataRoot = path.join(work, 'documents');
  const databaseUrl = env.BENCH_DATABASE_URL ?? `sqlite:${path.join(work, 'bench.sqlite')}`;
  let server: ChildProcess | undefined;
  try {
    const seeded = await seedTechnician(databaseUrl, dataRoot, {
      loginName: `bench_pdf_${Date.now()}`,
      orderRef: `${ORDER_REF}-${Date.now() % 100000}`,
    });
    const started = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work });
    server = started.child;
    const { base } = started;
    const token = await login(base, seeded.loginName);

    const makeReport = async (title: string, pages: number, layout: 'photo' | 'before_after' = 'photo', perSheet?: 1 | 2 | 4) => {
      const report = await api(base, token, 'POST', '/api/reports.php?action=create', {
        fk_element: seeded.orderId,
        title,
        ...(perSheet ? { photos_per_sheet: perSheet } : {}),
      });
      for (let i = 0; i < pages; i++) {
        const source = `IMG_${2000 + (i % PHOTOS)}.jpg`;
        const sources = layout === 'photo' ? { source } : { layout, source, source_2: `IMG_${2000 + ((i + 1) % PHOTOS)}.jpg` };
        await api(base, token, 'POST', `/api/pages.php?action=add&bericht_id=${report.id}`, {
          ...sources,
          title: `Foto ${i + 1}: Prüfung der Anlage`,
          note: 'Zustand dokumentiert, Maße geprüft, Öl- und Gasleitungen dicht.',
        });
      }
      return report.id as number;
    };
    const pid = server.pid!;
    const atStart = memory(pid).rss;
    resetPeak(pid);
    const uploads = await uploadPhotos(base, token, seeded.orderId);
    const uploadPeak = memory(pid).peak;
    console.log(`Making a ${PHOTOS}-page report and finalizing it at once …`);
    const fifty = await makeReport('Wartung Heizungsanlage (50 Seiten)', PHOTOS);
    const cold = await finalizeMeasured(server, base, token, dataRoot, fifty, 'cold, 50 pages');
    // Memory once the work is done: what stays.
    await new Promise((r) => setTimeout(r, 5000));
    const afterCold = memory(pid).rss;

    console.log(`Building a ${BIG_REPORT_PAGES}-page report and a before/after page …`);
    const big = await makeReport('Großer Bericht (500 Seiten)', BIG_REPORT_PAGES);
    const pair = await makeReport('Vorher/Nachher', 1, 'before_after');
    const warm = [];
    for (let i = 0; i < RUNS; i++) {
      const version = await api(base, token, 'POST', `/api/reports.php?id=${fifty}&action=new_version`);
      warm.push(await finalizeMeasured(server, base, token, dataRoot, version.id, `warm, 50 pages, run ${i + 1}`));
    }
    const large = await finalizeMeasured(server, base, token, dataRoot, big, `warm, ${BIG_REPORT_PAGES} pages`);
    const beforeAfter = await finalizeMeasured(server, base, token, dataRoot, pair, 'before/after page');
    const warmMedian = Math.round(median(warm.map((w) => w.ms)));
    const photoDpi = imageResolution(cold.pdf);
    const pairDpi = imageResolution(beforeAfter.pdf);

    // Every layout: 50 photo pages finalized right after they were added, then a new version of it
    // (copies ready), with its sheets, size and the photos' resolution.
    const layouts = [];
    for (const perSheet of [1, 2, 4] as const) {
      console.log(`${PHOTOS} photo pages, ${perSheet} to a sheet …`);
      const id = await makeReport(`Wartung (${perSheet} je Blatt)`, PHOTOS, 'photo', perSheet);
      const first = await finalizeMeasured(server, base, token, dataRoot, id, `${perSheet} to a sheet, right after the pages`);
      const version = await api(base, token, 'POST', `/api/reports.php?id=${id}&action=new_version`);
      const again = await finalizeMeasured(server, base, token, dataRoot, version.id, `${perSheet} to a sheet, copies ready`);
      layouts.push({
        photos_per_sheet: perSheet,
        sheets: sheetsOf(first.pdf),
        first_ms: first.ms,
        warm_ms: again.ms,
        pdf_mb: first.pdf_mb,
        resolution: imageResolution(first.pdf),
      });
    }

    const results = {
      at: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      database: databaseUrl.split(':')[0],
      uploads: {
        photos: PHOTOS,
        uplink_mbit: UPLINK_MBIT,
        median_ms: Math.round(median(uploads)),
        p95_ms: Math.round([...uploads].sort((a, b) => a - b)[Math.floor(uploads.length * 0.95)]!),
        max_ms: Math.round(Math.max(...uploads)),
        peak_rss_mb: uploadPeak,
      },
      memory: {
        at_start_mb: atStart,
        peak_uploads_mb: uploadPeak,
        peak_cold_finalize_mb: cold.peak_rss_mb,
        five_s_after_cold_mb: afterCold,
      },
      cold_50: { ...cold, pdf: undefined },
      warm_50_median_ms: warmMedian,
      warm_50_runs: warm.map((w) => ({ ...w, pdf: undefined })),
      warm_500: { ...large, pdf: undefined },
      peak_500_vs_50_mb: large.peak_over_before_mb - median(warm.map((w) => w.peak_over_before_mb)),
      resolution: { photo_page: photoDpi, before_after_page: pairDpi },
      layouts,
    };
    console.log(JSON.stringify(results, null, 2));
    const dpi = (r: typeof photoDpi) => ('skipped' in r ? r.skipped : `${r.min_ppi}–${r.max_ppi} dpi over ${r.images} photos`);
    console.log(
      [
        '',
        `Uploads (${PHOTOS} × 12 MP, one after another, ${UPLINK_MBIT > 0 ? `${UPLINK_MBIT} Mbit/s` : 'unpaced'}): median ${results.uploads.median_ms} ms, p95 ${results.uploads.p95_ms} ms, max ${results.uploads.max_ms} ms`,
        `Finalize, 50 photo pages right after the uploads (cold): ${against(cold.ms, TARGET.coldMs, 'ms')}`,
        `Finalize, 50 photo pages, copies ready (warm, median of ${RUNS}): ${against(warmMedian, TARGET.warmMs, 'ms')}`,
        `Finalize, ${BIG_REPORT_PAGES} photo pages (warm): ${large.ms} ms, peak ${large.peak_over_before_mb} MB over its start`,
        `PDF of 50 photo pages: ${against(cold.pdf_mb, TARGET.pdfMb, 'MB')}; photos at ${dpi(photoDpi)} (target ≥ ${TARGET.dpi} dpi)`,
        `Before/after page: photos at ${dpi(pairDpi)} (target ≥ ${TARGET.dpi} dpi)`,
        `Server memory: ${atStart} MB at start, peak ${uploadPeak} MB during the uploads, ${against(cold.peak_rss_mb, TARGET.peakMb, 'MB')} peak during the cold finalize, ${afterCold} MB 5 s after`,
        ...layouts.map(
          (l) =>
            `${l.photos_per_sheet} to a sheet: ${l.sheets} sheets for ${PHOTOS} photo pages (summary included); finalize right after the pages ${against(l.first_ms, TARGET.coldMs, 'ms')}, copies ready ${against(l.warm_ms, TARGET.warmMs, 'ms')}; ${against(l.pdf_mb, TARGET.pdfMb, 'MB')}; photos at ${dpi(l.resolution)}`,
        ),
      ].join('\n'),
    );
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `pdf-${results.at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    server?.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
