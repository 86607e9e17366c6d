/**
 * Dolibarr's file index (`llx_ecm_files`): the one place that reads and writes it, as Dolibarr's
 * EcmFiles::create and its file deletions do (the conventions of its columns: ecm.ts). Uploads,
 * report PDFs, their copies in an object's documents, the time-stamp queue, the clean-up and the
 * recovery of killed runs all go through here. Kysely only.
 */
import type { Dialect } from '../config.js';
import type { Db } from '../db/database.js';
import { insertId } from '../db/dialect.js';
import type { ColumnFitter } from './charset.js';
import { toDolibarrDateTime } from './time.js';

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

/** A row of the index as the service reads it. */
export interface EcmFileRow {
  rowid: number;
  filepath: string;
  filename: string;
  /** The md5 of the file's content. */
  label: string | null;
}

export interface EcmFilesOptions {
  /** Needed to create rows (the new row's id is read per dialect). */
  dialect?: Dialect;
  /** Makes text fit Dolibarr's columns (charset.ts). @default leaves text as it is (for names the service made) */
  fitter?: ColumnFitter;
  /** Dolibarr's time zone: ecm_files dates are its wall times (time.ts). @default UTC */
  timeZone?: string;
}

export function createEcmFilesRepository(db: Db, options: EcmFilesOptions = {}) {
  const fitter = options.fitter ?? { fit: async (_t: string, _c: string, text: string) => text };
  const timeZone = options.timeZone ?? 'UTC';
  return {
    /** File names the index holds for a folder (a stale row blocks its name too). */
    async names(entity: number, filepath: string): Promise<string[]> {
      const rows = await db
        .selectFrom('ecm_files')
        .select('filename')
        .where('entity', '=', entity)
        .where('filepath', '=', filepath)
        .execute();
      return rows.map((r) => r.filename);
    },

    /** The row of one file, if any. */
    async rowidOf(entity: number, filepath: string, filename: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('ecm_files')
        .select('rowid')
        .where('entity', '=', entity)
        .where('filepath', '=', filepath)
        .where('filename', '=', filename)
        .executeTakeFirst();
      return row === undefined ? undefined : row.rowid;
    },

    /** Every row of a file name, whatever its folder (a report's PDF and its copies). */
    async named(entity: number, filename: string): Promise<EcmFileRow[]> {
      const rows = await db
        .selectFrom('ecm_files')
        .select(['rowid', 'filepath', 'filename', 'label'])
        .where('entity', '=', entity)
        .where('filename', '=', filename)
        .execute();
      return rows.map((r) => ({ rowid: r.rowid, filepath: r.filepath, filename: r.filename, label: r.label }));
    },

    /** Inserts the row with position = max(position) + 1 of the folder, as Dolibarr does. */
    async create(file: NewEcmFile): Promise<number> {
      if (!options.dialect) throw new Error('createEcmFilesRepository: a dialect is needed to create rows');
      const max = await db
        .selectFrom('ecm_files')
        .select((eb) => eb.fn.max('position').as('max'))
        .where('entity', '=', file.entity)
        .where('filepath', '=', file.filepath)
        .executeTakeFirst();
      // Written as Dolibarr writes it: the wall time of its time zone.
      const now = toDolibarrDateTime(new Date(), timeZone);
      return insertId(
        options.dialect,
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

    /** The file's content changed in place (a time stamp appended): its md5 in `label`. */
    async setChecksum(rowid: number, md5: string): Promise<void> {
      await db.updateTable('ecm_files').set({ label: md5 }).where('rowid', '=', rowid).execute();
    },

    /** Removes the rows of one file (`filename`) or of every file in a folder. */
    async remove(entity: number, filepath: string, filename?: string): Promise<void> {
      let query = db.deleteFrom('ecm_files').where('entity', '=', entity).where('filepath', '=', filepath);
      if (filename !== undefined) query = query.where('filename', '=', filename);
      await query.execute();
    },

    async removeRow(rowid: number): Promise<void> {
      await db.deleteFrom('ecm_files').where('rowid', '=', rowid).execute();
    },
  };
}

export type EcmFilesRepository = ReturnType<typeof createEcmFilesRepository>;
