/**
 * Endpoint 14's form (multipart), endpoint 15 (/ajax/verify_signature.php), the service's public
 * key (/api/signing_key.php) and the public check behind a signature's QR code
 * (/public/verify_signature.php).
 */
import { localTime } from '../../dolibarr/time.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { CheckBusy } from '../../adapters/pdf-check-pool.js';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, RowId } from '../common/common.schemas.js';
import { requireParam } from '../common/dispatch.js';
import { FORBIDDEN_TEXT_CHARACTERS } from '../../plugins/validation.js';
import { COORDINATE_FORMS, parseCoordinate, parseOptional } from '../common/form-fields.js';
import { multipartError } from '../common/multipart.js';
import { publicBaseUrl } from '../common/public-url.js';
import { addressKey, createKeyedCounter, createLimiter } from '../common/limiter.js';
import {
  DEVICE_AHEAD_SECONDS,
  DEVICE_MAX_AGE_SECONDS,
  deviceTimeShown,
  parseDeviceTime,
  parseDeviceZone,
  SHOWN_APART_SECONDS,
} from './device-time.js';
import { CHECK_WORKERS, MAX_CHECK_BYTES, type CheckVerdict, type PdfSeal } from './pdf-seal.service.js';
import { DEFAULT_CONFIRMATION, MAX_SIGNATURE_SIDE, type SignatureService, type SignInput } from './signatures.service.js';
import {
  MAX_STROKE_SAMPLES,
  MAX_STROKES,
  MAX_STROKES_BYTES,
  parseStrokes,
  STROKES_FORMAT,
  strokesInWords,
  strokesTooLarge,
} from './strokes.js';

/** Largest signature PNG in bytes. */
export const MAX_SIGNATURE_BYTES = 5 * 1024 * 1024;
export const MAX_CONFIRMATION_LENGTH = 2000;
/** Any text field but `strokes`, in bytes (a confirmation text of MAX_CONFIRMATION_LENGTH characters fits). */
const MAX_FIELD_BYTES = MAX_CONFIRMATION_LENGTH * 4;
/** The request's User-Agent as kept in the metadata, in characters. */
export const MAX_USER_AGENT_LENGTH = 512;

export const SIGNATURE_DESCRIPTION =
  "`action=signature&bericht_id=<report>`: multipart/form-data with the customer's signature as a PNG in the field `file` " +
  `(at most ${MAX_SIGNATURE_BYTES} bytes, ${MAX_SIGNATURE_SIDE} pixels a side: 413 beyond; not a PNG by its bytes: 415; unreadable: 400 IMAGE_INVALID), ` +
  '`signer_name` (required, 1-255 characters), `gps_lat` (-90..90) and `gps_lon` (-180..180) (optional, both or neither; ' +
  COORDINATE_FORMS +
  '), `confirmation_text` ' +
  `(optional, at most ${MAX_CONFIRMATION_LENGTH} characters; default: "${DEFAULT_CONFIRMATION}"), ` +
  "`signed_at_device` (optional: the moment the customer signed, by the phone's clock, as an RFC 3339 date-time WITH its UTC offset, e.g. `2026-11-24T09:14:03.120+01:00` or `…Z`; " +
  "a signature sent from an offline queue reaches the service later) and `signed_at_device_zone` (optional, only with `signed_at_device`: the phone's IANA time zone, e.g. `Europe/Berlin`). " +
  `\`strokes\` (optional: every pointer sample of the drawing, JSON of the form \`${STROKES_FORMAT}\`: ` +
  '`{ "format", "started_at_unix_ms" (the first sample by the phone\'s clock), "pad": { "width", "height" (CSS px), "pixel_ratio" }, "sample_fields": ["x","y","t","pressure"], ' +
  '"strokes": [ { "pointer_type": "mouse"|"pen"|"touch", "samples": [[x, y, t, pressure], …] }, … ] }`; x and y in CSS pixels from the top-left corner of the pad\'s canvas, ' +
  't in ms since the first sample (0 for it, never decreasing), pressure 0..1; unknown keys and a key twice in one object are refused; a text field (of any Content-Type, application/json too), or a file part; ' +
  `at most ${MAX_STROKES_BYTES} bytes, ${MAX_STROKES} strokes and ${MAX_STROKE_SAMPLES} samples: 413 STROKES_TOO_LARGE beyond; malformed or wrong: 400 VALIDATION_FAILED naming \`body.strokes\` and where in it; ` +
  'stored byte for byte as `<image>.strokes.json` and summed up in the sealed metadata as `strokes`: `{ format, sha256, bytes, strokes, samples, duration_ms, pointer_types }`; absent: no stroke record). ' +
  'A malformed device time (no offset, no such date) or a zone that is no IANA-style name is 400 VALIDATION_FAILED naming the field; an empty field counts as absent; ' +
  `any text field but \`strokes\` longer than ${MAX_FIELD_BYTES} bytes is 400 naming it; ` +
  'a well-formed zone this service does not know (a newer zone database on the phone, `Etc/Unknown`) is kept as sent and the time shown at the offset the phone sent. ' +
  `A well-formed device time is never refused however far off: it is kept and marked implausible when it lies more than ${DEVICE_AHEAD_SECONDS / 60} minutes after the server's time ` +
  `(reason \`ahead\`) or more than ${DEVICE_MAX_AGE_SECONDS / 86400} days before it (\`too_old\`). ` +
  'Appends a signature page (layout `signature`) whose note names the signer and the time. The image is a composite: a header with the metadata, the signature, ' +
  'a footer with the SHA-256 over all pages before it plus the report ref, the server name and time, and a QR code of the public check. ' +
  `When the device time differs from the server's by more than ${SHOWN_APART_SECONDS} s, the header shows "Unterschrieben am (Gerät)" (the phone's local time, in its zone when sent, else at its offset, naming it) ` +
  'and "Empfangen am (Server)" (the server\'s time in TIME_ZONE), with "– unplausibel: …" beside an implausible device time, and the note reads ' +
  '"Unterschrieben von <signer> am <device time> Uhr (Gerät, <zone>); empfangen am <server time> Uhr (Server, <zone>)" plus that mark; within a minute (or without a device time) ' +
  'one time, the server\'s, as "Unterschrieben von <signer> am <time> Uhr (<zone>)". Beside the image, `<image>.json` holds the metadata ' +
  '(headline, report and parent ref, customer, `server_time` and `server_time_unix`, signer, confirmation text, GPS, hash, page_count_at_signing, server name, client IP, user, and ' +
  '`signed_at_device` (as sent, with its offset), `signed_at_device_unix`, `signed_at_device_zone`, `device_time_difference_seconds` (server_time_unix − signed_at_device_unix: positive when received after signing), ' +
  "`device_time_plausible`, `device_time_implausible_reason` (null, `ahead` or `too_old`); all six null without a device time; `user_agent` (the request's User-Agent, " +
  `at most ${MAX_USER_AGENT_LENGTH} characters, control characters replaced; null without one) and \`strokes\` (above; null without strokes)) sealed with the service's Ed25519 key, so editing any of them breaks the seal. ` +
  'The device time, its zone and the plausibility are also kept in the database, and every page answer carries them in `signature`. ' +
  'A body that is no readable multipart form (no or a wrong boundary, cut off): 400 UPLOAD_MISSING. Every page image must exist, or be kept by an earlier signature of the report when Dolibarr deleted it (409 REPORT_SOURCE_MISSING); an image written to while the signature keeps its copy: 409 REPORT_SOURCE_CHANGED (sign again). Write right, a draft the caller sees (409 REPORT_FINAL otherwise). ' +
  '201 with the page (its `signature` filled) and `hash`, `page_count_at_signing` and `verify_url` (the public check; its address comes from PUBLIC_URL, else from the request). ' +
  'On any error no page and no file is left. At most two signatures are made or checked at once per process (503 SIGNATURE_BUSY beyond a short queue).';

