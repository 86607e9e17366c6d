/**
 * What a process killed mid-request leaves behind, removed at the next start and by the daily
 * clean-up (runs.ts says how a run is proven dead):
 * 1. intents of dead runs: the file and its `ecm_files` row made to agree (file-intents.ts);
 * 2. temporary files of dead runs in the folders the service writes: the order folders
 *    (`commande/<ref>/` and their `thumbs/`), the reports' work areas (`bericht/<ref>/`), the
 *    print-size copies (`bericht/temp/print/`) and the copies signatures keep
 *    (`bericht/<ref>/signiert/<signature>/<area>/<object ref>/`);
 * 3. kept folders of signatures that were never stored (`bericht/<ref>/signiert/<signature>/`
 *    without a signature page naming `bericht/<ref>/<signature>.png`): removed when the run that
 *    made it (its marker `.signing-<run>`) is dead, or, without a marker, when it is older than any
 *    request could be; a live run's folder stays, whoever's it is;
 * 4. working folders of dead runs in TMPDIR (PDF, preview, LibreOffice profiles);
 * 5. LibreOffice processes still running on a dead run's profile (Linux: read from /proc);
 * 6. markers of dead runs.
 * Only names of the service's own form are touched; a temporary file whose run is unknown is
 * left until it is older than any request could be (ORPHAN_AGE_MS).
 */
import { readFile, readdir, rm, rmdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ORPHAN_AGE_MS, RUN_ID, leftoverJudge, pidAlive, runOfTempDir, runOfTempFile, type RunRegistry } from '../../adapters/runs.js';
import type { Db } from '../../db/database.js';
import { MODULE_DIRS } from '../../dolibarr/documents.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { KEPT_DIR, SIGNING_MARKER_PREFIX } from '../reports/kept-copies.js';
import { settleDeadIntents } from './file-intents.js';

export interface RecoveryResult {
  intents_kept: number;
  intents_removed: number;
  temp_files: number;
  temp_dirs: number;
  /** Kept folders of signatures never stored (kept-copies.ts). */
  kept_folders: number;
  processes: number;
  markers: number;
}

async function subfolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name));
}

/** The folders that may hold temporary files of ours. */
async function writtenFolders(root: string): Promise<string[]> {
  const folders: string[] = [];
  // Uploads go into orders' and interventions' folders; a final PDF's copy into any object's.
  for (const area of [MODULE_DIRS.commande, MODULE_DIRS.fichinter, MODULE_DIRS.facture, MODULE_DIRS.propal, MODULE_DIRS.bericht]) {
    for (const dir of await subfolders(path.join(root, area))) folders.push(dir, path.join(dir, 'thumbs'));
  }
  folders.push(path.join(root, MODULE_DIRS.bericht, 'temp', 'print'));
  // What signatures keep (kept-copies.ts): bericht/<ref>/signiert/<signature>/<area>/<object ref>/.
  for (const report of await subfolders(path.join(root, MODULE_DIRS.bericht))) {
    for (const signature of await subfolders(path.join(report, KEPT_DIR))) {
      for (const area of await subfolders(signature)) folders.push(...(await subfolders(area)));
    }
  }
  return folders;
}

async function sweepTempFiles(root: string, runs: RunRegistry): Promise<number> {
  const mayGo = leftoverJudge(runs);
  let removed = 0;
  for (const dir of await writtenFolders(root)) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const run = runOfTempFile(name);
      if (!run) continue;
      const file = path.join(dir, name);
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile() || !(await mayGo(run, info.mtimeMs))) continue;
      await rm(file, { force: true });
      removed += 1;
    }
  }
  return removed;
}

/**
 * Kept folders of signatures that were never stored: a crash between keeping the copies and
 * storing the signature page leaves one. The rows are read before the folders are judged, so a
 * signature stored meanwhile is found by its marker (a live run) or its age.
 */
