/**
 * What every part of the report PDF draws with: page geometry, the fonts, text in a box (wrapped,
 * cut with an ellipsis, never running onto a new page), and an image fitted into a box. Sections
 * (./sections) use these and nothing of pdfkit beyond them where they can.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

export type Doc = PDFKit.PDFDocument;
export type PaperFormat = 'A3' | 'A4' | 'A5' | 'LETTER';
export type Orientation = 'portrait' | 'landscape';
/** Quarter turns clockwise. */
export type Rotation = 0 | 90 | 180 | 270;

/** Millimetres to points. */
export const mm = (value: number): number => (value * 72) / 25.4;

/** Page geometry (docs/api-contract.md, Limits), in points. */
export const PDF_LAYOUT = {
  top: mm(30),
  side: mm(10),
  bottom: mm(16),
  logoWidth: mm(40),
  logoHeight: mm(18),
} as const;
/** Gap between blocks on a page. */
export const GAP = mm(3);
/** Space between two columns (before and after, two photos side by side). */
export const GUTTER = mm(6);

/** Portrait page sizes in points, as pdfkit draws them. */
export const PAPER_SIZES: Record<PaperFormat, readonly [number, number]> = {
  A3: [841.89, 1190.55],
  A4: [595.28, 841.89],
  A5: [419.53, 595.28],
  LETTER: [612, 792],
};

/** A box on a page, in points. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The body of a sheet (inside header band, side margins and footer band), in points. */
export function bodyOf(format: PaperFormat, orientation: Orientation): Box {
  const [short, long] = PAPER_SIZES[format];
  const [width, height] = orientation === 'landscape' ? [long, short] : [short, long];
  return { x: PDF_LAYOUT.side, y: PDF_LAYOUT.top, w: width - 2 * PDF_LAYOUT.side, h: height - PDF_LAYOUT.top - PDF_LAYOUT.bottom };
}

export const SANS = 'DejaVuSans';
export const SANS_BOLD = 'DejaVuSans-Bold';
/** For checksums and commands (evidence sheet): embedded only in a PDF that uses it. */
export const MONO = 'DejaVuSansMono';

let fontDir: string | undefined;
export function fontPath(file: string): string {
  fontDir ??= path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  return path.join(fontDir, file);
}

/** Registers the fonts every part uses. */
export function registerFonts(doc: Doc): void {
  doc.registerFont(SANS, fontPath('DejaVuSans.ttf'));
  doc.registerFont(SANS_BOLD, fontPath('DejaVuSans-Bold.ttf'));
  doc.registerFont(MONO, fontPath('DejaVuSansMono.ttf'));
}

export const INK = '#000000';
export const MUTED = '#555555';
export const RULE = '#b4b4b4';
export const SHADE = '#f0f0f0';

export interface TextStyle {
  font: string;
  size: number;
  color?: string;
  align?: 'left' | 'center' | 'right';
}

export const TITLE: TextStyle = { font: SANS_BOLD, size: 14 };
export const HEADING: TextStyle = { font: SANS_BOLD, size: 12 };
export const BODY: TextStyle = { font: SANS, size: 10 };
export const SMALL: TextStyle = { font: SANS, size: 8.5, color: MUTED };
export const CAPTION_TITLE: TextStyle = { font: SANS_BOLD, size: 9.5 };
export const CAPTION: TextStyle = { font: SANS, size: 8.5, color: '#222222' };
export const LABEL: TextStyle = { font: SANS_BOLD, size: 9, color: MUTED };

const clean = (text: string): string => text.replace(/\r\n?/g, '\n');

/** Sets font, size and colour. */
export function style(doc: Doc, { font, size, color = INK }: TextStyle): void {
  doc.font(font).fontSize(size).fillColor(color);
}

/** Sets font and size only: measuring writes nothing (there may be no page yet). */
export function metrics(doc: Doc, { font, size }: TextStyle): void {
  doc.font(font).fontSize(size);
}

/** The height of one line in `textStyle`. */
export function lineHeight(doc: Doc, textStyle: TextStyle): number {
  metrics(doc, textStyle);
  return doc.currentLineHeight(true);
}

/**
 * Heights measured, per document: laying a text out is the costly part of a PDF (a finalize of 50
 * photo pages measured some texts many times over: a caption to place it and again to draw it, a
 * long text while it is split over sheets).
 */
const measured = new WeakMap<Doc, Map<string, number>>();

/** Height `text` takes at `width`, capped at `maxHeight`. */
export function measure(doc: Doc, text: string, width: number, textStyle: TextStyle, maxHeight = Infinity): number {
  let known = measured.get(doc);
  if (!known) measured.set(doc, (known = new Map()));
  const key = `${textStyle.font}\u0000${textStyle.size}\u0000${width}\u0000${text}`;
  // Font and size set on every call: what follows a measure (a line's height) reads them.
  metrics(doc, textStyle);
  let height = known.get(key);
  if (height === undefined) {
    height = doc.heightOfString(clean(text), { width });
    known.set(key, height);
  }
  return Math.min(height, maxHeight);
}

/**
 * `text` cut into pieces that each take at most `maxHeight` at `width` (at paragraph ends where it
 * can, else between words), so a long text goes on over the next sheet instead of being cut.
 */
