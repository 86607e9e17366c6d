/**
 * The report PDF: a small document builder that composes sections (./pdf/sections: cover, summary,
 * photos, before/after, titles, signature sheets, the final PDF's evidence sheet) laid out in the report's layout (photos 1, 2 or 4
 * to a sheet), places their blocks on sheets before drawing (./pdf/flow.ts), then draws sheet by
 * sheet with pdfkit, streaming to `out`: each sheet's images are read when it is drawn
 * (./pdf/images.ts), so a 500-page report never sits in memory.
 *
 * Sheet rules (docs/api-contract.md, Limits): a header band in the 30 mm top margin (company logo at most
 * 40 × 18 mm at the left, header lines at the right), 10 mm side margins, 16 mm bottom margin with
 * "Seite x / y" centred in it. x and y count every sheet of the file, cover sheets included, so the
 * footer matches the viewer's page number. Cover sheets carry no header and no footer. A sheet's
 * notice (a page on it is not covered by a signature) is a red band above the page number.
 *
 * The file is PDF/A-1b: fonts embedded (DejaVu Sans, subset, with CIDSet), an sRGB output intent
 * for every colour, XMP identification; images are opaque JPEG or PNG.
 *
 * pdfkit internals relied on (pdfkit 0.20; test/unit/pdf.test.ts covers each):
 * - `doc.openImage(buffer)` parses a JPEG/PNG without caching it; only string sources are kept in
 *   `doc._imageRegistry`, so images are always passed as buffers read for their sheet (the logo is
 *   opened once and reused, so it is embedded once). Its parsed object is accepted by `doc.image`.
 * - A PNG with alpha, indexed transparency or interlacing is decoded by pdfkit in an async zlib
 *   callback that throws outside any promise; such PNGs are flattened through sharp first.
 * - Pages are written when the next page is added (no `bufferPages`); output is pushed as it is
 *   made, without backpressure, hence `connect` below.
 * - `doc._addInfo()` writes the XMP packet from `doc.info` without escaping; wrapped to escape.
 * - The cover import (pdf-import.ts) uses `doc.ref(data)`, `ref.data`, `ref.end(bytes)`,
 *   pdfkit's serialisation of JS values and `doc.page.xobjects`; see there.
 */
import { finished } from 'node:stream/promises';
import PDFDocument from 'pdfkit';
import { paginate, type Block } from './pdf/flow.js';
import { compactRowHeight } from './pdf/geometry.js';
import { loadImage } from './pdf/images.js';
import {
  bodyOf,
  drawPdfKitImage,
  lineHeight,
  mm,
  PDF_LAYOUT,
  registerFonts,
  rule,
  RULE,
  MUTED,
  SANS,
  SANS_BOLD,
  style,
  textIn,
  uprightSize,
  type Box,
  type Doc,
  type PdfKitImage,
  type TextStyle,
} from './pdf/kit.js';
import type { PdfDocumentInput, PdfPage, PhotosPerSheet } from './pdf/model.js';
import { beforeAfterRow, beforeAfterSheet } from './pdf/sections/before-after.js';
import { checklistBlocks } from './pdf/sections/checklist.js';
import { prepareCover } from './pdf/sections/cover.js';
import { evidenceBlocks } from './pdf/sections/evidence.js';
import { notesAfterRow, photoRow, photoSheet, type NumberedPhoto } from './pdf/sections/photos.js';
import { signatureBlock, signatureSheet } from './pdf/sections/signature.js';
import { summaryBlocks } from './pdf/sections/summary.js';
import { sectionHeading, titleSheet } from './pdf/sections/title.js';
import { wordsFor, type PdfWords } from './pdf/words.js';
import { PDFA_DOCUMENT_OPTIONS, pdfaInfo, replaceMissingGlyphs } from './pdfa.js';

export { isPlainPng, type PdfImage } from './pdf/images.js';
export { imageBoxFor, largestImageBox, type ImageBox } from './pdf/geometry.js';
export { PDF_LAYOUT, type Orientation, type PaperFormat, type Rotation } from './pdf/kit.js';
export {
  PHOTOS_PER_SHEET,
  type EvidenceEvent,
  type EvidenceImage,
  type EvidenceInput,
  type EvidenceSignature,
  type ChecklistLine,
  type TimeRow,
  type MaterialLine,
  type PdfCover,
  type PdfDocumentInput,
  type PdfPage,
  type PhotosPerSheet,
  type SignatureFacts,
  type SummaryInput,
} from './pdf/model.js';
export { pdfLanguageOf, type PdfLanguage } from './pdf/words.js';

/** The box of the company logo at the top left of every body sheet. */
export const LOGO_BOX = { width: PDF_LAYOUT.logoWidth, height: PDF_LAYOUT.logoHeight };
/** Output waiting in `out` beyond which the next sheet waits for 'drain'. */
const OUTPUT_HIGH_WATER = 1 << 20;

