/**
 * The capture time of a JPEG, kept when the phone reduces a photo: a canvas writes no EXIF, so
 * the original's DateTimeOriginal (or DateTime) is read here and written into the reduced JPEG as
 * a minimal EXIF block (no orientation tag: the pixels are already upright).
 * A photo marked up on the phone gets its own minimal block (`withMarkupExif`): which photo it was
 * marked on, the app as its software, and the original's capture time.
 */

/** The TIFF data of a JPEG's EXIF block (APP1 "Exif"), read from its first bytes; undefined without one. */
function exifTiff(bytes: ArrayBuffer): DataView | undefined {
  const view = new DataView(bytes);
  if (view.byteLength < 4 || view.getUint16(0) !== 0xffd8) return undefined;
  let at = 2;
  while (at + 4 <= view.byteLength) {
    const marker = view.getUint16(at);
    if ((marker & 0xff00) !== 0xff00 || marker === 0xffda) return undefined;
    const length = view.getUint16(at + 2);
    if (marker === 0xffe1 && at + 10 <= view.byteLength && view.getUint32(at + 4) === 0x45786966 /* Exif */) {
      const tiff = new DataView(bytes, at + 10, Math.min(length - 8, view.byteLength - at - 10));
      return tiff.byteLength < 8 ? undefined : tiff;
    }
    at += 2 + length;
  }
  return undefined;
}

type Entry = { type: number; count: number; value: number; at: number };

/** The entries of the IFD at `ifd` by tag (`at`: where the entry's value field is), as far as the data reaches. */
function ifdEntries(tiff: DataView, little: boolean, ifd: number): Map<number, Entry> {
  const found = new Map<number, Entry>();
  if (ifd + 2 > tiff.byteLength) return found;
  const n = tiff.getUint16(ifd, little);
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > tiff.byteLength) break;
    found.set(tiff.getUint16(e, little), {
      type: tiff.getUint16(e + 2, little),
      count: tiff.getUint32(e + 4, little),
      value: tiff.getUint32(e + 8, little),
      at: e + 8,
    });
  }
  return found;
}

/** `YYYY:MM:DD HH:MM:SS` from the EXIF of a JPEG's first bytes, or undefined. */
export function readCaptureTime(bytes: ArrayBuffer): string | undefined {
  const tiff = exifTiff(bytes);
  if (!tiff) return undefined;
  const little = tiff.getUint16(0) === 0x4949;
  const ascii = (entry?: Entry) => {
    if (!entry || entry.type !== 2 || entry.count < 19 || entry.value + 19 > tiff.byteLength) return undefined;
    let text = '';
    for (let i = 0; i < 19; i++) text += String.fromCharCode(tiff.getUint8(entry.value + i));
    return /^\d{4}:\d\d:\d\d \d\d:\d\d:\d\d$/.test(text) ? text : undefined;
  };
  const ifd0 = ifdEntries(tiff, little, tiff.getUint32(4, little));
  const exifPointer = ifd0.get(0x8769);
  const exif = exifPointer ? ifdEntries(tiff, little, exifPointer.value) : new Map<number, Entry>();
  return ascii(exif.get(0x9003)) ?? ascii(ifd0.get(0x0132));
}

/** A JPEG with an EXIF block holding `time` as DateTime and DateTimeOriginal, after its SOI marker. */
export function withCaptureTime(jpeg: ArrayBuffer, time: string): Blob {
  const tiff = new DataView(new ArrayBuffer(96));
  tiff.setUint16(0, 0x4d4d); // big-endian "MM"
  tiff.setUint16(2, 42);
  tiff.setUint32(4, 8); // IFD0
  tiff.setUint16(8, 2);
  entry(tiff, 10, 0x0132, 2, 20, 56); // DateTime
  entry(tiff, 22, 0x8769, 4, 1, 38); // Exif IFD
  tiff.setUint32(34, 0);
  tiff.setUint16(38, 1);
  entry(tiff, 40, 0x9003, 2, 20, 76); // DateTimeOriginal
  tiff.setUint32(52, 0);
  for (const offset of [56, 76]) for (let i = 0; i < 19; i++) tiff.setUint8(offset + i, time.charCodeAt(i));
  const head = new DataView(new ArrayBuffer(10));
  head.setUint16(0, 0xffe1);
  head.setUint16(2, 2 + 6 + tiff.byteLength);
  head.setUint32(4, 0x45786966);
  head.setUint16(8, 0);
  return new Blob([jpeg.slice(0, 2), head.buffer, tiff.buffer, jpeg.slice(2)], { type: 'image/jpeg' });
}

