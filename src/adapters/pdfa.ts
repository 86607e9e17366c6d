/**
 * What makes the report PDF PDF/A-1b (ISO 19005-1, level B) beyond pdfkit's own part.
 *
 * pdfkit's `subset: 'PDF/A-1b'` (with `pdfVersion: '1.4'`) writes the sRGB output intent, the XMP
 * identification (pdfaid) and a CIDSet for each embedded font. The rest is ours:
 * - Device colours must fit the sRGB output intent, so a CMYK JPEG (DeviceCMYK) is converted to
 *   sRGB before it is embedded (pdf.ts, loadImage, through isPdfaJpeg).
 * - The Info dictionary and the XMP packet must say the same and the XMP must be well-formed XML:
 *   pdfaInfo makes the values plain text XML can carry (pdf.ts escapes them for the XMP).
 * - A glyph the font does not have is drawn as the font's .notdef glyph, which PDF/A does not
 *   allow: replaceMissingGlyphs has such characters (an emoji in DejaVu Sans) drawn as U+FFFD.
 * - The ODT cover sheet is converted by LibreOffice as PDF/A-1 (libreoffice.ts). LibreOffice's
 *   PDF/A-1 export cannot keep an image's transparency: depending on the layout around it, it
 *   drops the alpha channel, so a logo on a transparent background prints on a black box.
 *   flattenOdtPictures puts such pictures onto white in the ODT first. The cover's pages are then
 *   imported without what PDF/A-1 forbids (pdf-import.ts).
 *
 * pdfkit internals relied on (pdfkit 0.20; test/integration/pdfa.test.ts checks the result with
 * PDFBox Preflight): `doc._font.font` is the current font's fontkit font (hasGlyphForCodePoint),
 * and pdfkit's line wrapping measures through the document's own `widthOfString`.
 */
import { readFile, stat } from 'node:fs/promises';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import sharp from 'sharp';
import { writeFileAtomic } from './file-store.js';
import { MAX_INPUT_PIXELS } from './image.js';
import { MAX_TEMPLATE_BYTES, MAX_TEMPLATE_ENTRIES, MAX_UNZIPPED_BYTES } from './odt.js';

/** The PDFDocument options that make pdfkit write PDF/A-1b. */
export const PDFA_DOCUMENT_OPTIONS = { pdfVersion: '1.4', subset: 'PDF/A-1b' } as const;

// ---- images --------------------------------------------------------------------------------------

/**
 * True for a JPEG pdfkit may embed as it is in a PDF/A-1b file with an sRGB output intent: one
 * (grey) or three (YCbCr/RGB) components. False for CMYK/YCCK (four components), and for data
 * whose frame header cannot be found.
 */
export function isPdfaJpeg(data: Buffer): boolean {
  const components = jpegComponents(data);
  return components === 1 || components === 3;
}

/** The number of colour components in a JPEG's frame header (SOFn), or undefined when there is none. */
export function jpegComponents(data: Buffer): number | undefined {
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return undefined;
  let pos = 2;
  while (pos + 4 <= data.length) {
    if (data[pos] !== 0xff) return undefined;
    const marker = data[pos + 1]!;
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    // Markers without a length: TEM, RSTn, SOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      pos += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // EOI or SOS before any frame header
    // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC): FF Cn, length, precision, height, width, components.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return pos + 9 < data.length ? data[pos + 9] : undefined;
    }
    pos += 2 + data.readUInt16BE(pos + 2);
  }
  return undefined;
}

// ---- metadata ------------------------------------------------------------------------------------

/** Control characters (C0, DEL, C1), line breaks and tabs included: a space in a document's title. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;
/** What XML 1.0 cannot carry at all: non-characters and lone surrogates. */
const NOT_XML = /[\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `info` with its text values as one line of text XML can carry, for both the Info dictionary and
 * the XMP packet, which PDF/A wants equal: a control character would make the XMP malformed, and
 * an XML parser reads a carriage return as a line feed, so the two would differ.
 */
export function pdfaInfo<T extends object>(info: T): T {
  return Object.fromEntries(
    Object.entries(info).map(([key, value]) => [key, typeof value === 'string' ? value.replace(CONTROL, ' ').replace(NOT_XML, '') : value]),
  ) as T;
}

// ---- text ----------------------------------------------------------------------------------------

/** The parts of pdfkit's current font used here: an embedded font's fontkit font. */
interface FontHolder {
  _font?: { font?: { hasGlyphForCodePoint?(codePoint: number): boolean } };
}
/** The methods of the document that take text, before it is laid out with the current font. */
const TEXT_METHODS = ['text', 'widthOfString', 'heightOfString'] as const;
const REPLACEMENT = '\uFFFD';

/**
 * Makes the document draw, in place of characters its current font has no glyph for (an emoji in
 * DejaVu Sans), one U+FFFD (�) for each run of them, and a space for control characters other
 * than the line feed (a tab). pdfkit would draw the font's .notdef glyph, which PDF/A does not
 * allow. Wraps `text`, `widthOfString` and `heightOfString` of this document, so measuring and
 * drawing see the same text (pdfkit's line wrapping measures through `widthOfString` too).
 */
export function replaceMissingGlyphs(doc: PDFKit.PDFDocument): void {
  const target = doc as unknown as FontHolder & Record<(typeof TEXT_METHODS)[number], (text: unknown, ...rest: unknown[]) => unknown>;
  for (const method of TEXT_METHODS) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    target[method] = function (this: FontHolder, text: unknown, ...rest: unknown[]) {
      const font = this._font?.font;
      const printable =
        typeof text === 'string' && typeof font?.hasGlyphForCodePoint === 'function'
          ? withGlyphsOf(font as { hasGlyphForCodePoint(codePoint: number): boolean }, text)
          : text;
      return original.call(this, printable, ...rest);
    };
  }
}

