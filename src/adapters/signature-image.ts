/**
 * The signature sheet: one opaque PNG with the customer's signature burned in. A header (headline,
 * the metadata as label/value rows, the confirmation text the signer agreed to), a framed area with
 * the signature above a line labelled "Unterschrift", and a footer (hash, server and time in
 * smaller type, a QR code of the public verification link at the right).
 *
 * It is printed as a page of the report PDF (about 190 mm wide, so 1600 px is about 214 dpi) and
 * shown on phones scaled to the screen (a third of its size and less), so type is larger than a
 * letter would use: body text 36 px (12 pt in print), footer 30 px (10 pt). Hashes are set in
 * DejaVu Sans Mono so they can be compared digit by digit; a hash moves to a line of its own
 * rather than being split.
 *
 * Text is drawn by libvips (Pango) with the DejaVu TTF files of `dejavu-fonts-ttf` added to its
 * font set, so a machine without any fonts draws the same sheet. Every piece is rendered and
 * composed by sharp in libvips' threads; the event loop only does the arithmetic of the layout.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import QRCode from 'qrcode';
import sharp from 'sharp';

export interface SignatureSheetInput {
  /** E.g. "Abnahmebestätigung – Unterschrift des Kunden". */
  headline: string;
  /** Label/value rows (Bericht, Auftrag, Kunde, …); values are wrapped, and may hold any text. */
  fields: Array<{ label: string; value: string }>;
  /** The confirmation text the signer agreed to, wrapped, never shortened. */
  confirmation: string;
  /** The customer's image (PNG, JPEG or WebP), usually dark strokes on a transparent background. */
  signature: Buffer;
  /** Small lines at the bottom; runs of 16 or more hex digits (hashes) are set in a monospace font. */
  footer: string[];
  /** QR code of the public verification link, with a short caption under it. */
  qr?: { url: string; caption: string } | null;
}

/** Width of every sheet in pixels: about 214 dpi across the 190 mm of an A4 page. @default 1600 */
export const SIGNATURE_SHEET_WIDTH = 1600;
/** A signature image above this many pixels is refused (decompression bombs). @default 40 megapixels */
export const SIGNATURE_MAX_PIXELS = 40_000_000;
/** A sheet taller than this is refused rather than drawn (it could only come from runaway text). @default 8000 */
export const SIGNATURE_SHEET_MAX_HEIGHT = 8000;

/**
 * Text limits, so input cannot make Pango lay out megabytes (every block is held as RGBA pixels
 * until the sheet is composed: `total` characters are at most about 35 MB). Generous for real
 * reports; beyond them the caller has a bug, and shortening a text someone signed is not ours to
 * do, so it throws.
 */
const LIMITS = {
  headline: 300,
  fields: 20,
  label: 100,
  value: 2000,
  confirmation: 5000,
  footerLines: 8,
  footerLine: 500,
  qrUrl: 500,
  qrCaption: 100,
  total: 10_000,
};

const W = SIGNATURE_SHEET_WIDTH;
const MARGIN = 48;
const CONTENT = W - 2 * MARGIN;
/** Font sizes in pixels (rendered at 72 dpi, where Pango's points are pixels). */
const SIZE = { headline: 52, body: 36, small: 30, caption: 28 } as const;
const INK = '#111111';
const MUTED = '#444444';
const RULE = '#9a9a9a';
/** Signature frame: its height, the inner padding, and the line with its label near the bottom. */
const FRAME_HEIGHT = 720;
const FRAME_PAD = 40;
const LINE_FROM_BOTTOM = 92;
/** Where the signature is fitted: inside the padding, above the line with a gap of 24 px. */
const SIGNATURE_AREA = { width: CONTENT - 2 * FRAME_PAD, height: FRAME_HEIGHT - FRAME_PAD - LINE_FROM_BOTTOM - 24 };
/** Side of the box the QR code is fitted into (whole pixels per module, so its edges stay sharp). */
const QR_BOX = 260;
/** Fewer pixels per module than this would not scan reliably from paper. */
const QR_MIN_MODULE = 3;
/** Runs of hex digits this long are hashes: monospace, so they can be compared digit by digit. */
const HEX_RUN = /\b[0-9a-fA-F]{16,}\b/g;
const SIGNATURE_FORMATS = new Set(['png', 'jpeg', 'webp']);

