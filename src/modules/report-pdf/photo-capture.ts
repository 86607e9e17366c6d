/**
 * When and where a photo of a report was taken, as the PDF prints it under the photo: from the
 * photo's EXIF (the camera) and from its evidence (what the phone sent at upload, migration 0014).
 * - Time: the camera's as before; the phone's where the camera wrote none, and both where they lie
 *   more than TIMES_APART_SECONDS apart (a photo picked from the gallery long after, a camera whose
 *   clock is off). The camera writes its local time, mostly without a zone: read at the phone's
 *   offset to compare when it wrote none.
 * - Place: as coordinates with five decimals (about a metre), `48.13743, 11.57549`: the camera's,
 *   else the phone's; both where they lie more than PLACES_APART_METRES apart.
 * Evidence counts only for the bytes it was recorded for (its SHA-256 is the file's): a file
 * replaced outside the service has none, as in the signature's hash.
 */
import type { TakenAt, TakenWhere } from '../../adapters/exif.js';
import type { PhotoCapture } from '../../adapters/pdf/model.js';
import type { PdfLanguage, PdfWords } from '../../adapters/pdf/words.js';
import { parseDeviceTime } from '../signatures/device-time.js';
import { fromE7, type PhotoEvidenceRow } from '../photo-evidence/photo-evidence.js';

/** Camera and phone times further apart than this are both printed. @default 300 (5 minutes) */
export const TIMES_APART_SECONDS = 5 * 60;
/** Camera and phone places further apart than this are both printed. @default 100 */
export const PLACES_APART_METRES = 100;

/** `24.11.2026 09:12` (English `24 Nov 2026, 09:12`), with ` (UTC+01:00)` when the offset is known. */
export function formatTaken(taken: TakenAt | null, language: PdfLanguage): string | null {
  if (!taken) return null;
  return `${clockOf(taken, language)}${taken.offset ? ` (${zoneOf(taken)})` : ''}`;
}

/** `24.11.2026 09:12` (English `24 Nov 2026, 09:12`): the wall time, without its zone. */
function clockOf(taken: TakenAt, language: PdfLanguage): string {
  const [date, time] = taken.local.split(' ') as [string, string];
  const [year, month, day] = date.split('-');
  const clock = time.slice(0, 5);
  if (language === 'en') {
    const monthName = new Intl.DateTimeFormat('en-GB', { month: 'short', timeZone: 'UTC' }).format(
      new Date(Date.UTC(Number(year), Number(month) - 1, 1)),
    );
    return `${Number(day)} ${monthName} ${year}, ${clock}`;
  }
  return `${day}.${month}.${year} ${clock}`;
}

/** `UTC+01:00`, or null without an offset. */
const zoneOf = (taken: TakenAt): string | null => (taken.offset ? `UTC${taken.offset}` : null);

const pad = (n: number) => String(n).padStart(2, '0');

/** Minutes of an offset such as `-05:30`. */
const offsetMinutes = (offset: string) =>
  (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));

/** The phone's time (RFC 3339 as it sent it) as its wall time at the offset it sent, and that instant; undefined when unreadable. */
export function phoneTakenAt(iso: string): { taken: TakenAt; ms: number } | undefined {
  const device = parseDeviceTime(iso);
  if (!device) return undefined;
  const offset = /[+-]\d{2}:\d{2}$/.exec(device.iso)?.[0] ?? '+00:00';
  const wall = new Date(device.ms + offsetMinutes(offset) * 60_000);
  const local = `${String(wall.getUTCFullYear()).padStart(4, '0')}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())} ${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`;
  return { taken: { local, offset }, ms: device.ms };
}

/** The instant of the camera's time, read at its own offset, else at `fallbackOffset`. */
function cameraMs(taken: TakenAt, fallbackOffset: string): number {
  const [date, time] = taken.local.split(' ') as [string, string];
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi, s] = time.split(':').map(Number) as [number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s) - offsetMinutes(taken.offset ?? fallbackOffset) * 60_000;
}

/** Metres between two places (haversine on a sphere of the Earth's mean radius). */
export function metresApart(a: TakenWhere, b: TakenWhere): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** `48.13743, 11.57549`. */
export const formatPlace = (where: TakenWhere): string => `${where.lat.toFixed(5)}, ${where.lon.toFixed(5)}`;

/**
 * The lines under a photo: `camera` from its EXIF, `evidence` its recorded evidence when it
 * belongs to these bytes (the caller checked the SHA-256). Null when there is nothing to say.
 */
export function photoCapture(
  camera: { takenAt: TakenAt | null; where: TakenWhere | null },
  evidence: PhotoEvidenceRow | undefined,
  language: PdfLanguage,
  words: PdfWords,
): PhotoCapture | null {
  const phone = evidence?.device_taken_at ? phoneTakenAt(evidence.device_taken_at) : undefined;
  const lat = fromE7(evidence?.device_lat_e7);
  const lon = fromE7(evidence?.device_lon_e7);
  const phoneWhere = lat !== null && lon !== null ? { lat, lon } : null;

  let when: string | null = null;
  if (camera.takenAt && phone && Math.abs(cameraMs(camera.takenAt, phone.taken.offset!) - phone.ms) > TIMES_APART_SECONDS * 1000) {
    when = words.takenBoth(clockOf(camera.takenAt, language), zoneOf(camera.takenAt), clockOf(phone.taken, language), zoneOf(phone.taken)!);
  } else if (camera.takenAt) {
    when = words.taken(formatTaken(camera.takenAt, language)!);
  } else if (phone) {
    when = words.takenDevice(clockOf(phone.taken, language), zoneOf(phone.taken)!);
  }

  let where: string | null = null;
  if (camera.where && phoneWhere && metresApart(camera.where, phoneWhere) > PLACES_APART_METRES) {
    where = words.placeBoth(formatPlace(camera.where), formatPlace(phoneWhere));
  } else if (camera.where ?? phoneWhere) {
    where = words.place(formatPlace((camera.where ?? phoneWhere)!));
  }
  return when || where ? { when, where } : null;
}
