/**
 * The signature form of contract endpoint 14 (multipart/form-data): its fields, the PNG and the
 * stroke record, read whole (they are small and capped) and checked into a SignInput.
 */
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { FORBIDDEN_TEXT_CHARACTERS } from '../../plugins/validation.js';
import { parseCoordinate, parseOptional } from '../common/form-fields.js';
import { multipartError } from '../common/multipart.js';
import { publicBaseUrl } from '../common/public-url.js';
import { parseDeviceTime, parseDeviceZone } from './device-time.js';
import type { SignInput } from './signatures.model.js';
import { MAX_STROKES_BYTES, parseStrokes, strokesTooLarge } from './strokes.js';
import { MAX_SIGNOFF_BYTES, parseSignoff, signoffTooLarge } from './signoff.js';

/** Largest signature PNG in bytes. */
export const MAX_SIGNATURE_BYTES = 5 * 1024 * 1024;
export const MAX_CONFIRMATION_LENGTH = 2000;
/** Any text field but `strokes`, in bytes (a confirmation text of MAX_CONFIRMATION_LENGTH characters fits). */
export const MAX_FIELD_BYTES = MAX_CONFIRMATION_LENGTH * 4;
/** The request's User-Agent as kept in the metadata, in characters. */
export const MAX_USER_AGENT_LENGTH = 512;

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

/** A JSON part (the strokes, the sign-off) sent as a file part, read whole up to its cap. */
async function readJsonFile(part: MultipartFile, max: number, tooLarge: () => AppError): Promise<Buffer> {
  let data: Buffer;
  try {
    data = await part.toBuffer();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 413) throw tooLarge();
    throw error;
  }
  if (part.file.truncated || data.length > max) throw tooLarge();
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
  let signoffRaw: Buffer | undefined;
  try {
    // The strokes may be megabytes; every other field stays small (checked as each arrives, so a
    // form of many large fields is refused at the first).
    // The strokes and the sign-off are always read as file parts, whatever their Content-Type: their
    // bytes exactly as sent (a text field would be decoded by its charset, and one declared
    // application/json parsed by @fastify/multipart and lost as bytes).
    const isPartAFile = (name: string, type: string, fileName: string | undefined) =>
      name === 'strokes' || name === 'signoff' || type === 'application/octet-stream' || fileName !== undefined;
    const largest = Math.max(MAX_SIGNATURE_BYTES, MAX_STROKES_BYTES, MAX_SIGNOFF_BYTES);
    for await (const part of request.parts({
      isPartAFile,
      // Every text field is small: the strokes and the sign-off come as file parts, each capped on its own.
      limits: { files: 3, fileSize: largest + 1, fieldSize: MAX_FIELD_BYTES + 1 },
    } as Parameters<typeof request.parts>[0])) {
      if (part.type === 'file') {
        // An empty field (no file name) counts as absent, as every field.
        const given = (data: Buffer) => part.filename !== undefined || data.toString('utf8').trim() !== '';
        if (part.fieldname === 'strokes' && !strokesRaw) {
          const data = await readJsonFile(part, MAX_STROKES_BYTES, () => strokesTooLarge(`mehr als ${MAX_STROKES_BYTES} Bytes`));
          if (given(data)) strokesRaw = data;
        } else if (part.fieldname === 'signoff' && !signoffRaw) {
          const data = await readJsonFile(part, MAX_SIGNOFF_BYTES, signoffTooLarge);
          if (given(data)) signoffRaw = data;
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
  const signoff = signoffRaw ? parseSignoff(signoffRaw) : undefined;
  if (!png) throw new AppError('UPLOAD_MISSING');
  return {
    strokes,
    signoff,
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

/** The multipart parser's limits in the scope of the signature form (app.ts); the strokes' own caps are in readSignatureForm. */
export const SIGNATURE_MULTIPART_LIMITS = {
  files: 1,
  fileSize: MAX_SIGNATURE_BYTES + 1,
  fields: 11,
  fieldSize: MAX_CONFIRMATION_LENGTH * 4,
  parts: 13,
  fieldNameSize: 100,
  headerPairs: 50,
};