const FONT_FILES = { sans: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf', mono: 'DejaVuSansMono.ttf' } as const;
let fontDir: string | undefined;
function fontPath(file: string): string {
  fontDir ??= path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  return path.join(fontDir, file);
}

/**
 * libvips adds a `fontfile` to the process's fontconfig set once and keeps it, but only the file
 * named by a render. Markup switches to bold and monospace within one text, so all three files are
 * added up front, one after the other, before any sheet is drawn.
 */
let fontsReady: Promise<void> | undefined;
function loadFonts(): Promise<void> {
  fontsReady ??= (async () => {
    for (const file of Object.values(FONT_FILES)) {
      await sharp({ text: { text: '.', fontfile: fontPath(file), font: 'DejaVu Sans 8', dpi: 72 } })
        .raw()
        .toBuffer();
    }
  })().catch((error: unknown) => {
    fontsReady = undefined;
    throw error;
  });
  return fontsReady;
}

/** A rendered piece ready for composite(): raw pixels and where they go. */
interface Piece {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}
type Layer = sharp.OverlayOptions;

const place = (piece: Piece, left: number, top: number): Layer => ({
  input: piece.data,
  raw: { width: piece.width, height: piece.height, channels: piece.channels },
  left: Math.round(left),
  top: Math.round(top),
});
const box = (left: number, top: number, width: number, height: number, colour: string): Layer => ({
  input: { create: { width: Math.max(1, Math.round(width)), height: Math.max(1, Math.round(height)), channels: 3, background: colour } },
  left: Math.round(left),
  top: Math.round(top),
});

/** Text for Pango markup: `& < > " '` escaped, control characters (which GMarkup rejects) dropped. */
function escapeMarkup(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Renders Pango markup into RGBA pixels. libvips crops text to its ink, so a line of "ace" would
 * come out lower than one of "Hg"; an invisible full block (█, from descent to ascent) at the start
 * and at the end of the text keeps every block's top at the ascent and its bottom at the descent,
 * so blocks side by side line up on their baselines and rows are spaced evenly.
 * The leading block takes back its advance through letter spacing, so the first line is not
 * indented: Pango puts half of a span's letter spacing after each character, and DejaVu Sans'
 * block advances 0.77 em, so -1.54 em (letter_spacing is in 1/1024 pt, which is px at 72 dpi).
 * The trailing block only widens the last line; centred text (one short caption) goes without it.
 */
async function renderText(
  markup: string,
  size: number,
  width: number,
  options: { colour?: string; align?: 'left' | 'centre' } = {},
): Promise<Piece> {
  const align = options.align ?? 'left';
  const lead = `<span alpha="1" letter_spacing="${-Math.round(size * 1.54 * 1024)}">█</span>`;
  const tail = align === 'left' ? '<span alpha="1">█</span>' : '';
  // No hyphen where a long word is broken: in a reference or a hash it would read as part of it.
  const text = `<span foreground="${options.colour ?? INK}" insert_hyphens="false">${lead}${markup}${tail}</span>`;
  const { data, info } = await sharp({
    text: { text, fontfile: fontPath(FONT_FILES.sans), font: `DejaVu Sans ${size}`, width, dpi: 72, rgba: true, wrap: 'word-char', align },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 4 };
}

/** Markup of a footer line: hashes (long hex runs) in DejaVu Sans Mono. */
function footerMarkup(line: string): string {
  return escapeMarkup(line).replace(HEX_RUN, (hex) => `<span font_family="DejaVu Sans Mono">${hex}</span>`);
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`renderSignatureSheet: ${message}`);
}

function checkInput(input: SignatureSheetInput): void {
  check(input.headline.length <= LIMITS.headline, `headline longer than ${LIMITS.headline} characters`);
  check(input.fields.length <= LIMITS.fields, `more than ${LIMITS.fields} fields`);
  for (const field of input.fields) {
    check(field.label.length <= LIMITS.label, `field label longer than ${LIMITS.label} characters`);
    check(field.value.length <= LIMITS.value, `field value longer than ${LIMITS.value} characters`);
  }
  check(input.confirmation.length <= LIMITS.confirmation, `confirmation longer than ${LIMITS.confirmation} characters`);
  check(input.footer.length <= LIMITS.footerLines, `more than ${LIMITS.footerLines} footer lines`);
  for (const line of input.footer) check(line.length <= LIMITS.footerLine, `footer line longer than ${LIMITS.footerLine} characters`);
  const total = [
    input.headline,
    input.confirmation,
    ...input.footer,
    ...input.fields.flatMap((field) => [field.label, field.value]),
  ].reduce((sum, text) => sum + text.length, 0);
  check(total <= LIMITS.total, `more than ${LIMITS.total} characters of text`);
  if (input.qr) {
    check(input.qr.url.length > 0 && input.qr.url.length <= LIMITS.qrUrl, `QR link empty or longer than ${LIMITS.qrUrl} characters`);
    check(input.qr.caption.length <= LIMITS.qrCaption, `QR caption longer than ${LIMITS.qrCaption} characters`);
  }
}

/**
 * The signature's strokes (the empty margin around them cut away) fitted inside `maxWidth` ×
 * `maxHeight`, enlarged at most 2× (a tiny image blown up further only shows its pixels), upright,
 * flattened onto white. Throws a plain Error for bytes
 * that are no PNG, JPEG or WebP, or an image above SIGNATURE_MAX_PIXELS (checked from the header,
 * before anything is decoded; limitInputPixels holds the decoder to the same bound).
 */
async function renderSignature(signature: Buffer, maxWidth: number, maxHeight: number): Promise<Piece> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(signature).metadata();
  } catch (error) {
    throw new Error('renderSignatureSheet: the signature is not a readable image', { cause: error });
  }
  check(
    !!meta.format && SIGNATURE_FORMATS.has(meta.format),
    `the signature is ${meta.format ?? 'of no known format'}, not PNG, JPEG or WebP`,
  );
  const { width = 0, height = 0 } = meta;
  check(width > 0 && height > 0, 'the signature has no size');
  check(
    width * height <= SIGNATURE_MAX_PIXELS,
    `the signature has ${width}×${height} pixels, more than ${SIGNATURE_MAX_PIXELS / 1e6} megapixels`,
  );
  try {
    // Upright on white, then the empty margin around the strokes cut away (a signature made small
    // on a large pad is drawn as large as the frame allows); an image with no strokes stays whole.
    const upright = await sharp(signature, { limitInputPixels: SIGNATURE_MAX_PIXELS })
      .rotate()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .png({ compressionLevel: 1 })
      .toBuffer();
    const strokes = await sharp(upright)
      .trim({ background: '#ffffff', threshold: 24 })
      .png({ compressionLevel: 1 })
      .toBuffer({ resolveWithObject: true })
      .catch(() => null);
    const source = strokes && strokes.info.width > 0 && strokes.info.height > 0 ? strokes.data : upright;
    const { width: w = 1, height: h = 1 } = await sharp(source).metadata();
    const scale = Math.min(maxWidth / w, maxHeight / h, 2);
    const { data, info } = await sharp(source)
      .resize(Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale)), { fit: 'fill' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: 3 };
  } catch (error) {
    throw new Error('renderSignatureSheet: the signature could not be decoded', { cause: error });
  }
}

