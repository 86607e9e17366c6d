/**
 * Files of orders, invoices, proposals, interventions and reports (endpoints 16 and 18): finding the file a
 * client names, inside the folder of an object the caller may see, making a missing thumbnail,
 * and deleting an order's attachment with its thumbnails and its ecm_files row.
 *
 * Security decisions (docs/architecture.md, Invariants; as Dolibarr's document.php checks the files it serves):
 * - the path's syntax is checked before any lookup, so the answer to a bad path never depends on
 *   whether the object exists; then the object is looked up under the caller's visibility, so a
 *   file of an object the caller may not see is FILE_NOT_FOUND like one that does not exist;
 * - the rest of the path is resolved with resolveInside (links leaving the folder are refused), and
 *   thumbnails are only read or written where their real path lies inside the object's folder.
 */
import { sql, type SqlBool } from 'kysely';
import { createEcmFilesRepository } from '../../dolibarr/ecm-files.repository.js';
import { dolSanitizeFileName } from '../../dolibarr/filenames.js';
import { lstat, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromFile } from 'file-type';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { THUMBNAIL_SIZES, thumbnailFormatOf, thumbnailPath, writeThumbnail, type ThumbnailSize } from '../../adapters/image.js';
import {
  checkRelativePath,
  isInside,
  MODULE_DIRS,
  objectFolder,
  resolveInside,
  type FileOwner,
  type ObjectFolder,
} from '../../dolibarr/documents.js';
import { AppError } from '../../errors.js';
import { notFoundCode, type Caller, type ElementAccess } from '../access/element-access.js';
import { servedContentType } from './file-path.js';
import { forgetPrintImage } from '../../adapters/print-image.js';
import { printCacheDir } from '../reports/work-area.js';
import { checklistPhotoPattern } from '../pages/checklist.js';
import { deleteEvidence } from '../photo-evidence/photo-evidence.repository.js';

/** The `modulepart` values the file endpoint knows, and whose folder each names. */
export const MODULE_PARTS: Readonly<Record<string, FileOwner>> = {
  commande: 'commande',
  facture: 'facture',
  propal: 'propal',
  // Dolibarr's folder name for proposals, accepted as a modulepart as document.php does.
  propale: 'propal',
  fichinter: 'fichinter',
  // Dolibarr's folder name for interventions, accepted as a modulepart as document.php does.
  ficheinter: 'fichinter',
  bericht: 'bericht',
};

/** Source formats a thumbnail is made of on request (those writeThumbnail keeps as they are). */

export interface LocatedFile {
  /** Absolute real path of the file to send. */
  path: string;
  /** The name the client sees (Content-Disposition). */
  name: string;
  /** Content-Type from the file's first bytes. */
  contentType: string;
}

export interface FilesService {
  locate(modulepart: string, file: string, size: ThumbnailSize | undefined, user: Caller): Promise<LocatedFile>;
  deleteOrderFile(id: number, file: string, user: Caller, type?: 'commande' | 'fichinter'): Promise<{ deleted: true; name: string }>;
}

const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException)?.code ?? '');