/** The signature part read whole (it is small and capped); over the cap is 413 SIGNATURE_TOO_LARGE. */
async function readPng(part: MultipartFile): Promise<Buffer> {
  const tooLarge = () =>
    new AppError('SIGNATURE_TOO_LARGE', { message: 'Die Unterschrift ist zu groß', details: { max_bytes: MAX_SIGNATURE_BYTES } });
  let data: Buffer;
  try {
    data = await part.toBuffer();
  } catch (error) {
    // The multipart limit (MAX_SIGNATURE_BYTES + 1) ends the part with a 413 of its own.
    if ((error as { statusCode?: number }).statusCode === 413) throw tooLarge();
    throw error;
  }
  if (part.file.truncated || data.length > MAX_SIGNATURE_BYTES) throw tooLarge();
  return data;
}

/** The strokes sent as a file part, read whole up to its cap. */
async function readStrokesFile(part: MultipartFile): Promise<Buffer> {
  let data: Buffer;
  try {
    data = await part.toBuffer();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 413) throw strokesTooLarge(`mehr als ${MAX_STROKES_BYTES} Bytes`);
    throw error;
  }
  if (part.file.truncated || data.length > MAX_STROKES_BYTES) throw strokesTooLarge(`mehr als ${MAX_STROKES_BYTES} Bytes`);
  return data;
}

/** The request's User-Agent for the metadata: capped, control characters replaced; null without one. */
export function userAgentOf(request: FastifyRequest): string | null {
  const raw = request.headers['user-agent'];
  if (typeof raw !== 'string' || !raw.trim()) return null;
  return raw
    .trim()
    .slice(0, MAX_USER_AGENT_LENGTH)
    .replace(/\p{Cc}/gu, '\uFFFD');
}