export function splitToHeight(doc: Doc, text: string, width: number, textStyle: TextStyle, maxHeight: number): string[] {
  const pieces: string[] = [];
  const fits = (candidate: string) => measure(doc, candidate, width, textStyle) <= maxHeight;
  let rest = clean(text).trim();
  while (rest && !fits(rest)) {
    const words = rest.split(/(?<=\s)/);
    // The most words that fit (at least one, so a single overlong word still moves on).
    let low = 1;
    let high = words.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(words.slice(0, mid).join(''))) low = mid;
      else high = mid - 1;
    }
    let piece = words.slice(0, low).join('');
    const paragraph = piece.lastIndexOf('\n');
    if (paragraph > piece.length / 2) piece = piece.slice(0, paragraph + 1);
    pieces.push(piece.trimEnd());
    rest = rest.slice(piece.length).trimStart();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/**
 * Wrapped text in a box. The height option matters: without it pdfkit starts a new page when
 * text runs past the bottom; with it the text is cut with an ellipsis.
 */
export function textIn(doc: Doc, text: string, box: Box, textStyle: TextStyle): void {
  style(doc, textStyle);
  doc.text(clean(text), box.x, box.y, {
    width: box.w,
    height: Math.max(box.h, doc.currentLineHeight(true)),
    ellipsis: true,
    align: textStyle.align ?? 'left',
  });
}

/** A sheet's title at the top of `box` (at most a fifth of it); returns where what follows starts. */
export function titleAtTop(doc: Doc, title: string | null, box: Box): number {
  if (!title) return box.y;
  const height = measure(doc, title, box.w, TITLE, box.h * 0.2);
  textIn(doc, title, { ...box, h: height }, TITLE);
  return box.y + height + GAP;
}

/** A thin horizontal rule. */
export function rule(doc: Doc, x: number, y: number, w: number, color = RULE, width = 0.5): void {
  doc
    .save()
    .moveTo(x, y)
    .lineTo(x + w, y)
    .lineWidth(width)
    .strokeColor(color)
    .stroke()
    .restore();
}

/** The parts of a pdfkit image object used here (a parsed JPEG or PNG). */
export interface PdfKitImage {
  width: number;
  height: number;
  /** EXIF orientation of a JPEG (pdfkit applies it when drawing). */
  orientation?: number;
}

/** Width and height as seen, after the JPEG's EXIF orientation (which pdfkit applies). */
export function uprightSize(image: PdfKitImage): { width: number; height: number } {
  return (image.orientation ?? 1) > 4 ? { width: image.height, height: image.width } : { width: image.width, height: image.height };
}

/** The size `image` takes when fitted into `box` after `rotation`. */
export function fittedSize(image: PdfKitImage | null, box: { w: number; h: number }, rotation: Rotation = 0): { w: number; h: number } {
  if (box.w <= 0 || box.h <= 0) return { w: 0, h: 0 };
  const { width, height } = image ? uprightSize(image) : { width: 4, height: 3 };
  const [seenWidth, seenHeight] = rotation === 90 || rotation === 270 ? [height, width] : [width, height];
  const scale = Math.min(box.w / seenWidth, box.h / seenHeight);
  return { w: seenWidth * scale, h: seenHeight * scale };
}

export function drawPdfKitImage(doc: Doc, image: PdfKitImage, x: number, y: number, w: number, h: number): void {
  // pdfkit accepts its own parsed image object as the source (typed as a path or buffer only).
  doc.image(image as unknown as Buffer, x, y, { width: w, height: h });
}

/**
 * The image as large as fits in `box` after turning it `rotation` clockwise, centred across and at
 * the top of the box (`valign: 'middle'` centres it down too); a "missing" placeholder when there
 * is none. Returns the box drawn.
 */
export function drawImageIn(
  doc: Doc,
  image: PdfKitImage | null,
  box: Box,
  rotation: Rotation,
  missing: string,
  valign: 'top' | 'middle' = 'top',
): Box {
  const seen = fittedSize(image, box, rotation);
  if (seen.w <= 0 || seen.h <= 0) return { x: box.x, y: box.y, w: 0, h: 0 };
  const drawn = { x: box.x + (box.w - seen.w) / 2, y: valign === 'middle' ? box.y + (box.h - seen.h) / 2 : box.y, w: seen.w, h: seen.h };
  if (!image) {
    drawPlaceholder(doc, drawn, missing);
    return drawn;
  }
  const quarter = rotation === 90 || rotation === 270;
  const [w, h] = quarter ? [seen.h, seen.w] : [seen.w, seen.h];
  doc.save();
  doc.translate(drawn.x + drawn.w / 2, drawn.y + drawn.h / 2);
  // Exact quarter turns; in pdfkit's top-down space this matrix turns clockwise.
  const [cos, sin] = ({ 0: [1, 0], 90: [0, 1], 180: [-1, 0], 270: [0, -1] } as const)[rotation];
  doc.transform(cos, sin, -sin, cos, 0, 0);
  drawPdfKitImage(doc, image, -w / 2, -h / 2, w, h);
  doc.restore();
  return drawn;
}

/** A light grey box with the word for a missing image. */
function drawPlaceholder(doc: Doc, box: Box, missing: string): void {
  doc.save().rect(box.x, box.y, box.w, box.h).lineWidth(1).fillAndStroke('#eeeeee', '#999999').restore();
  const labelStyle: TextStyle = { font: SANS_BOLD, size: Math.min(18, Math.max(9, box.h / 12)), color: '#777777', align: 'center' };
  const height = lineHeight(doc, labelStyle);
  textIn(doc, missing, { x: box.x, y: box.y + (box.h - height) / 2, w: box.w, h: height }, labelStyle);
}
