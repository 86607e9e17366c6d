/**
 * Endpoint 14's form (multipart), endpoint 15 (/ajax/verify_signature.php), the service's public
 * key (/api/signing_key.php) and the public check behind a signature's QR code
 * (/public/verify_signature.php).
 */
import { localTime } from '../../dolibarr/time.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, RowId } from '../common/common.schemas.js';
import { requireParam } from '../common/dispatch.js';
import { parseCoordinate, parseOptional } from '../common/form-fields.js';
import { multipartError } from '../common/multipart.js';
import { publicBaseUrl } from '../common/public-url.js';
import { DEVICE_AHEAD_SECONDS, DEVICE_MAX_AGE_SECONDS, deviceTimeShown, parseDeviceTime, parseDeviceZone, SHOWN_APART_SECONDS } from './device-time.js';
import { DEFAULT_CONFIRMATION, MAX_SIGNATURE_SIDE, type SignatureService, type SignInput } from './signatures.service.js';

/** Largest signature PNG in bytes. */
export const MAX_SIGNATURE_BYTES = 5 * 1024 * 1024;
export const MAX_CONFIRMATION_LENGTH = 2000;

export const SIGNATURE_DESCRIPTION =
  '`action=signature&bericht_id=<report>`: multipart/form-data with the customer\'s signature as a PNG in the field `file` ' +
  `(at most ${MAX_SIGNATURE_BYTES} bytes, ${MAX_SIGNATURE_SIDE} pixels a side: 413 beyond; not a PNG by its bytes: 415; unreadable: 400 IMAGE_INVALID), ` +
  '`signer_name` (required, 1-255 characters), `gps_lat` (-90..90) and `gps_lon` (-180..180) (optional, both or neither), `confirmation_text` ' +
  `(optional, at most ${MAX_CONFIRMATION_LENGTH} characters; default: "${DEFAULT_CONFIRMATION}"), ` +
  '`signed_at_device` (optional: the moment the customer signed, by the phone\'s clock, as an RFC 3339 date-time WITH its UTC offset, e.g. `2026-11-24T09:14:03.120+01:00` or `…Z`; ' +
  'a signature sent from an offline queue reaches the service later) and `signed_at_device_zone` (optional, only with `signed_at_device`: the phone\'s IANA time zone, e.g. `Europe/Berlin`). ' +
  'A malformed device time (no offset, no such date) or a zone that is no IANA-style name is 400 VALIDATION_FAILED naming the field; an empty field counts as absent; ' +
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
  '`device_time_plausible`, `device_time_implausible_reason` (null, `ahead` or `too_old`); all six null without a device time) sealed with the service\'s Ed25519 key, so editing any of them breaks the seal. ' +
  'The device time, its zone and the plausibility are also kept in the database, and every page answer carries them in `signature`. ' +
  'A body that is no readable multipart form (no or a wrong boundary, cut off): 400 UPLOAD_MISSING. Every page image must exist (409 REPORT_SOURCE_MISSING). Write right, a draft the caller sees (409 REPORT_FINAL otherwise). ' +
  '201 with the page (its `signature` filled) and `hash`, `page_count_at_signing` and `verify_url` (the public check; its address comes from PUBLIC_URL, else from the request). ' +
  'On any error no page and no file is left. At most two signatures are made or checked at once per process (503 SIGNATURE_BUSY beyond a short queue).';

