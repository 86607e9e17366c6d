/**
 * When and where a photo was taken, from its EXIF: the time from DateTimeOriginal, else
 * DateTimeDigitized (with OffsetTimeOriginal where the camera wrote one); the place from the GPS
 * IFD (GPSLatitude/GPSLongitude with their N/S and E/W refs). Read from the file's header by
 * sharp, parsed here (a TIFF structure of a few entries; no library needed for six tags). Cameras
 * write the local time of the place without a zone, so the time is given as written, the offset
 * only when there is one.
 */
import sharp from 'sharp';

export interface TakenAt {
  /** `YYYY-MM-DD HH:MM:SS` as the camera wrote it (its local time). */
  local: string;
  /** `+01:00` and the like, when the camera wrote its offset; else null. */
  offset: string | null;
}

/** Where a photo was taken, in decimal degrees (WGS 84, as GPS gives it). */
export interface TakenWhere {
  lat: number;
  lon: number;
}

const TAG_EXIF_IFD = 0x8769;
const TAG_GPS_IFD = 0x8825;
const TAG_GPS_LATITUDE_REF = 1;
const TAG_GPS_LATITUDE = 2;
const TAG_GPS_LONGITUDE_REF = 3;
const TAG_GPS_LONGITUDE = 4;
const RATIONAL = 5;
const SRATIONAL = 10;
const TAG_DATE_TIME_ORIGINAL = 0x9003;
const TAG_DATE_TIME_DIGITIZED = 0x9004;
const TAG_OFFSET_TIME_ORIGINAL = 0x9011;
const ASCII = 2;
const LONG = 4;

/** The EXIF capture time of an image file, or null (no EXIF, no time, an unreadable file). */
export async function readTakenAt(file: string): Promise<TakenAt | null> {
  try {
    const { exif } = await sharp(file).metadata();
    return exif ? parseTakenAt(exif) : null;
  } catch {
    return null;
  }
}

/** The EXIF capture time and place of an image file; nulls for what it does not hold (or an unreadable file). */
export async function readPhotoExif(file: string): Promise<{ takenAt: TakenAt | null; where: TakenWhere | null }> {
  try {
    const { exif } = await sharp(file).metadata();
    return exif ? parsePhotoExif(exif) : { takenAt: null, where: null };
  } catch {
    return { takenAt: null, where: null };
  }
}

/** The capture time in an EXIF block as sharp gives it (`Exif\0\0` and a TIFF structure), or null. */
export function parseTakenAt(exif: Buffer): TakenAt | null {
  return parsePhotoExif(exif).takenAt;
}

/** The capture place in an EXIF block, or null (no GPS IFD, a tag missing or malformed, out of range, or exactly 0, 0). */
export function parseTakenWhere(exif: Buffer): TakenWhere | null {
  return parsePhotoExif(exif).where;
}

