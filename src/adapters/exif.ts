/**
 * When a photo was taken, from its EXIF (DateTimeOriginal, else DateTimeDigitized; with OffsetTimeOriginal
 * where the camera wrote one): read from the file's header by sharp, parsed here (a TIFF structure
 * of a few entries; no library needed for two tags). Cameras write the local time of the place
 * without a zone, so the time is given as written, the offset only when there is one.
 */
import sharp from 'sharp';

export interface TakenAt {
  /** `YYYY-MM-DD HH:MM:SS` as the camera wrote it (its local time). */
  local: string;
  /** `+01:00` and the like, when the camera wrote its offset; else null. */
  offset: string | null;
}

const TAG_EXIF_IFD = 0x8769;
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

/** The capture time in an EXIF block as sharp gives it (`Exif\0\0` and a TIFF structure), or null. */
export function parseTakenAt(exif: Buffer): TakenAt | null {
  const start = exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? 6 : 0;
  const tiff = exif.subarray(start);
  if (tiff.length < 8) return null;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
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
    return tiff.toString('latin1', at, at + count).replace(/\0.*$/s, '').trim();
  };
  const ifd0 = entries(u32(4));
  const exifPointer = ifd0.get(TAG_EXIF_IFD);
  const exifIfd = exifPointer && exifPointer[0] === LONG ? entries(exifPointer[2]) : new Map();
  // When it was taken (or, written by some cameras only, digitised); not IFD0's DateTime, which is
  // when the file was last changed.
  const raw = text(exifIfd.get(TAG_DATE_TIME_ORIGINAL)) ?? text(exifIfd.get(TAG_DATE_TIME_DIGITIZED));
  const match = raw?.match(/^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})$/);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // A date that is no date (month 13, 31 February, year 0) is no time taken.
  if (year < 1900 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  const offset = text(exifIfd.get(TAG_OFFSET_TIME_ORIGINAL));
  return { local: `${match[1]}-${match[2]}-${match[3]} ${match[4]}:${match[5]}:${match[6]}`, offset: offset && /^[+-]\d{2}:\d{2}$/.test(offset) ? offset : null };
}
