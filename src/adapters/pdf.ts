/**
 * The report PDF, drawn with pdfkit and streamed to `out` page by page: pages come from an async
 * iterable and their images are read per page, so a 500-page report never sits in memory.
 *
 * Page rules (spec, "Limits"): a header band in the 30 mm top margin (company logo at most
 * 40 × 18 mm at the left, header lines at the right), 10 mm side margins, 16 mm bottom margin with
 * "Seite x / y" centred in it. x and y count every page of the file, cover pages included, so the
 * footer matches the viewer's page number. Cover pages carry no header and no footer. A page's
 * notice (PdfPage.notice) is a red band in the bottom margin above the page number.
 *
 * Text is real text in DejaVu Sans (embedded as a subset), so umlauts and ß are extractable.
 *
 * pdfkit internals relied on (pdfkit 0.20; test/unit/pdf.test.ts covers each):
 * - `doc.openImage(buffer)` parses a JPEG/PNG without caching it; only string sources are kept in
 *   `doc._imageRegistry`, so images are always passed as buffers read for their page (the logo is
 *   opened once and reused, so it is embedded once). Its parsed object is accepted by `doc.image`.
 * - A PNG with alpha, indexed transparency or interlacing is decoded by pdfkit in an async zlib
 *   callback that throws outside any promise; such PNGs are flattened through sharp first.
 * - Pages are written when the next page is added (no `bufferPages`); output is pushed as it is
 *   made, without backpressure, hence `connect` below.
 * - `doc._addInfo()` writes the XMP packet from `doc.info` without escaping; wrapped to escape.
 * - The cover import (pdf-import.ts) uses `doc.ref(data)`, `ref.data`, `ref.end(bytes)`,
 *   pdfkit's serialisation of JS values and `doc.page.xobjects`; see there.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { AppError } from '../errors.js';
import { MAX_INPUT_PIXELS } from './image.js';
import { drawPdfPageAsForm, loadCoverPdf } from './pdf-import.js';
import { isPdfaJpeg, PDFA_DOCUMENT_OPTIONS, pdfaInfo, replaceMissingGlyphs } from './pdfa.js';

export type PaperFormat = 'A3' | 'A4' | 'A5' | 'LETTER';
export type Orientation = 'portrait' | 'landscape';
/** Quarter turns clockwise. */
export type Rotation = 0 | 90 | 180 | 270;
/** A JPEG or PNG on disk, ideally print-size and upright (preparePrintImage). */
export interface PdfImage {
  path: string;
}

/**
 * One body page. A null image (or a file that has gone) draws a grey "Bild fehlt" box. `notice`:
 * a line set apart in the bottom margin, above the page number (e.g. that a signature does not
 * cover the page); it takes nothing from the page's body.
 */
export type PdfPage = (
  | { kind: 'photo'; title: string | null; note: string | null; rotation: Rotation; image: PdfImage | null }
  | { kind: 'before_after'; title: string | null; note: string | null; rotation: Rotation; before: PdfImage | null; after: PdfImage | null }
  | { kind: 'title_only'; title: string | null; note: string | null }
  /** A composite image such as a signature sheet, drawn as large as fits. */
  | { kind: 'image'; title: string | null; note: string | null; image: PdfImage | null }
) & { notice?: string | null };

/** A PDF whose pages go first (LibreOffice's rendering of the ODT cover sheet), or a plain page drawn here. */
export type PdfCover = { kind: 'pdf'; path: string } | { kind: 'builtin'; title: string; lines: string[] };

export interface PdfDocumentInput {
  format: PaperFormat;
  orientation: Orientation;
  /** Logo at the top left of every body page; lines at the right (e.g. company, "BR2611-0001 · Titel"). */
  header: { logo: PdfImage | null; lines: string[] };
  cover: PdfCover | null;
  /** How many pages `pages` yields; needed up front for the "Seite x / y" total. */
  bodyPageCount: number;
  /** Produced lazily, one page at a time. */
  pages: AsyncIterable<PdfPage>;
  info: { title: string; author?: string; subject?: string; creationDate?: Date };
}

/** Millimetres to points. */
const mm = (value: number): number => (value * 72) / 25.4;
/** Page geometry (spec, "Limits"), in points. */
export const PDF_LAYOUT = {
  top: mm(30),
  side: mm(10),
  bottom: mm(16),
  logoWidth: mm(40),
  logoHeight: mm(18),
} as const;
/** Gap between blocks on a page. */
const GAP = mm(3);
/** Space between the "Vorher" and "Nachher" columns. */
const GUTTER = mm(6);

