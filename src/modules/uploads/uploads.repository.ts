/**
 * The rows an upload writes: `ecm_files` (Dolibarr's file index, through ecm-files.repository.ts),
 * with the answer planned for the upload's Idempotency-Key claim (`bericht_idempotency`, see
 * common/idempotency.ts) and a photo's evidence. Only Kysely; no HTTP.
 */
import type { Db } from '../../db/database.js';
import type { Dialect } from '../../config.js';
import type { ColumnFitter } from '../../dolibarr/charset.js';
import { createEcmFilesRepository, type NewEcmFile } from '../../dolibarr/ecm-files.repository.js';
import { beginIntent, endIntent } from '../maintenance/file-intents.js';
import { createIdempotencyRepository } from '../common/idempotency.repository.js';
import { deleteEvidence, recordEvidence } from '../photo-evidence/photo-evidence.repository.js';
import type { NewPhotoEvidenceRow } from '../photo-evidence/photo-evidence.js';

export interface UploadsRepositoryOptions {
  /** Makes text fit Dolibarr's columns (charset.ts). @default leaves text as it is (for names the service made) */
  fitter?: ColumnFitter;
  /** Dolibarr's time zone: ecm_files dates are its wall times (time.ts). @default UTC */
  timeZone?: string;
}

export function createUploadsRepository(db: Db, dialect: Dialect, options: UploadsRepositoryOptions = {}) {
  const ecm = createEcmFilesRepository(db, { dialect, ...options });
  return {
    db,
    /** File names the index holds for a folder (a stale row blocks its name too). */
    indexedNames: ecm.names,

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
        const rowid = await createEcmFilesRepository(trx, { dialect, ...options }).create(file);
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
        await createEcmFilesRepository(trx).removeRow(rowid);
        await endIntent(trx, file.entity, file.filepath, file.filename);
        await deleteEvidence(trx, file.entity, file.filepath, file.filename);
      });
    },

    /** Removes the index rows of one file (`filename`) or of every file in a folder, and their photo evidence. */
    async deleteEcmFiles(entity: number, filepath: string, filename?: string): Promise<void> {
      await ecm.remove(entity, filepath, filename);
      await deleteEvidence(db, entity, filepath, filename);
    },
  };
}

export type UploadsRepository = ReturnType<typeof createUploadsRepository>;
