/**
 * Endpoint 25: a voice recording of an order, turned into text by the speech-to-text server the
 * administrators configured (transcription.settings.ts), and kept beside the recording
 * (transcript-cache.ts) so the same recording is not sent twice.
 *
 * Checks, in this order (so an answer never tells more than the caller may know):
 * 1. the path's syntax (`<order folder>/<name>` or `commande/<order folder>/<name>`): 400 FILE_PATH_INVALID;
 * 2. the order, under the caller's visibility: 404 ORDER_NOT_FOUND, for a foreign order as for a missing one;
 * 3. the file, resolved inside the order's folder (a link leading out is 400): 404 FILE_NOT_FOUND;
 * 4. its bytes: WebM, MP4/M4A, MP3 or Ogg audio, else 415 UPLOAD_TYPE_UNSUPPORTED;
 * 5. the settings: 503 TRANSCRIBE_NOT_CONFIGURED;
 * then the kept transcript, or the server (at most MAX_RUNNING at once per process).
 */
import { stat } from 'node:fs/promises';
import { sql, type SqlBool } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { checkRelativePath, MODULE_DIRS, objectFolder, resolveInside, type ObjectFolder } from '../../dolibarr/documents.js';
import { dolSanitizeFileName } from '../../dolibarr/filenames.js';
import { AppError } from '../../errors.js';
import { notFoundCode, type Caller, type ElementAccess } from '../access/element-access.js';
import { createLimiter } from '../common/limiter.js';
import { detectUploadType } from '../uploads/upload-types.js';
import { createOpenAiClient } from './openai.client.js';
import type { SttClient } from './stt-client.js';
import { readTranscriptCache, transcriptPath, writeTranscriptCache, type Transcript } from './transcript-cache.js';
import { loadTranscribeSettings, normalizeLanguage, type TranscribeSettings } from './transcription.settings.js';
import { createWhisperAsrClient } from './whisper-asr.client.js';

/** Recordings sent to the server at once per process; more wait (up to MAX_WAITING), then 503 TRANSCRIBE_BUSY. */
export const MAX_RUNNING = 4;
const MAX_WAITING = 32;

export interface TranscribeInput {
  relpath: string;
  force?: boolean;
  lang?: string;
}

export interface TranscribeResult {
  text: string;
  language: string;
  mode: string;
  cached: boolean;
  relpath: string;
  created: number;
}

export interface TranscriptionService {
  transcribe(input: TranscribeInput, user: Caller, log: FastifyBaseLogger): Promise<TranscribeResult>;
}

function clientFor(settings: TranscribeSettings): SttClient {
  return settings.mode === 'openai'
    ? createOpenAiClient({ url: settings.url, apiKey: settings.apiKey, model: settings.model, timeoutMs: settings.timeoutMs })
    : createWhisperAsrClient({ url: settings.url, apiKey: settings.apiKey, timeoutMs: settings.timeoutMs });
}

/** Whose folders hold voice notes. */
type FolderOwner = 'commande' | 'fichinter';

