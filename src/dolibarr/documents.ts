/**
 * Dolibarr's documents folder: where an object's files live, and resolving a path a client names
 * so that it can only ever reach a file inside that object's folder.
 *
 * Layout: DATA_ROOT[/<entity> above 1]/<module dir>/<sanitized ref>/; module dirs are Dolibarr's:
 * `commande`, `facture`, `propale` (for proposals), `ficheinter` (for interventions), and `bericht`
 * for reports. Thumbnails are in
 * `thumbs/` beside the file.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.js';
import { entityRoot, ecmFilepath } from './ecm.js';
import { dolSanitizeFileName } from './filenames.js';

/** The owners of files the service serves: Dolibarr's element types, plus the reports. */
export type ElementType = 'commande' | 'facture' | 'propal' | 'fichinter';
export type FileOwner = ElementType | 'bericht';

export const MODULE_DIRS: Readonly<Record<FileOwner, string>> = {
  commande: 'commande',
  facture: 'facture',
  propal: 'propale',
  fichinter: 'ficheinter',
  bericht: 'bericht',
};

export interface ObjectFolder {
  /** Absolute path of the folder. */
  dir: string;
  /** ecm_files.filepath of the folder, e.g. `commande/CO2401-0001` (`2/commande/…` for entity 2). */
  filepath: string;
  /** The folder's name: the sanitized ref. */
  name: string;
}

export function objectFolder(dataRoot: string, entity: number, owner: FileOwner, ref: string): ObjectFolder {
  const name = dolSanitizeFileName(ref);
  if (!name || name === '.' || name === '..') throw new AppError('FILE_NOT_FOUND');
  const rel = `${MODULE_DIRS[owner]}/${name}`;
  return { dir: path.join(entityRoot(dataRoot, entity), MODULE_DIRS[owner], name), filepath: ecmFilepath(entity, rel), name };
}

/**
 * The segments of `relative` when it is a plain relative path, else FILE_PATH_INVALID: not empty,
 * not absolute, no `.`/`..`/empty segments, no backslash, NUL or control character, and none of
 * the encoded forms of `.`, `/`, `\\` or NUL left after the query string's one decoding, however
 * deeply encoded (`%2e`, `%252e`, `%25252e`, …). Checked without touching the disk, so a refused path is refused the same way whether
 * or not its object exists. Other `%` are ordinary characters of a name.
 */
export function checkRelativePath(relative: string): string[] {
  if (!relative || relative.length > 1000) throw new AppError('FILE_PATH_INVALID');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(relative) || /%(25)*(2e|2f|5c|00)/i.test(relative)) throw new AppError('FILE_PATH_INVALID');
  if (relative.startsWith('/') || path.isAbsolute(relative)) throw new AppError('FILE_PATH_INVALID');
  const segments = relative.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw new AppError('FILE_PATH_INVALID');
  return segments;
}

/** `real` (a realpath) lies strictly inside `realFolder` (a realpath). */
export function isInside(real: string, realFolder: string): boolean {
  return real.startsWith(realFolder + path.sep);
}

/**
 * The real path of `relative` inside `folder`, refusing every way out: checkRelativePath, then
 * links that resolve outside the folder. A file that does not exist is FILE_NOT_FOUND.
 */
export async function resolveInside(folder: string, relative: string): Promise<string> {
  const segments = checkRelativePath(relative);
  let real: string;
  let realFolder: string;
  try {
    [real, realFolder] = await Promise.all([realpath(path.join(folder, ...segments)), realpath(folder)]);
  } catch {
    throw new AppError('FILE_NOT_FOUND');
  }
  if (!isInside(real, realFolder)) throw new AppError('FILE_PATH_INVALID');
  return real;
}