async function sweepKeptFolders(db: Db, root: string, entity: number, runs: RunRegistry): Promise<number> {
  const mayGo = leftoverJudge(runs);
  let removed = 0;
  for (const report of await subfolders(path.join(root, MODULE_DIRS.bericht))) {
    const keptRoot = path.join(report, KEPT_DIR);
    const signatures = await subfolders(keptRoot);
    if (signatures.length === 0) continue;
    const images = signatures.map((dir) => `${MODULE_DIRS.bericht}/${path.basename(report)}/${path.basename(dir)}.png`);
    const rows = await db
      .selectFrom('bericht_page as pg')
      .innerJoin('bericht as b', 'b.rowid', 'pg.fk_bericht')
      .select('pg.source_path')
      .where('pg.layout', '=', 'signature')
      .where('b.entity', '=', entity)
      .where('pg.source_path', 'in', images)
      .execute();
    const stored = new Set(rows.map((row) => row.source_path));
    for (const [index, dir] of signatures.entries()) {
      if (stored.has(images[index]!)) continue;
      const names = await readdir(dir).catch(() => [] as string[]);
      const marker = names.find((name) => name.startsWith(SIGNING_MARKER_PREFIX));
      const run =
        marker && /^[0-9a-f]{12}$/.test(marker.slice(SIGNING_MARKER_PREFIX.length)) ? marker.slice(SIGNING_MARKER_PREFIX.length) : 'legacy';
      const info = await stat(marker ? path.join(dir, marker) : dir).catch(() => undefined);
      if (!info || !(await mayGo(run, info.mtimeMs))) continue;
      await rm(dir, { recursive: true, force: true });
      removed += 1;
    }
    await rmdir(keptRoot).catch(() => undefined);
  }
  return removed;
}

/** A working folder in TMPDIR is this host's: its pid tells whether its process lives. */
function tempDirMayGo(owner: { pid: number; run: string }, mtimeMs: number): boolean {
  if (owner.run === RUN_ID) return false;
  if (Date.now() - mtimeMs > ORPHAN_AGE_MS) return true;
  // Our own pid under another run id: the pid was reused, its run is over.
  return owner.pid === process.pid || !pidAlive(owner.pid);
}

async function sweepTempDirs(): Promise<number> {
  const tmp = os.tmpdir();
  let removed = 0;
  for (const name of await readdir(tmp).catch(() => [] as string[])) {
    const owner = runOfTempDir(name);
    if (!owner) continue;
    const dir = path.join(tmp, name);
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory() || !tempDirMayGo(owner, info.mtimeMs)) continue;
    await rm(dir, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/**
 * LibreOffice processes working on a dead run's profile (their command line names it). Under
 * coreutils' timeout they would end by their time limit anyway; this ends them at once.
 */
async function stopOrphanedProcesses(): Promise<number> {
  if (process.platform !== 'linux') return 0;
  const marker = `${path.sep}fieldreport-soffice-`;
  let stopped = 0;
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const at = cmdline.indexOf(marker);
    if (at < 0) continue;
    const owner = runOfTempDir(cmdline.slice(at + 1));
    if (!owner || !tempDirMayGo(owner, Date.now())) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      stopped += 1;
    } catch {
      // ended meanwhile
    }
  }
  return stopped;
}

export async function recoverDeadRuns(deps: { db: Db; dataRoot: string; entity: number; runs: RunRegistry }): Promise<RecoveryResult> {
  const { db, dataRoot, entity, runs } = deps;
  const intents = await settleDeadIntents(db, dataRoot, entity, runs);
  const processes = await stopOrphanedProcesses();
  const tempFiles = await sweepTempFiles(entityRoot(dataRoot, entity), runs);
  const keptFolders = await sweepKeptFolders(db, entityRoot(dataRoot, entity), entity, runs);
  const tempDirs = await sweepTempDirs();
  const markers = await runs.pruneMarkers();
  return {
    intents_kept: intents.kept,
    intents_removed: intents.removed,
    temp_files: tempFiles,
    temp_dirs: tempDirs,
    kept_folders: keptFolders,
    processes,
    markers,
  };
}
