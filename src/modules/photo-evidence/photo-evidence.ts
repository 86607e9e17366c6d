/**
 * Photo evidence: what the service records of a photo when it receives it (migration 0014), so a
 * report can say when and where its photos were taken and a signature can cover it.
 * - the SHA-256 and size of the bytes received, and when they arrived (the server's clock);
 * - from the photo's EXIF, where present: the capture time as the camera wrote it and the place;
 * - from the phone, where sent with the photo (multipart text fields before or after the file):
 *   `taken_at_device`, its capture time (RFC 3339 with its offset, read as `signed_at_device` is,
 *   device-time.ts), and `gps_lat`/`gps_lon` (both or neither; the app sends them only when the
 *   person switched the position on). A malformed field is refused (400 naming it); nothing is
 *   guessed. A well-formed time far off is kept as sent: the photo is not refused for the phone's clock.
 * Places are kept as integers of 1e-7 degrees (exact on every database) and given as numbers in
 * answers and as fixed seven-decimal texts in the signature's hash.
 */
import { AppError } from '../../errors.js';
import type { TakenAt, TakenWhere } from '../../adapters/exif.js';
import { fromDbDateTime } from '../../db/dialect.js';
import type { BerichtPhotoEvidenceTable } from '../../db/tables.js';
import type { Selectable } from 'kysely';
import { parseDeviceTime, type DeviceTime } from '../signatures/device-time.js';
import { parseCoordinate, parseOptional } from '../common/form-fields.js';

export type PhotoEvidenceRow = Selectable<BerichtPhotoEvidenceTable>;

/** The form fields of a photo upload that carry evidence. */
export const EVIDENCE_FIELDS = ['taken_at_device', 'gps_lat', 'gps_lon'] as const;

/** What the phone sent with a photo. */
export interface EvidenceInput {
  takenAtDevice?: DeviceTime;
  gpsLat?: number;
  gpsLon?: number;
}

/** A photo's evidence as the API answers it (see PhotoEvidence in photo-evidence.schemas.ts). */
export interface PhotoEvidenceResponse {
  sha256: string;
  size: number;
  received_at: number;
  exif_taken_at: string | null;
  exif_offset: string | null;
  exif_gps_lat: number | null;
  exif_gps_lon: number | null;
  taken_at_device: string | null;
  taken_at_device_unix: number | null;
  gps_lat: number | null;
  gps_lon: number | null;
}

/** The evidence fields of a form (text fields by name); empty counts as absent; anything malformed is 400 VALIDATION_FAILED naming the field. */
export function readEvidenceFields(fields: Readonly<Record<string, string>>): EvidenceInput {
  const takenAtDevice = parseOptional(
    fields.taken_at_device,
    parseDeviceTime,
    'taken_at_device',
    'taken_at_device muss ein Zeitpunkt nach RFC 3339 mit Zeitzonen-Versatz sein, z. B. 2026-11-24T09:14:03.120+01:00',
    'must be an RFC 3339 date-time with a UTC offset',
  );
  const gpsLat = parseCoordinate(fields.gps_lat, 'gps_lat', 90);
  const gpsLon = parseCoordinate(fields.gps_lon, 'gps_lon', 180);
  if ((gpsLat === undefined) !== (gpsLon === undefined)) {
    throw new AppError('VALIDATION_FAILED', {
      message: 'gps_lat und gps_lon nur zusammen',
      details: [{ field: gpsLat === undefined ? 'body.gps_lat' : 'body.gps_lon', message: 'required with the other coordinate' }],
    });
  }
  return { takenAtDevice, gpsLat, gpsLon };
}

/** Degrees as integer 1e-7 degrees. */
export const toE7 = (degrees: number): number => Math.round(degrees * 1e7);
/** Integer 1e-7 degrees (as a column gives them: number or numeric text) as degrees; null stays null. */
export const fromE7 = (e7: number | string | null | undefined): number | null =>
  e7 === null || e7 === undefined ? null : Number(e7) / 1e7;
/** Integer 1e-7 degrees as the fixed text of the hash (`48.1374300`, `-0.0000010`); null stays null. */
export function e7Text(e7: number | string | null | undefined): string | null {
  if (e7 === null || e7 === undefined) return null;
  const n = Number(e7);
  const abs = Math.abs(n);
  return `${n < 0 ? '-' : ''}${Math.floor(abs / 1e7)}.${String(abs % 1e7).padStart(7, '0')}`;
}

/** The row to write for a photo received now. */
export function newEvidenceRow(
  file: { entity: number; filepath: string; filename: string },
  received: { sha256: string; size: number; at: string; userId: number | null },
  exif: { takenAt: TakenAt | null; where: TakenWhere | null },
  input: EvidenceInput,
) {
  return {
    entity: file.entity,
    filepath: file.filepath,
    filename: file.filename,
    sha256: received.sha256,
    size: received.size,
    exif_taken_at: exif.takenAt?.local ?? null,
    exif_offset: exif.takenAt?.offset ?? null,
    exif_lat_e7: exif.where ? toE7(exif.where.lat) : null,
    exif_lon_e7: exif.where ? toE7(exif.where.lon) : null,
    device_taken_at: input.takenAtDevice?.iso ?? null,
    device_lat_e7: input.gpsLat === undefined ? null : toE7(input.gpsLat),
    device_lon_e7: input.gpsLon === undefined ? null : toE7(input.gpsLon),
    fk_user: received.userId,
    datec: received.at,
  };
}

export type NewPhotoEvidenceRow = ReturnType<typeof newEvidenceRow>;

/** The fields every reader of a row needs (a row read back, or one about to be written). */
type EvidenceFacts = Omit<NewPhotoEvidenceRow, 'entity' | 'filepath' | 'filename' | 'fk_user'> & { size: number | string };

export function toEvidenceResponse(row: EvidenceFacts): PhotoEvidenceResponse {
  const device = row.device_taken_at ? parseDeviceTime(row.device_taken_at) : undefined;
  return {
    sha256: row.sha256,
    size: row.size,
    received_at: fromDbDateTime(row.datec) ?? 0,
    exif_taken_at: row.exif_taken_at,
    exif_offset: row.exif_offset,
    exif_gps_lat: fromE7(row.exif_lat_e7),
    exif_gps_lon: fromE7(row.exif_lon_e7),
    taken_at_device: row.device_taken_at,
    taken_at_device_unix: device ? Math.floor(device.ms / 1000) : null,
    gps_lat: fromE7(row.device_lat_e7),
    gps_lon: fromE7(row.device_lon_e7),
  };
}

/**
 * The evidence as the signature's hash covers it (signature-hash.ts, form 3): every recorded
 * field, places as fixed seven-decimal texts, times as recorded (the phone's as it sent it).
 */
export function hashedEvidence(row: EvidenceFacts): Record<string, string | number | null> {
  return {
    sha256: row.sha256,
    size: row.size,
    received_at: fromDbDateTime(row.datec),
    exif_taken_at: row.exif_taken_at,
    exif_offset: row.exif_offset,
    exif_gps_lat: e7Text(row.exif_lat_e7),
    exif_gps_lon: e7Text(row.exif_lon_e7),
    taken_at_device: row.device_taken_at,
    gps_lat: e7Text(row.device_lat_e7),
    gps_lon: e7Text(row.device_lon_e7),
  };
}

/** `commande/CO2401-0001/IMG_1.jpg` as ecm_files names it: folder and file. */
export function splitRelPath(relPath: string): { filepath: string; filename: string } {
  const at = relPath.lastIndexOf('/');
  return { filepath: relPath.slice(0, Math.max(0, at)), filename: relPath.slice(at + 1) };
}
