/**
 * The outbox drain: what a phone does when it gets a signal back after a cellar. 50 real 12 MP
 * photos (4000×3000 JPEG, EXIF orientation 6, about 3.7 MiB each) are uploaded back to back, each
 * sent as soon as the previous one was answered (no pacing), then a report of a photo page for
 * each is made and finalized at once. Against the built service (dist/) of a checkout, in its own
 * process, on a fresh SQLite database; the checkout is this one, or another (`root`) to compare
 * two versions in one run.
 *
 * Figures: each upload's answer time; finalize right after the last upload; the server's resident
 * memory at rest before, its peak (Linux VmHWM) over uploads and finalize, and 15 s after the
 * finalize's answer. Beside them, the floors measured in the same run, so the figures hold on a
 * noisy machine: a bare Fastify process of its own that receives the same uploads into a file
 * and makes their print copies in the background (upload floor, bench/upload-floor.ts), and the time this process takes to turn one of the photos into a print-size JPEG with
 * sharp (image floor).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import {
  ROOT,
  api,
  atUplinkSpeed,
  freePort,
  login,
  median,
  multipart,
  phoneJpeg,
  seedTechnician,
  startServer,
  stopProcess,
  uplinkMs,
  waitForServer,
} from './common.js';
import { SERVER_MALLOC_ENV } from '../src/server-process.js';

export interface DrainFigures {
  label: string;
  root: string;
  photos: number;
  /** The uploads' pace: 0 back to back, else Mbit/s. */
  uplink_mbit: number;
  upload_median_ms: number;
  upload_p95_ms: number;
  upload_max_ms: number;
  finalize_ms: number;
  sheets: number;
  pdf_mb: number;
  rss_start_mb: number;
  peak_mb: number;
  rss_after_15s_mb: number;
  /** The server's CPU time (all threads) during the uploads, during the pages, and during the finalize. */
  cpu_uploads_ms: number;
  cpu_pages_ms: number;
  cpu_finalize_ms: number;
}

export interface DrainFloors {
  /** Median answer of a bare Fastify + @fastify/multipart server streaming the same upload to a file. */
  upload_ms: number;
  /** Median time of one print-size copy (decode with shrink, rotate, resize, mozjpeg) in this process. */
  image_ms: number;
}

/** Resident and peak resident memory of a process, in MiB (Linux /proc). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** CPU time a process has used so far (user + system, all threads), in ms (Linux /proc). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 a second)
}

/** Resets the peak (VmHWM) to the current resident size (Linux: clear_refs 5). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bodies of `count` uploads of the photo, made before anything is timed. */
function uploadBodies(jpeg: Buffer, count: number) {
  return Array.from({ length: count }, (_, i) => multipart(`IMG_${2000 + i}.jpg`, jpeg, 'image/jpeg'));
}

/**
 * Sends the uploads one after another, each at `mbit` Mbit/s (0: back to back, as fast as they are
 * taken); the answers' times in ms, counted for a paced upload from its last piece sent (what the
 * service makes the phone wait for; the sending before it is the uplink's).
 */
