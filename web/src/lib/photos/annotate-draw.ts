/**
 * Marks on a photo (arrows, ellipses, freehand lines, short texts) and the marked photo made from
 * them. A mark's points are fractions of the upright photo's width and height (0..1), so the same
 * marks draw on the screen's small canvas and on the photo's full pixels; line widths and text
 * sizes are fractions of the photo's shorter side, so the drawing looks the same at any size.
 * Every mark is drawn twice: a dark halo first, its colour on top, so red, yellow and white read on
 * a bright wall and in a dark cellar alike.
 * Loaded with the annotator only (components/Annotate.svelte), not with the order screen.
 */
import { readCaptureTime, withMarkupExif, readCaptureOffset } from './exif';

export type MarkColour = 'red' | 'yellow' | 'white';
export type Tool = 'arrow' | 'ellipse' | 'line' | 'text';

export const MARK_COLOURS: Record<MarkColour, string> = { red: '#ff2a1f', yellow: '#ffd60a', white: '#ffffff' };
const HALO = 'rgb(0 0 0 / 0.8)';

/** A place on the photo: fractions of its width and height. */
export interface Point {
  x: number;
  y: number;
}

export type Mark =
  | { kind: 'arrow' | 'ellipse'; colour: MarkColour; from: Point; to: Point }
  | { kind: 'line'; colour: MarkColour; points: Point[] }
  | { kind: 'text'; colour: MarkColour; at: Point; text: string };

/** A text placed on the photo is at most this long (the field says so too). */
export const MAX_TEXT = 60;

/** A line's width, as a fraction of the photo's shorter side. */
const LINE = 0.012;
/** A text's height, as a fraction of the photo's shorter side. */
const TEXT = 0.055;

