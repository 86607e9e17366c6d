/**
 * The rows an upload writes: `ecm_files` (Dolibarr's file index, written as Dolibarr's
 * EcmFiles::create does), with the answer planned for the upload's Idempotency-Key claim
 * (`bericht_idempotency`, see common/idempotency.ts). Only Kysely; no HTTP.
 */
import type { Db } from '../../db/database.js';
import type { Dialect } from '../../config.js';
import { insertId } from '../../db/dialect.js';
import type { ColumnFitter } from '../../dolibarr/charset.js';
import { toDolibarrDateTime } from '../../dolibarr/time.js';
import { beginIntent, endIntent } from '../maintenance/file-intents.js';
import { createIdempotencyRepository } from '../common/idempotency.repository.js';
import { deleteEvidence, recordEvidence } from '../photo-evidence/photo-evidence.repository.js';
import type { NewPhotoEvidenceRow } from '../photo-evidence/photo-evidence.js';

export interface NewEcmFile {
  ref: string;
  label: string;
  entity: number;
  filepath: string;
  filename: string;
  srcObjectType: string;
  srcObjectId: number;
  fullpathOrig: string;
  /** The uploading user; null for files the service places itself (demo). */
  fkUserC: number | null;
  /** 'generated' for files the service makes (a report's PDF), as Dolibarr marks its own. @default 'uploaded' */
  genOrUploaded?: 'uploaded' | 'generated';
}

export interface UploadsRepositoryOptions {
  /** Makes text fit Dolibarr's columns (charset.ts). @default leaves text as it is (for names the service made) */
  fitter?: ColumnFitter;
  /** Dolibarr's time zone: ecm_files dates are its wall times (time.ts). @default UTC */
  timeZone?: string;
}

export function createUploadsRepository(db: Db, dialect: Dialect, options: UploadsRepositoryOptions = {}) {
  const fitter = options.fitter ?? { fit: async (_t: string, _c: string, text: string) => text };
  const timeZone = options.timeZone ?? 'UTC';
  return {
    db,
    /** File names the index holds for a folder (a stale row blocks its name too). */
    async indexedNames(entity: number, filepath: string): Promise<string[]> {
      const rows = await db
        .selectFrom('ecm_files')
        .select('filename')
        .where('entity', '=', entity)
        .where('filepath', '=', filepath)
        .execute();
      return rows.map((r) => r.filename);
    },

    /** Inserts the row with position = max(position) + 1 of the folder, as Dolibarr does. */
    async createEcmFile(file: NewEcmFile): Promise<number> {
      const max = await db
        .selectFrom('ecm_files')
        .select((eb) => eb.fn.max('position').as('max'))
        .where('entity', '=', file.entity)
        .where('filepath', '=', file.filepath)
        .executeTakeFirst();
      // Written as Dolibarr writes it: the wall time of its time zone.
      const now = toDolibarrDateTime(new Date(), timeZone);
      return insertId(
        dialect,
        db.insertInto('ecm_files').values({
          ref: file.ref,
          label: file.label,
          share: null,
          entity: file.entity,
          filepath: file.filepath,
          filename: file.filename,
          src_object_type: file.srcObjectType,
          src_object_id: file.srcObjectId,
          // varchar(750) in Dolibarr; a phone's name may hold what the column's character set cannot
          fullpath_orig: await fitter.fit('ecm_files', 'fullpath_orig', file.fullpathOrig.slice(0, 750)),
          description: '',
          keywords: '',
          gen_or_uploaded: file.genOrUploaded ?? 'uploaded',
          position: Number(max?.max ?? 0) + 1,
          date_c: now,
          tms: now,
          fk_user_c: file.fkUserC,
          fk_user_m: null,
        }),
      );
    },

    /**
     * Reserves `file.filename` for a file about to be placed: its `ecm_files` row (the unique index
     * on filepath, filename and entity decides between two requests wanting one name: the loser
     * gets the driver's unique violation), an intent of this run (file-intents.ts), the answer
     * planned for an idempotency claim and a photo's evidence, all in one transaction.
     */
    async reserveFile(
      file: NewEcmFile,
      plan?: { userId: number; key: string; response: string },
      evidence?: NewPhotoEvidenceRow,
    ): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const rowid = await createUploadsRepository(trx, dialect, options).createEcmFile(file);
        await beginIntent(trx, file.entity, file.filepath, file.filename);
        if (plan) {
          await createIdempotencyRepository(trx).planResponse(plan.userId, plan.key, plan.response);
        }
        if (evidence) await recordEvidence(trx, evidence);
        return rowid;
      });
    },

    /** Undoes reserveFile: the row, this run's intent and the file's evidence. */
    async releaseFile(rowid: number, file: { entity: number; filepath: string; filename: string }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('ecm_files').where('rowid', '=', rowid).execute();
        await endIntent(trx, file.entity, file.filepath, file.filename);
        await deleteEvidence(trx, file.entity, file.filepath, file.filename);
      });
    },

    /** Removes the index rows of one file (`filename`) or of every file in a folder, and their photo evidence. */
    async deleteEcmFiles(entity: number, filepath: string, filename?: string): Promise<void> {
      let query = db.deleteFrom('ecm_files').where('entity', '=', entity).where('filepath', '=', filepath);
      if (filename !== undefined) query = query.where('filename', '=', filename);
      await query.execute();
      await deleteEvidence(db, entity, filepath, filename);
    },
  };
}

export type UploadsRepository = ReturnType<typeof createUploadsRepository>;