/**
 * The blocks of the report's pages in `perSheet`'s layout. One per sheet: every page a sheet.
 * Compact: photos in rows (one or two across), before/after pairs as rows, titles as headings,
 * signatures as blocks in the flow.
 */
export function pageBlocks(
  doc: Doc,
  pages: readonly PdfPage[],
  perSheet: PhotosPerSheet,
  body: Box,
  rowHeight: number,
  words: PdfWords,
): Block[] {
  const blocks: Block[] = [];
  const columns = perSheet === 4 ? 2 : 1;
  let row: NumberedPhoto[] = [];
  let photos = 0;
  const flushRow = (): void => {
    if (row.length > 0) blocks.push(photoRow(doc, row, columns, rowHeight, body, words), ...notesAfterRow(doc, row, columns, body, words));
    row = [];
  };
  for (const [index, page] of pages.entries()) {
    if (page.kind === 'photo') {
      const numbered = { page, number: ++photos };
      if (perSheet === 1) {
        blocks.push(photoSheet(numbered, body));
        continue;
      }
      // A row holds photos of one standing: covered by the signature or not.
      if (row.length > 0 && Boolean(row[0]!.page.notice) !== Boolean(page.notice)) flushRow();
      row.push(numbered);
      if (row.length === columns) flushRow();
      continue;
    }
    flushRow();
    if (page.kind === 'before_after') blocks.push(perSheet === 1 ? beforeAfterSheet(page, body) : beforeAfterRow(page, rowHeight));
    else if (page.kind === 'title_only')
      blocks.push({
        ...(perSheet === 1 ? titleSheet(page.title, page.note, body) : sectionHeading(doc, page.title, page.note, body)),
        notice: page.notice,
        // A section heads the photos after it, not a signature: it may end a sheet before one.
        ...(perSheet !== 1 && pages[index + 1]?.kind === 'signature' ? { keepWithNext: false } : {}),
      });
    else if (page.kind === 'checklist') blocks.push(...checklistBlocks(doc, page, body, words, perSheet === 1));
    else blocks.push(perSheet === 1 ? signatureSheet(page, body) : signatureBlock(doc, page, body, words));
  }
  flushRow();
  return blocks;
}

/**
 * Renders the report into `out` and resolves when `out` has finished (for a file stream: closed).
 * Rejects on any failure (an image pdfkit cannot read: AppError('IMAGE_INVALID')); then nothing
 * more is written, and `out` is destroyed as stream.pipeline does, so the caller only removes
 * the partial file.
 */
export async function renderReportPdf(input: PdfDocumentInput, out: NodeJS.WritableStream): Promise<{ pageCount: number }> {
  const language = input.language ?? 'de';
  const words = wordsFor(language);
  const perSheet = input.photosPerSheet ?? 1;
  const info: PDFKit.DocumentInfo = {
    Title: input.info.title,
    Producer: 'fieldreport',
    Creator: 'fieldreport',
    CreationDate: input.info.creationDate ?? new Date(),
  };
  // pdfkit writes every key of info, so absent values must not be there as undefined.
  if (input.info.author) info.Author = input.info.author;
  if (input.info.subject) info.Subject = input.info.subject;
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: true,
    ...PDFA_DOCUMENT_OPTIONS,
    lang: language === 'en' ? 'en-GB' : 'de-DE',
    displayTitle: true,
    info: pdfaInfo(info),
  });
  escapeXmpInfo(doc);
  replaceMissingGlyphs(doc);
  registerFonts(doc);
  const sink = connect(doc, out);
  try {
    const cover = await prepareCover(input.cover);
    const body = bodyOf(input.format, input.orientation);
    const blocks = [
      ...(input.summary ? summaryBlocks(doc, input.summary, input.pages, words, body, perSheet === 1) : []),
      ...pageBlocks(doc, input.pages, perSheet, body, compactRowHeight(input.format, input.orientation), words),
      ...(input.evidence ? evidenceBlocks(doc, input.evidence, words, body, perSheet === 1) : []),
    ];
    const sheets = paginate(blocks, body.h);
    const coverSheets = cover?.sheets ?? 0;
    if (coverSheets + sheets.length === 0) throw new Error('renderReportPdf: nothing to draw (no cover, no summary, no pages)');
    const total = coverSheets + sheets.length;
    const logo = await loadImage(doc, input.header.logo);
    const pageOptions = { size: input.format, layout: input.orientation, margin: 0 };

    for (let index = 0; index < coverSheets; index++) {
      await sink.room();
      doc.addPage(pageOptions);
      cover!.draw(doc, index, logo);
    }
    let number = coverSheets;
    for (const sheet of sheets) {
      const images = await Promise.all(
        sheet.blocks.map(({ block }) => Promise.all((block.images ?? []).map((image) => loadImage(doc, image)))),
      );
      await sink.room();
      doc.addPage(pageOptions);
      number++;
      drawHeader(doc, input.header.lines, logo);
      sheet.blocks.forEach(({ block, y }, index) => {
        block.draw({ x: body.x, y: body.y + y, w: body.w, h: Math.min(block.height, body.h) }, { doc, words, images: images[index]! });
      });
      if (sheet.notice) drawNotice(doc, sheet.notice === NOT_COVERED ? words.notCovered : sheet.notice);
      drawFooter(doc, words.page(number, total));
    }
    doc.end();
    await sink.done;
    return { pageCount: number };
  } catch (error) {
    sink.abort(error);
    throw error;
  }
}