/** The QR code as black and white pixels, a whole number of pixels per module, 1 module of quiet zone. */
function renderQr(url: string): Piece {
  const { modules } = QRCode.create(url, { errorCorrectionLevel: 'M' });
  const count = modules.size + 2;
  const scale = Math.floor(QR_BOX / count);
  check(scale >= QR_MIN_MODULE, 'the QR link is too long to print legibly');
  const side = count * scale;
  const data = Buffer.alloc(side * side * 3, 0xff);
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (!modules.get(row, col)) continue;
      for (let y = (row + 1) * scale; y < (row + 2) * scale; y++)
        data.fill(0, (y * side + (col + 1) * scale) * 3, (y * side + (col + 2) * scale) * 3);
    }
  }
  return { data, width: side, height: side, channels: 3 };
}

/**
 * Draws the sheet: SIGNATURE_SHEET_WIDTH wide, as tall as its text needs (about 1800 px for a
 * usual report), an opaque 8-bit RGB PNG. Throws a plain Error when the signature is unreadable or
 * too large, or a text is beyond the limits above.
 */
export async function renderSignatureSheet(input: SignatureSheetInput): Promise<Buffer> {
  checkInput(input);
  await loadFonts();
  const qrPiece = input.qr ? renderQr(input.qr.url) : null;
  const footerWidth = CONTENT - (qrPiece ? QR_BOX + 40 : 0);
  const labelWidth = Math.round(CONTENT * 0.4);

  const [headline, labels, confirmation, footer, caption, lineLabel, signature] = await Promise.all([
    input.headline.trim() ? renderText(`<b>${escapeMarkup(input.headline)}</b>`, SIZE.headline, CONTENT) : null,
    Promise.all(input.fields.map((field) => renderText(`<b>${escapeMarkup(field.label)}</b>`, SIZE.body, labelWidth, { colour: MUTED }))),
    input.confirmation.trim() ? renderText(escapeMarkup(input.confirmation), SIZE.body, CONTENT) : null,
    input.footer.length > 0 ? renderText(input.footer.map(footerMarkup).join('\n'), SIZE.small, footerWidth, { colour: MUTED }) : null,
    input.qr?.caption.trim()
      ? renderText(escapeMarkup(input.qr.caption), SIZE.caption, QR_BOX + 40, { colour: MUTED, align: 'centre' })
      : null,
    renderText('Unterschrift', SIZE.caption, CONTENT, { colour: MUTED }),
    renderSignature(input.signature, SIGNATURE_AREA.width, SIGNATURE_AREA.height),
  ]);
  // Values start where the widest label ends, so short labels leave room for long values.
  const valueLeft = Math.max(0, ...labels.map((label) => label.width)) + 32;
  const values = await Promise.all(input.fields.map((field) => renderText(escapeMarkup(field.value), SIZE.body, CONTENT - valueLeft)));

  const layers: Layer[] = [];
  let y = MARGIN;
  if (headline) {
    layers.push(place(headline, MARGIN, y));
    y += headline.height + 16;
  }
  layers.push(box(MARGIN, y, CONTENT, 3, INK));
  y += 3 + 24;
  input.fields.forEach((_, index) => {
    const label = labels[index]!;
    const value = values[index]!;
    layers.push(place(label, MARGIN, y), place(value, MARGIN + valueLeft, y));
    y += Math.max(label.height, value.height) + 12;
  });
  if (confirmation) {
    y += 16;
    layers.push(place(confirmation, MARGIN, y));
    y += confirmation.height;
  }

  // The frame: a thin border, the signature centred above the line, "Unterschrift" under it.
  y += 36;
  const frameTop = y;
  layers.push(box(MARGIN, frameTop, CONTENT, 2, RULE), box(MARGIN, frameTop + FRAME_HEIGHT - 2, CONTENT, 2, RULE));
  layers.push(box(MARGIN, frameTop, 2, FRAME_HEIGHT, RULE), box(MARGIN + CONTENT - 2, frameTop, 2, FRAME_HEIGHT, RULE));
  const lineY = frameTop + FRAME_HEIGHT - LINE_FROM_BOTTOM;
  layers.push(box(MARGIN + FRAME_PAD, lineY, CONTENT - 2 * FRAME_PAD, 2, INK));
  layers.push(place(lineLabel, MARGIN + FRAME_PAD, lineY + 14));
  layers.push(
    place(signature, MARGIN + (CONTENT - signature.width) / 2, frameTop + FRAME_PAD + (SIGNATURE_AREA.height - signature.height) / 2),
  );
  y = frameTop + FRAME_HEIGHT + 32;

  // Footer: small text at the left, the QR code with its caption at the right.
  let footerHeight = 0;
  if (footer) {
    layers.push(place(footer, MARGIN, y));
    footerHeight = footer.height;
  }
  if (qrPiece) {
    const qrLeft = W - MARGIN - QR_BOX + (QR_BOX - qrPiece.width) / 2;
    layers.push(place(qrPiece, qrLeft, y));
    let qrHeight = qrPiece.height;
    if (caption) {
      layers.push(place(caption, qrLeft + (qrPiece.width - caption.width) / 2, y + qrPiece.height + 16));
      qrHeight += 16 + caption.height;
    }
    footerHeight = Math.max(footerHeight, qrHeight);
  }
  const height = Math.round(y + footerHeight + MARGIN);
  check(height <= SIGNATURE_SHEET_MAX_HEIGHT, `the sheet would be ${height} px tall, more than ${SIGNATURE_SHEET_MAX_HEIGHT}`);

  return sharp({ create: { width: W, height, channels: 3, background: '#ffffff' } })
    .composite(layers)
    .removeAlpha()
    .png({ compressionLevel: 9 })
    .toBuffer();
}
