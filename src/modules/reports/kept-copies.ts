/**
 * What a signature covers, kept where nobody deletes it by accident. A signature's hash covers the
 * bytes of every image the pages before it show (signature-hash.ts). Most of them are attachments
 * of the order, invoice or proposal (`commande/<ref>/IMG_1.jpg`), which Dolibarr's own screens
 * offer to delete (the document tab's trash icon, the ECM screens). So when a signature is made,
 * each covered image outside the report's own folder is copied into
 *
 *   bericht/<report ref>/signiert/<signature image name without extension>/<source_path>
 *
 * (one folder per signature, the image's source path below it), and the hash is taken of that copy.
 * When the original is gone, the check of the signature (API, public check, `fieldreport verify`)
 * and the PDF read the kept copy instead, so the signature stays valid. An original that is still
 * there is read as before: a file replaced or altered behind the service's back still fails the
 * check. The kept copies have no `ecm_files` row (Dolibarr lists and deletes nothing of them),
 * Dolibarr's document.php never serves them (the module's hook serves only `<ref>/<file>` and
 * `<ref>/thumbs/<file>`), and they go with the report's folder when the report is deleted. A new
 * version leaves the signatures out and needs none.
 *
 * Copies, not hard links: Dolibarr's image tools may rewrite an attachment in place, which would
 * change a hard link's bytes too. Each copy is written under a temporary name and renamed, like
 * every file of the service; a failed signature removes its folder of copies again.
 */
import { constants } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { tempName } from '../../adapters/runs.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { readItems } from './checklist.js';
import type { PageRow } from './reports.repository.js';
import { resolveSource, WORK_AREA_DIR } from './work-area.js';

/** The folder of a report's work area that holds the kept copies, one subfolder per signature. */
export const KEPT_DIR = 'signiert';

/** The image files a page shows, as its hash covers them: its image(s) and a checklist's photos. */
export function pageImagePaths(page: Pick<PageRow, 'source_path' | 'source_path_2' | 'layout' | 'checklist'>): string[] {
  const paths = [page.source_path, page.source_path_2].filter((p): p is string => !!p);
  if (page.layout === 'checklist') for (const item of readItems(page.checklist)) paths.push(...item.photos);
  return paths;
}

/** The folder of the kept copies of the signature whose image is `signatureImageRel` (a source path). */
export function keptFolderOf(signatureImageRel: string): string {
  const base = path.posix.basename(signatureImageRel).replace(/\.[^.]+$/, '');
  return `${path.posix.dirname(signatureImageRel)}/${KEPT_DIR}/${base}`;
}

/** The source path of the kept copy of `relPath` for the signature whose image is `signatureImageRel`. */
export function keptCopyPath(signatureImageRel: string, relPath: string): string {
  return `${keptFolderOf(signatureImageRel)}/${relPath}`;
}

/** Whether an image needs a kept copy: everything outside the report's own folder `bericht/<folder>/`. */
export function needsKeptCopy(relPath: string, reportFolderName: string): boolean {
  return !relPath.startsWith(`${WORK_AREA_DIR}/${reportFolderName}/`);
}

/**
 * For the pages of a report in order: each covered image's kept copies (source paths), the earliest
 * signature's first. Only images of pages before a signature page have any.
 */
export function keptCopiesOf(pages: readonly PageRow[]): Map<string, string[]> {
  const kept = new Map<string, string[]>();
  for (const [index, page] of pages.entries()) {
    if (page.layout !== 'signature' || !page.source_path) continue;
    for (const before of pages.slice(0, index)) {
      for (const relPath of pageImagePaths(before)) {
        const list = kept.get(relPath) ?? [];
        const copy = keptCopyPath(page.source_path, relPath);
        if (!list.includes(copy)) list.push(copy);
        kept.set(relPath, list);
      }
    }
  }
  return kept;
}

/**
 * The real path of a page image: the file itself, or when it is gone, the first of its kept copies
 * that is there; the original's error (FILE_NOT_FOUND, …) when none is.
 */
export async function resolveKept(dataRoot: string, entity: number, relPath: string, kept: ReadonlyMap<string, readonly string[]>): Promise<string> {
  try {
    return await resolveSource(dataRoot, entity, relPath);
  } catch (error) {
    for (const copy of kept.get(relPath) ?? []) {
      const found = await resolveSource(dataRoot, entity, copy).catch(() => undefined);
      if (found) return found;
    }
    throw error;
  }
}

/**
 * Copies each of `relPaths` that lies outside the report's folder into the kept folder of the
 * signature `signatureImageRel` (made now, under temporary names, then renamed). Answers the real
 * path of each copy by source path and the kept folder's real path (to remove when the signature
 * fails). A source that is gone is left out; the signature's hash then refuses it.
 */
export async function keepCopies(
  dataRoot: string,
  entity: number,
  reportFolderName: string,
  signatureImageRel: string,
  relPaths: readonly string[],
): Promise<{ copies: Map<string, string>; dir: string }> {
  const root = entityRoot(dataRoot, entity);
  const dir = path.join(root, keptFolderOf(signatureImageRel));
  const copies = new Map<string, string>();
  for (const relPath of new Set(relPaths)) {
    if (!needsKeptCopy(relPath, reportFolderName)) continue;
    const source = await resolveSource(dataRoot, entity, relPath).catch(() => undefined);
    if (!source) continue;
    // A source path is plain and relative (resolveSource checked it); the copy stays below `dir` all the same.
    const target = path.resolve(dir, relPath);
    if (!target.startsWith(dir + path.sep)) continue;
    await mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(path.dirname(target), tempName('kept'));
    try {
      await copyFile(source, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    copies.set(relPath, target);
  }
  return { copies, dir };
}