/** A page's notice meaning "not covered by the signature", printed in the document's language. */
export const NOT_COVERED = 'not-covered-by-signature';

/**
 * pdfkit copies Title, Author and Subject into the XMP packet without escaping them, so a title
 * like "Müller & Söhne" would make the XML invalid. Its `_addInfo` (called once, in `end()`, after
 * the Info dictionary is written) sees escaped values instead.
 */
function escapeXmpInfo(doc: Doc): void {
  const target = doc as unknown as { _addInfo?: () => void; info: Record<string, unknown> };
  const addInfo = target._addInfo;
  if (typeof addInfo !== 'function') return;
  const escapeXml = (value: string): string => value.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
  target._addInfo = function (this: typeof target) {
    const info = this.info;
    this.info = Object.fromEntries(Object.entries(info).map(([key, value]) => [key, typeof value === 'string' ? escapeXml(value) : value]));
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

// ---- the sheet's frame ---------------------------------------------------------------------------

/** Logo at the top left (at most 40 × 18 mm, aspect kept), header lines at the right, a thin rule above the body. */
function drawHeader(doc: Doc, lines: readonly string[], logo: PdfKitImage | null): void {
  const top = mm(8);
  const right = doc.page.width - PDF_LAYOUT.side;
  if (logo) {
    const { width, height } = uprightSize(logo);
    const scale = Math.min(PDF_LAYOUT.logoWidth / width, PDF_LAYOUT.logoHeight / height);
    drawPdfKitImage(doc, logo, PDF_LAYOUT.side, top, width * scale, height * scale);
  }
  const left = PDF_LAYOUT.side + PDF_LAYOUT.logoWidth + mm(6);
  let y = top;
  lines.forEach((line, index) => {
    const lineStyle: TextStyle =
      index === 0 ? { font: SANS_BOLD, size: 10, align: 'right' } : { font: SANS, size: 8.5, color: '#333333', align: 'right' };
    style(doc, lineStyle);
    const height = doc.currentLineHeight(true);
    if (y + height > top + PDF_LAYOUT.logoHeight + mm(1)) return;
    doc.text(line, left, y, { width: right - left, height, lineBreak: true, ellipsis: true, align: 'right' });
    y += height + 1;
  });
  rule(doc, PDF_LAYOUT.side, PDF_LAYOUT.top - mm(3), right - PDF_LAYOUT.side, RULE);
}

function drawFooter(doc: Doc, text: string): void {
  const footerStyle: TextStyle = { font: SANS, size: 8, color: MUTED, align: 'center' };
  const height = lineHeight(doc, footerStyle);
  const y = doc.page.height - PDF_LAYOUT.bottom / 2 - height / 2;
  textIn(doc, text, { x: PDF_LAYOUT.side, y, w: doc.page.width - 2 * PDF_LAYOUT.side, h: height }, footerStyle);
}

/**
 * A notice across the sheet in the bottom margin, between the body and the page number: bold dark
 * red text on a pale red band with a red rule, real text (searchable, and read out by screen
 * readers), cut with an ellipsis rather than wrapped.
 */
function drawNotice(doc: Doc, text: string): void {
  const noticeStyle: TextStyle = { font: SANS_BOLD, size: 8.5, color: '#8b0000', align: 'center' };
  const height = lineHeight(doc, noticeStyle);
  const band = {
    x: PDF_LAYOUT.side,
    y: doc.page.height - PDF_LAYOUT.bottom + mm(1),
    w: doc.page.width - 2 * PDF_LAYOUT.side,
    h: height + mm(1.2),
  };
  doc.save().rect(band.x, band.y, band.w, band.h).lineWidth(0.75).fillAndStroke('#fde8e8', '#b22222').restore();
  textIn(doc, text, { x: band.x + mm(2), y: band.y + mm(0.6), w: band.w - mm(4), h: height }, noticeStyle);
}