/** The signature form: fields, the PNG and the strokes (read whole: they are small and capped). */
export async function readSignatureForm(request: FastifyRequest, config: Config): Promise<SignInput> {
  if (!request.isMultipart())
    throw new AppError('UPLOAD_MISSING', { message: 'Die Unterschrift kommt als multipart/form-data mit dem PNG im Feld "file"' });
  const fields: Record<string, string> = {};
  let png: Buffer | undefined;
  let strokesRaw: Buffer | undefined;
  try {
    // The strokes may be megabytes; every other field stays small (checked as each arrives, so a
    // form of many large fields is refused at the first).
    // The strokes are always read as a file part, whatever their Content-Type: their bytes exactly as
    // sent (a text field would be decoded by its charset, and one declared application/json parsed
    // by @fastify/multipart and lost as bytes).
    const isPartAFile = (name: string, type: string, fileName: string | undefined) =>
      name === 'strokes' || type === 'application/octet-stream' || fileName !== undefined;
    for await (const part of request.parts({
      isPartAFile,
      limits: { files: 2, fileSize: Math.max(MAX_SIGNATURE_BYTES, MAX_STROKES_BYTES) + 1, fieldSize: MAX_STROKES_BYTES + 1 },
    } as Parameters<typeof request.parts>[0])) {
      if (part.type === 'file') {
        if (part.fieldname === 'strokes' && !strokesRaw) {
          const data = await readStrokesFile(part);
          // An empty field (no file name) counts as absent, as every field.
          if (part.filename || data.toString('utf8').trim() !== '') strokesRaw = data;
        } else if (part.fieldname === 'file' && !png) png = await readPng(part);
        else part.file.resume();
        continue;
      }
      if (typeof part.value === 'string') {
        if (part.valueTruncated || Buffer.byteLength(part.value) > MAX_FIELD_BYTES) {
          throw new AppError('VALIDATION_FAILED', {
            message: `Das Feld ${part.fieldname.slice(0, 100)} ist zu lang`,
            details: [{ field: `body.${part.fieldname.slice(0, 100)}`, message: `at most ${MAX_FIELD_BYTES} bytes` }],
          });
        }
        fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    // A field declared application/json that is no JSON (or cut off by the size cap).
    if ((error as { code?: unknown }).code === 'FST_INVALID_JSON_FIELD_ERROR') {
      throw new AppError('VALIDATION_FAILED', {
        message: 'Ein Feld mit Content-Type application/json ist kein gültiges JSON',
        details: [{ field: 'body', message: 'a field declared application/json is no valid JSON' }],
      });
    }
    // A body busboy cannot read (no or wrong boundary, cut off) is 400, as for photo uploads.
    throw multipartError(error);
  }
  const signerName = (fields.signer_name ?? '').normalize('NFC').trim();
  if (!signerName || signerName.length > 255) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'signer_name erforderlich (1-255 Zeichen)',
      details: [{ field: 'body.signer_name', message: signerName ? 'too long' : 'required' }],
    });
  }
  // Control and direction-changing characters could make a name read differently in the PDF and on the check page.
  if (/[\p{Cc}\p{Cf}]/u.test(signerName)) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'signer_name enthält Steuerzeichen',
      details: [{ field: 'body.signer_name', message: 'must not contain control or format characters' }],
    });
  }
  const confirmation = fields.confirmation_text;
  if (confirmation !== undefined && confirmation.length > MAX_CONFIRMATION_LENGTH) {
    throw new AppError('VALIDATION_FAILED', {
      details: [{ field: 'body.confirmation_text', message: `at most ${MAX_CONFIRMATION_LENGTH} characters` }],
    });
  }
  // The same rule as every text a person types (PersonText): no control characters but tab and line breaks, no direction overrides.
  if (confirmation !== undefined && FORBIDDEN_TEXT_CHARACTERS.test(confirmation)) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'confirmation_text enthält Steuerzeichen',
      details: [{ field: 'body.confirmation_text', message: 'must not contain control or bidirectional override characters' }],
    });
  }
  const gpsLat = parseCoordinate(fields.gps_lat, 'gps_lat', 90);
  const gpsLon = parseCoordinate(fields.gps_lon, 'gps_lon', 180);
  if ((gpsLat === undefined) !== (gpsLon === undefined)) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'gps_lat und gps_lon nur zusammen',
      details: [{ field: gpsLat === undefined ? 'body.gps_lat' : 'body.gps_lon', message: 'required with the other coordinate' }],
    });
  }
  const deviceTime = parseOptional(
    fields.signed_at_device,
    parseDeviceTime,
    'signed_at_device',
    'signed_at_device muss ein Zeitpunkt nach RFC 3339 mit Zeitzonen-Versatz sein, z. B. 2026-11-24T09:14:03.120+01:00',
    'must be an RFC 3339 date-time with a UTC offset',
  );
  const deviceZone = parseOptional(
    fields.signed_at_device_zone,
    parseDeviceZone,
    'signed_at_device_zone',
    'signed_at_device_zone muss eine IANA-Zeitzone sein, z. B. Europe/Berlin',
    'must be an IANA time zone name',
  );
  if (deviceZone !== undefined && deviceTime === undefined) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'signed_at_device_zone nur zusammen mit signed_at_device',
      details: [{ field: 'body.signed_at_device', message: 'required with signed_at_device_zone' }],
    });
  }
  const strokes = strokesRaw ? parseStrokes(strokesRaw) : undefined;
  if (!png) throw new AppError('UPLOAD_MISSING');
  return {
    strokes,
    userAgent: userAgentOf(request),
    signerName,
    confirmation,
    gpsLat,
    gpsLon,
    deviceTime,
    deviceZone,
    png,
    clientIp: request.ip,
    baseUrl: publicBaseUrl(config, request),
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The public pages' refusal when the service has too much public work: 503 (all clients) or 429 (this address). */
class PublicBusy extends Error {
  constructor(readonly status: 429 | 503) {
    super(status === 429 ? 'too many public checks from this address' : 'too many public checks');
  }
}

/** The client of a public check closed its connection: nothing is answered. */
class ClientGone extends Error {}

/** An upload to the public check sent nothing for the idle time. */
class UploadIdle extends Error {}

/** An upload to the public check took longer than its time to arrive in all. */
class UploadTooSlow extends Error {}

/**
 * An abort signal for the request: aborted when its client closes the connection before the
 * answer was sent (while it waits for a slot, while its body arrives, while it is checked).
 */
function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const gone = () => {
    if (!reply.raw.writableFinished) controller.abort(new ClientGone('the client closed the connection'));
  };
  // A connection closed before the handler ran has emitted its 'close' already.
  if (request.raw.socket?.destroyed || reply.raw.destroyed) gone();
  else reply.raw.once('close', gone);
  return controller.signal;
}

