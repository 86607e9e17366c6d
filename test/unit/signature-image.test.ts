/**
 * renderSignatureSheet with real sharp (Pango text, composite, PNG): an opaque RGB PNG of the
 * sheet's width; the signature drawn centred in its frame, never enlarged beyond 2×, a huge one
 * scaled down; the QR code's modules exactly those of the link; markup-like text escaped; a
 * signature that is no image, broken, an SVG or above 40 megapixels refused; text limits.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import QRCode from 'qrcode';
import sharp from 'sharp';
import {
  renderSignatureSheet,
  SIGNATURE_MAX_PIXELS,
  SIGNATURE_SHEET_WIDTH,
  type SignatureSheetInput,
} from '../../src/adapters/signature-image.js';

const NAVY = '#1a237e';
const HASH = 'a3f1c9e07b2d4458e6f90c1d2b3a4f5e6d7c8b9a0f1e2d3c4b5a69788796a5b4';
const VERIFY_URL = 'https://erp.example.de/public/verify_signature.php?code=Zk3p9QwErTyUiOpAsDfGhA';

/** A handwritten-looking signature: strokes in `colour` on a transparent background, as a PNG. */
function signaturePng(width: number, height: number, colour = NAVY): Promise<Buffer> {
  const path = (d: string, stroke: number) =>
    `<path d="${d}" fill="none" stroke="${colour}" stroke-width="${stroke}" stroke-linecap="round" stroke-linejoin="round"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 1200 400" preserveAspectRatio="none">
    ${path('M60 300 C 120 80, 180 80, 220 260 S 320 340, 360 180 C 380 100, 420 120, 430 260 C 440 320, 500 300, 540 220 C 580 150, 620 160, 640 250 L 700 200 C 760 120, 820 330, 900 240 C 960 170, 1040 200, 1140 160', 9)}
    ${path('M200 340 C 400 320, 700 330, 1000 300', 6)}
  </svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 1 }).toBuffer();
}

async function sheetInput(overrides: Partial<SignatureSheetInput> = {}): Promise<SignatureSheetInput> {
  return {
    headline: 'Abnahmebestätigung – Unterschrift des Kunden',
    fields: [
      {
        label: 'Bericht',
        value: 'BR2611-0001 – Wartung Heizungsanlage Kesselhaus Nord, Austausch Umwälzpumpe und Druckausgleichsbehälter',
      },
      { label: 'Auftrag', value: 'CO2611-0042 (4711/Ä)' },
      { label: 'Kunde', value: 'Müller & Söhne <GmbH>' },
      { label: 'Datum/Uhrzeit (Server)', value: '22.11.2026 15:03:05' },
      { label: 'Unterzeichner', value: 'Jürgen Weiß-Özdemir \u0007' },
      { label: 'GPS', value: '48.137154, 11.576124' },
    ],
    confirmation:
      'Hiermit bestätige ich, dass die in diesem Bericht dokumentierten Arbeiten ausgeführt wurden und der Bericht den Zustand bei Abnahme wiedergibt. ' +
      'Mängel, die bei der Abnahme erkennbar waren, sind im Bericht vermerkt. Mit meiner Unterschrift erkenne ich die Leistung als vertragsgemäß an. ' +
      'Die Unterschrift wurde auf dem Gerät des Technikers geleistet; Zeitpunkt & Ort stammen vom Server <nicht vom Gerät>.',
    signature: await signaturePng(1200, 400),
    footer: [`SHA-256 über 7 Seite(n) und BR2611-0001: ${HASH}`, 'Server: reports.example.de · 2026-11-22 14:03:05 UTC'],
    qr: { url: VERIFY_URL, caption: 'Prüfen' },
    ...overrides,
  };
}

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}
async function pixelsOf(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Bounding box of the pixels matching `test` inside `area` (whole image by default); null when none. */
function boundsOf(
  image: Pixels,
  test: (r: number, g: number, b: number) => boolean,
  area = { x: 0, y: 0, w: image.width, h: image.height },
) {
  let found: { left: number; top: number; right: number; bottom: number; count: number } | null = null;
  for (let y = area.y; y < area.y + area.h; y++) {
    for (let x = area.x; x < area.x + area.w; x++) {
      const at = (y * image.width + x) * image.channels;
      if (!test(image.data[at]!, image.data[at + 1]!, image.data[at + 2]!)) continue;
      found ??= { left: x, top: y, right: x, bottom: y, count: 0 };
      found.left = Math.min(found.left, x);
      found.right = Math.max(found.right, x);
      found.top = Math.min(found.top, y);
      found.bottom = Math.max(found.bottom, y);
      found.count++;
    }
  }
  return found;
}
const hexRgb = (hex: string) => ({ r: parseInt(hex.slice(1, 3), 16), g: parseInt(hex.slice(3, 5), 16), b: parseInt(hex.slice(5, 7), 16) });
const isNavy = (r: number, g: number, b: number) => b > 90 && r < 80 && g < 90 && b - r > 50;
const isBlack = (r: number, g: number, b: number) => r < 8 && g < 8 && b < 8;

/** Rejects with a plain Error (not an AppError) whose message matches `pattern`. */
async function rejectsPlain(work: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof Error);
    assert.equal(error.constructor, Error);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('renderSignatureSheet', () => {
  test('draws an opaque RGB PNG of the sheet width with the signature centred in its frame and the QR code at the bottom right', async () => {
    const png = await renderSignatureSheet(await sheetInput());
    const meta = await sharp(png).metadata();
    assert.equal(meta.format, 'png');
    assert.equal(meta.width, SIGNATURE_SHEET_WIDTH);
    assert.equal(meta.channels, 3);
    assert.equal(meta.hasAlpha, false);
    assert.equal(meta.depth, 'uchar');
    assert.ok(meta.height! >= 1600 && meta.height! <= 2600, `height ${meta.height}`);

    const image = await pixelsOf(png);
    // The strokes (navy, the only coloured thing on the sheet) sit in the middle band, centred.
    const strokes = boundsOf(image, isNavy);
    assert.ok(strokes && strokes.count > 5000, `stroke pixels: ${strokes?.count}`);
    assert.ok(
      Math.abs((strokes.left + strokes.right) / 2 - SIGNATURE_SHEET_WIDTH / 2) < 30,
      `strokes from x ${strokes.left} to ${strokes.right}`,
    );
    assert.ok(
      strokes.top > image.height * 0.25 && strokes.bottom < image.height * 0.8,
      `strokes from y ${strokes.top} to ${strokes.bottom}`,
    );
    // Fitted into the frame: wide, and enlarged (1200 px → more), at most 2×.
    assert.ok(
      strokes.right - strokes.left > 1000 && strokes.right - strokes.left <= 2 * 1200,
      `stroke width ${strokes.right - strokes.left}`,
    );
    // Transparent background became white: the frame's middle has no dark background.
    const at = ((strokes.top + 5) * image.width + strokes.left + 5) * 3;
    assert.ok(image.data[at]! > 240, 'background inside the frame is white');

    // The QR code: pure black modules only there; every module is the link's, at a whole pixel size.
    const qrArea = { x: image.width - 420, y: image.height - 450, w: 420, h: 450 };
    const qr = boundsOf(image, isBlack, qrArea);
    assert.ok(qr, 'no QR code found');
    const { modules } = QRCode.create(VERIFY_URL, { errorCorrectionLevel: 'M' });
    const side = qr.right - qr.left + 1;
    assert.equal(qr.bottom - qr.top + 1, side, 'QR code is square');
    assert.equal(side % modules.size, 0, `QR side ${side} is a whole number of pixels per module (${modules.size} modules)`);
    const scale = side / modules.size;
    assert.ok(scale >= 5 && side <= 260, `QR ${side} px, ${scale} px per module`);
    let wrong = 0;
    for (let row = 0; row < modules.size; row++) {
      for (let col = 0; col < modules.size; col++) {
        const x = qr.left + Math.floor((col + 0.5) * scale);
        const y = qr.top + Math.floor((row + 0.5) * scale);
        const value = image.data[(y * image.width + x) * 3]!;
        if (value < 128 !== Boolean(modules.get(row, col))) wrong++;
        assert.ok(value === 0 || value === 255, `module ${row},${col} is pure black or white (${value})`);
      }
    }
    assert.equal(wrong, 0, 'modules that differ from the link');
    // The quiet zone around it is white.
    for (const [x, y] of [
      [qr.left - 2, qr.top + side / 2],
      [qr.right + 2, qr.top + side / 2],
      [qr.left + side / 2, qr.top - 2],
    ] as const) {
      assert.equal(image.data[(Math.round(y) * image.width + Math.round(x)) * 3], 255);
    }
  });

  test('markup-like text is shown, not interpreted: a value that would open a huge span does not change the layout', async () => {
    const plain = await sharp(
      await renderSignatureSheet(await sheetInput({ fields: [{ label: 'Kunde', value: 'Müller und Söhne GmbH' }], qr: null })),
    ).metadata();
    const tricky = await sharp(
      await renderSignatureSheet(
        await sheetInput({ fields: [{ label: 'Kunde <b>', value: '</span><span size="400000">&amp; Ä</span>' }], qr: null }),
      ),
    ).metadata();
    assert.equal(tricky.height, plain.height);
  });

  test('a long confirmation and footer wrap: the sheet grows, keeps its width and stays bounded', async () => {
    const base = await sharp(await renderSignatureSheet(await sheetInput())).metadata();
    const sentence = 'Der Kunde bestätigt die ordnungsgemäße Ausführung der Arbeiten gemäß Auftrag & Leistungsverzeichnis. ';
    const long = await sharp(
      await renderSignatureSheet(
        await sheetInput({
          confirmation: sentence.repeat(12),
          footer: [...(await sheetInput()).footer, `Bild: ${HASH}`, `Unterschrift: ${HASH}`],
        }),
      ),
    ).metadata();
    assert.equal(long.width, SIGNATURE_SHEET_WIDTH);
    assert.ok(long.height! > base.height! + 300 && long.height! < 4000, `heights ${base.height} → ${long.height}`);
  });

  test('a small signature is enlarged at most 2×', async () => {
    const dot = await sharp({ create: { width: 100, height: 50, channels: 3, background: NAVY } })
      .png()
      .toBuffer();
    const image = await pixelsOf(await renderSignatureSheet(await sheetInput({ signature: dot, qr: null })));
    const box = boundsOf(image, isNavy);
    assert.ok(box);
    assert.ok(
      Math.abs(box.right - box.left + 1 - 200) <= 2 && Math.abs(box.bottom - box.top + 1 - 100) <= 2,
      `drawn ${box.right - box.left + 1}×${box.bottom - box.top + 1}`,
    );
  });

  test('a signature made small on a large pad is drawn large: the empty pad around the strokes is cut away', async () => {
    // A pad of 1600 × 800 with strokes only in a 300 × 120 patch in its middle.
    const strokes = await sharp({ create: { width: 300, height: 120, channels: 4, background: { ...hexRgb(NAVY), alpha: 1 } } })
      .png()
      .toBuffer();
    const pad = await sharp({ create: { width: 1600, height: 800, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: strokes, left: 650, top: 340 }])
      .png()
      .toBuffer();
    const image = await pixelsOf(await renderSignatureSheet(await sheetInput({ signature: pad, qr: null })));
    const box = boundsOf(image, isNavy);
    assert.ok(box);
    // The patch alone fitted: 2× (its cap), 600 × 240, not the 300 × 120 it would be with the pad kept.
    assert.ok(
      Math.abs(box.right - box.left + 1 - 600) <= 3 && Math.abs(box.bottom - box.top + 1 - 240) <= 3,
      `drawn ${box.right - box.left + 1}×${box.bottom - box.top + 1}`,
    );
  });

  test('a 10000×4000 signature (40 megapixels) is scaled down into the frame; the sheet keeps its width', async () => {
    assert.equal(10_000 * 4_000, SIGNATURE_MAX_PIXELS);
    const huge = await signaturePng(10_000, 4_000, '#000000');
    const png = await renderSignatureSheet(await sheetInput({ signature: huge, qr: null }));
    const image = await pixelsOf(png);
    assert.equal(image.width, SIGNATURE_SHEET_WIDTH);
    assert.ok(image.height < 2600);
    const strokes = boundsOf(image, (r, g, b) => r < 90 && g < 90 && b < 90, {
      x: 100,
      y: Math.round(image.height * 0.35),
      w: SIGNATURE_SHEET_WIDTH - 200,
      h: Math.round(image.height * 0.3),
    });
    assert.ok(strokes && strokes.count > 3000, `dark stroke pixels in the middle: ${strokes?.count}`);
  });

  test('a signature above 40 megapixels is refused before it is decoded', async () => {
    const tooLarge = await sharp({ create: { width: 10_000, height: 5_000, channels: 3, background: '#ffffff' } })
      .toColourspace('b-w')
      .png({ compressionLevel: 1 })
      .toBuffer();
    await rejectsPlain(renderSignatureSheet(await sheetInput({ signature: tooLarge })), /megapixels/);
  });

  test('bytes that are no image, a truncated PNG and an SVG are refused with a plain Error', async () => {
    await rejectsPlain(renderSignatureSheet(await sheetInput({ signature: Buffer.from('not an image at all') })), /not a readable image/);
    const png = await signaturePng(1200, 400);
    await rejectsPlain(
      renderSignatureSheet(await sheetInput({ signature: png.subarray(0, Math.floor(png.length / 2)) })),
      /could not be decoded|not a readable image/,
    );
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50"/></svg>');
    await rejectsPlain(renderSignatureSheet(await sheetInput({ signature: svg })), /not PNG, JPEG or WebP/);
  });

  test('text beyond the limits is refused rather than laid out', async () => {
    await rejectsPlain(
      renderSignatureSheet(await sheetInput({ fields: [{ label: 'Kunde', value: 'x'.repeat(2001) }] })),
      /field value longer/,
    );
    await rejectsPlain(
      renderSignatureSheet(await sheetInput({ fields: Array.from({ length: 21 }, () => ({ label: 'A', value: 'B' })) })),
      /more than 20 fields/,
    );
    await rejectsPlain(
      renderSignatureSheet(await sheetInput({ fields: Array.from({ length: 6 }, () => ({ label: 'A', value: 'x'.repeat(1900) })) })),
      /characters of text/,
    );
    await rejectsPlain(
      renderSignatureSheet(await sheetInput({ qr: { url: `https://example.de/${'x'.repeat(600)}`, caption: 'Prüfen' } })),
      /QR link/,
    );
  });

  test('empty texts and no QR code still give a sheet', async () => {
    const png = await renderSignatureSheet(
      await sheetInput({ headline: '', fields: [{ label: 'Kunde', value: '' }], confirmation: '', footer: [], qr: null }),
    );
    const meta = await sharp(png).metadata();
    assert.equal(meta.width, SIGNATURE_SHEET_WIDTH);
    assert.ok(meta.height! > 800 && meta.height! < 1400, `height ${meta.height}`);
  });
});