export function createFilesService(deps: { config: Pick<Config, 'dataRoot' | 'entity'>; db: Db; access: ElementAccess }): FilesService {
  const { config, db, access } = deps;

  /**
   * Refs the caller may see that could have `name` as their folder: `_` stands for any one
   * character there, as dol_sanitizeFileName writes '_' for each character it replaces.
   */
  async function refsLike(owner: FileOwner, name: string, user: Caller): Promise<string[]> {
    const pattern = name.replace(/[!%]/g, (c) => `!${c}`);
    const like = (column: string) => sql<SqlBool>`${sql.ref(column)} like ${pattern} escape '!'`;
    const rows =
      owner === 'bericht'
        ? await db
            .selectFrom('bericht')
            .select('bericht.ref')
            .where(() => like('bericht.ref'))
            .where('bericht.entity', '=', config.entity)
            .where(() => access.reportVisible(user))
            .limit(50)
            .execute()
        : await db
            .selectFrom(owner)
            .select(`${owner}.ref`)
            .where(() => like(`${owner}.ref`))
            .where(() => access.visible(owner, user))
            .limit(50)
            .execute();
    return rows.map((r) => r.ref);
  }

  /** The folder of the object whose folder name is `name`, when the caller may see that object. */
  async function visibleFolder(owner: FileOwner, name: string, user: Caller): Promise<ObjectFolder> {
    let ref: string | undefined;
    if (owner === 'bericht') {
      const row = await db
        .selectFrom('bericht')
        .select('bericht.ref')
        .where('bericht.ref', '=', name)
        .where('bericht.entity', '=', config.entity)
        .where(() => access.reportVisible(user))
        .executeTakeFirst();
      ref = row?.ref;
    } else {
      ref = (await access.getByRef(owner, name, user))?.ref;
    }
    // A ref with characters Dolibarr replaces in folder names (`CO/24:01` lives in `CO_24_01`).
    if (ref === undefined && name.includes('_')) ref = (await refsLike(owner, name, user)).find((r) => dolSanitizeFileName(r) === name);
    if (ref === undefined) throw new AppError('FILE_NOT_FOUND');
    const folder = objectFolder(config.dataRoot, config.entity, owner, ref);
    // A case-insensitive collation (MariaDB) finds `co2401-0001` for `CO2401-0001`: only the folder's exact name counts.
    if (folder.name !== name) throw new AppError('FILE_NOT_FOUND');
    return folder;
  }

  async function contentTypeOf(file: string): Promise<string> {
    return servedContentType((await fileTypeFromFile(file))?.mime);
  }

  /** The thumbnail of `source` (a real path inside `realFolder`), made now when it is missing. */
  async function thumbnail(source: string, realFolder: string, size: ThumbnailSize): Promise<string> {
    // A file inside thumbs/ is a thumbnail already; there is no thumbnail of it.
    if (path.basename(path.dirname(source)) === 'thumbs') throw new AppError('THUMBNAIL_UNAVAILABLE');
    const target = thumbnailPath(source, size);
    try {
      const real = await realpath(target);
      if (!isInside(real, realFolder)) throw new AppError('FILE_PATH_INVALID');
      return real;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    const format = thumbnailFormatOf((await fileTypeFromFile(source))?.mime);
    if (!format) throw new AppError('THUMBNAIL_UNAVAILABLE');
    try {
      // sharp runs in libvips' threads; the pixel limit (MAX_INPUT_PIXELS) guards against bombs.
      // writeThumbnail refuses a thumbs/ link that leaves the folder (FILE_PATH_INVALID).
      await writeThumbnail(source, size, format);
    } catch (error) {
      if (error instanceof AppError) throw error;
      // A corrupt image or one above the pixel limit has no thumbnail; that is the client's file, not a 500.
      throw new AppError('THUMBNAIL_UNAVAILABLE');
    }
    return realpath(target);
  }

  return {
    async locate(modulepart, file, size, user) {
      const owner = Object.hasOwn(MODULE_PARTS, modulepart) ? MODULE_PARTS[modulepart] : undefined;
      if (!owner) throw new AppError('FILE_MODULE_UNKNOWN', { details: { known: Object.keys(MODULE_PARTS) } });
      const segments = checkRelativePath(file);
      // `<object folder>/<name…>`: a file directly in the module folder belongs to no object.
      if (segments.length < 2) throw new AppError('FILE_PATH_INVALID');
      const folder = await visibleFolder(owner, segments[0]!, user);
      const source = await resolveInside(folder.dir, segments.slice(1).join('/'));
      if (!(await stat(source)).isFile()) throw new AppError('FILE_NOT_FOUND');
      if (!size) return { path: source, name: segments[segments.length - 1]!, contentType: await contentTypeOf(source) };
      const thumb = await thumbnail(source, await realpath(folder.dir), size);
      return {
        path: thumb,
        name: path.basename(thumbnailPath(segments[segments.length - 1]!, size)),
        contentType: await contentTypeOf(thumb),
      };
    },

    async deleteOrderFile(id, file, user, type = 'commande') {
      // A plain name directly in the order's folder: not in thumbs/, not in any subfolder.
      const segments = checkRelativePath(file);
      if (segments.length !== 1) throw new AppError('FILE_PATH_INVALID');
      const order = await access.getById(type, id, user);
      if (!order) throw new AppError(notFoundCode(type));
      const folder = objectFolder(config.dataRoot, config.entity, type, order.ref);
      const real = await resolveInside(folder.dir, file); // missing → 404; a link leaving the folder → 400
      // The entry named is removed (a link itself, not what it points to); a folder is no attachment.
      const target = path.join(folder.dir, file);
      if ((await lstat(target)).isDirectory()) throw new AppError('FILE_NOT_FOUND');
      // A photo a report's page or checklist item shows stays: deleting it would break the report (and every later version).
      const relPath = `${MODULE_DIRS[type]}/${folder.name}/${file}`;
      const usedBy = await db
        .selectFrom('bericht_page as p')
        .innerJoin('bericht as b', 'b.rowid', 'p.fk_bericht')
        .select('b.ref')
        .distinct()
        .where('b.entity', '=', config.entity)
        .where((eb) =>
          eb.or([
            eb('p.source_path', '=', relPath),
            eb('p.source_path_2', '=', relPath),
            sql<SqlBool>`p.checklist like ${checklistPhotoPattern(relPath)} escape '!'`,
          ]),
        )
        .orderBy('b.ref')
        .limit(20)
        .execute();
      if (usedBy.length > 0) throw new AppError('PHOTO_IN_USE', { details: { reports: usedBy.map((r) => r.ref) } });
      const realFolder = await realpath(folder.dir);
      await forgetPrintImage(real, printCacheDir(config.dataRoot, config.entity));
      await rm(target);
      for (const size of Object.keys(THUMBNAIL_SIZES) as ThumbnailSize[]) {
        const thumb = thumbnailPath(target, size);
        try {
          if (isInside(await realpath(thumb), realFolder)) await rm(thumb);
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
      }
      await createEcmFilesRepository(db).remove(config.entity, folder.filepath, file);
      await deleteEvidence(db, config.entity, folder.filepath, file);
      return { deleted: true, name: file };
    },
  };
}
