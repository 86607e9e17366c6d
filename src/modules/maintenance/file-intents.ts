/**
 * Intents (migration 0006): a file of the documents folder and its `ecm_files` row become visible
 * in two steps; an intent row names the file and the run at work from before the first step until
 * after the last. `settle` makes file and row agree for an intent whose run died: both kept when
 * both are there (an image's missing thumbnails made), both removed (with the file's thumbnails)
 * otherwise. What it removes was written
 * by that run, under a name the index row reserved for it.
 */
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromFile } from 'file-type';
import { THUMBNAIL_SIZE_NAMES, thumbnailFormatOf, thumbnailPath, writeThumbnails } from '../../adapters/image.js';
import { RUN_ID, leftoverJudge, type RunRegistry } from '../../adapters/runs.js';
import type { Db } from '../../db/database.js';
import { fromDbDateTime, toDbDateTime } from '../../db/dialect.js';
import { isInside } from '../../dolibarr/documents.js';
import { createEcmFilesRepository } from '../../dolibarr/ecm-files.repository.js';
import { deleteEvidence } from '../photo-evidence/photo-evidence.repository.js';

export interface FileIntent {
  rowid: number;
  entity: number;
  filepath: string;
  filename: string;
}

/** Inserts an intent of this run; `db` may be a transaction, so the intent commits with the row it guards. */
export async function beginIntent(db: Db, entity: number, filepath: string, filename: string): Promise<void> {
  await db.insertInto('bericht_file_intent').values({ entity, run_id: RUN_ID, filepath, filename, datec: toDbDateTime() }).execute();
}

/** Removes this run's intent for a file: the file and its row are both in place, or both gone. */
export async function endIntent(db: Db, entity: number, filepath: string, filename: string): Promise<void> {
  await db
    .deleteFrom('bericht_file_intent')
    .where('entity', '=', entity)
    .where('run_id', '=', RUN_ID)
    .where('filepath', '=', filepath)
    .where('filename', '=', filename)
    .execute();
}

/** Whether the file exists, and the rowid of its ecm_files row, if any. */
async function fileAndRow(
  db: Db,
  dataRoot: string,
  file: Omit<FileIntent, 'rowid'>,
): Promise<{ path: string; exists: boolean; rowid: number | undefined }> {
  const found = path.resolve(dataRoot, file.filepath, file.filename);
  const rowid = await createEcmFilesRepository(db).rowidOf(file.entity, file.filepath, file.filename);
  const exists = await stat(found).then(
    (s) => s.isFile(),
    () => false,
  );
  return { path: found, exists, rowid };
}

/**
 * The thumbnails of a kept image that lacks them: an uploaded JPEG gets them after its answer
 * (uploads.service.ts), so a run that died in between left them unmade. An image that cannot be
 * decoded keeps none, as at upload.
 */
async function completeThumbnails(file: string): Promise<void> {
  const missing = await Promise.all(
    THUMBNAIL_SIZE_NAMES.map((size) =>
      stat(thumbnailPath(file, size)).then(
        () => false,
        () => true,
      ),
    ),
  );
  if (!missing.some(Boolean)) return;
  const type = await fileTypeFromFile(file).catch(() => undefined);
  if (thumbnailFormatOf(type?.mime) === undefined) return;
  await writeThumbnails(file).catch(() => undefined);
}

/** Makes one dead run's file and row agree; returns whether the file was kept. */
export async function settleIntent(db: Db, dataRoot: string, intent: FileIntent): Promise<boolean> {
  const root = path.resolve(dataRoot);
  // The intent was written from a path we built; checked anyway, as every path from a row is.
  if (!isInside(path.resolve(root, intent.filepath, intent.filename), root)) {
    await db.deleteFrom('bericht_file_intent').where('rowid', '=', intent.rowid).execute();
    return false;
  }
  const found = await fileAndRow(db, root, intent);
  const kept = found.rowid !== undefined && found.exists;
  if (kept) await completeThumbnails(found.path);
  if (!kept) {
    await Promise.all(
      [found.path, ...THUMBNAIL_SIZE_NAMES.map((size) => thumbnailPath(found.path, size))].map((f) => rm(f, { force: true })),
    );
    if (found.rowid !== undefined) await createEcmFilesRepository(db).removeRow(found.rowid);
    // A photo's evidence was written with the row (uploads.repository.ts, reserveFile): it goes with it.
    await deleteEvidence(db, intent.entity, intent.filepath, intent.filename);
  }
  await db.deleteFrom('bericht_file_intent').where('rowid', '=', intent.rowid).execute();
  return kept;
}

/**
 * Whether a file and its row are both in place; an intent of a run that is not alive is settled
 * first (for a retry that comes before the start's recovery got to it).
 */
export async function settleFile(db: Db, dataRoot: string, runs: RunRegistry, file: Omit<FileIntent, 'rowid'>): Promise<boolean> {
  const intent = await db
    .selectFrom('bericht_file_intent')
    .select(['rowid', 'run_id'])
    .where('entity', '=', file.entity)
    .where('filepath', '=', file.filepath)
    .where('filename', '=', file.filename)
    .executeTakeFirst();
  if (intent) {
    if (intent.run_id === RUN_ID || (await runs.state(intent.run_id)) === 'alive') return false;
    return settleIntent(db, dataRoot, { ...file, rowid: intent.rowid });
  }
  const found = await fileAndRow(db, dataRoot, file);
  return found.rowid !== undefined && found.exists;
}

/** Settles the intents of runs that are dead (or left no marker and are older than any request). */
export async function settleDeadIntents(
  db: Db,
  dataRoot: string,
  entity: number,
  runs: RunRegistry,
): Promise<{ kept: number; removed: number }> {
  const rows = await db
    .selectFrom('bericht_file_intent')
    .select(['rowid', 'entity', 'run_id', 'filepath', 'filename', 'datec'])
    .where('entity', '=', entity)
    .where('run_id', '!=', RUN_ID)
    .execute();
  const result = { kept: 0, removed: 0 };
  const mayGo = leftoverJudge(runs);
  for (const row of rows) {
    if (!(await mayGo(row.run_id, (fromDbDateTime(row.datec) ?? 0) * 1000))) continue;
    if (
      await settleIntent(db, dataRoot, {
        rowid: row.rowid,
        entity: row.entity,
        filepath: row.filepath,
        filename: row.filename,
      })
    )
      result.kept += 1;
    else result.removed += 1;
  }
  return result;
}