/** The signature part read whole (it is small and capped); over the cap is 413 SIGNATURE_TOO_LARGE. */
async function readPng(part: MultipartFile): Promise<Buffer> {
  const tooLarge = () => new AppError('SIGNATURE_TOO_LARGE', { message: 'Die Unterschrift ist zu groß', details: { max_bytes: MAX_SIGNATURE_BYTES } });
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

/** The signature form: fields and the PNG (read whole: it is small and capped). */
export async function readSignatureForm(request: FastifyRequest, config: Config): Promise<SignInput> {
  if (!request.isMultipart()) throw new AppError('UPLOAD_MISSING', { message: 'Die Unterschrift kommt als multipart/form-data mit dem PNG im Feld "file"' });
  const fields: Record<string, string> = {};
  let png: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_SIGNATURE_BYTES + 1 } })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || png) {
          part.file.resume();
          continue;
        }
        png = await readPng(part);
      } else if (typeof part.value === 'string') {
        fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    // A body busboy cannot read (no or wrong boundary, cut off) is 400, as for photo uploads.
    throw multipartError(error);
  }
  const signerName = (fields.signer_name ?? '').normalize('NFC').trim();
  if (!signerName || signerName.length > 255) {
    throw new AppError('VALIDATION_FAILED', { message: 'signer_name erforderlich (1-255 Zeichen)', details: [{ field: 'body.signer_name', message: signerName ? 'too long' : 'required' }] });
  }
  // Control and direction-changing characters could make a name read differently in the PDF and on the check page.
  if (/[\p{Cc}\p{Cf}]/u.test(signerName)) {
    throw new AppError('VALIDATION_FAILED', { message: 'signer_name enthält Steuerzeichen', details: [{ field: 'body.signer_name', message: 'must not contain control or format characters' }] });
  }
  const confirmation = fields.confirmation_text;
  if (confirmation !== undefined && confirmation.length > MAX_CONFIRMATION_LENGTH) {
    throw new AppError('VALIDATION_FAILED', { details: [{ field: 'body.confirmation_text', message: `at most ${MAX_CONFIRMATION_LENGTH} characters` }] });
  }
  const gpsLat = parseCoordinate(fields.gps_lat, 'gps_lat', 90);
  const gpsLon = parseCoordinate(fields.gps_lon, 'gps_lon', 180);
  if ((gpsLat === undefined) !== (gpsLon === undefined)) {
    throw new AppError('VALIDATION_FAILED', { message: 'gps_lat und gps_lon nur zusammen', details: [{ field: gpsLat === undefined ? 'body.gps_lat' : 'body.gps_lon', message: 'required with the other coordinate' }] });
  }
  const deviceTime = parseOptional(fields.signed_at_device, parseDeviceTime, 'signed_at_device', 'signed_at_device muss ein Zeitpunkt nach RFC 3339 mit Zeitzonen-Versatz sein, z. B. 2026-11-24T09:14:03.120+01:00', 'must be an RFC 3339 date-time with a UTC offset');
  const deviceZone = parseOptional(fields.signed_at_device_zone, parseDeviceZone, 'signed_at_device_zone', 'signed_at_device_zone muss eine IANA-Zeitzone sein, z. B. Europe/Berlin', 'must be an IANA time zone name');
  if (deviceZone !== undefined && deviceTime === undefined) {
    throw new AppError('VALIDATION_FAILED', { message: 'signed_at_device_zone nur zusammen mit signed_at_device', details: [{ field: 'body.signed_at_device', message: 'required with signed_at_device_zone' }] });
  }
  if (!png) throw new AppError('UPLOAD_MISSING');
  return {
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

export async function signaturesRoutes(app: FastifyInstance, deps: { signatures: SignatureService; timeZone: string }): Promise<void> {
  const { signatures } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const VerifyQuery = Type.Object({
    id: Type.Optional(RowId('The signature page.')),
    page_id: Type.Optional(RowId('The signature page (same as id).')),
  });
  const verifyDescription =
    'Verifies the signature page `id` (or `page_id`; in the query, or for POST also in a JSON body) of a report the caller sees: reads the metadata JSON beside it, checks the service\'s Ed25519 seal, ' +
    'compares the number of pages before the signature with page_count_at_signing, and recomputes the SHA-256 over those pages plus the report ref, and the composite image\'s SHA-256. ' +
    'Answers `{ verified, reason?, message, page_id, report_id, report_ref, checks, metadata }`; `reason` when not verified: metadata_missing, ' +
    'key_unknown (sealed with another key than this service\'s SIGNING_KEY_FILE: check the key, not the report), seal_broken (the metadata was edited), ' +
    'page_count_changed (pages before the signature were deleted or added), content_changed (a page, its order, a title, note, rotation or image file, or the signature image changed). ' +
    '404 PAGE_NOT_FOUND for a page that is no signature page or not visible.';
  const handler = async (request: FastifyRequest<{ Querystring: { id?: number; page_id?: number } }>) => {
    const body = (request.body ?? {}) as { id?: unknown; page_id?: unknown };
    const fromBody = body.id ?? body.page_id;
    const id = request.query.id ?? request.query.page_id ?? (typeof fromBody === 'number' && Number.isInteger(fromBody) && fromBody > 0 ? fromBody : undefined);
    return signatures.verify(callerOf(request), requireParam(id, 'id', { what: 'id (Unterschriftsseite)' }));
  };
  const Check = Type.Union([Type.Boolean(), Type.Null()], { description: 'null: not reached' });
  const VerifyResponse = Type.Object({
    verified: Type.Boolean(),
    reason: Type.Optional(Type.Union([Type.Literal('metadata_missing'), Type.Literal('key_unknown'), Type.Literal('seal_broken'), Type.Literal('page_count_changed'), Type.Literal('content_changed')])),
    message: Type.String({ description: 'The result in German, for people.' }),
    page_id: Type.Integer(),
    report_id: Type.Integer(),
    report_ref: Type.String(),
    checks: Type.Object({ metadata: Type.Boolean(), seal: Check, page_count: Check, hash: Check, image: Check }),
    metadata: Type.Union([Type.Object({}, { additionalProperties: true, description: 'The metadata JSON as stored beside the signature image.' }), Type.Null()]),
  });
  const schema = { tags: ['signatures'], summary: 'Verify a signature page', description: verifyDescription, querystring: VerifyQuery, response: { 200: VerifyResponse, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse } };
  typed.get('/ajax/verify_signature.php', { schema }, handler);
  typed.post('/ajax/verify_signature.php', { schema }, handler);

  typed.get(
    '/api/signing_key.php',
    {
      schema: {
        tags: ['signatures'],
        summary: "The service's public key for signature seals",
        description: 'No token needed. `{ algorithm: "Ed25519", key_id, public_key_pem, public_key_raw }`: with it anyone can check the `seal` of a signature\'s metadata (Ed25519 over the canonical JSON of the metadata without `seal`: keys sorted, no whitespace, UTF-8).',
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
          'taken from the sealed metadata. When the phone sent the moment of signing and it differs from the server\'s time of receipt by more than ' +
          `${SHOWN_APART_SECONDS} s, two rows: "Unterschrieben (Gerät)" (the phone's time in its zone, or at its offset) and "Empfangen (Server)", ` +
          'with "unplausibel: …" beside an implausible device time; else one row "Unterschrieben". Unknown code: 404 page.',
        querystring: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }),
        produces: ['text/html'],
      },
      config: { auth: 'public' },
    },
    async (request, reply) => {
      const result = /^[A-Za-z0-9_-]{16,64}$/.test(request.query.code) ? await signatures.verifyByCode(request.query.code) : undefined;
      reply.header('content-type', 'text/html; charset=utf-8');
      reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
      reply.header('cache-control', 'no-store');
      reply.header('x-robots-tag', 'noindex');
      if (!result) return reply.code(404).send(page('Unterschrift nicht gefunden', '<p>Zu diesem Prüfcode gibt es keine Unterschrift.</p>'));
      const status = result.verified ? '<p class="ok">✔ Gültig: die unterschriebenen Seiten sind unverändert.</p>' : `<p class="bad">✘ Nicht gültig: ${escapeHtml(result.message)}.</p>`;
      // The phone's time and the server's, when they are more than a minute apart; else one time, as before.
      const device = deviceTimeShown(result.device_time);
      const server = (seconds: boolean) => (result.signed_at === null ? '' : localTime(new Date(result.signed_at * 1000), deps.timeZone, { seconds }));
      const times = device
        ? `<dt>Unterschrieben (Gerät)</dt><dd>${escapeHtml(`${device.time} (${device.zone})`)}${device.mark ? ` <span class="bad">– ${escapeHtml(device.mark)}</span>` : ''}</dd>` +
          `<dt>Empfangen (Server)</dt><dd>${escapeHtml(server(true))}</dd>`
        : `<dt>Unterschrieben</dt><dd>${escapeHtml(server(false))}</dd>`;
      return reply.send(page('Prüfung einer Unterschrift', `${status}<dl><dt>Bericht</dt><dd>${escapeHtml(result.report_ref)}</dd><dt>Unterzeichner</dt><dd>${escapeHtml(result.signer_name)}</dd>${times}</dl>`));
    },
  );
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
    '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5}.ok{color:#186a3b;font-weight:bold}.bad{color:#a31515;font-weight:bold}dt{font-weight:bold;margin-top:.5rem}dd{margin:0}</style>' +
    `</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}
