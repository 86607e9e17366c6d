/**
 * Photo and voice uploads into an order's folder, as Dolibarr's dol_add_file_process does it, in
 * an order that leaves nothing half-done visible, also when the process is killed at any moment:
 * 1. the part is streamed to a temporary file inside the folder (never held in memory; its name
 *    carries the run id, runs.ts), its md5 computed on the way, at most cap + 1 bytes written (the
 *    multipart limit), so "too large" is known without reading further;
 * 2. the type is decided from the bytes; raster images are opened with sharp (header, pixel limit);
 * 3. the name is the client's, cleaned as dol_sanitizeFileName does, with the extension of the
 *    detected type; an existing name gets `_2`, `_3`, …;
 * 4. the `ecm_files` row reserves the name (its unique index decides between two requests), in
 *    one transaction with an intent of this run and the answer planned for an idempotency claim;
 * 5. PNG and WebP photos get both Dolibarr thumbnails (EXIF orientation applied), which decodes
 *    them whole (a corrupt one is refused);
 * 6. the temporary file is hard-linked to the name (EEXIST: a file without a row is there; next
 *    name): only now is the upload visible, with its row;
 * 7. the intent goes; for a JPEG only once its thumbnails are written. A JPEG's structure was
 *    checked as it arrived (jpeg-structure.ts: cut off or garbage after its header is refused);
 *    it is decoded once after the answer, for both thumbnails and its print copy
 *    (print-image.ts, preparePhoto), which an outbox draining photo after photo does not wait for.
 * A failure removes what was written (compensation). A kill between 4 and 7 leaves an intent: the
 * next start (recovery.ts) or a retry with the same Idempotency-Key keeps file and row when both
 * are there and removes both otherwise. The caller gets `undo` too, for a failure after this
 * service returned (storing the idempotent answer).
 */