/** Public uploads whose body is being received at once, per process (each up to MAX_CHECK_BYTES in memory); beyond, 503. */
export const CHECK_RECEIVING = 8;
/** Uploaded PDFs waiting for a check worker, per process; beyond, 503. */
export const CHECK_WAITING = 8;
/** Uploads of one client address in flight (received, waiting or checked) at once; beyond, 429. */
export const CHECK_UPLOADS_PER_ADDRESS = 4;
/** Checks of a signature's code (the QR code's link) of one client address in flight at once; beyond, 429. */
export const CODE_CHECKS_PER_ADDRESS = 2;

/** What the public checks of an app hold now, by its PDF seal (the app's `pdfSeal`): for tests and logs. */
const publicLoads = new WeakMap<PdfSeal, () => PublicCheckLoad>();
export interface PublicCheckLoad {
  receiving: { running: number; waiting: number };
  checks: { running: number; waiting: number };
  uploadAddresses: number;
  codeCheckAddresses: number;
  codeChecks: { running: number; waiting: number };
  filesHashed: number;
}
export function publicCheckLoad(pdfSeal: PdfSeal): PublicCheckLoad | undefined {
  return publicLoads.get(pdfSeal)?.();
}

export async function signaturesRoutes(
  app: FastifyInstance,
  deps: { signatures: SignatureService; pdfSeal: PdfSeal; timeZone: string; uploadIdleMs: number },
): Promise<void> {
  const { signatures } = deps;
  // The public check of an uploaded PDF has pools of its own, apart from a technician's work: the
  // bodies being received (memory), and the files being read in worker threads (CPU).
  const receiving = createLimiter(CHECK_RECEIVING, 0, () => new PublicBusy(503));
  const checks = createLimiter(CHECK_WORKERS, CHECK_WAITING, () => new PublicBusy(503));
  const uploadsByAddress = createKeyedCounter(CHECK_UPLOADS_PER_ADDRESS);
  const codeChecksByAddress = createKeyedCounter(CODE_CHECKS_PER_ADDRESS);
  publicLoads.set(deps.pdfSeal, () => {
    const load = signatures.load();
    return {
      receiving: receiving.load(),
      checks: checks.load(),
      uploadAddresses: uploadsByAddress.keys(),
      codeCheckAddresses: codeChecksByAddress.keys(),
      codeChecks: load.publicChecks,
      filesHashed: load.filesHashed,
    };
  });
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const VerifyQuery = Type.Object({
    id: Type.Optional(RowId('The signature page.')),
    page_id: Type.Optional(RowId('The signature page (same as id).')),
  });
  const verifyDescription =
    "Verifies the signature page `id` (or `page_id`; in the query, or for POST also in a JSON body) of a report the caller sees: reads the metadata JSON beside it, checks the service's Ed25519 seal, " +
    "compares the number of pages before the signature with page_count_at_signing, and recomputes the SHA-256 over those pages plus the report ref, and the composite image's SHA-256, " +
    'and, when the metadata names a stroke record (`strokes`), the SHA-256 of `<image>.strokes.json`. ' +
    'Answers `{ verified, reason?, message, page_id, report_id, report_ref, checks, metadata }`; `checks.strokes` is null when the signature has no stroke record ' +
    '(made before they were kept, or sent without) or the check was not reached; `reason` when not verified: metadata_missing, ' +
    "key_unknown (sealed with another key than this service's SIGNING_KEY_FILE: check the key, not the report), seal_broken (the metadata was edited), " +
    'page_count_changed (pages before the signature were deleted or added), content_changed (a page, its order, a title, note, rotation or image file, or the signature image changed), ' +
    'strokes_changed (the stroke record beside the signature is gone or was edited). ' +
    '404 PAGE_NOT_FOUND for a page that is no signature page or not visible.';
  const handler = async (request: FastifyRequest<{ Querystring: { id?: number; page_id?: number } }>) => {
    const body = (request.body ?? {}) as { id?: unknown; page_id?: unknown };
    const fromBody = body.id ?? body.page_id;
    const id =
      request.query.id ??
      request.query.page_id ??
      (typeof fromBody === 'number' && Number.isInteger(fromBody) && fromBody > 0 ? fromBody : undefined);
    return signatures.verify(callerOf(request), requireParam(id, 'id', { what: 'id (Unterschriftsseite)' }));
  };
  const Check = Type.Union([Type.Boolean(), Type.Null()], { description: 'null: not reached' });
  const VerifyResponse = Type.Object({
    verified: Type.Boolean(),
    reason: Type.Optional(
      Type.Union([
        Type.Literal('metadata_missing'),
        Type.Literal('key_unknown'),
        Type.Literal('seal_broken'),
        Type.Literal('page_count_changed'),
        Type.Literal('content_changed'),
        Type.Literal('strokes_changed'),
      ]),
    ),
    message: Type.String({ description: 'The result in German, for people.' }),
    page_id: Type.Integer(),
    report_id: Type.Integer(),
    report_ref: Type.String(),
    checks: Type.Object({
      metadata: Type.Boolean(),
      seal: Check,
      page_count: Check,
      hash: Check,
      image: Check,
      strokes: Type.Union([Type.Boolean(), Type.Null()], { description: 'null: no stroke record, or not reached' }),
    }),
    metadata: Type.Union([
      Type.Object({}, { additionalProperties: true, description: 'The metadata JSON as stored beside the signature image.' }),
      Type.Null(),
    ]),
  });
  const schema = {
    tags: ['signatures'],
    summary: 'Verify a signature page',
    description: verifyDescription,
    querystring: VerifyQuery,
    response: { 200: VerifyResponse, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse },
  };
  typed.get('/ajax/verify_signature.php', { schema }, handler);
  typed.post('/ajax/verify_signature.php', { schema }, handler);

  typed.get(
    '/api/signing_key.php',
    {
      schema: {
        tags: ['signatures'],
        summary: "The service's public key for signature seals",
        description:
          'No token needed. `{ algorithm: "Ed25519", key_id, public_key_pem, public_key_raw }`: with it anyone can check the `seal` of a signature\'s metadata (Ed25519 over the canonical JSON of the metadata without `seal`: keys sorted, no whitespace, UTF-8).',
      },
      config: { auth: 'public' },
    },
    async () => signatures.signingKey(),
  );

  typed.get(
    '/public/verify_signature.php',
    {
      schema: {
        tags: ['signatures'],
        summary: 'Public check of a signature (the QR code on the signature page)',
        description:
          'No token needed: the unguessable `code` of one signature. An HTML page with the report ref, the signer, the time and the verification result, and nothing else, ' +
          "taken from the sealed metadata. When the phone sent the moment of signing and it differs from the server's time of receipt by more than " +
          `${SHOWN_APART_SECONDS} s, two rows: "Unterschrieben (Gerät)" (the phone's time in its zone, or at its offset) and "Empfangen (Server)", ` +
          'with "unplausibel: …" beside an implausible device time; else one row "Unterschrieben". With a stroke record, "Strichaufzeichnung" (strokes, samples and the pointer types) ' +
          'and "Dauer des Unterschreibens" (first touch to last lift); without one, "Strichaufzeichnung: keine". Unknown code: 404 page. Without a code: the form to check a report PDF (POST). ' +
          `Public checks have a pool of their own, apart from a technician's signing and checking: at most ${CODE_CHECKS_PER_ADDRESS} checks of one client address (an IPv6 client counted by its /64) at once (429 page beyond, Retry-After: 5), ` +
          "a few at once per process beyond which a short queue waits (503 page beyond, Retry-After: 5). A check remembers the SHA-256 of each file it read by the file's identity " +
          '(device, inode, size, modification and change time) and hashes again whatever changed, in this process or elsewhere.',
        querystring: Type.Object({ code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }),
        produces: ['text/html'],
      },
      config: { auth: 'public' },
    },
    async (request, reply) => {
      publicPageHeaders(reply);
      // Without a code: the form to check a PDF file (a check worker is started meanwhile).
      if (request.query.code === undefined) {
        deps.pdfSeal.warmCheck();
        return reply.send(page('Prüfung eines Berichts', uploadForm()));
      }
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(request.query.code))
        return reply.code(404).send(page('Unterschrift nicht gefunden', '<p>Zu diesem Prüfcode gibt es keine Unterschrift.</p>'));
      const release = codeChecksByAddress.acquire(addressKey(request.ip));
      if (!release) return busyPage(reply, 'Prüfung einer Unterschrift', 429);
      let result;
      try {
        result = await signatures.verifyByCode(request.query.code, clientGone(request, reply));
      } catch (error) {
        if (error instanceof ClientGone)
          return reply.code(400).send(page('Prüfung einer Unterschrift', '<p class="bad">✘ Die Verbindung wurde getrennt.</p>'));
        if (error instanceof AppError && error.code === 'SIGNATURE_BUSY') return busyPage(reply, 'Prüfung einer Unterschrift', 503);
        throw error;
      } finally {
        release();
      }
      if (!result)
        return reply.code(404).send(page('Unterschrift nicht gefunden', '<p>Zu diesem Prüfcode gibt es keine Unterschrift.</p>'));
      const status = result.verified
        ? '<p class="ok">✔ Gültig: die unterschriebenen Seiten sind unverändert.</p>'
        : `<p class="bad">✘ Nicht gültig: ${escapeHtml(result.message)}.</p>`;
      // The phone's time and the server's, when they are more than a minute apart; else one time, as before.
      const device = deviceTimeShown(result.device_time);
      const server = (seconds: boolean) =>
        result.signed_at === null ? '' : localTime(new Date(result.signed_at * 1000), deps.timeZone, { seconds });
      const times = device
        ? `<dt>Unterschrieben (Gerät)</dt><dd>${escapeHtml(`${device.time} (${device.zone})`)}${device.mark ? ` <span class="bad">– ${escapeHtml(device.mark)}</span>` : ''}</dd>` +
          `<dt>Empfangen (Server)</dt><dd>${escapeHtml(server(true))}</dd>`
        : `<dt>Unterschrieben</dt><dd>${escapeHtml(server(false))}</dd>`;
      // What the sealed metadata says of the recorded strokes (its file is checked with the rest).
      const words = result.strokes ? strokesInWords(result.strokes) : undefined;
      const strokes = words
        ? `<dt>Strichaufzeichnung</dt><dd>${escapeHtml(words.counts)}</dd><dt>Dauer des Unterschreibens</dt><dd>${escapeHtml(words.duration)}</dd>`
        : result.strokes === null
          ? '<dt>Strichaufzeichnung</dt><dd>keine</dd>'
          : '';
      return reply.send(
        page(
          'Prüfung einer Unterschrift',
          `${status}<dl><dt>Bericht</dt><dd>${escapeHtml(result.report_ref)}</dd><dt>Unterzeichner</dt><dd>${escapeHtml(result.signer_name)}</dd>${times}${strokes}</dl>`,
        ),
      );
    },
  );

  typed.post(
    '/public/verify_signature.php',
    {
      schema: {
        tags: ['signatures'],
        summary: 'Public check of a report PDF (uploaded)',
        description:
          'No token needed. multipart/form-data with a PDF in the field `file` (at most ' +
          `${MAX_CHECK_BYTES / (1024 * 1024)} MB` +
          '; read in memory and never stored). ' +
          'An HTML page that says, in words, which of four it is: a report sealed by this service and unaltered (with the report ref, version, the customers who signed, ' +
          'when it was sealed and, when present, the trusted time of its time stamp); a report of this service altered after sealing (its content changed, its seal damaged, ' +
          'or changes appended after the seal); a PDF this service did not seal (naming who else signed it, if anyone); or a file that is no PDF. ' +
          'Answers 200 for each of the four; 400 without a file, 413 beyond the size limit (each as a page saying so). ' +
          `The file is read by a worker thread within PDF_CHECK_BUDGET_MS (default 1500 ms) of its arrival, waiting for a worker included, and a memory limit; beyond either the worker is stopped and the answer is 422, a page saying the check was too costly (\`data-verdict="too_costly"\`); ` +
          'a file still waiting for a worker when half of that time is spent, or finding one free with less than half of it left, is refused as one too many (503); a worker is never stopped for time a file spent waiting. ' +
          'An upload that sends nothing for UPLOAD_IDLE_SECONDS (default 60), or whose body has not arrived in all within PDF_CHECK_RECEIVE_SECONDS (default 60), is 408 (a page; the connection is closed); ' +
          'once the file part has arrived the rest of the body is not read (the answer then closes the connection). ' +
          `At most ${CHECK_UPLOADS_PER_ADDRESS} uploads of one client address (an IPv6 client counted by its /64, an IPv4-mapped one as its IPv4 address) at once (429 page beyond), ` +
          `at most ${CHECK_RECEIVING} bodies received at once per process and ${CHECK_WAITING} files waiting for a worker (503 page beyond, the connection closed); each answer with Retry-After: 5. ` +
          "A body being received holds no worker: a slow upload delays nobody else's check.",
        consumes: ['multipart/form-data'],
        produces: ['text/html'],
      },
      config: { auth: 'public' },
    },
    async (request, reply) => {
      publicPageHeaders(reply);
      const title = 'Prüfung eines Berichts';
      const release = uploadsByAddress.acquire(addressKey(request.ip));
      // The body is not read: the connection cannot carry another request.
      if (!release) return busyPage(reply.header('connection', 'close'), title, 429);
      const signal = clientGone(request, reply);
      // A worker loads its code while the body arrives, so the check's budget is not spent on that.
      deps.pdfSeal.warmCheck();
      try {
        // The body first (without holding a check worker), then a worker for the file.
        const received = await receiving(() => receiveUpload(request, signal), signal);
        if ('status' in received) {
          if (received.close) reply.header('connection', 'close');
          return reply.code(received.status).send(page(title, `<p class="bad">✘ ${received.message}</p>${uploadForm()}`));
        }
        // The file is here but the body is not over (more parts, or bytes after its end): not read, the connection closed with the answer.
        if (received.close) reply.header('connection', 'close');
        // Answered within the budget from the file's arrival. A file that waits for a worker
        // longer than half of it, or finds one free with less than half left, is one too many
        // (503); a worker is never stopped for time a file spent waiting.
        const arrived = Date.now();
        const budget = deps.pdfSeal.checkBudgetMs;
        const verdict = await checks(
          () => deps.pdfSeal.check(received.bytes, budget, arrived),
          AbortSignal.any([signal, AbortSignal.timeout(Math.ceil(budget / 2))]),
        ).catch((error: unknown) => {
          if (error instanceof DOMException && error.name === 'TimeoutError') throw new PublicBusy(503);
          if (error instanceof CheckBusy) throw new PublicBusy(503);
          throw error;
        });
        if (verdict.verdict === 'too_costly') {
          return reply.code(422).send(page(title, `${verdictHtml(verdict, deps.timeZone)}${uploadForm('Andere Datei prüfen')}`));
        }
        return reply.send(page(title, `${verdictHtml(verdict, deps.timeZone)}${uploadForm('Weitere Datei prüfen')}`));
      } catch (error) {
        // Nobody is left to read an answer; the connection is gone.
        if (error instanceof ClientGone) return reply.code(400).send(page(title, '<p class="bad">✘ Die Verbindung wurde getrennt.</p>'));
        if (error instanceof PublicBusy) {
          // The body is not read: the connection cannot carry another request.
          reply.header('connection', 'close');
          return busyPage(reply, title, error.status);
        }
        throw error;
      } finally {
        release();
      }
    },
  );

  type Received = { bytes: Buffer; close: boolean } | { status: 400 | 408 | 413; message: string; close?: boolean };

  /**
   * Reads the uploaded PDF into memory, within MAX_CHECK_BYTES. A body that sends nothing for the
   * idle time (UPLOAD_IDLE_SECONDS) is 408, with the connection closed; a client that hangs up
   * ends it at once (ClientGone), whatever the multipart parser does with the cut-off body.
   */
  async function receiveUpload(request: FastifyRequest, signal: AbortSignal): Promise<Received> {
    const tooLarge = { status: 413, message: `Die Datei ist zu groß: höchstens ${MAX_CHECK_BYTES / (1024 * 1024)} MB.` } as const;
    if (!request.isMultipart()) return { status: 400, message: 'Bitte eine PDF-Datei wählen.' };
    signal.throwIfAborted();
    let stop: (error: Error) => void = () => undefined;
    const stopped = new Promise<never>((_resolve, reject) => (stop = reject));
    const onAbort = () => stop(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    const idle = setTimeout(() => stop(new UploadIdle()), deps.uploadIdleMs);
    // However steadily it trickles, a body has this long to arrive in all.
    const whole = setTimeout(() => stop(new UploadTooSlow()), deps.pdfSeal.checkReceiveMs);
    const refresh = () => idle.refresh();
    const read = (async (): Promise<Received> => {
      let upload: Buffer | undefined;
      const parts = request.parts({ limits: { fileSize: MAX_CHECK_BYTES + 1, files: 1 } })[Symbol.asyncIterator]();
      const first = parts.next(); // starts the parser, which reads the request from here on
      request.raw.on('data', refresh);
      // Parts up to the file; once it is here, the rest of the body (other parts, anything after the
      // last boundary) is not read: the answer closes the connection when the body is not complete.
      for (let step = await first; !step.done; step = await parts.next()) {
        const part = step.value;
        if (part.type !== 'file') continue;
        if (part.fieldname !== 'file') {
          part.file.resume();
          continue;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of part.file as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > MAX_CHECK_BYTES) break;
          chunks.push(chunk);
        }
        if (part.file.truncated || size > MAX_CHECK_BYTES) return { ...tooLarge, close: true };
        upload = Buffer.concat(chunks, size);
        break;
      }
      if (!upload || upload.length === 0) return { status: 400, message: 'Bitte eine PDF-Datei wählen.' };
      return { bytes: upload, close: !request.raw.complete };
    })();
    read.catch(() => undefined); // settled or not, the race below decides
    try {
      return await Promise.race([read, stopped]);
    } catch (error) {
      if (error instanceof ClientGone) throw error;
      if (error instanceof UploadTooSlow) {
        return {
          status: 408,
          message: `Die Übertragung hat zu lange gedauert: mehr als ${Math.round(deps.pdfSeal.checkReceiveMs / 1000)} Sekunden. Bitte erneut wählen.`,
          close: true,
        };
      }
      if (error instanceof UploadIdle)
        return {
          status: 408,
          message: `Die Übertragung ist abgebrochen: ${Math.round(deps.uploadIdleMs / 1000)} Sekunden lang kamen keine Daten an. Bitte erneut wählen.`,
          close: true,
        };
      if ((error as { statusCode?: number }).statusCode === 413) return { ...tooLarge, close: true };
      return { status: 400, message: 'Die Datei kam nicht vollständig an; bitte erneut wählen.', close: true };
    } finally {
      clearTimeout(idle);
      clearTimeout(whole);
      signal.removeEventListener('abort', onAbort);
      request.raw.off('data', refresh);
    }
  }

  typed.get(
    '/api/seal_certificate.php',
    {
      schema: {
        tags: ['signatures'],
        summary: "The certificate of the service's PDF seal",
        description:
          'No token needed. The X.509 certificate (PEM) every final report PDF is sealed with, for checking without this service, e.g. `openssl cms -verify -CAfile` it.',
        produces: ['application/x-pem-file'],
      },
      config: { auth: 'public' },
    },
    async (_request, reply) =>
      reply
        .header('content-type', 'application/x-pem-file; charset=utf-8')
        .header('content-disposition', 'attachment; filename="berichtssiegel.pem"')
        .send(deps.pdfSeal.certificatePem()),
  );
}

