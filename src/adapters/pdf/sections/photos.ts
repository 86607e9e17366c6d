/**
 * Photo pages. One per sheet: the title above, the photo as large as fits, its caption (number,
 * note, when and where it was taken) directly under it. Compact: rows of one (2 to a sheet) or two
 * photos (4 to a sheet), each photo with its caption directly under it: number and title, up to
 * two lines of note, when and where it was taken; a caption that needs more than the row's caption
 * room (both the camera's and the phone's time and place) takes it from the row's images.
 */
import { wholeSheet, type Block } from '../flow.js';
import {
  BODY,
  CAPTION,
  CAPTION_TITLE,
  drawImageIn,
  GUTTER,
  lineHeight,
  measure,
  mm,
  SMALL,
  splitToHeight,
  textIn,
  titleAtTop,
  type Box,
  type Doc,
} from '../kit.js';
import type { PdfPage } from '../model.js';
import type { PdfWords } from '../words.js';

export type PhotoPage = Extract<PdfPage, { kind: 'photo' }>;

/** A photo with its number in the report (1, 2, …), as its caption names it. */
export interface NumberedPhoto {
  page: PhotoPage;
  number: number;
}

export function photoSheet({ page, number }: NumberedPhoto, body: Box): Block {
  return wholeSheet(body, page.notice, [page.image], (box, { doc, words, images }) => {
    const y = titleAtTop(doc, page.title, box);
    const caption = captionLines(page, number, words, false);
    const captionHeight = measureCaption(doc, caption, box.w, box.h / 3);
    const drawn = drawImageIn(
      doc,
      images[0] ?? null,
      { x: box.x, y, w: box.w, h: box.y + box.h - y - captionHeight - mm(1.5) },
      page.rotation,
      words.missing,
    );
    drawCaption(doc, caption, { x: box.x, y: drawn.y + drawn.h + mm(1.5), w: box.w, h: captionHeight });
  });
}

/**
 * The notes of a compact row's photos that do not fit their two caption lines, in full, as text
 * right after the row ("Foto 3: …"), going on over the next sheet when long; none when all fit.
 */
export function notesAfterRow(doc: Doc, cells: NumberedPhoto[], columns: 1 | 2, body: Box, words: PdfWords): Block[] {
  const width = columns === 1 ? body.w : (body.w - GUTTER) / 2;
  const longer = cells.filter(({ page }) => page.note && measure(doc, page.note, width, CAPTION) > 2 * lineHeight(doc, CAPTION) + 0.5);
  if (longer.length === 0) return [];
  const text = longer.map(({ page, number }) => `${words.photo(number)}: ${page.note}`).join('\n');
  const notice = cells.find((c) => c.page.notice)?.page.notice ?? null;
  return splitToHeight(doc, text, body.w, CAPTION, body.h * 0.9).map((piece) => ({
    height: measure(doc, piece, body.w, CAPTION),
    notice,
    draw: (box, { doc }) => textIn(doc, piece, box, CAPTION),
  }));
}

/**
 * A row of a compact sheet: one photo across the width, or two side by side. The row is as tall as
 * its photos need at the column's width (a landscape photo leaves no band of white under it), at
 * most `height`, with room under them for the longest caption.
 */
export function photoRow(doc: Doc, cells: NumberedPhoto[], columns: 1 | 2, height: number, body: Box, words: PdfWords): Block {
  const width = columns === 1 ? body.w : (body.w - GUTTER) / 2;
  const captions = cells.map(({ page, number }) => captionLines(page, number, words, true));
  // What the longest caption needs (taken from the images, at most a third of the row).
  const caption = Math.min(height / 3, Math.max(...captions.map((lines) => measureCaption(doc, lines, width, Infinity))));
  const imageRoom = height - caption - mm(1.2);
  // A photo of unknown size (missing, or no size given) takes the whole image room.
  const tallest = Math.max(
    ...cells.map(({ page }) => {
      const size = page.image?.width && page.image.height ? page.image : null;
      if (!size) return imageRoom;
      const turned = page.rotation === 90 || page.rotation === 270;
      const [w, h] = turned ? [size.height!, size.width!] : [size.width!, size.height!];
      return Math.min(imageRoom, (width * h) / w);
    }),
  );
  return {
    height: tallest + mm(1.2) + caption,
    notice: cells.find((c) => c.page.notice)?.page.notice ?? null,
    images: cells.map((c) => c.page.image),
    draw(box, { doc, words, images }) {
      cells.forEach(({ page }, index) => {
        const x = box.x + index * (width + GUTTER);
        const imageBox = { x, y: box.y, w: width, h: tallest };
        const drawn = drawImageIn(doc, images[index] ?? null, imageBox, page.rotation, words.missing);
        drawCaption(doc, captions[index]!, { x, y: drawn.y + drawn.h + mm(1.2), w: width, h: caption });
      });
    },
  };
}

interface CaptionLine {
  text: string;
  style: typeof CAPTION;
  /** At most this many lines of it. */
  lines: number;
}

function captionLines(page: PhotoPage, number: number, words: PdfWords, compact: boolean): CaptionLine[] {
  const lines: CaptionLine[] = [];
  // One per sheet shows the title above the photo; the caption numbers it.
  const head = compact && page.title ? `${words.photo(number)} – ${page.title}` : words.photo(number);
  // A long title wraps to a second line rather than being cut.
  lines.push({ text: head, style: CAPTION_TITLE, lines: 2 });
  // One per sheet: the note takes up to a third of the sheet; compact: two lines (the whole note follows the row).
  if (page.note) lines.push({ text: page.note, style: compact ? CAPTION : BODY, lines: compact ? 2 : 40 });
  // When and where it was taken: the time over up to two lines (camera and phone), the place too.
  if (page.capture) {
    if (page.capture.when) lines.push({ text: page.capture.when, style: SMALL, lines: 2 });
    if (page.capture.where) lines.push({ text: page.capture.where, style: SMALL, lines: 2 });
  } else if (page.takenAt) {
    lines.push({ text: words.taken(page.takenAt), style: SMALL, lines: 1 });
  }
  return lines;
}

function lineCap(doc: Doc, line: CaptionLine, width: number): number {
  return Math.min(measure(doc, line.text, width, line.style), line.lines * doc.currentLineHeight(true));
}

function measureCaption(doc: Doc, lines: CaptionLine[], width: number, max: number): number {
  return Math.min(
    max,
    lines.reduce((sum, line) => sum + lineCap(doc, line, width), 0),
  );
}

/** The caption's lines top-down in `box`, each cut to its number of lines, all cut at the box's bottom. */
function drawCaption(doc: Doc, lines: CaptionLine[], box: Box): void {
  let y = box.y;
  for (const line of lines) {
    const height = Math.min(lineCap(doc, line, box.w), box.y + box.h - y);
    if (height < 1) break;
    textIn(doc, line.text, { x: box.x, y, w: box.w, h: height }, line.style);
    y += height;
  }
}
