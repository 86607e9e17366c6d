/**
 * Photo and voice uploads into an order's folder, as Dolibarr's dol_add_file_process does it:
 * 1. the part is streamed to a temporary file inside the folder (never held in memory), its md5
 *    computed on the way, at most cap + 1 bytes written (the multipart limit), so "too large" is
 *    known without reading further;
 * 2. the type is decided from the bytes; raster images are opened with sharp (pixel limit);
 * 3. the name is the client's, cleaned as dol_sanitizeFileName does, with the extension of the
 *    detected type; an existing name gets `_2`, `_3`, … The choice is atomic: the temporary file is
 *    hard-linked to the name, which fails with EEXIST when another request took it meanwhile;
 * 4. photos get both Dolibarr thumbnails (EXIF orientation applied), then the `ecm_files` row.
 * A failure after the file exists removes the file, its thumbnails and the row (compensation);
 * the caller gets `undo` too, for a failure after this service returned (storing the idempotent answer).
 */
import { fileUrl } from '../files/file-path.js';
import { createHash, randomBytes } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { copyFile, link, mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { MAX_INPUT_PIXELS, THUMBNAIL_SIZE_NAMES, thumbnailPath, writeThumbnails } from '../../adapters/image.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { objectFolder, type ObjectFolder } from '../../dolibarr/documents.js';
import { ecmFileRef } from '../../dolibarr/ecm.js';
import { firstFreeName, uploadFileName } from '../../dolibarr/filenames.js';
import { AppError } from '../../errors.js';
import { detectUploadType, type AcceptedType, type UploadKind } from './upload-types.js';
import type { UploadsRepository } from './uploads.repository.js';

export interface IncomingFile {
  /** The part's content; `truncated` is set by busboy when the size limit cut it. */
  stream: Readable & { truncated?: boolean };
  /** The name the client sent (may be empty, may hold anything). */
  filename: string;
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
}

export interface AttachedUpload {
  response: UploadResponse;
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
}


/** An upload that sends nothing for this long is given up (its temporary file and key are freed). */
export const UPLOAD_IDLE_MS = 60_000;

/** Streams `stream` to `temp`, hashing and counting; `tooLarge` when it passed `cap` or was cut. */
async function receive(file: IncomingFile, temp: string, cap: number): Promise<{ size: number; md5: string; tooLarge: boolean }> {
  const hash = createHash('md5');
  let size = 0;
  // A phone that drops off without closing the connection would otherwise hold the upload open.
  let idle: NodeJS.Timeout | undefined;
  const stalled = () => file.stream.destroy(new AppError('UPLOAD_MISSING', { message: 'Die Übertragung ist abgebrochen (keine Daten mehr empfangen)' }));
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      idle?.refresh();
      size += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
  });
  idle = setTimeout(stalled, UPLOAD_IDLE_MS);
  try {
    await pipeline(file.stream, meter, createWriteStream(temp, { flags: 'wx', mode: 0o644 }));
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') return { size, md5: '', tooLarge: true };
    if (error instanceof AppError) throw error;
    // A system error writing the file (ENOSPC, EACCES, …) is ours; anything else is a body that
    // ended early or broke the multipart form: the client's.
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw error;
    throw new AppError('UPLOAD_MISSING', { message: 'Die Datei kam unvollständig an' });
  } finally {
    clearTimeout(idle);
  }
  return { size, md5: hash.digest('hex'), tooLarge: size > cap || file.stream.truncated === true };
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
    throw new AppError('IMAGE_INVALID', { message: `Das Bild hat zu viele Bildpunkte (höchstens ${MAX_INPUT_PIXELS / 1_000_000} Megapixel)` });
  }
}

/**
 * Gives `temp` the first free name in `dir` atomically (hard link, EEXIST → next name). Names are
 * compared without case (`taken` holds lower-case names): MariaDB's ecm_files key folds case, and
 * 'Photo.jpg' beside 'photo.jpg' would be one file to Dolibarr on a case-insensitive share.
 */
async function placeFile(temp: string, dir: string, wanted: string, taken: Set<string>): Promise<string> {
  for (const entry of await readdir(dir)) taken.add(entry.toLowerCase());
  for (let attempt = 0; attempt < 1000; attempt++) {
    const name = firstFreeName(wanted, (n) => taken.has(n.toLowerCase()));
    const target = path.join(dir, name);
    // uploadFileName leaves no separator; checked anyway, as every path built from input is.
    if (path.dirname(target) !== dir) throw new AppError('FILE_PATH_INVALID');
    try {
      await link(temp, target);
      return name;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        taken.add(name.toLowerCase());
        continue;
      }
      // File systems without hard links (some network shares): an exclusive copy still never overwrites.
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') {
        try {
          await copyFile(temp, target, constants.COPYFILE_EXCL);
          return name;
        } catch (copyError) {
          if ((copyError as NodeJS.ErrnoException).code === 'EEXIST') {
            taken.add(name.toLowerCase());
            continue;
          }
          throw copyError;
        }
      }
      throw error;
    }
  }
  throw new Error(`no free name for ${wanted}`);
}

