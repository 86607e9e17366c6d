/**
 * The sizes of the boxes images are drawn in, per layout: what the sections draw into and what
 * print-image.ts prepares copies for (≥ 150 dpi in the box), so both agree.
 */
import { bodyOf, GAP, GUTTER, mm, type Orientation, type PaperFormat, type Rotation } from './kit.js';
import type { PhotosPerSheet } from './model.js';

/** A box on a page, in points. */
export interface ImageBox {
  width: number;
  height: number;
}

/** Room a compact sheet keeps for one section heading besides its two rows. */
export const HEADING_ALLOWANCE = mm(16);
/** Room under a compact cell's image for its caption: title, two lines of note, the time taken. */
export const CAPTION_ROOM = mm(15);
/** Room above a before/after column's image for its label ("Vorher"). */
export const LABEL_ROOM = mm(6);

/** Height of a row of a compact sheet: two rows and a heading fit. */
export function compactRowHeight(format: PaperFormat, orientation: Orientation): number {
  return (bodyOf(format, orientation).h - HEADING_ALLOWANCE - 2 * GAP) / 2;
}

/** The image box of one photo in `perSheet`: the whole body (1), a row's width (2), half a row (4). */
export function photoBox(format: PaperFormat, orientation: Orientation, perSheet: PhotosPerSheet): ImageBox {
  const body = bodyOf(format, orientation);
  if (perSheet === 1) return { width: body.w, height: body.h };
  const height = compactRowHeight(format, orientation) - CAPTION_ROOM;
  return { width: perSheet === 2 ? body.w : (body.w - GUTTER) / 2, height };
}

/** The image box of one column of a before/after pair in `perSheet`. */
export function beforeAfterBox(format: PaperFormat, orientation: Orientation, perSheet: PhotosPerSheet): ImageBox {
  const body = bodyOf(format, orientation);
  const width = (body.w - GUTTER) / 2;
  if (perSheet === 1) return { width, height: body.h };
  return { width, height: compactRowHeight(format, orientation) - CAPTION_ROOM - LABEL_ROOM };
}

/** `box` as seen in the image's own upright axes after `rotation` (a quarter turn swaps its sides). */
export function turned(box: ImageBox, rotation: Rotation): ImageBox {
  return rotation === 90 || rotation === 270 ? { width: box.height, height: box.width } : box;
}

/**
 * The largest box an image of a page can be drawn in, in points (the one-per-sheet layout, neither
 * title nor note): a print copy made for it prints at least as sharp in every layout.
 */
export function largestImageBox(
  format: PaperFormat,
  orientation: Orientation,
  layout: 'photo' | 'before_after',
  rotation: Rotation = 0,
): ImageBox {
  return turned(layout === 'before_after' ? beforeAfterBox(format, orientation, 1) : photoBox(format, orientation, 1), rotation);
}

/** The box a page's image is drawn in for `perSheet`, in the image's upright axes. */
export function imageBoxFor(
  format: PaperFormat,
  orientation: Orientation,
  perSheet: PhotosPerSheet,
  layout: 'photo' | 'before_after',
  rotation: Rotation = 0,
): ImageBox {
  return turned(
    layout === 'before_after' ? beforeAfterBox(format, orientation, perSheet) : photoBox(format, orientation, perSheet),
    rotation,
  );
}
