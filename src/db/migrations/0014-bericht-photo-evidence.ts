/**
 * Photo evidence: what the service knew of a photo when it received it, one row per file of the
 * documents folder, named as in `ecm_files` (the folder relative to the entity's documents root,
 * and the file's name).
 * - `sha256` and `size` of the bytes received, `datec` when (UTC, as every module table);
 * - from the photo's EXIF, where present: `exif_taken_at` as the camera wrote it (its local time,
 *   `YYYY-MM-DD HH:MM:SS`), `exif_offset` (`+01:00`) when it wrote one, and the place;
 * - from the phone, where sent: `device_taken_at`, its capture time as sent (RFC 3339 with the
 *   phone's offset), and the place (only when the person allowed it in the app).
 * Places are kept in 1e-7 degrees as integers (`*_e7`, about 1 cm): exact on every dialect, so the
 * signature's hash over them (signature-hash.ts, form 3) reads back what was written.
 * A page shows a file by its path, so the row applies to the pages that show it; the row goes with
 * the file (deleted photo, deleted report work area) and is copied with it into a report's work area.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools } from './helpers.js';

export function berichtPhotoEvidence(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);
      await table('bericht_photo_evidence')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('filepath', 'varchar(255)', (c) => c.notNull())
        .addColumn('filename', 'varchar(255)', (c) => c.notNull())
        .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('exif_taken_at', 'varchar(19)')
        .addColumn('exif_offset', 'varchar(6)')
        .addColumn('exif_lat_e7', 'integer')
        .addColumn('exif_lon_e7', 'integer')
        .addColumn('device_taken_at', 'varchar(40)')
        .addColumn('device_lat_e7', 'integer')
        .addColumn('device_lon_e7', 'integer')
        .addColumn('fk_user', 'integer')
        .addColumn('datec', ty.datetime, (c) => c.notNull())
        .execute();
      // One row per file; a new file under a name that was used before replaces its row.
      await index('uk_bericht_photo_evidence_file', 'bericht_photo_evidence', ['entity', 'filepath', 'filename'], true);
    },
  };
}