/** `text` as replaceMissingGlyphs describes it, for `font` (a fontkit font; its cmap is a quick look-up). */
function withGlyphsOf(font: { hasGlyphForCodePoint(codePoint: number): boolean }, text: string): string {
  let out = '';
  let missing = false;
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if (char === '\n' || font.hasGlyphForCodePoint(codePoint)) {
      out += char;
      missing = false;
    } else if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0)) {
      out += ' ';
      missing = false;
    } else if (!missing) {
      out += font.hasGlyphForCodePoint(REPLACEMENT.codePointAt(0)!) ? REPLACEMENT : '?';
      missing = true;
    }
  }
  return out;
}

// ---- the ODT cover sheet -------------------------------------------------------------------------

/** sharp's formats of pictures that may carry alpha and can be written back in their own format. */
const FLATTENED_FORMATS = new Set(['png', 'webp', 'gif', 'tiff']);

/**
 * Writes a copy of the ODF document `source` to `target` with every raster picture that has an
 * alpha channel (Pictures/…: PNG, WebP, GIF, TIFF) put onto white, in its own format and under its
 * own name. Returns false, writing nothing, when no picture needs it or `source` is not an ODF
 * zip within the template limits (odt.ts); LibreOffice then converts `source` itself.
 */
export async function flattenOdtPictures(source: string, target: string): Promise<boolean> {
  if ((await stat(source)).size > MAX_TEMPLATE_BYTES) return false;
  const data = await readFile(source);
  const order: string[] = [];
  const stored = new Set<string>();
  let files: Record<string, Uint8Array>;
  try {
    let count = 0;
    let total = 0;
    files = unzipSync(data, {
      filter(file) {
        count += 1;
        total += file.originalSize;
        if (count > MAX_TEMPLATE_ENTRIES || total > MAX_UNZIPPED_BYTES || file.name === '__proto__')
          throw new Error('beyond the template limits');
        if (file.compression === 0) stored.add(file.name);
        order.push(file.name);
        return true;
      },
    });
  } catch {
    return false;
  }
  const mimetype = files['mimetype'];
  if (!mimetype || !Buffer.from(mimetype).toString('latin1').startsWith('application/vnd.oasis.opendocument.')) return false;

  let changed = false;
  for (const name of order) {
    const bytes = files[name];
    if (!bytes || !name.startsWith('Pictures/')) continue;
    const flattened = await flattenPicture(bytes);
    if (flattened) {
      files[name] = flattened;
      changed = true;
    }
  }
  if (!changed) return false;

  // mimetype first and stored, as the OpenDocument spec asks; the rest in order, stored as before.
  const zippable: Zippable = { mimetype: [mimetype, { level: 0 }] };
  for (const name of order) {
    const bytes = files[name];
    if (name !== 'mimetype' && bytes) zippable[name] = [bytes, { level: stored.has(name) ? 0 : 6 }];
  }
  await writeFileAtomic(target, Buffer.from(zipSync(zippable)));
  return true;
}

/** The picture put onto white in its own format, or undefined when it has no alpha or is not a raster image sharp can write. */
async function flattenPicture(bytes: Uint8Array): Promise<Uint8Array | undefined> {
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS });
    const { format, hasAlpha } = await image.metadata();
    if (!hasAlpha || !format || !FLATTENED_FORMATS.has(format)) return undefined;
    const white = image.flatten({ background: '#ffffff' });
    const out = format === 'webp' ? white.webp({ lossless: true }) : white.toFormat(format as 'png' | 'gif' | 'tiff');
    return new Uint8Array(await out.toBuffer());
  } catch {
    return undefined; // unreadable: left as it is
  }
}