export function createTranscriptionService(deps: {
  config: Pick<Config, 'dataRoot' | 'entity' | 'transcribe'>;
  db: Db;
  access: ElementAccess;
  consts: ConstRepository;
}): TranscriptionService {
  const { config, db, access, consts } = deps;
  const limit = createLimiter(MAX_RUNNING, MAX_WAITING, () => new AppError('TRANSCRIBE_BUSY', { headers: { 'retry-after': '5' } }));

  /** `[whose folder, folder, file name]` of a relpath (an order's unless it starts with `ficheinter/`), or 400. */
  function splitRelpath(relpath: string): [FolderOwner, string, string] {
    let segments = checkRelativePath(relpath);
    let owner: FolderOwner = 'commande';
    if (segments.length === 3 && segments[0] === MODULE_DIRS.commande) segments = segments.slice(1);
    else if (segments.length === 3 && segments[0] === MODULE_DIRS.fichinter) {
      owner = 'fichinter';
      segments = segments.slice(1);
    }
    // A file directly in the object's folder, as the attachment list and voice uploads name them.
    if (segments.length !== 2)
      throw new AppError('FILE_PATH_INVALID', { message: 'relpath nennt eine Datei eines Auftrags: <Auftragsnummer>/<Dateiname>' });
    return [owner, segments[0]!, segments[1]!];
  }

  /** The folder of the visible order (intervention) whose folder name is `name` (the ref as Dolibarr cleans it for folders). */
  async function orderFolder(owner: FolderOwner, name: string, user: Caller): Promise<ObjectFolder> {
    const notFound = notFoundCode(owner);
    let ref = (await access.getByRef(owner, name, user))?.ref;
    if (ref === undefined && name.includes('_')) {
      // `CO/24:01` lives in `CO_24_01`: '_' stands for any one character Dolibarr replaced.
      const pattern = name.replace(/[!%]/g, (c) => `!${c}`);
      const rows = await db
        .selectFrom(`${owner} as o` as 'commande as o')
        .select('o.ref')
        .where(sql<SqlBool>`${sql.ref('o.ref')} like ${pattern} escape '!'`)
        .where(() => access.visible(owner, user, 'o'))
        .limit(50)
        .execute();
      ref = rows.map((r) => r.ref).find((r) => dolSanitizeFileName(r) === name);
    }
    if (ref === undefined) throw new AppError(notFound);
    const folder = objectFolder(config.dataRoot, config.entity, owner, ref);
    // A case-insensitive collation finds `co2401-0001` for `CO2401-0001`: only the exact folder name counts.
    if (folder.name !== name) throw new AppError(notFound);
    return folder;
  }

  return {
    async transcribe(input, user, log) {
      const [owner, folderName, name] = splitRelpath(input.relpath);
      const folder = await orderFolder(owner, folderName, user);
      const real = await resolveInside(folder.dir, name);
      const info = await stat(real);
      if (!info.isFile()) throw new AppError('FILE_NOT_FOUND');
      const type = await detectUploadType(real, 'audio');
      if (!type)
        throw new AppError('UPLOAD_TYPE_UNSUPPORTED', { message: 'Die Datei ist keine Sprachaufnahme (WebM, MP4/M4A, MP3 oder Ogg)' });

      const settings = await loadTranscribeSettings(consts, config.transcribe, log);
      const language = input.lang !== undefined ? normalizeLanguage(input.lang) : settings.language;
      if (!language) throw new AppError('VALIDATION_FAILED', { details: [{ field: 'body.lang', message: 'must be a language code' }] });
      const relpath = owner === 'commande' ? `${folder.name}/${name}` : `${MODULE_DIRS.fichinter}/${folder.name}/${name}`;
      const cacheFile = transcriptPath(folder.dir, name);
      const key = { name, size: info.size, mtimeMs: info.mtimeMs, language };

      if (!input.force) {
        const kept = await readTranscriptCache(cacheFile, key);
        if (kept) return { text: kept.text, language: kept.language, mode: kept.mode, cached: true, relpath, created: kept.created };
      }

      const started = Date.now();
      let result;
      try {
        result = await limit(() =>
          clientFor(settings).transcribe({ file: real, filename: `audio.${type.ext}`, mime: type.mime, language }),
        );
      } catch (error) {
        if (error instanceof AppError) {
          // Where and why, never the key (the address has no credentials: settings refuse them).
          log.warn(
            { transcribe: { mode: settings.mode, host: new URL(settings.url).host, code: error.code, details: error.details } },
            'speech-to-text failed',
          );
        }
        throw error;
      }
      const transcript: Transcript = {
        text: result.text,
        language: language === 'auto' ? (result.language ?? 'auto') : language,
        requested_language: language,
        mode: settings.mode,
        created: Math.floor(Date.now() / 1000),
        source: { name, size: info.size, mtime_ms: info.mtimeMs },
      };
      log.info({ transcribe: { mode: settings.mode, ms: Date.now() - started, bytes: info.size } }, 'speech-to-text done');
      try {
        await writeTranscriptCache(cacheFile, transcript);
      } catch (error) {
        // The text was made (and maybe paid for): the caller gets it even when it cannot be kept.
        log.warn({ err: error }, 'transcript could not be kept beside the recording');
      }
      return {
        text: transcript.text,
        language: transcript.language,
        mode: transcript.mode,
        cached: false,
        relpath,
        created: transcript.created,
      };
    },
  };
}