export function createUploadService(deps: UploadServiceDeps) {
  const { repo, consts, dataRoot, entity, caps } = deps;

  async function store(kind: UploadKind, folder: ObjectFolder, file: IncomingFile): Promise<{ name: string; type: AcceptedType; md5: string }> {
    // The first folder made here, if any: a refused upload takes it away again when it stays empty.
    const created = await mkdir(folder.dir, { recursive: true });
    const temp = path.join(folder.dir, `.upload-${randomBytes(8).toString('hex')}.tmp`);
    try {
      const received = await receive(file, temp, caps[kind]);
      if (received.tooLarge) {
        throw new AppError('UPLOAD_TOO_LARGE', { message: `Die Datei ist zu groß (höchstens ${caps[kind]} Bytes)`, details: { max_bytes: caps[kind] } });
      }
      if (received.size === 0) throw new AppError('UPLOAD_MISSING', { message: 'Die übertragene Datei ist leer' });
      const type = await detectUploadType(temp, kind);
      if (!type) throw new AppError('UPLOAD_TYPE_UNSUPPORTED');
      if (type.raster) await checkImage(temp);
      const wanted = uploadFileName(file.filename, type.ext);
      const name = await placeFile(temp, folder.dir, wanted, new Set((await repo.indexedNames(entity, folder.filepath)).map((n) => n.toLowerCase())));
      return { name, type, md5: received.md5 };
    } catch (error) {
      await rm(temp, { force: true });
      if (created) await rmdir(folder.dir).catch(() => undefined); // fails, as it should, when not empty
      throw error;
    } finally {
      await rm(temp, { force: true });
    }
  }

  return {
    /** Stores `file` in the order's folder; see the module comment for the steps. */
    async attach(kind: UploadKind, order: { id: number; ref: string }, file: IncomingFile, userId: number): Promise<AttachedUpload> {
      const folder = objectFolder(dataRoot, entity, 'commande', order.ref);
      const { name, type, md5 } = await store(kind, folder, file);
      const target = path.join(folder.dir, name);
      let rowid: number | undefined;
      // Every step is tried even when one fails (a `thumbs` that is no folder makes its rm fail).
      const undo = async () => {
        const results = await Promise.allSettled([
          ...[target, ...THUMBNAIL_SIZE_NAMES.map((s) => thumbnailPath(target, s))].map((f) => rm(f, { force: true })),
          rowid !== undefined ? repo.deleteEcmFile(rowid) : Promise.resolve(),
        ]);
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && (r.reason as NodeJS.ErrnoException)?.code !== 'ENOTDIR');
        if (failed) throw failed.reason;
      };
      try {
        if (type.raster) {
          await writeThumbnails(target).catch((error: unknown) => {
            // sharp's decoding errors (corrupt data past the header) are the user's file; I/O errors are ours.
            if (typeof (error as { code?: unknown }).code === 'string') throw error;
            throw new AppError('IMAGE_INVALID');
          });
        }
        const salt = (await consts.getMany(['MAIN_SECURITY_SALT'])).get('MAIN_SECURITY_SALT') ?? '';
        rowid = await repo.createEcmFile({
          ref: ecmFileRef(salt, folder.filepath, name),
          label: md5,
          entity,
          filepath: folder.filepath,
          filename: name,
          srcObjectType: 'commande',
          srcObjectId: order.id,
          fullpathOrig: file.filename,
          fkUserC: userId,
        });
        const info = await stat(target);
        const response: UploadResponse = {
          name,
          size: info.size,
          type: type.mime,
          mtime: Math.floor(info.mtimeMs / 1000),
          url: fileUrl(folder.name, name),
          thumb_small_url: type.raster ? fileUrl(folder.name, name, 'small') : null,
          thumb_mini_url: type.raster ? fileUrl(folder.name, name, 'mini') : null,
        };
        return { response, undo };
      } catch (error) {
        // The original failure is what the client hears about; a failing cleanup must not hide it.
        await undo().catch(() => undefined);
        throw error;
      }
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