function publicPageHeaders(reply: FastifyReply): void {
  reply.header('content-type', 'text/html; charset=utf-8');
  reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
  reply.header('cache-control', 'no-store');
  reply.header('x-robots-tag', 'noindex');
}

/** The answer when the service has too many public checks at once (503), or this address has (429). */
function busyPage(reply: FastifyReply, title: string, status: 429 | 503): FastifyReply {
  const text =
    status === 429
      ? 'Von Ihrer Adresse laufen gerade zu viele Prüfungen gleichzeitig. Bitte warten Sie, bis sie beendet sind, und versuchen Sie es dann erneut.'
      : 'Gerade werden zu viele Prüfungen gleichzeitig ausgeführt. Bitte versuchen Sie es in einigen Sekunden erneut.';
  return reply
    .code(status)
    .header('retry-after', '5')
    .send(page(title, `<p class="bad">✘ ${text}</p>`));
}

function uploadForm(label = 'PDF prüfen'): string {
  return (
    '<form method="post" action="/public/verify_signature.php" enctype="multipart/form-data">' +
    '<p>Wählen Sie das PDF eines Berichts: hier wird geprüft, ob es von diesem Dienst versiegelt und seitdem unverändert ist. Die Datei wird nur geprüft, nicht gespeichert.</p>' +
    '<label for="file">PDF-Datei</label><br><input id="file" type="file" name="file" accept="application/pdf,.pdf" required> ' +
    `<button type="submit">${escapeHtml(label)}</button></form>`
  );
}