function entry(view: DataView, at: number, tag: number, type: number, count: number, value: number): void {
  view.setUint16(at, tag);
  view.setUint16(at + 2, type);
  view.setUint32(at + 4, count);
  view.setUint32(at + 8, value);
}

// ---- a photo marked up on the phone ------------------------------------------------------------

const ASCII = 2;
const LONG = 4;
const UNDEFINED = 7;
const TAG_DESCRIPTION = 0x010e;
const TAG_SOFTWARE = 0x0131;
const TAG_EXIF_IFD = 0x8769;
const TAG_EXIF_VERSION = 0x9000;
const TAG_DATE_TIME_ORIGINAL = 0x9003;
const TAG_OFFSET_TIME_ORIGINAL = 0x9011;
const TAG_USER_COMMENT = 0x9286;
/** UserComment's character code for UCS-2 text (in the byte order of the TIFF: big-endian here). */
const UNICODE = [0x55, 0x4e, 0x49, 0x43, 0x4f, 0x44, 0x45, 0x00];
const MARKED_FROM = 'Markiert aus ';

/** What the EXIF of a marked-up photo says (`source`: the original's file name, exactly). */
export interface MarkupFacts {
  source: string;
  /** The original's capture time, `YYYY:MM:DD HH:MM:SS`. */
  taken?: string;
  /** The original's OffsetTimeOriginal (`+01:00`), when its camera wrote one. */
  offset?: string;
}

/**
 * `text` in printable ASCII, for EXIF's ASCII tags: German umlauts spelt out, other accents
 * dropped, anything else a `?` (the exact name is in the UserComment).
 */
export function asciiOnly(text: string): string {
  return text
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/Ä/g, 'Ae')
    .replace(/Ö/g, 'Oe')
    .replace(/Ü/g, 'Ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '?');
}

/** The OffsetTimeOriginal of a JPEG's first bytes (`+01:00`), or undefined. */
export function readCaptureOffset(bytes: ArrayBuffer): string | undefined {
  const tiff = tiffOf(bytes);
  if (!tiff) return undefined;
  const value = asciiValue(tiff.view, tiff.exif.get(TAG_OFFSET_TIME_ORIGINAL));
  return value && /^[+-]\d\d:\d\d$/.test(value) ? value : undefined;
}

/** The original's name a marked-up photo's EXIF holds (its UserComment), or undefined. */
export function readMarkupSource(bytes: ArrayBuffer): string | undefined {
  const tiff = tiffOf(bytes);
  const entry = tiff?.exif.get(TAG_USER_COMMENT);
  if (!tiff || !entry || entry.type !== UNDEFINED || entry.count < 8 || entry.value + entry.count > tiff.view.byteLength) return undefined;
  const at = entry.value;
  if (UNICODE.some((byte, i) => tiff.view.getUint8(at + i) !== byte)) return undefined;
  let text = '';
  for (let i = 8; i + 1 < entry.count; i += 2) text += String.fromCharCode(tiff.view.getUint16(at + i, tiff.little));
  return text.startsWith(MARKED_FROM) ? text.slice(MARKED_FROM.length) : undefined;
}

/**
 * A JPEG with an EXIF block naming the photo it was marked on: ImageDescription `Markiert aus
 * <name>` (ASCII, asciiOnly), Software `fieldreport`, DateTimeOriginal (and its offset) copied from
 * the original, and the same description with the exact name in the UserComment (UCS-2). No
 * orientation tag: the pixels are upright.
 */
