/**
 * The document's flow: every section turns its part of the report into blocks (a heading, a row
 * of photos, a table row, a signature sheet), each with a known height; `paginate` places them on
 * sheets before anything is drawn, so "Seite x / y" knows y, and the images of a sheet are read
 * only when that sheet is drawn.
 */
import type { PdfImage } from './images.js';
import { GAP, type Box, type Doc, type PdfKitImage } from './kit.js';
import type { PdfWords } from './words.js';

/** What a block's drawing gets: the document, the texts of its language, its images as parsed. */
export interface DrawContext {
  doc: Doc;
  words: PdfWords;
  /** The block's `images`, read and parsed in the same order (null: none, or gone). */
  images: Array<PdfKitImage | null>;
}

export interface Block {
  /** Height on the sheet, in points (at most the body's height). */
  height: number;
  /** Starts a new sheet. */
  breakBefore?: boolean;
  /** Nothing else goes on its sheet after it. */
  breakAfter?: boolean;
  /** Goes on the sheet of the block after it (a heading is not left alone at a sheet's bottom). */
  keepWithNext?: boolean;
  /** The sheet this block lands on says so in its bottom margin (e.g. not covered by a signature). */
  notice?: string | null;
  /** Images read for the drawing, in this order. */
  images?: Array<PdfImage | null>;
  /** A block put at the top of the next sheet when the flow of this section goes on there (a table's header). */
  repeatOnBreak?: Block;
  /** Follows the block before it without the gap (a table's rows). */
  joined?: boolean;
  /** Draws the block into `box` (the body's width, `height` tall). */
  draw(box: Box, ctx: DrawContext): void;
}

/** A block that is a whole sheet of its own (one page per sheet, a signature sheet). */
export function wholeSheet(body: Box, notice: string | null | undefined, images: Array<PdfImage | null>, draw: Block['draw']): Block {
  return { height: body.h, breakBefore: true, breakAfter: true, notice: notice ?? null, images, draw };
}

export interface PlacedBlock {
  block: Block;
  y: number;
}

export interface Sheet {
  blocks: PlacedBlock[];
  notice: string | null;
}

/**
 * Places `blocks` on sheets whose body is `body` tall, in order, GAP apart: a block goes on the
 * next sheet when it does not fit (with the blocks it keeps with), on a sheet of its own when it
 * says so; a block taller than a sheet is given the whole sheet.
 */
export function paginate(blocks: readonly Block[], body: number): Sheet[] {
  const sheets: Sheet[] = [];
  let current: PlacedBlock[] = [];
  let used = 0;
  const flush = (): void => {
    if (current.length === 0) return;
    const notice = current.find((p) => p.block.notice)?.block.notice ?? null;
    sheets.push({ blocks: current, notice });
    current = [];
    used = 0;
  };
  const gapBefore = (block: Block): number => (current.length === 0 || block.joined ? 0 : GAP);
  const place = (block: Block): void => {
    const y = used + gapBefore(block);
    current.push({ block, y });
    used = y + Math.min(block.height, body);
  };
  blocks.forEach((block, index) => {
    if (block.breakBefore) flush();
    // The height this block needs here: itself and the chain of blocks it keeps with.
    let need = block.height;
    for (let i = index; blocks[i]?.keepWithNext && blocks[i + 1] && !blocks[i + 1]!.breakBefore; i++)
      need += (blocks[i + 1]!.joined ? 0 : GAP) + blocks[i + 1]!.height;
    const start = used + gapBefore(block);
    if (current.length > 0 && start + Math.min(need, body) > body) {
      flush();
      // A table goes on under its header again.
      if (block.repeatOnBreak) place(block.repeatOnBreak);
    }
    place(block);
    if (block.breakAfter) flush();
  });
  flush();
  return sheets;
}
