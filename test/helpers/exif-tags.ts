/**
 * The tags of an EXIF block as sharp's metadata() gives it (`Exif\0\0` and a TIFF structure), read
 * here without the app's code: IFD0 and the Exif IFD, each tag's raw bytes, and the two ways a text
 * is stored (ASCII, and UserComment with its character code).
 */
export interface ExifTags {
  ifd0: Map<number, { type: number; bytes: Buffer }>;
  exif: Map<number, { type: number; bytes: Buffer }>;
}

const SIZES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8 };

export function exifTags(block: Buffer): ExifTags {
  const tiff = block.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? block.subarray(6) : block;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = (offset: number) => {
    const tags = new Map<number, { type: number; bytes: Buffer }>();
    const count = u16(offset);
    for (let i = 0; i < count; i++) {
      const at = offset + 2 + i * 12;
      const type = u16(at + 2);
      const length = u32(at + 4) * (SIZES[type] ?? 1);
      const start = length <= 4 ? at + 8 : u32(at + 8);
      tags.set(u16(at), { type, bytes: tiff.subarray(start, start + length) });
    }
    return tags;
  };
  const ifd0 = ifd(u32(4));
  const pointer = ifd0.get(0x8769);
  return { ifd0, exif: pointer ? ifd(little ? pointer.bytes.readUInt32LE(0) : pointer.bytes.readUInt32BE(0)) : new Map() };
}

/** An ASCII tag's text (up to its NUL). */
export function asciiTag(tag: { type: number; bytes: Buffer } | undefined): string | undefined {
  if (!tag || tag.type !== 2) return undefined;
  return tag.bytes.toString('latin1').replace(/\0.*$/s, '');
}

/** A UserComment's text: `ASCII\0\0\0`, or `UNICODE\0` as UCS-2 in the block's byte order. */
export function userComment(tags: ExifTags, block: Buffer): string | undefined {
  const tag = tags.exif.get(0x9286);
  if (!tag || tag.bytes.length < 8) return undefined;
  const code = tag.bytes.toString('latin1', 0, 8);
  const body = tag.bytes.subarray(8);
  if (code === 'ASCII\0\0\0') return body.toString('latin1').replace(/\0.*$/s, '');
  if (code !== 'UNICODE\0') return undefined;
  const tiff = block.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? block.subarray(6) : block;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const units = Buffer.from(body);
  if (!little) units.swap16();
  return units.toString('utf16le');
}