/** Portrait page sizes in points, as pdfkit draws them. */
const PAPER_SIZES: Record<PaperFormat, readonly [number, number]> = {
  A3: [841.89, 1190.55],
  A4: [595.28, 841.89],
  A5: [419.53, 595.28],
  LETTER: [612, 792],
};

/** A box on a page, in points. */
export interface ImageBox {
  width: number;
  height: number;
}

/**
 * The largest box an image of a page can be drawn in, in points: the body of a `photo` (or
 * signature) page, or one column of a `before_after` page, with neither title nor note. A page's
 * title, note and labels only make the box smaller, so an image made for this box prints at least
 * as sharp as planned. `rotation` is the page's quarter turns: the box is given in the image's own
 * upright axes, so a quarter turn swaps its sides.
 */
export function largestImageBox(format: PaperFormat, orientation: Orientation, layout: 'photo' | 'before_after', rotation: Rotation = 0): ImageBox {
  const [short, long] = PAPER_SIZES[format];
  const [pageWidth, pageHeight] = orientation === 'landscape' ? [long, short] : [short, long];
  const bodyWidth = pageWidth - 2 * PDF_LAYOUT.side;
  const width = layout === 'before_after' ? (bodyWidth - GUTTER) / 2 : bodyWidth;
  const height = pageHeight - PDF_LAYOUT.top - PDF_LAYOUT.bottom;
  return rotation === 90 || rotation === 270 ? { width: height, height: width } : { width, height };
}

/** The box of the company logo at the top left of every body page. */
export const LOGO_BOX: ImageBox = { width: PDF_LAYOUT.logoWidth, height: PDF_LAYOUT.logoHeight };
const SANS = 'DejaVuSans';
const SANS_BOLD = 'DejaVuSans-Bold';
/** Output waiting in `out` beyond which the next page waits for 'drain'. */
const OUTPUT_HIGH_WATER = 1 << 20;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The parts of a pdfkit image object used here (a parsed JPEG or PNG). */
interface PdfKitImage {
  width: number;
  height: number;
  /** EXIF orientation of a JPEG (pdfkit applies it when drawing). */
  orientation?: number;
}
type Doc = PDFKit.PDFDocument;

let fontDir: string | undefined;
function fontPath(file: string): string {
  fontDir ??= path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  return path.join(fontDir, file);
}

/**
 * Renders the report into `out` and resolves when `out` has finished (for a file stream: closed).
 * Rejects on any failure (an image pdfkit cannot read: AppError('IMAGE_INVALID')); then nothing
 * more is written, and `out` is destroyed as stream.pipeline does, so the caller only removes
 * the partial file.
 */
export async function renderReportPdf(input: PdfDocumentInput, out: NodeJS.WritableStream): Promise<{ pageCount: number }> {
  const info: PDFKit.DocumentInfo = { Title: input.info.title, Producer: 'fieldreport', Creator: 'fieldreport', CreationDate: input.info.creationDate ?? new Date() };
  // pdfkit writes every key of info, so absent values must not be there as undefined.
  if (input.info.author) info.Author = input.info.author;
  if (input.info.subject) info.Subject = input.info.subject;
  const doc = new PDFDocument({ autoFirstPage: false, compress: true, ...PDFA_DOCUMENT_OPTIONS, lang: 'de-DE', displayTitle: true, info: pdfaInfo(info) });
  escapeXmpInfo(doc);
  replaceMissingGlyphs(doc);
  doc.registerFont(SANS, fontPath('DejaVuSans.ttf'));
  doc.registerFont(SANS_BOLD, fontPath('DejaVuSans-Bold.ttf'));
  const sink = connect(doc, out);
  try {
    const coverPdf = input.cover?.kind === 'pdf' ? await loadCoverPdf(input.cover.path) : null;
    const coverPages = coverPdf ? coverPdf.pageCount : input.cover ? 1 : 0;
    const total = coverPages + input.bodyPageCount;
    const logo = await loadImage(doc, input.header.logo);
    const pageOptions = { size: input.format, layout: input.orientation, margin: 0 };

    if (coverPdf) {
      for (let index = 0; index < coverPdf.pageCount; index++) {
        await sink.room();
        doc.addPage(pageOptions);
        drawPdfPageAsForm(doc, coverPdf, index);
      }
    } else if (input.cover?.kind === 'builtin') {
      doc.addPage(pageOptions);
      drawBuiltinCover(doc, input.cover, logo);
    }

    let number = coverPages;
    for await (const page of input.pages) {
      if (number >= total) throw new Error(`renderReportPdf: more pages than bodyPageCount (${input.bodyPageCount})`);
      const images = await loadPageImages(doc, page);
      await sink.room();
      doc.addPage(pageOptions);
      number++;
      drawHeader(doc, input.header.lines, logo);
      drawBody(doc, page, images);
      if (page.notice) drawNotice(doc, page.notice);
      drawFooter(doc, `Seite ${number} / ${total}`);
    }
    if (number !== total) throw new Error(`renderReportPdf: ${number - coverPages} pages, bodyPageCount said ${input.bodyPageCount}`);
    doc.end();
    await sink.done;
    return { pageCount: number };
  } catch (error) {
    sink.abort(error);
    throw error;
  }
}

