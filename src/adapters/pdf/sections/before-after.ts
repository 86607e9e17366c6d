/**
 * A before/after pair: "Vorher" and "Nachher" side by side across the sheet's width, each labelled
 * above its image, when and where it was taken under it. One per sheet: the title above, the note under the images. Compact: a row of the
 * sheet (two pairs fit on one), its title and note under the images.
 */
import { wholeSheet, type Block } from '../flow.js';
import { CAPTION_ROOM, LABEL_ROOM } from '../geometry.js';
import {
  BODY,
  CAPTION,
  CAPTION_TITLE,
  drawImageIn,
  GAP,
  GUTTER,
  LABEL,
  lineHeight,
  measure,
  mm,
  SMALL,
  textIn,
  titleAtTop,
  type Box,
  type Doc,
  type PdfKitImage,
} from '../kit.js';
import type { PdfPage, PhotoCapture } from '../model.js';
import type { PdfWords } from '../words.js';

export type BeforeAfterPage = Extract<PdfPage, { kind: 'before_after' }>;

export function beforeAfterSheet(page: BeforeAfterPage, body: Box): Block {
  return wholeSheet(body, page.notice, [page.before, page.after], (box, { doc, words, images }) => {
    const y = titleAtTop(doc, page.title, box);
    const noteHeight = page.note ? measure(doc, page.note, box.w, BODY, box.h * 0.3) : 0;
    const bottom = box.y + box.h - (page.note ? noteHeight + GAP : 0);
    const drawn = drawPair(doc, words, page, images, { x: box.x, y, w: box.w, h: bottom - y });
    if (page.note) textIn(doc, page.note, { x: box.x, y: drawn + GAP, w: box.w, h: noteHeight }, BODY);
  });
}

export function beforeAfterRow(page: BeforeAfterPage, height: number): Block {
  return {
    height,
    notice: page.notice,
    images: [page.before, page.after],
    draw(box, { doc, words, images }) {
      const bottom = drawPair(doc, words, page, images, { ...box, h: box.h - CAPTION_ROOM });
      let y = bottom + mm(1.2);
      const end = box.y + box.h;
      if (page.title) {
        const h = Math.min(lineHeight(doc, CAPTION_TITLE), end - y);
        textIn(doc, page.title, { x: box.x, y, w: box.w, h }, CAPTION_TITLE);
        y += h;
      }
      if (page.note && end - y > 1)
        textIn(doc, page.note, { x: box.x, y, w: box.w, h: Math.min(measure(doc, page.note, box.w, CAPTION), end - y) }, CAPTION);
    },
  };
}

/** When and where an image was taken, as the lines under it; null for none. */
const captureText = (capture: PhotoCapture | null | undefined): string | null =>
  capture ? [capture.when, capture.where].filter(Boolean).join('\n') || null : null;

/**
 * The two labelled columns in `box`, each image with when and where it was taken under it (the
 * images give up the room that takes); returns the bottom of the taller column.
 */
function drawPair(doc: Doc, words: PdfWords, page: BeforeAfterPage, images: Array<PdfKitImage | null>, box: Box): number {
  const labelHeight = lineHeight(doc, LABEL);
  const width = (box.w - GUTTER) / 2;
  const imageTop = box.y + Math.max(labelHeight + mm(1.5), LABEL_ROOM);
  const captions = [captureText(page.captures?.[0]), captureText(page.captures?.[1])];
  // At most four lines each (time and place over two each), the same room under both images.
  const captionHeight = Math.max(0, ...captions.map((text) => (text ? measure(doc, text, width, SMALL, 4 * lineHeight(doc, SMALL)) : 0)));
  const reserve = captionHeight > 0 ? captionHeight + mm(1) : 0;
  let bottom = imageTop;
  [words.before, words.after].forEach((label, index) => {
    const x = box.x + index * (width + GUTTER);
    textIn(doc, label, { x, y: box.y, w: width, h: labelHeight }, { ...LABEL, align: 'center' });
    const drawn = drawImageIn(
      doc,
      images[index] ?? null,
      { x, y: imageTop, w: width, h: box.y + box.h - imageTop - reserve },
      page.rotation,
      words.missing,
    );
    const caption = captions[index];
    if (caption) textIn(doc, caption, { x, y: drawn.y + drawn.h + mm(1), w: width, h: captionHeight }, SMALL);
    bottom = Math.max(bottom, drawn.y + drawn.h + reserve);
  });
  return bottom;
}
