/**
 * The capture time of a JPEG, kept when the phone reduces a photo: a canvas writes no EXIF, so
 * the original's DateTimeOriginal (or DateTime) is read here and written into the reduced JPEG as
 * a minimal EXIF block (no orientation tag: the pixels are already upright).
 */

/** `YYYY:MM:DD HH:MM:SS` from the EXIF of a JPEG's first bytes, or undefined. */
export function readCaptureTime(bytes: ArrayBuffer): string | undefined {
  const view = new DataView(bytes);
  if (view.byteLength < 4 || view.getUint16(0) !== 0xffd8) return undefined;
  let at = 2;
  while (at + 4 <= view.byteLength) {
    const marker = view.getUint16(at);
    if ((marker & 0xff00) !== 0xff00 || marker === 0xffda) return undefined;
    const length = view.getUint16(at + 2);
    if (marker === 0xffe1 && at + 10 <= view.byteLength && view.getUint32(at + 4) === 0x45786966 /* Exif */) {
      return fromTiff(new DataView(bytes, at + 10, Math.min(length - 8, view.byteLength - at - 10)));
    }
    at += 2 + length;
  }
  return undefined;
}

function fromTiff(tiff: DataView): string | undefined {
  if (tiff.byteLength < 8) return undefined;
  const little = tiff.getUint16(0) === 0x4949;
  const u16 = (o: number) => tiff.getUint16(o, little);
  const u32 = (o: number) => tiff.getUint32(o, little);
  const entries = (ifd: number) => {
    const found = new Map<number, { type: number; count: number; value: number }>();
    if (ifd + 2 > tiff.byteLength) return found;
    const n = u16(ifd);
    for (let i = 0; i < n; i++) {
      const e = ifd + 2 + i * 12;
      if (e + 12 > tiff.byteLength) break;
      found.set(u16(e), { type: u16(e + 2), count: u32(e + 4), value: u32(e + 8) });
    }
    return found;
  };
  const ascii = (entry?: { type: number; count: number; value: number }) => {
    if (!entry || entry.type !== 2 || entry.count < 19 || entry.value + 19 > tiff.byteLength) return undefined;
    let text = '';
    for (let i = 0; i < 19; i++) text += String.fromCharCode(tiff.getUint8(entry.value + i));
    return /^\d{4}:\d\d:\d\d \d\d:\d\d:\d\d$/.test(text) ? text : undefined;
  };
  const ifd0 = entries(u32(4));
  const exifPointer = ifd0.get(0x8769);
  const exif = exifPointer ? entries(exifPointer.value) : new Map();
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