/** Time and place from an EXIF block as sharp gives it. */
export function parsePhotoExif(exif: Buffer): { takenAt: TakenAt | null; where: TakenWhere | null } {
  const none = { takenAt: null, where: null };
  const start = exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? 6 : 0;
  const tiff = exif.subarray(start);
  if (tiff.length < 8) return none;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return none;
  const little = order === 'II';
  const u16 = (at: number) => (at + 2 <= tiff.length ? (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at)) : -1);
  const u32 = (at: number) => (at + 4 <= tiff.length ? (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at)) : -1);
  /** The entries of the IFD at `offset`: tag → [type, count, value or offset]. */
  const entries = (offset: number): Map<number, [number, number, number, number]> => {
    const found = new Map<number, [number, number, number, number]>();
    const count = u16(offset);
    for (let i = 0; i < count && i < 512; i++) {
      const at = offset + 2 + i * 12;
      if (at + 12 > tiff.length) break;
      found.set(u16(at), [u16(at + 2), u32(at + 4), u32(at + 8), at + 8]);
    }
    return found;
  };
  const text = (entry: [number, number, number, number] | undefined): string | null => {
    if (!entry || entry[0] !== ASCII || entry[1] < 1) return null;
    const [, count, value, inline] = entry;
    const at = count <= 4 ? inline : value;
    if (at < 0 || at + count > tiff.length) return null;
    return tiff
      .toString('latin1', at, at + count)
      .replace(/\0.*$/s, '')
      .trim();
  };
  /** Degrees from three rationals (degrees, minutes, seconds); null when malformed. */
  const degrees = (entry: [number, number, number, number] | undefined): number | null => {
    if (!entry || (entry[0] !== RATIONAL && entry[0] !== SRATIONAL) || entry[1] !== 3) return null;
    const at = entry[2];
    if (at < 0 || at + 24 > tiff.length) return null;
    const parts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const numerator = entry[0] === SRATIONAL ? (little ? tiff.readInt32LE(at + i * 8) : tiff.readInt32BE(at + i * 8)) : u32(at + i * 8);
      const denominator =
        entry[0] === SRATIONAL ? (little ? tiff.readInt32LE(at + i * 8 + 4) : tiff.readInt32BE(at + i * 8 + 4)) : u32(at + i * 8 + 4);
      if (denominator === 0 || numerator < 0 || denominator < 0) return null;
      parts.push(numerator / denominator);
    }
    const [d, m, s] = parts as [number, number, number];
    return m >= 60 || s >= 60 ? null : d + m / 60 + s / 3600;
  };
  const ifd0 = entries(u32(4));
  const exifPointer = ifd0.get(TAG_EXIF_IFD);
  const exifIfd = exifPointer && exifPointer[0] === LONG ? entries(exifPointer[2]) : new Map();
  const gpsPointer = ifd0.get(TAG_GPS_IFD);
  const gpsIfd = gpsPointer && gpsPointer[0] === LONG ? entries(gpsPointer[2]) : new Map();
  return {
    takenAt: takenAtOf(
      text(exifIfd.get(TAG_DATE_TIME_ORIGINAL)) ?? text(exifIfd.get(TAG_DATE_TIME_DIGITIZED)),
      text(exifIfd.get(TAG_OFFSET_TIME_ORIGINAL)),
    ),
    where: whereOf(),
  };

  function whereOf(): TakenWhere | null {
    const latRef = text(gpsIfd.get(TAG_GPS_LATITUDE_REF))?.toUpperCase();
    const lonRef = text(gpsIfd.get(TAG_GPS_LONGITUDE_REF))?.toUpperCase();
    const lat = degrees(gpsIfd.get(TAG_GPS_LATITUDE));
    const lon = degrees(gpsIfd.get(TAG_GPS_LONGITUDE));
    // Without its hemisphere a coordinate could be either: none.
    if (lat === null || lon === null || (latRef !== 'N' && latRef !== 'S') || (lonRef !== 'E' && lonRef !== 'W')) return null;
    if (lat > 90 || lon > 180) return null;
    // 0, 0 is what cameras write without a fix, not a place in the Gulf of Guinea.
    if (lat === 0 && lon === 0) return null;
    return { lat: latRef === 'S' ? -lat : lat, lon: lonRef === 'W' ? -lon : lon };
  }
}

/** The capture time from the raw EXIF date-time (`YYYY:MM:DD HH:MM:SS`) and offset texts, or null. */
function takenAtOf(raw: string | null, offset: string | null): TakenAt | null {
  // When it was taken (or, written by some cameras only, digitised); not IFD0's DateTime, which is
  // when the file was last changed.
  const match = raw?.match(/^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})$/);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // A date that is no date (month 13, 31 February, year 0) is no time taken.
  if (year < 1900 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  return { local: `${match[1]}-${match[2]}-${match[3]} ${match[4]}:${match[5]}:${match[6]}`, offset: validOffset(offset) };
}

/**
 * An offset from UTC as EXIF writes it (`+01:00`), when it is one the world uses: at most ±14:00,
 * minutes below 60. Anything else (`+99:99`, `+14:30`, `1:00`) is dropped: the time is kept as the
 * camera's local time without an offset, as when the camera wrote none.
 */
export function validOffset(offset: string | null): string | null {
  const match = offset?.match(/^[+-](\d{2}):(\d{2})$/);
  if (!match) return null;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  return Number(match[2]) < 60 && minutes <= 14 * 60 ? offset! : null;
}