type Context = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** Draws `marks` onto `ctx` over a photo drawn at 0,0 in `width` × `height` (the context's units). */
export function drawMarks(ctx: Context, marks: readonly Mark[], width: number, height: number): void {
  const side = Math.min(width, height);
  const line = Math.max(2, side * LINE);
  const halo = line + 2 * Math.max(1.5, line * 0.45);
  ctx.save();
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  for (const mark of marks) {
    if (mark.kind === 'text') {
      drawText(ctx, mark, width, height, side);
      continue;
    }
    ctx.beginPath();
    tracePath(ctx, mark, width, height, line);
    ctx.strokeStyle = HALO;
    ctx.lineWidth = halo;
    ctx.stroke();
    ctx.strokeStyle = MARK_COLOURS[mark.colour];
    ctx.lineWidth = line;
    ctx.stroke();
  }
  ctx.restore();
}

function tracePath(ctx: Context, mark: Exclude<Mark, { kind: 'text' }>, width: number, height: number, line: number): void {
  if (mark.kind === 'line') {
    const [first, ...rest] = mark.points;
    if (!first) return;
    ctx.moveTo(first.x * width, first.y * height);
    // A single touch is a dot (a round cap on a line of no length).
    if (rest.length === 0) ctx.lineTo(first.x * width, first.y * height);
    for (const p of rest) ctx.lineTo(p.x * width, p.y * height);
    return;
  }
  const x1 = mark.from.x * width;
  const y1 = mark.from.y * height;
  const x2 = mark.to.x * width;
  const y2 = mark.to.y * height;
  if (mark.kind === 'ellipse') {
    // The ellipse in the box the drag spanned, corner to corner.
    ctx.ellipse((x1 + x2) / 2, (y1 + y2) / 2, Math.abs(x2 - x1) / 2, Math.abs(y2 - y1) / 2, 0, 0, Math.PI * 2);
    return;
  }
  const length = Math.hypot(x2 - x1, y2 - y1);
  const head = Math.min(line * 4.5, length * 0.5);
  const angle = Math.atan2(y2 - y1, x2 - x1);
  ctx.moveTo(x1, y1);
  ctx.lineTo(x2, y2);
  for (const turn of [Math.PI - 0.5, Math.PI + 0.5]) {
    ctx.moveTo(x2 + head * Math.cos(angle + turn), y2 + head * Math.sin(angle + turn));
    ctx.lineTo(x2, y2);
  }
}

function drawText(ctx: Context, mark: Extract<Mark, { kind: 'text' }>, width: number, height: number, side: number): void {
  const size = Math.max(10, side * TEXT);
  ctx.font = `700 ${size}px system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  // Centred where tapped, moved in from the edges so none of it is cut off.
  const half = ctx.measureText(mark.text).width / 2 + size * 0.15;
  const x = Math.min(Math.max(mark.at.x * width, half), Math.max(half, width - half));
  const y = Math.min(Math.max(mark.at.y * height, size * 0.65), height - size * 0.65);
  ctx.strokeStyle = HALO;
  ctx.lineWidth = size * 0.22;
  ctx.strokeText(mark.text, x, y);
  ctx.fillStyle = MARK_COLOURS[mark.colour];
  ctx.fillText(mark.text, x, y);
}

/**
 * The most pixels a marked photo has: what the service opens (MAX_INPUT_PIXELS in
 * src/adapters/image.ts, 100 megapixels); a browser that cannot make a canvas that big gets the
 * next size it can (Safari's limit is 16.7 megapixels).
 */
const PIXEL_BUDGETS = [100_000_000, 16_777_216];
/** The service's default largest photo (UPLOAD_MAX_PHOTO_BYTES, 50 MB): a bigger JPEG is encoded again, less finely. */
const MAX_BYTES = 50 * 1024 * 1024;
const QUALITIES = [0.9, 0.8, 0.7];

/**
 * The marked photo: `photo` (decoded upright) at its full pixel size with `marks` on top, as a JPEG
 * (quality 0.9) whose EXIF names `sourceName` and keeps the original's capture time (read from
 * `original`'s bytes).
 */
export async function markedPhoto(original: Blob, photo: ImageBitmap, marks: readonly Mark[], sourceName: string): Promise<Blob> {
  const head = await original.slice(0, 256 * 1024).arrayBuffer();
  const jpeg = await render(photo, marks);
  const taken = readCaptureTime(head);
  const offset = readCaptureOffset(head);
  return withMarkupExif(await jpeg.arrayBuffer(), { source: sourceName, ...(taken ? { taken } : {}), ...(offset ? { offset } : {}) });
}

async function render(photo: ImageBitmap, marks: readonly Mark[]): Promise<Blob> {
  let failure: unknown;
  for (const budget of PIXEL_BUDGETS) {
    const scale = Math.min(1, Math.sqrt(budget / (photo.width * photo.height)));
    const width = Math.max(1, Math.floor(photo.width * scale));
    const height = Math.max(1, Math.floor(photo.height * scale));
    const canvas = makeCanvas(width, height);
    try {
      const ctx = canvas.getContext('2d') as Context | null;
      if (!ctx) throw new Error(`no canvas of ${width} × ${height}`);
      ctx.drawImage(photo, 0, 0, width, height);
      drawMarks(ctx, marks, width, height);
      for (const quality of QUALITIES) {
        const blob = await encode(canvas, quality);
        if (blob.size <= MAX_BYTES || quality === QUALITIES.at(-1)) return blob;
      }
    } catch (error) {
      failure = error;
    } finally {
      // The pixels go at once (a 12-megapixel canvas holds 48 MB).
      canvas.width = 0;
      canvas.height = 0;
    }
  }
  throw failure;
}

function makeCanvas(width: number, height: number): OffscreenCanvas | HTMLCanvasElement {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(width, height);
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

function encode(canvas: OffscreenCanvas | HTMLCanvasElement, quality: number): Promise<Blob> {
  if ('convertToBlob' in canvas) return canvas.convertToBlob({ type: 'image/jpeg', quality });
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('not encoded'))), 'image/jpeg', quality),
  );
}