export function withMarkupExif(jpeg: ArrayBuffer, facts: MarkupFacts): Blob {
  const ascii = (text: string) => Uint8Array.from([...text].map((c) => c.charCodeAt(0)).concat(0));
  const comment = `${MARKED_FROM}${facts.source}`;
  const unicode = new Uint8Array(8 + comment.length * 2);
  unicode.set(UNICODE);
  for (let i = 0; i < comment.length; i++) new DataView(unicode.buffer).setUint16(8 + i * 2, comment.charCodeAt(i));
  const ifd0: Field[] = [
    { tag: TAG_DESCRIPTION, type: ASCII, bytes: ascii(asciiOnly(comment)) },
    { tag: TAG_SOFTWARE, type: ASCII, bytes: ascii('fieldreport') },
    { tag: TAG_EXIF_IFD, type: LONG, bytes: new Uint8Array(4) },
  ];
  const exif: Field[] = [
    { tag: TAG_EXIF_VERSION, type: UNDEFINED, bytes: ascii('0232').slice(0, 4) },
    ...(facts.taken ? [{ tag: TAG_DATE_TIME_ORIGINAL, type: ASCII, bytes: ascii(facts.taken) }] : []),
    ...(facts.taken && facts.offset ? [{ tag: TAG_OFFSET_TIME_ORIGINAL, type: ASCII, bytes: ascii(facts.offset) }] : []),
    { tag: TAG_USER_COMMENT, type: UNDEFINED, bytes: unicode },
  ];
  // Big-endian TIFF: header, IFD0, the Exif IFD, then the values longer than four bytes.
  const ifdSize = (fields: Field[]) => 2 + fields.length * 12 + 4;
  const exifAt = 8 + ifdSize(ifd0);
  let dataAt = exifAt + ifdSize(exif);
  const long = [...ifd0, ...exif].filter((f) => f.bytes.length > 4);
  const size = long.reduce((end, f) => end + f.bytes.length + (f.bytes.length % 2), dataAt);
  if (size + 8 > 0xffff) throw new RangeError('EXIF block too large');
  const tiff = new DataView(new ArrayBuffer(size));
  const bytes = new Uint8Array(tiff.buffer);
  tiff.setUint16(0, 0x4d4d);
  tiff.setUint16(2, 42);
  tiff.setUint32(4, 8);
  new DataView(ifd0[2]!.bytes.buffer).setUint32(0, exifAt);
  const writeIfd = (at: number, fields: Field[]) => {
    tiff.setUint16(at, fields.length);
    fields.forEach((field, i) => {
      const e = at + 2 + i * 12;
      tiff.setUint16(e, field.tag);
      tiff.setUint16(e + 2, field.type);
      // The count is of values: bytes for ASCII and UNDEFINED, four bytes each for a LONG.
      tiff.setUint32(e + 4, field.type === LONG ? field.bytes.length / 4 : field.bytes.length);
      if (field.bytes.length <= 4) {
        bytes.set(field.bytes, e + 8);
      } else {
        tiff.setUint32(e + 8, dataAt);
        bytes.set(field.bytes, dataAt);
        // Values start on an even offset (TIFF's word boundary).
        dataAt += field.bytes.length + (field.bytes.length % 2);
      }
    });
    tiff.setUint32(at + 2 + fields.length * 12, 0);
  };
  writeIfd(8, ifd0);
  writeIfd(exifAt, exif);
  const head = new DataView(new ArrayBuffer(10));
  head.setUint16(0, 0xffe1);
  head.setUint16(2, 2 + 6 + size);
  head.setUint32(4, 0x45786966);
  head.setUint16(8, 0);
  return new Blob([jpeg.slice(0, 2), head.buffer, tiff.buffer, jpeg.slice(2)], { type: 'image/jpeg' });
}

interface Field {
  tag: number;
  type: number;
  bytes: Uint8Array;
}

/** The IFD0 and Exif IFD entries of a JPEG's EXIF block (in its first bytes), or undefined. */
function tiffOf(bytes: ArrayBuffer): { view: DataView; little: boolean; exif: Map<number, Entry> } | undefined {
  const tiff = exifTiff(bytes);
  if (!tiff) return undefined;
  const little = tiff.getUint16(0) === 0x4949;
  const pointer = ifdEntries(tiff, little, tiff.getUint32(4, little)).get(TAG_EXIF_IFD);
  return { view: tiff, little, exif: pointer ? ifdEntries(tiff, little, pointer.value) : new Map() };
}

function asciiValue(view: DataView, entry: Entry | undefined): string | undefined {
  if (!entry || entry.type !== ASCII || entry.count < 1) return undefined;
  const at = entry.count <= 4 ? entry.at : entry.value;
  if (at + entry.count > view.byteLength) return undefined;
  let text = '';
  for (let i = 0; i < entry.count; i++) {
    const c = view.getUint8(at + i);
    if (c === 0) break;
    text += String.fromCharCode(c);
  }
  return text;
}