async function drain(url: string, token: string | undefined, bodies: ReturnType<typeof uploadBodies>, mbit = 0): Promise<number[]> {
  const times: number[] = [];
  for (const { body, contentType } of bodies) {
    const sending = mbit > 0 ? uplinkMs(body.length, mbit) : 0;
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': contentType },
      body: mbit > 0 ? atUplinkSpeed(body, mbit) : body,
      duplex: 'half',
    } as RequestInit);
    const text = await res.text();
    times.push(performance.now() - started - sending);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${text}`);
  }
  return times;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

/** The drain against the service of the checkout `root`. */
export async function measureDrain(
  options: { root?: string; label?: string; photos?: number; jpeg?: Buffer; settleMs?: number; afterMs?: number; uplinkMbit?: number } = {},
): Promise<DrainFigures> {
  const root = options.root ?? ROOT;
  const photos = options.photos ?? 50;
  if (!existsSync(path.join(root, 'dist', 'server.js'))) throw new Error(`${root} has no build (dist/): run npm run build there`);
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-drain-'));
  const dataRoot = path.join(work, 'documents');
  const databaseUrl = `sqlite:${path.join(work, 'bench.sqlite')}`;
  let server: ChildProcess | undefined;
  try {
    const jpeg = options.jpeg ?? (await phoneJpeg());
    const seeded = await seedTechnician(databaseUrl, dataRoot, { loginName: `bench_drain_${Date.now()}`, orderRef: 'CO2611-0042' }, root);
    const started = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work }, root);
    server = started.child;
    const pid = server.pid!;
    const { base } = started;
    const token = await login(base, seeded.loginName);
    // At rest, as a phone finds it: started, one login, the pollers running.
    await sleep(options.settleMs ?? 3000);
    const atStart = memoryOf(pid).rss;
    resetPeak(pid);
    const bodies = uploadBodies(jpeg, photos);
    const cpu0 = cpuMsOf(pid);
    const times = await drain(`${base}/api/orders.php?id=${seeded.orderId}&action=upload_photo`, token, bodies, options.uplinkMbit ?? 0);
    // The report as the phone made it offline: a photo page for each photo, sent right after them.
    const cpu1 = cpuMsOf(pid);
    const report = await api(base, token, 'POST', '/api/reports.php?action=create', {
      fk_element: seeded.orderId,
      title: 'Wartung Heizungsanlage',
    });
    for (let i = 0; i < photos; i++) {
      await api(base, token, 'POST', `/api/pages.php?action=add&bericht_id=${report.id}`, {
        source: `IMG_${2000 + i}.jpg`,
        title: `Foto ${i + 1}: Prüfung der Anlage`,
        note: 'Zustand dokumentiert, Maße geprüft, Öl- und Gasleitungen dicht.',
      });
    }
    // BENCH_DRAIN_PAUSE_MS: a pause before the finalize (to measure it with the background work done).
    if (process.env.BENCH_DRAIN_PAUSE_MS) await sleep(Number(process.env.BENCH_DRAIN_PAUSE_MS));
    const cpu2 = cpuMsOf(pid);
    const finalizeStarted = performance.now();
    const final = await api(base, token, 'POST', `/api/reports.php?id=${report.id}&action=finalize`);
    const finalizeMs = performance.now() - finalizeStarted;
    const cpu3 = cpuMsOf(pid);
    const peak = memoryOf(pid).peak;
    await sleep(options.afterMs ?? 15_000);
    const after = memoryOf(pid).rss;
    const pdf = readFileSync(path.join(dataRoot, final.final_pdf_path));
    const sheets = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
    return {
      label: options.label ?? path.basename(root),
      root,
      photos,
      uplink_mbit: options.uplinkMbit ?? 0,
      upload_median_ms: Math.round(median(times)),
      upload_p95_ms: Math.round(percentile(times, 0.95)),
      upload_max_ms: Math.round(Math.max(...times)),
      finalize_ms: Math.round(finalizeMs),
      sheets,
      pdf_mb: Number((pdf.length / 1e6).toFixed(2)),
      rss_start_mb: atStart,
      peak_mb: peak,
      rss_after_15s_mb: after,
      cpu_uploads_ms: Math.round(cpu1 - cpu0),
      cpu_pages_ms: Math.round(cpu2 - cpu1),
      cpu_finalize_ms: Math.round(cpu3 - cpu2),
    };
  } finally {
    server?.kill('SIGTERM');
    if (server && server.exitCode === null) await new Promise((r) => server!.once('exit', r));
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The upload floor (bench/upload-floor.ts): Fastify + @fastify/multipart streaming each upload
 * into a file, its print copy made in the background, in a fresh process of its own as the service is; two uploads to warm
 * it, then the median of `count`.
 */
async function uploadFloor(jpeg: Buffer, count: number): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-floor-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/upload-floor.ts')], {
    cwd: ROOT,
    env: { ...SERVER_MALLOC_ENV, ...process.env, PORT: String(port), FLOOR_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const { base } = await waitForServer(child, port, '/');
    await drain(`${base}/upload`, undefined, uploadBodies(jpeg, 2));
    return median(await drain(`${base}/upload`, undefined, uploadBodies(jpeg, count)));
  } finally {
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The image floor: one print-size copy of the photo (A4 photo page at 150 dpi), median of `runs`. */
async function imageFloor(jpeg: Buffer, runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await sharp(jpeg).rotate().resize(1111, 1482, { fit: 'fill' }).jpeg({ quality: 70, mozjpeg: true }).toBuffer();
    times.push(performance.now() - started);
  }
  return median(times);
}

export async function measureFloors(jpeg: Buffer, photos = 40): Promise<DrainFloors> {
  return { upload_ms: Math.round((await uploadFloor(jpeg, photos)) * 10) / 10, image_ms: Math.round(await imageFloor(jpeg)) };
}

/** The targets of the drain, each with how it is read. */
export const DRAIN_TARGETS = { finalizeMs: 400, peakMb: 210, afterOverStartMb: 30, uploadMs: 100 } as const;

/** The drain's figures against their targets, as lines to print. */
export function describeDrain(f: DrainFigures, floors: DrainFloors): string {
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const pace = f.uplink_mbit > 0 ? `paced at ${f.uplink_mbit} Mbit/s` : 'back to back (the outbox drain)';
  return [
    `${f.label}: ${f.photos} uploads of 12 MP photos ${pace}, then finalize (${f.sheets} sheets, ${f.pdf_mb} MB)`,
    `  finalize right after the last upload: ${f.finalize_ms} ms (target ≤ ${DRAIN_TARGETS.finalizeMs} ms: ${mark(f.finalize_ms <= DRAIN_TARGETS.finalizeMs)}); ${(f.finalize_ms / floors.image_ms).toFixed(1)} × the image floor`,
    `  server memory: start ${f.rss_start_mb} MiB, peak ${f.peak_mb} MiB (target ≤ ${DRAIN_TARGETS.peakMb} MiB: ${mark(f.peak_mb <= DRAIN_TARGETS.peakMb)}), 15 s later ${f.rss_after_15s_mb} MiB (target ≤ start + ${DRAIN_TARGETS.afterOverStartMb} = ${f.rss_start_mb + DRAIN_TARGETS.afterOverStartMb} MiB: ${mark(f.rss_after_15s_mb <= f.rss_start_mb + DRAIN_TARGETS.afterOverStartMb)})`,
    `  upload answer${f.uplink_mbit > 0 ? ' after its last piece was sent' : ''}: median ${f.upload_median_ms} ms (target ≤ ${DRAIN_TARGETS.uploadMs} ms: ${mark(f.upload_median_ms <= DRAIN_TARGETS.uploadMs)}), p95 ${f.upload_p95_ms} ms, max ${f.upload_max_ms} ms; ${(f.upload_median_ms / floors.upload_ms).toFixed(1)} × the upload floor`,
    `  server CPU: ${f.cpu_uploads_ms} ms during the uploads, ${f.cpu_pages_ms} ms during the pages, ${f.cpu_finalize_ms} ms during the finalize`,
  ].join('\n');
}

/**
 * The drain benchmark: back to back and paced (BENCH_UPLINK_MBIT, default 20), for this checkout
 * and, first, for BENCH_AGAINST (another built checkout, e.g. a worktree of an earlier commit), in
 * one run beside the same floors. Returns the figures; prints them as it goes.
 */
export async function runDrainBench(): Promise<{ floors: DrainFloors; runs: DrainFigures[] }> {
  const against = process.env.BENCH_AGAINST;
  const mbit = Number(process.env.BENCH_UPLINK_MBIT ?? 20);
  const jpeg = await phoneJpeg();
  const floors = await measureFloors(jpeg);
  console.log(
    `Floors: an upload ${floors.upload_ms} ms (bare, its print copy in the background), one print-size copy ${floors.image_ms} ms`,
  );
  const runs: DrainFigures[] = [];
  for (const root of [...(against ? [path.resolve(against)] : []), ROOT]) {
    const label = root === ROOT ? 'this checkout' : `${path.basename(root)} (${root})`;
    for (const uplinkMbit of [0, ...(mbit > 0 ? [mbit] : [])]) {
      const figures = await measureDrain({ root, jpeg, label, uplinkMbit });
      console.log(describeDrain(figures, floors));
      runs.push(figures);
    }
  }
  return { floors, runs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { runs } = await runDrainBench();
  console.log(JSON.stringify(runs, null, 2));
}