import { fileUrlOf } from '../files/file-path.js';
import { createHash } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { copyFile, link, mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { tempName, type RunRegistry } from '../../adapters/runs.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { endIntent, settleFile } from '../maintenance/file-intents.js';
import { MAX_INPUT_PIXELS, THUMBNAIL_SIZE_NAMES, ensureThumbsFolder, thumbnailPath, writeThumbnails } from '../../adapters/image.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { objectFolder } from '../../dolibarr/documents.js';
import { ecmFileRef } from '../../dolibarr/ecm.js';
import { firstFreeName, uploadFileName } from '../../dolibarr/filenames.js';
import { AppError } from '../../errors.js';
import { detectUploadType, type AcceptedType, type UploadKind } from './upload-types.js';
import type { UploadsRepository } from './uploads.repository.js';
import { readPhotoExif } from '../../adapters/exif.js';
import { JpegStructure } from '../../adapters/jpeg-structure.js';
import { toDbDateTime } from '../../db/dialect.js';
import {
  newEvidenceRow,
  readEvidenceFields,
  toEvidenceResponse,
  type NewPhotoEvidenceRow,
  type PhotoEvidenceResponse,
} from '../photo-evidence/photo-evidence.js';

export interface IncomingFile {
  /** The part's content; `truncated` is set by busboy when the size limit cut it. */
  stream: Readable & { truncated?: boolean };
  /** The name the client sent (may be empty, may hold anything). */
  filename: string;
  /**
   * The form's text fields, before and after the file (read on after the file was received);
   * a field that is malformed as a field (a file under its name, cut off, twice) is 400 naming it.
   * @default none
   */
  fields?: () => Promise<Record<string, string>>;
}

/** The object a file goes into: an order unless `type` says an intervention. */
export interface UploadTarget {
  id: number;
  ref: string;
  type?: 'commande' | 'fichinter';
}

/** The attachment entry, the same shape the order's attachment list uses. */
export interface UploadResponse {
  name: string;
  size: number;
  type: string;
  mtime: number;
  url: string;
  thumb_small_url: string | null;
  thumb_mini_url: string | null;
  /** A photo's evidence (photo-evidence.ts); null for audio. */
  evidence: PhotoEvidenceResponse | null;
}

export interface AttachedUpload {
  response: UploadResponse;
  /** The stored file. */
  file: string;
  /** Whether it is a photo a report page can show (JPEG, PNG, WebP). */
  raster: boolean;
  /** SHA-256 (hex) of the bytes received, which the file holds. */
  sha256: string;
  /**
   * For a JPEG, whose thumbnails are made after the answer (see the module comment): ends the
   * upload's intent once they are written. Undefined when the upload is complete already.
   */
  settle?: () => Promise<void>;
  /** Removes the file, its thumbnails and its ecm_files row. */
  undo(): Promise<void>;
}

export interface UploadServiceDeps {
  repo: UploadsRepository;
  consts: ConstRepository;
  dataRoot: string;
  entity: number;
  /** Largest accepted upload in bytes, per kind. */
  caps: Readonly<Record<UploadKind, number>>;
  runs: RunRegistry;
  /** Time an upload may send nothing before it is given up (UPLOAD_IDLE_SECONDS). @default UPLOAD_IDLE_MS */
  idleMs?: number;
}

/** An upload that sends nothing for this long is given up (its temporary file and key are freed); the setting UPLOAD_IDLE_SECONDS. */
export const UPLOAD_IDLE_MS = 60_000;

/** Streams `stream` to `temp`, hashing and counting; `tooLarge` when it passed `cap` or was cut. */
async function receive(
  file: IncomingFile,
  temp: string,
  cap: number,
  idleMs: number,
): Promise<{ size: number; md5: string; sha256: string; tooLarge: boolean; jpeg: JpegStructure }> {
  const hash = createHash('md5');
  // A JPEG's structure, checked on the way (consulted only when the bytes are a JPEG).
  const jpeg = new JpegStructure();
  // The photo's evidence: the SHA-256 of the bytes as they arrived, before anything reads them.
  const sha256 = createHash('sha256');
  let size = 0;
  // A phone that drops off without closing the connection would otherwise hold the upload open.
  let idle: NodeJS.Timeout | undefined;
  const stalled = () =>
    file.stream.destroy(new AppError('UPLOAD_MISSING', { message: 'Die Übertragung ist abgebrochen (keine Daten mehr empfangen)' }));
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      idle?.refresh();
      size += chunk.length;
      hash.update(chunk);
      sha256.update(chunk);
      jpeg.update(chunk);
      done(null, chunk);
    },
  });
  idle = setTimeout(stalled, idleMs);
  const out = createWriteStream(temp, { flags: 'wx', mode: 0o644 });
  try {
    await pipeline(file.stream, meter, out);
  } catch (error) {
    // A body that breaks off at once can fail the pipeline while the file is still being opened:
    // until the stream has closed, a removal of the file could be followed by its creation.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return { size, md5: '', sha256: '', tooLarge: true, jpeg };
    if (error instanceof AppError) throw error;
    // A system error writing the file (ENOSPC, EACCES, …) is ours; anything else is a body that
    // ended early or broke the multipart form: the client's.
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw error;
    throw new AppError('UPLOAD_MISSING', { message: 'Die Datei kam unvollständig an' });
  } finally {
    clearTimeout(idle);
  }
  return { size, md5: hash.digest('hex'), sha256: sha256.digest('hex'), tooLarge: size > cap || file.stream.truncated === true, jpeg };
}

/** A raster image sharp can open, within the pixel limit; anything else is IMAGE_INVALID. */
async function checkImage(file: string): Promise<void> {
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ width, height } = await sharp(file, { limitInputPixels: MAX_INPUT_PIXELS }).metadata());
  } catch {
    throw new AppError('IMAGE_INVALID');
  }
  if (!width || !height) throw new AppError('IMAGE_INVALID');
  if (width * height > MAX_INPUT_PIXELS) {
    throw new AppError('IMAGE_INVALID', {
      message: `Das Bild hat zu viele Bildpunkte (höchstens ${MAX_INPUT_PIXELS / 1_000_000} Megapixel)`,
    });
  }
}

/**
 * Makes `temp` visible as `target` without ever overwriting: a hard link, which fails with EEXIST
 * when the name is taken; on file systems without hard links (some network shares) an exclusive
 * copy. Returns false when the name is taken.
 */
