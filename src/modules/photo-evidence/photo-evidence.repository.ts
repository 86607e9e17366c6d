/**
 * `bericht_photo_evidence` (migration 0014): one row per file, named as in `ecm_files`. Only
 * Kysely; every function takes `db` or a transaction, so a row is written and removed together
 * with the file's index row.
 */
import type { Db } from '../../db/database.js';
import { splitRelPath, type NewPhotoEvidenceRow, type PhotoEvidenceRow } from './photo-evidence.js';

/** Names asked for in one query (an `in` list well below every dialect's limit on parameters). */
const CHUNK = 500;

/** Writes the evidence of a file just received; a row left for an earlier file of that name goes. */
export async function recordEvidence(db: Db, row: NewPhotoEvidenceRow): Promise<void> {
  await deleteEvidence(db, row.entity, row.filepath, row.filename);
  await db.insertInto('bericht_photo_evidence').values(row).execute();
}

/** Removes the evidence of one file (`filename`), or of every file of a folder. */
export async function deleteEvidence(db: Db, entity: number, filepath: string, filename?: string): Promise<void> {
  let query = db.deleteFrom('bericht_photo_evidence').where('entity', '=', entity).where('filepath', '=', filepath);
  if (filename !== undefined) query = query.where('filename', '=', filename);
  await query.execute();
}

/**
 * The evidence of the files at `relPaths` (`commande/CO2401-0001/IMG_1.jpg`, as pages name them),
 * by path; paths without evidence are not in the map. Names are matched exactly (MariaDB's
 * collation would also match them in another case).
 */
export async function evidenceByPaths(
  db: Db,
  entity: number,
  relPaths: ReadonlyArray<string | null | undefined>,
): Promise<Map<string, PhotoEvidenceRow>> {
  const wanted = new Set(relPaths.filter((p): p is string => typeof p === 'string' && p.includes('/')));
  const found = new Map<string, PhotoEvidenceRow>();
  if (wanted.size === 0) return found;
  const folders = [...new Set([...wanted].map((p) => splitRelPath(p).filepath))];
  const names = [...new Set([...wanted].map((p) => splitRelPath(p).filename))];
  // A report's pages show files of a few folders (the order's, the report's work area): by folder, then by name.
  for (let i = 0; i < names.length; i += CHUNK) {
    const rows = await db
      .selectFrom('bericht_photo_evidence')
      .selectAll()
      .where('entity', '=', entity)
      .where('filepath', 'in', folders)
      .where('filename', 'in', names.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) {
      const relPath = `${row.filepath}/${row.filename}`;
      if (wanted.has(relPath)) found.set(relPath, row);
    }
  }
  return found;
}

/** Gives the copy of a file at `to` the evidence of `from` (the same bytes under another name); nothing when `from` has none. */
export async function copyEvidence(db: Db, entity: number, from: string, to: string): Promise<void> {
  const row = (await evidenceByPaths(db, entity, [from])).get(from);
  if (!row) return;
  const { rowid: _rowid, ...facts } = row;
  await recordEvidence(db, { ...facts, entity, ...splitRelPath(to), size: facts.size });
}