/**
 * pdfkit copies Title, Author and Subject into the XMP packet without escaping them, so a title
 * like "Müller & Söhne" would make the XML invalid. Its `_addInfo` (called once, in `end()`, after
 * the Info dictionary is written) sees escaped values instead.
 */
function escapeXmpInfo(doc: Doc): void {
  const target = doc as unknown as { _addInfo?: () => void; info: Record<string, unknown> };
  const addInfo = target._addInfo;
  if (typeof addInfo !== 'function') return;
  const escape = (value: string): string => value.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
  target._addInfo = function (this: typeof target) {
    const info = this.info;
    this.info = Object.fromEntries(Object.entries(info).map(([key, value]) => [key, typeof value === 'string' ? escape(value) : value]));
    try {
      addInfo.call(this);
    } finally {
      this.info = info;
    }
  };
}

/**
 * Sends pdfkit's output to `out`. pdfkit pushes without regard to backpressure, so the render
 * loop calls `room()` before each page: once `out` has refused a write and holds more than
 * OUTPUT_HIGH_WATER, it waits for 'drain'. The buffered output stays around one page.
 */
function connect(doc: Doc, out: NodeJS.WritableStream) {
  let failure: unknown;
  let full = false;
  let ended = false;
  let wake: (() => void) | undefined;
  const done = finished(out);
  done.then(
    () => {
      if (!ended) failure ??= new Error('renderReportPdf: the output was ended before the PDF was complete');
      wake?.();
    },
    (error: unknown) => {
      failure ??= error;
      wake?.();
    },
  );
  const onData = (chunk: Buffer): void => {
    if (!out.write(chunk)) full = true;
  };
  const onDrain = (): void => {
    full = false;
    wake?.();
  };
  doc.on('data', onData);
  doc.once('end', () => {
    ended = true;
    out.off('drain', onDrain);
    out.end();
  });
  out.on('drain', onDrain);
  // A stream without writableLength waits for every 'drain'.
  const buffered = (): number => (out as Partial<{ writableLength: number }>).writableLength ?? Infinity;
  return {
    done,
    async room(): Promise<void> {
      while (failure === undefined && full && buffered() > OUTPUT_HIGH_WATER) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (failure !== undefined) throw failure;
    },
    abort(error: unknown): void {
      failure ??= error;
      doc.off('data', onData);
      out.off('drain', onDrain);
      doc.destroy();
      const writable = out as NodeJS.WritableStream & { destroy?: (error?: Error) => void; destroyed?: boolean };
      if (typeof writable.destroy === 'function' && !writable.destroyed) writable.destroy(error instanceof Error ? error : undefined);
    },
  };
}

// ---- images ------------------------------------------------------------------------------------

type PageImages = (PdfKitImage | null)[];

async function loadPageImages(doc: Doc, page: PdfPage): Promise<PageImages> {
  switch (page.kind) {
    case 'photo':
    case 'image':
      return [await loadImage(doc, page.image)];
    case 'before_after':
      return [await loadImage(doc, page.before), await loadImage(doc, page.after)];
    case 'title_only':
      return [];
  }
}

/**
 * Reads an image for one page and parses it with pdfkit (not embedded yet). A file that has gone
 * since the page was planned is drawn as missing rather than failing the whole report.
 */