function verdictHtml(verdict: CheckVerdict, timeZone: string): string {
  const when = (date: Date) => escapeHtml(localTime(date, timeZone, { seconds: true }));
  switch (verdict.verdict) {
    case 'not_pdf':
      return '<p class="bad" id="verdict" data-verdict="not_pdf">✘ Keine PDF-Datei: die gewählte Datei ist kein PDF.</p>';
    case 'too_costly':
      return (
        '<p class="bad" id="verdict" data-verdict="too_costly">✘ Nicht geprüft: diese Datei zu prüfen bräuchte mehr Rechenzeit oder Speicher, als eine Prüfung hier haben darf. ' +
        'Bitte später erneut versuchen.</p>'
      );
    case 'not_ours':
      return (
        '<p class="bad" id="verdict" data-verdict="not_ours">✘ Nicht von diesem Dienst: dieses PDF trägt kein Siegel dieses Dienstes.</p>' +
        (verdict.signer
          ? `<p>Es ist von „${escapeHtml(verdict.signer)}“ signiert, nicht mit dem Zertifikat dieses Dienstes.</p>`
          : '<p>Es ist nicht elektronisch signiert.</p>')
      );
    case 'altered': {
      const why = {
        content_changed: 'Sein Inhalt wurde nach dem Versiegeln geändert: das Siegel passt nicht mehr zu den Bytes der Datei.',
        signature_broken: 'Das Siegel selbst wurde beschädigt oder entfernt.',
        appended: 'Nach dem Versiegeln wurden Änderungen an die Datei angehängt.',
      }[verdict.why];
      return `<p class="bad" id="verdict" data-verdict="altered">✘ Verändert: dieses PDF ist ein Bericht dieses Dienstes${verdict.report ? ` (${escapeHtml(verdict.report.ref)}${verdict.report.version > 1 ? `, Version ${verdict.report.version}` : ''})` : ''}, wurde aber nach dem Versiegeln verändert.</p><p>${why} Maßgeblich ist das Original.</p>`;
    }
    case 'unaltered': {
      const rows = [
        verdict.report
          ? `<dt>Bericht</dt><dd>${escapeHtml(verdict.report.ref)}</dd><dt>Version</dt><dd>${verdict.report.version}</dd>`
          : '',
        verdict.report
          ? `<dt>Unterschrieben von</dt><dd>${verdict.report.signers.length > 0 ? verdict.report.signers.map(escapeHtml).join(', ') : '–'}</dd>`
          : '',
        `<dt>Versiegelt von</dt><dd>${escapeHtml(verdict.signer)}</dd>`,
        verdict.sealedAt ? `<dt>Versiegelt am</dt><dd>${when(verdict.sealedAt)}</dd>` : '',
        verdict.timestamp
          ? `<dt>Zeitstempel</dt><dd>${when(verdict.timestamp.at)}${verdict.timestamp.authority ? ` (${escapeHtml(verdict.timestamp.authority)})` : ''}</dd>`
          : '',
      ].join('');
      return `<p class="ok" id="verdict" data-verdict="unaltered">✔ Unverändert: dieses PDF wurde von diesem Dienst versiegelt und seitdem nicht verändert.</p><dl>${rows}</dl>`;
    }
  }
}

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
    '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5}.ok{color:#186a3b;font-weight:bold}.bad{color:#a31515;font-weight:bold}dt{font-weight:bold;margin-top:.5rem}dd{margin:0;overflow-wrap:anywhere}form{margin-top:1.5rem}label{font-weight:bold}input[type=file]{min-height:44px;margin:.5rem 0;max-width:100%;font-size:1rem}button{min-height:44px;padding:0 1rem;font-size:1rem}</style>' +
    `</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}
