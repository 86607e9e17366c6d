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
 * Copies of the originals, never hard links to them: Dolibarr's image tools may rewrite an
 * attachment in place, which would change a hard link's bytes too. A kept copy itself is never
 * changed, so a later signature of the same report that covers the same image hard-links the
 * earlier signature's copy when it holds the same bytes (or when the original is gone: "the
 * technician signs, then the customer signs" after the photo was deleted), and N signatures cost
 * the disk one copy. Each file is made under a temporary name and then linked to its name (never
 * renamed over one: on a case-insensitive file system two source paths may name one copy); the
 * original is looked at (size, times, inode) before and after the copy, and a copy of an original
 * that changed meanwhile is refused (REPORT_SOURCE_CHANGED), never signed. The hash of each kept
 * copy is taken while making it (the copy's bytes, read once) and handed back for the signature.
 *
 * While a signature is being made its kept folder holds a marker `.signing-<run>`; a folder without
 * a signature page row is removed by the recovery once its run is dead (or, without a marker, once
 * it is older than any request could be). A failed signature removes its folder at once.
 */
import { constants } from 'node:fs';
import { copyFile, link, mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../errors.js';
import { RUN_ID, tempName } from '../../adapters/runs.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { fileSha256 } from '../signatures/signature-hash.js';
import { readItems } from '../pages/checklist.js';
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
export async function resolveKept(
  dataRoot: string,
  entity: number,
  relPath: string,
  kept: ReadonlyMap<string, readonly string[]>,
): Promise<string> {
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

/** The marker of the run making a signature's kept folder (removed once the signature is stored). */
export const SIGNING_MARKER_PREFIX = '.signing-';
export const signingMarker = (): string => `${SIGNING_MARKER_PREFIX}${RUN_ID}`;

/** What tells an original changed: size, modification and change time, inode. */
const fingerprint = (info: { size: number; mtimeMs: number; ctimeMs: number; ino: number }) =>
  `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}`;

/**
 * `target` becomes a hard link to `from` (a file system without hard links: a copy, never over an
 * existing file). EEXIST: what is there is kept when it holds the same bytes (`sha256`; on a
 * case-insensitive file system two source paths can name one copy), else REPORT_SOURCE_CHANGED.
 */
async function linkOrCopy(from: string, target: string, sha256: string, relPath: string): Promise<void> {
  try {
    try {
      await link(from, target);
    } catch (error) {
      if (!['EPERM', 'EXDEV', 'ENOTSUP', 'EMLINK', 'ENOSYS'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      await copyFile(from, target, constants.COPYFILE_EXCL);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if ((await fileSha256(target)) !== sha256) throw new AppError('REPORT_SOURCE_CHANGED', { details: { changed: [{ source: relPath }] } });
  }
}

/**
 * Keeps each of `relPaths` that lies outside the report's folder in the kept folder of the
 * signature `signatureImageRel` (its path: keptFolderOf; the caller removes it when the signature
 * fails, whatever failed). `earlier`: the kept copies of the report's earlier signatures
 * (keptCopiesOf): one holding the original's bytes is hard-linked instead of copied again, and
 * one is taken when the original is gone. Answers each kept copy's real path and SHA-256 by source
 * path; a source that is gone with no earlier copy is left out (the signature's hash then refuses
 * it). An original that changes during its copy: REPORT_SOURCE_CHANGED.
 */
export async function keepCopies(
  dataRoot: string,
  entity: number,
  reportFolderName: string,
  signatureImageRel: string,
  relPaths: readonly string[],
  earlier: ReadonlyMap<string, readonly string[]> = new Map(),
): Promise<Map<string, { path: string; sha256: string }>> {
  const root = entityRoot(dataRoot, entity);
  const dir = path.join(root, keptFolderOf(signatureImageRel));
  const copies = new Map<string, { path: string; sha256: string }>();
  let marked = false;
  for (const relPath of new Set(relPaths)) {
    if (!needsKeptCopy(relPath, reportFolderName)) continue;
    // A source path is plain and relative (resolveSource checks it); the copy stays below `dir` all the same.
    const target = path.resolve(dir, relPath);
    if (!target.startsWith(dir + path.sep)) continue;
    const source = await resolveSource(dataRoot, entity, relPath).catch(() => undefined);
    const previous: string[] = [];
    for (const copy of earlier.get(relPath) ?? []) {
      const found = await resolveSource(dataRoot, entity, copy).catch(() => undefined);
      if (found) previous.push(found);
    }
    if (!source && previous.length === 0) continue;
    if (!marked) {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, signingMarker()), '');
      marked = true;
    }
    await mkdir(path.dirname(target), { recursive: true });
    if (!source) {
      // The original is gone (deleted in Dolibarr): the earlier signature's copy is what there is.
      const sha256 = await fileSha256(previous[0]!);
      await linkOrCopy(previous[0]!, target, sha256, relPath);
      copies.set(relPath, { path: target, sha256 });
      continue;
    }
    const before = await stat(source);
    const unchanged = async () =>
      fingerprint(await stat(source).catch(() => ({ size: -1, mtimeMs: 0, ctimeMs: 0, ino: 0 }))) === fingerprint(before);
    // An earlier signature's copy of the same size is compared by hash; the same bytes are linked, not copied.
    let sha256: string | undefined;
    let same: string | undefined;
    for (const copy of previous) {
      if ((await stat(copy)).size !== before.size) continue;
      sha256 ??= await fileSha256(source);
      if ((await fileSha256(copy)) === sha256) {
        same = copy;
        break;
      }
    }
    if (same && sha256) {
      if (!(await unchanged())) throw new AppError('REPORT_SOURCE_CHANGED', { details: { changed: [{ source: relPath }] } });
      await linkOrCopy(same, target, sha256, relPath);
      copies.set(relPath, { path: target, sha256 });
      continue;
    }
    const temp = path.join(path.dirname(target), tempName('kept'));
    try {
      await copyFile(source, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      const copied = await fileSha256(temp);
      // Written to while copied: the copy may be torn, and a torn copy is never signed.
      if (!(await unchanged())) throw new AppError('REPORT_SOURCE_CHANGED', { details: { changed: [{ source: relPath }] } });
      await linkOrCopy(temp, target, copied, relPath);
      copies.set(relPath, { path: target, sha256: copied });
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }
  return copies;
}