async function placeExclusive(temp: string, target: string): Promise<boolean> {
  try {
    await link(temp, target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw error;
  }
  try {
    await copyFile(temp, target, constants.COPYFILE_EXCL);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    await rm(target, { force: true }); // a copy cut short (a full disk) leaves no half file
    throw error;
  }
}

/** What was received and checked, still under its temporary name. */
interface Received {
  type: AcceptedType;
  md5: string;
  sha256: string;
  size: number;
  mtime: number;
}

export function createUploadService(deps: UploadServiceDeps) {
  const { repo, consts, dataRoot, entity, caps, runs } = deps;

  /** Streams the part to a temporary file in the folder and checks its type and pixels. */
  async function receiveChecked(kind: UploadKind, file: IncomingFile, temp: string): Promise<Received> {
    const received = await receive(file, temp, caps[kind], deps.idleMs ?? UPLOAD_IDLE_MS);
    if (received.tooLarge) {
      throw new AppError('UPLOAD_TOO_LARGE', {
        message: `Die Datei ist zu groß (höchstens ${caps[kind]} Bytes)`,
        details: { max_bytes: caps[kind] },
      });
    }
    if (received.size === 0) throw new AppError('UPLOAD_MISSING', { message: 'Die übertragene Datei ist leer' });
    const type = await detectUploadType(temp, kind);
    if (!type) throw new AppError('UPLOAD_TYPE_UNSUPPORTED');
    if (type.mime === 'image/jpeg') {
      const problem = received.jpeg.result();
      if (problem !== undefined) throw new AppError('IMAGE_INVALID', { message: `Das Bild ist beschädigt (${problem})` });
    }
    if (type.raster) await checkImage(temp);
    const info = await stat(temp);
    return { type, md5: received.md5, sha256: received.sha256, size: received.size, mtime: Math.floor(info.mtimeMs / 1000) };
  }

  /** Both thumbnails of the file to be `target`, read from the temporary file. */
  async function thumbnails(target: string, temp: string): Promise<void> {
    await writeThumbnails(target, temp).catch((error: unknown) => {
      // sharp's decoding errors (corrupt data past the header) are the user's file; I/O errors are ours.
      if (typeof (error as { code?: unknown }).code === 'string') throw error;
      throw new AppError('IMAGE_INVALID');
    });
  }

  const removeFiles = async (files: string[]) => {
    // Every file is tried even when one fails (a `thumbs` that is no folder makes its rm fail).
    const results = await Promise.allSettled(files.map((f) => rm(f, { force: true })));
    const failed = results.find(
      (r): r is PromiseRejectedResult => r.status === 'rejected' && (r.reason as NodeJS.ErrnoException)?.code !== 'ENOTDIR',
    );
    if (failed) throw failed.reason;
  };

  return {
    /**
     * Stores `file` in the order's folder; see the module comment for the steps. `claim` is the
     * request's idempotency claim: its answer is planned with the reservation, so a retry after a
     * crash finds it (idempotency.ts).
     */
    async attach(
      kind: UploadKind,
      order: UploadTarget,
      file: IncomingFile,
      userId: number,
      claim?: { userId: number; key: string },
    ): Promise<AttachedUpload> {
      const owner = order.type ?? 'commande';
      const folder = objectFolder(dataRoot, entity, owner, order.ref);
      // The first folder made here, if any: a refused upload takes it away again when it stays empty.
      const created = await mkdir(folder.dir, { recursive: true });
      const temp = path.join(folder.dir, tempName('upload'));
      let placed = false;
      try {
        const received = await receiveChecked(kind, file, temp);
        const { type } = received;
        // A photo's evidence: what the phone sent with it (a malformed field refuses the upload:
        // the temporary file goes) and its EXIF time and place, as received.
        const evidenceOf =
          kind === 'photo'
            ? await (async () => {
                const input = readEvidenceFields((await file.fields?.()) ?? {});
                const exif = await readPhotoExif(temp);
                const at = toDbDateTime();
                return (name: string): NewPhotoEvidenceRow =>
                  newEvidenceRow(
                    { entity, filepath: folder.filepath, filename: name },
                    { sha256: received.sha256, size: received.size, at, userId },
                    exif,
                    input,
                  );
              })()
            : undefined;
        const salt = (await consts.getMany(['MAIN_SECURITY_SALT'])).get('MAIN_SECURITY_SALT') ?? '';
        const wanted = uploadFileName(file.filename, type.ext);
        // Names are compared without case: MariaDB's ecm_files key folds case, and 'Photo.jpg'
        // beside 'photo.jpg' would be one file to Dolibarr on a case-insensitive share.
        const taken = new Set(
          [...(await readdir(folder.dir)), ...(await repo.indexedNames(entity, folder.filepath))].map((n) => n.toLowerCase()),
        );
        for (let attempt = 0; attempt < 1000; attempt++) {
          const name = firstFreeName(wanted, (n) => taken.has(n.toLowerCase()));
          const target = path.join(folder.dir, name);
          // uploadFileName leaves no separator; checked anyway, as every path built from input is.
          if (path.dirname(target) !== folder.dir) throw new AppError('FILE_PATH_INVALID');
          const evidence = evidenceOf?.(name);
          const response: UploadResponse = {
            name,
            size: received.size,
            type: type.mime,
            mtime: received.mtime,
            url: fileUrlOf(owner, `${folder.name}/${name}`),
            thumb_small_url: type.raster ? fileUrlOf(owner, `${folder.name}/${name}`, 'small') : null,
            thumb_mini_url: type.raster ? fileUrlOf(owner, `${folder.name}/${name}`, 'mini') : null,
            evidence: evidence ? toEvidenceResponse(evidence) : null,
          };
          const ecm = { entity, filepath: folder.filepath, filename: name };
          // 1. The row reserves the name (and records the intent and the planned answer).
          let rowid: number;
          try {
            rowid = await repo.reserveFile(
              {
                ...ecm,
                ref: ecmFileRef(salt, folder.filepath, name),
                label: received.md5,
                srcObjectType: owner,
                srcObjectId: order.id,
                fullpathOrig: file.filename,
                fkUserC: userId,
              },
              claim && { ...claim, response: JSON.stringify(response) },
              evidence,
            );
          } catch (error) {
            if (!isUniqueViolation(error)) throw error;
            taken.add(name.toLowerCase());
            continue;
          }
          const thumbs = type.raster ? THUMBNAIL_SIZE_NAMES.map((s) => thumbnailPath(target, s)) : [];
          // A JPEG's thumbnails come after the answer, from the decode that makes its print copy.
          const later = type.mime === 'image/jpeg';
          try {
            // 2. Thumbnails (PNG, WebP; a JPEG's folder for them, which must not lead out of the
            // order's), 3. the file under its name: visible only now.
            if (type.raster && !later) await thumbnails(target, temp);
            if (later) await ensureThumbsFolder(target);
            placed = await placeExclusive(temp, target);
          } catch (error) {
            // The original failure is what the client hears about; a failing cleanup must not hide it.
            await removeFiles(thumbs).catch(() => undefined);
            await repo.releaseFile(rowid, ecm).catch(() => undefined);
            throw error;
          }
          if (!placed) {
            // A file Dolibarr placed without a row: leave it, take the next name.
            await removeFiles(thumbs).catch(() => undefined);
            await repo.releaseFile(rowid, ecm);
            taken.add(name.toLowerCase());
            continue;
          }
          // 4. Done: the intent goes (a leftover is settled as complete after a crash, its missing
          // thumbnails made); a JPEG's once its thumbnails are written.
          const settle = () => endIntent(repo.db, entity, folder.filepath, name).catch(() => undefined);
          if (!later) await settle();
          return {
            response,
            file: target,
            raster: type.raster,
            sha256: received.sha256,
            settle: later ? settle : undefined,
            undo: async () => {
              await removeFiles([target, ...thumbs]);
              await repo.deleteEcmFiles(entity, folder.filepath, name);
              await settle();
            },
          };
        }
        throw new Error(`no free name for ${wanted}`);
      } finally {
        await rm(temp, { force: true });
        if (created && !placed) await rmdir(folder.dir).catch(() => undefined); // fails, as it should, when not empty
      }
    },

    /**
     * Whether the upload a dead run planned (its answer) is complete: file and row in place. Its
     * intent, if the start's recovery has not settled it yet, is settled here.
     */
    async confirm(order: Pick<UploadTarget, 'ref' | 'type'>, planned: unknown): Promise<boolean> {
      const name = (planned as { name?: unknown } | null)?.name;
      if (typeof name !== 'string') return false;
      const folder = objectFolder(dataRoot, entity, order.type ?? 'commande', order.ref);
      return settleFile(repo.db, dataRoot, runs, { entity, filepath: folder.filepath, filename: name });
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
