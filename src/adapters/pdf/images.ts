/**
 * The images pipeline of the report PDF, apart from the drawing: an image on disk (ideally the
 * print-size copy print-image.ts made) read and parsed by pdfkit for the page it goes on. JPEGs and
 * plain PNGs are embedded as they are; other formats, and PNGs pdfkit would decode asynchronously
 * (alpha, palette transparency, interlacing), are flattened onto white through sharp first, which
 * also keeps transparency (forbidden in PDF/A-1) out of the file.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { AppError } from '../../errors.js';
import { MAX_INPUT_PIXELS } from '../image.js';
import { isPdfaJpeg } from '../pdfa.js';
import type { Doc, PdfKitImage } from './kit.js';

/** A JPEG or PNG on disk, ideally print-size and upright (preparePrintImage). */
export interface PdfImage {
  path: string;
  /** Its pixel size, upright, when known (a print copy): a compact row is as tall as its photos need. */
  width?: number;
  height?: number;
}

/**
 * Reads an image for one page and parses it with pdfkit (not embedded yet). A file that has gone
 * since the page was planned is drawn as missing rather than failing the whole report.
 */
export async function loadImage(doc: Doc, image: PdfImage | null): Promise<PdfKitImage | null> {
  if (!image) return null;
  let data: Buffer;
  try {
    data = await readFile(image.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!isPdfaJpeg(data) && !isPlainPng(data)) {
    // Other formats, CMYK JPEGs (not allowed in PDF/A beside an sRGB output intent) and PNGs pdfkit
    // would decode asynchronously: flattened onto white in sRGB, lossless.
    try {
      data = await sharp(data, { limitInputPixels: MAX_INPUT_PIXELS })
        .flatten({ background: '#ffffff' })
        .png({ compressionLevel: 6 })
        .toBuffer();
    } catch {
      throw new AppError('IMAGE_INVALID');
    }
  }
  let parsed: PdfKitImage;
  try {
    parsed = (doc as unknown as { openImage(src: Buffer): PdfKitImage }).openImage(data);
  } catch {
    throw new AppError('IMAGE_INVALID'); // pdfkit throws plain strings such as 'Invalid JPEG.'
  }
  // pdfkit reads a JPEG's size from its frame header without checking it.
  if (!(parsed.width > 0 && parsed.height > 0)) throw new AppError('IMAGE_INVALID');
  return parsed;
}

/**
 * True for a PNG that pdfkit embeds synchronously: no alpha channel (colour types 4 and 6), no
 * palette transparency (tRNS with colour type 3) and not interlaced.
 */
export function isPlainPng(data: Buffer): boolean {
  if (data.length < 33 || data.readUInt32BE(0) !== 0x89504e47 || data.toString('latin1', 12, 16) !== 'IHDR') return false;
  const colourType = data[25];
  if (colourType === 4 || colourType === 6 || data[28] !== 0) return false;
  for (let pos = 8; pos + 8 <= data.length; ) {
    const length = data.readUInt32BE(pos);
    const type = data.toString('latin1', pos + 4, pos + 8);
    if (type === 'IDAT' || type === 'IEND') return true;
    if (type === 'tRNS' && colourType === 3) return false;
    pos += 12 + length;
  }
  return false;
}