async function loadImage(doc: Doc, image: PdfImage | null): Promise<PdfKitImage | null> {
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
      data = await sharp(data, { limitInputPixels: MAX_INPUT_PIXELS }).flatten({ background: '#ffffff' }).png({ compressionLevel: 6 }).toBuffer();
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

// ---- drawing -----------------------------------------------------------------------------------

const INK = '#000000';
const MUTED = '#555555';
const RULE = '#b4b4b4';

interface TextStyle {
  font: string;
  size: number;
  color?: string;
  align?: 'left' | 'center' | 'right';
}

/** Sets font, size and colour. */
function style(doc: Doc, { font, size, color = INK }: TextStyle): void {
  doc.font(font).fontSize(size).fillColor(color);
}

/** Height `text` takes at `width`, capped at `maxHeight`. */
function measure(doc: Doc, text: string, width: number, textStyle: TextStyle, maxHeight: number): number {
  style(doc, textStyle);
  return Math.min(doc.heightOfString(text.replace(/\r\n?/g, '\n'), { width }), maxHeight);
}

/**
 * Wrapped text in a box. The height option matters: without it pdfkit starts a new page when
 * text runs past the bottom; with it the text is cut with an ellipsis.
 */
function textIn(doc: Doc, text: string, box: Box, textStyle: TextStyle): void {
  style(doc, textStyle);
  doc.text(text.replace(/\r\n?/g, '\n'), box.x, box.y, { width: box.w, height: Math.max(box.h, doc.currentLineHeight(true)), ellipsis: true, align: textStyle.align ?? 'left' });
}

const TITLE: TextStyle = { font: SANS_BOLD, size: 14 };
const NOTE: TextStyle = { font: SANS, size: 10 };
const LABEL: TextStyle = { font: SANS_BOLD, size: 11, color: MUTED };

function bodyBox(doc: Doc): Box {
  const { width, height } = doc.page;
  return { x: PDF_LAYOUT.side, y: PDF_LAYOUT.top, w: width - 2 * PDF_LAYOUT.side, h: height - PDF_LAYOUT.top - PDF_LAYOUT.bottom };
}

/** Logo at the top left (at most 40 × 18 mm, aspect kept), header lines at the right, a thin rule above the body. */
function drawHeader(doc: Doc, lines: readonly string[], logo: PdfKitImage | null): void {
  const top = mm(8);
  const right = doc.page.width - PDF_LAYOUT.side;
  if (logo) drawLogo(doc, logo, { x: PDF_LAYOUT.side, y: top, w: PDF_LAYOUT.logoWidth, h: PDF_LAYOUT.logoHeight });
  const left = PDF_LAYOUT.side + PDF_LAYOUT.logoWidth + mm(6);
  let y = top;
  lines.forEach((line, index) => {
    const lineStyle: TextStyle = index === 0 ? { font: SANS_BOLD, size: 10, align: 'right' } : { font: SANS, size: 8.5, color: '#333333', align: 'right' };
    style(doc, lineStyle);
    const height = doc.currentLineHeight(true);
    if (y + height > top + PDF_LAYOUT.logoHeight + mm(1)) return;
    doc.text(line, left, y, { width: right - left, height, lineBreak: true, ellipsis: true, align: 'right' });
    y += height + 1;
  });
  const ruleY = PDF_LAYOUT.top - mm(3);
  doc.save().moveTo(PDF_LAYOUT.side, ruleY).lineTo(right, ruleY).lineWidth(0.5).strokeColor(RULE).stroke().restore();
}

function drawLogo(doc: Doc, logo: PdfKitImage, box: Box): void {
  const { width, height } = uprightSize(logo);
  const scale = Math.min(box.w / width, box.h / height);
  drawPdfKitImage(doc, logo, box.x, box.y, width * scale, height * scale);
}

function drawFooter(doc: Doc, text: string): void {
  const footerStyle: TextStyle = { font: SANS, size: 8, color: MUTED, align: 'center' };
  style(doc, footerStyle);
  const height = doc.currentLineHeight(true);
  const y = doc.page.height - PDF_LAYOUT.bottom / 2 - height / 2;
  textIn(doc, text, { x: PDF_LAYOUT.side, y, w: doc.page.width - 2 * PDF_LAYOUT.side, h: height }, footerStyle);
}

/**
 * A notice across the page in the bottom margin, between the body and the page number: bold dark
 * red text on a pale red band with a red rule, real text (searchable, and read out by screen
 * readers), cut with an ellipsis rather than wrapped.
 */
function drawNotice(doc: Doc, text: string): void {
  const noticeStyle: TextStyle = { font: SANS_BOLD, size: 8.5, color: '#8b0000', align: 'center' };
  style(doc, noticeStyle);
  const lineHeight = doc.currentLineHeight(true);
  const band = { x: PDF_LAYOUT.side, y: doc.page.height - PDF_LAYOUT.bottom + mm(1), w: doc.page.width - 2 * PDF_LAYOUT.side, h: lineHeight + mm(1.2) };
  doc.save().rect(band.x, band.y, band.w, band.h).lineWidth(0.75).fillAndStroke('#fde8e8', '#b22222').restore();
  textIn(doc, text, { x: band.x + mm(2), y: band.y + mm(0.6), w: band.w - mm(4), h: lineHeight }, noticeStyle);
}

function drawBuiltinCover(doc: Doc, cover: { title: string; lines: string[] }, logo: PdfKitImage | null): void {
  if (logo) drawLogo(doc, logo, { x: PDF_LAYOUT.side, y: mm(8), w: PDF_LAYOUT.logoWidth, h: PDF_LAYOUT.logoHeight });
  const box = bodyBox(doc);
  const titleStyle: TextStyle = { font: SANS_BOLD, size: 26, align: 'center' };
  const lineStyle: TextStyle = { font: SANS, size: 13, align: 'center', color: '#333333' };
  let y = box.y + box.h * 0.3;
  const titleHeight = measure(doc, cover.title, box.w, titleStyle, box.h * 0.3);
  textIn(doc, cover.title, { ...box, y, h: titleHeight }, titleStyle);
  y += titleHeight + mm(8);
  for (const line of cover.lines) {
    const height = measure(doc, line, box.w, lineStyle, box.y + box.h - y);
    if (height <= 0) break;
    textIn(doc, line, { ...box, y, h: height }, lineStyle);
    y += height + mm(1.5);
  }
}

function drawBody(doc: Doc, page: PdfPage, images: PageImages): void {
  switch (page.kind) {
    case 'photo':
      return drawImagePage(doc, page.title, page.note, images[0] ?? null, page.rotation);
    case 'image':
      return drawImagePage(doc, page.title, page.note, images[0] ?? null, 0);
    case 'before_after':
      return drawBeforeAfterPage(doc, page, images[0] ?? null, images[1] ?? null);
    case 'title_only':
      return drawTitlePage(doc, page.title, page.note);
  }
}

/** Title above, the image as large as fits, the note right below the image. */
function drawImagePage(doc: Doc, title: string | null, note: string | null, image: PdfKitImage | null, rotation: Rotation): void {
  const box = bodyBox(doc);
  let y = box.y;
  if (title) {
    const height = measure(doc, title, box.w, TITLE, box.h * 0.2);
    textIn(doc, title, { ...box, h: height }, TITLE);
    y += height + GAP;
  }
  const noteHeight = note ? measure(doc, note, box.w, NOTE, box.h * 0.3) : 0;
  const bottom = box.y + box.h - (note ? noteHeight + GAP : 0);
  const drawn = drawImageOrPlaceholder(doc, image, { x: box.x, y, w: box.w, h: bottom - y }, rotation);
  if (note) textIn(doc, note, { x: box.x, y: y + drawn + GAP, w: box.w, h: noteHeight }, NOTE);
}

/** Title above, "Vorher" and "Nachher" side by side, each labelled above its image, the note below. */
function drawBeforeAfterPage(doc: Doc, page: Extract<PdfPage, { kind: 'before_after' }>, before: PdfKitImage | null, after: PdfKitImage | null): void {
  const box = bodyBox(doc);
  let y = box.y;
  if (page.title) {
    const height = measure(doc, page.title, box.w, TITLE, box.h * 0.2);
    textIn(doc, page.title, { ...box, h: height }, TITLE);
    y += height + GAP;
  }
  const noteHeight = page.note ? measure(doc, page.note, box.w, NOTE, box.h * 0.3) : 0;
  const bottom = box.y + box.h - (page.note ? noteHeight + GAP : 0);
  style(doc, LABEL);
  const labelHeight = doc.currentLineHeight(true);
  const columnWidth = (box.w - GUTTER) / 2;
  let drawn = 0;
  [
    { label: 'Vorher', image: before },
    { label: 'Nachher', image: after },
  ].forEach(({ label, image }, index) => {
    const x = box.x + index * (columnWidth + GUTTER);
    textIn(doc, label, { x, y, w: columnWidth, h: labelHeight }, { ...LABEL, align: 'center' });
    const imageTop = y + labelHeight + mm(1.5);
    drawn = Math.max(drawn, drawImageOrPlaceholder(doc, image, { x, y: imageTop, w: columnWidth, h: bottom - imageTop }, page.rotation));
  });
  if (page.note) textIn(doc, page.note, { x: box.x, y: y + labelHeight + mm(1.5) + drawn + GAP, w: box.w, h: noteHeight }, NOTE);
}

/** Title centred on the page in large type, the note centred below it. */
function drawTitlePage(doc: Doc, title: string | null, note: string | null): void {
  const box = bodyBox(doc);
  const titleStyle: TextStyle = { font: SANS_BOLD, size: 24, align: 'center' };
  const noteStyle: TextStyle = { font: SANS, size: 12, align: 'center', color: '#333333' };
  const titleHeight = title ? measure(doc, title, box.w, titleStyle, box.h * 0.6) : 0;
  const noteHeight = note ? measure(doc, note, box.w, noteStyle, box.h * 0.35) : 0;
  const gap = title && note ? mm(6) : 0;
  let y = box.y + (box.h - titleHeight - gap - noteHeight) / 2;
  if (title) textIn(doc, title, { ...box, y, h: titleHeight }, titleStyle);
  y += titleHeight + gap;
  if (note) textIn(doc, note, { ...box, y, h: noteHeight }, noteStyle);
}

/** Width and height as seen, after the JPEG's EXIF orientation (which pdfkit applies). */
function uprightSize(image: PdfKitImage): { width: number; height: number } {
  return (image.orientation ?? 1) > 4 ? { width: image.height, height: image.width } : { width: image.width, height: image.height };
}

/**
 * The image as large as fits in `box` after turning it `rotation` clockwise, centred across and at
 * the top of the box; a placeholder when there is none. Returns the height drawn.
 */
function drawImageOrPlaceholder(doc: Doc, image: PdfKitImage | null, box: Box, rotation: Rotation): number {
  if (box.w <= 0 || box.h <= 0) return 0;
  if (!image) return drawPlaceholder(doc, box);
  const { width, height } = uprightSize(image);
  const quarter = rotation === 90 || rotation === 270;
  const [seenWidth, seenHeight] = quarter ? [height, width] : [width, height];
  const scale = Math.min(box.w / seenWidth, box.h / seenHeight);
  const w = width * scale;
  const h = height * scale;
  const centreX = box.x + box.w / 2;
  const centreY = box.y + (seenHeight * scale) / 2;
  doc.save();
  doc.translate(centreX, centreY);
  // Exact quarter turns; in pdfkit's top-down space this matrix turns clockwise.
  const [cos, sin] = ({ 0: [1, 0], 90: [0, 1], 180: [-1, 0], 270: [0, -1] } as const)[rotation];
  doc.transform(cos, sin, -sin, cos, 0, 0);
  drawPdfKitImage(doc, image, -w / 2, -h / 2, w, h);
  doc.restore();
  return seenHeight * scale;
}

function drawPdfKitImage(doc: Doc, image: PdfKitImage, x: number, y: number, w: number, h: number): void {
  // pdfkit accepts its own parsed image object as the source (typed as a path or buffer only).
  doc.image(image as unknown as Buffer, x, y, { width: w, height: h });
}

/** A light grey 4:3 box with "Bild fehlt", as large as fits. Returns its height. */
function drawPlaceholder(doc: Doc, box: Box): number {
  const scale = Math.min(box.w / 4, box.h / 3);
  const w = 4 * scale;
  const h = 3 * scale;
  const x = box.x + (box.w - w) / 2;
  doc.save().rect(x, box.y, w, h).lineWidth(1).fillAndStroke('#eeeeee', '#999999').restore();
  const labelStyle: TextStyle = { font: SANS_BOLD, size: Math.min(18, Math.max(9, h / 12)), color: '#777777', align: 'center' };
  style(doc, labelStyle);
  const lineHeight = doc.currentLineHeight(true);
  textIn(doc, 'Bild fehlt', { x, y: box.y + (h - lineHeight) / 2, w, h: lineHeight }, labelStyle);
  return h;
}
