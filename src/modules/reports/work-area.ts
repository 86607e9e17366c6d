/**
 * Files of reports. A page's `source_path` is relative to the entity's documents root, in
 * Dolibarr's layout: `commande/CO2401-0001/IMG_1.jpg` (an attachment of the order) or
 * `bericht/BR2611-0001/IMG_1.jpg` (the reports' work area, docs/architecture.md). Only files in the work area
 * belong to a report: they are copied with it and deleted with it; attachments of orders, invoices
 * and proposals are only ever read.
 */
import { constants } from 'node:fs';
import { copyFile, link, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { tempName } from '../../adapters/runs.js';
import { THUMBNAIL_SIZE_NAMES, thumbnailPath } from '../../adapters/image.js';
import { forgetPrintImage, type PrintQueue } from '../../adapters/print-image.js';
import { imageBoxFor, type ImageBox } from '../../adapters/pdf.js';
import { photosPerSheetOf, type PhotosPerSheet } from './photos-per-sheet.js';
import { MODULE_DIRS, objectFolder, resolveInside, type FileOwner, type ObjectFolder } from '../../dolibarr/documents.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { firstFreeName } from '../../dolibarr/filenames.js';
import { fileUrlOf } from '../files/file-path.js';

export const WORK_AREA_DIR = MODULE_DIRS.bericht;

export function isInWorkArea(relPath: string | null | undefined): boolean {
  return !!relPath && relPath.startsWith(`${WORK_AREA_DIR}/`);
}

export function reportFolder(dataRoot: string, entity: number, ref: string): ObjectFolder {
  return objectFolder(dataRoot, entity, 'bericht', ref);
}

/** `source_path` of a file `name` in the folder of `owner` object `ref`. */
export function sourcePathOf(owner: FileOwner, ref: string, name: string, dataRoot: string, entity: number): string {
  return `${MODULE_DIRS[owner]}/${objectFolder(dataRoot, entity, owner, ref).name}/${name}`;
}

/** The real path of a `source_path`, refusing anything that leaves the documents root; FILE_NOT_FOUND when missing. */
export function resolveSource(dataRoot: string, entity: number, relPath: string): Promise<string> {
  return resolveInside(entityRoot(dataRoot, entity), relPath);
}

/** The file endpoint's link for a `source_path` (`size` for a thumbnail). */
export function sourceUrl(relPath: string | null, size?: (typeof THUMBNAIL_SIZE_NAMES)[number]): string | null {
  if (!relPath) return null;
  const [dir, ...rest] = relPath.split('/');
  const owner = (Object.keys(MODULE_DIRS) as FileOwner[]).find((o) => MODULE_DIRS[o] === dir);
  return owner ? fileUrlOf(owner, rest.join('/'), size) : null;
}

/**
 * Gives `source` a name in `dir`: its own, or `name_2.ext`, … when taken; returns the name used.
 * With `share` (a source in the reports' work area) and on the same file system the new name is a
 * hard link to the same bytes, so a report made from a template (or a new version) costs no space
 * for its images, yet has them under its own names: a work-area image is never changed in place
 * (a change is a new file), so the report keeps what it was made with whatever happens to the
 * template. An order's attachment is copied (Dolibarr's own tools may rewrite it in place). Either way
 * the file gets a temporary name first and is then hard-linked to the chosen name, which fails
 * when another request took it meanwhile: never half a file under a real name, never an overwrite.
 */
export async function copyIntoFolder(source: string, dir: string, share = false): Promise<string> {
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, tempName('copy'));
  const copy = () => copyFile(source, temp, constants.COPYFILE_EXCL);
  if (!share) await copy();
  else {
    await link(source, temp).catch(async (error: NodeJS.ErrnoException) => {
      // Another file system (EXDEV) or one without hard links: a copy.
      if (!['EXDEV', 'EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP', 'EMLINK'].includes(String(error.code))) throw error;
      await copy();
    });
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const taken = new Set((await readdir(dir)).map((n) => n.toLowerCase()));
      const name = firstFreeName(path.basename(source), (candidate) => taken.has(candidate.toLowerCase()));
      try {
        await link(temp, path.join(dir, name));
        return name;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    throw new Error(`no free name for ${path.basename(source)} in ${dir}`);
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Where photos scaled to print size are kept (Dolibarr's `temp/` of the module): shared by every
 * process on the documents folder, so a photo is prepared once for all.
 */
export function printCacheDir(dataRoot: string, entity: number): string {
  return path.join(entityRoot(dataRoot, entity), WORK_AREA_DIR, 'temp', 'print');
}

/**
 * The box a page's images are prepared for (pdf/geometry.ts): the report's paper and layout, the
 * page's kind and quarter turns.
 */
export function pageImageBox(
  report: { format: string; orientation: string; photos_per_sheet?: number | string | null },
  page: { layout: string; rotation: number | string },
  perSheet: PhotosPerSheet = photosPerSheetOf(report),
): ImageBox {
  const format = (['A3', 'A4', 'A5', 'LETTER'] as const).find((f) => f === report.format) ?? 'A4';
  const orientation = report.orientation === 'landscape' ? 'landscape' : 'portrait';
  const rotation = Number(page.rotation);
  return imageBoxFor(
    format,
    orientation,
    perSheet,
    page.layout === 'before_after' ? 'before_after' : 'photo',
    rotation === 90 || rotation === 180 || rotation === 270 ? rotation : 0,
  );
}

/**
 * Has the print-size copies of a page's photos made in the background, so that finalizing finds
 * them ready (print-image.ts). Pages without photos, and signature sheets (drawn as they are),
 * need none.
 */
export function prepareAhead(
  queue: Pick<PrintQueue, 'add'>,
  where: { dataRoot: string; entity: number },
  report: { format: string; orientation: string },
  page: { layout: string; rotation: number | string; source_path: string | null; source_path_2: string | null },
): void {
  if (page.layout !== 'photo' && page.layout !== 'before_after') return;
  const box = pageImageBox(report, page);
  for (const relPath of [page.source_path, page.layout === 'before_after' ? page.source_path_2 : null]) {
    if (relPath)
      void resolveSource(where.dataRoot, where.entity, relPath).then(
        (file) => queue.add(file, box),
        () => undefined,
      );
  }
}

/** Removes a file, its Dolibarr thumbnails and its print-size copy; a file already gone is fine. */
export async function removeWithThumbnails(file: string, printCache: string): Promise<void> {
  await forgetPrintImage(file, printCache);
  await rm(file, { force: true });
  await Promise.all(THUMBNAIL_SIZE_NAMES.map((size) => rm(thumbnailPath(file, size), { force: true })));
}
