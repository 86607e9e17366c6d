/**
 * renderReportPdf with real pdfkit, sharp and pdf-lib, read back with poppler (pdfinfo, pdftotext,
 * pdftoppm, pdfimages, pdffonts) as a reader of the file would see it. Where poppler-utils is
 * missing, the tests that need it skip and say so.
 */
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { degrees, PDFDocument as PdfLibDocument } from 'pdf-lib';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { isPlainPng, renderReportPdf, type PdfCover, type PdfDocumentInput, type PdfPage } from '../../src/adapters/pdf.js';
import { AppError } from '../../src/errors.js';
import { hasTool, pdfInfo, pdfText, poppler } from '../helpers/pdf-tools.js';

const POPPLER = ['pdfinfo', 'pdftotext', 'pdftoppm', 'pdfimages', 'pdffonts'];
/** Why the read-back tests cannot run here, or undefined. */
const popplerMissing = POPPLER.every(hasTool) ? undefined : `poppler-utils (${POPPLER.join(', ')}) not installed`;

const TITLE = 'Prüfung der Heizungsanlage – Ölbrenner, Maße ÄÖÜß';
let dir: string;
const files = {
  portrait: '', // 1800×2400, red above blue
  landscape: '', // 2400×1600, yellow left, green right
  logo: '', // 600×200 PNG with alpha
  signature: '', // PNG with transparency (a composite image)
  cover: '', // two-page cover PDF made by pdfkit, embedded font and an image on page 1
  broken: '',
};

async function solidHalves(
  file: string,
  width: number,
  height: number,
  first: string,
  second: string,
  split: 'vertical' | 'horizontal',
): Promise<void> {
  const half = split === 'vertical' ? { width: width / 2, height } : { width, height: height / 2 };
  const overlay = await sharp({ create: { ...half, channels: 3, background: first } })
    .png()
    .toBuffer();
  await sharp({ create: { width, height, channels: 3, background: second } })
    .composite([{ input: overlay, left: 0, top: 0 }])
    .jpeg({ quality: 85 })
    .toFile(file);
}

/** A small PDF written by pdfkit: page 1 with DejaVu text and a JPEG, page 2 with Helvetica. */
async function coverPdf(file: string, photo: string): Promise<void> {
  const doc = new PDFDocument({ size: 'A4' });
  const done = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(file);
    out.on('close', resolve).on('error', reject);
    doc.pipe(out);
  });
  doc.font(path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSans.ttf'));
  doc.fontSize(28).text('Deckblatt – Müller GmbH', 72, 100);
  doc.fontSize(12).text('Straße 5, 12345 Großstadt', 72, 150);
  doc.image(photo, 72, 220, { width: 200 });
  doc.addPage().font('Helvetica').fontSize(20).text('Zweite Deckblattseite', 72, 100);
  doc.end();
  await done;
}

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-pdf-'));
  files.portrait = path.join(dir, 'portrait.jpg');
  files.landscape = path.join(dir, 'landscape.jpg');
  files.logo = path.join(dir, 'logo.png');
  files.signature = path.join(dir, 'signature.png');
  files.cover = path.join(dir, 'cover.pdf');
  files.broken = path.join(dir, 'broken.jpg');
  await solidHalves(files.portrait, 1800, 2400, '#d01010', '#1030d0', 'horizontal');
  await solidHalves(files.landscape, 2400, 1600, '#e0c000', '#20a040', 'vertical');
  await sharp({ create: { width: 600, height: 200, channels: 4, background: { r: 0, g: 80, b: 160, alpha: 0.9 } } })
    .png()
    .toFile(files.logo);
  await sharp({ create: { width: 800, height: 400, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([
      {
        input: Buffer.from(
          '<svg width="800" height="400"><path d="M50 300 C 200 100, 400 380, 750 150" stroke="black" stroke-width="6" fill="none"/></svg>',
        ),
      },
    ])
    .png()
    .toFile(files.signature);
  await coverPdf(files.cover, files.portrait);
  await writeFile(files.broken, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.alloc(64, 0x41)]));
});
after(() => rm(dir, { recursive: true, force: true }));

function input(pages: PdfPage[], overrides: Partial<PdfDocumentInput> = {}): PdfDocumentInput {
  return {
    format: 'A4',
    orientation: 'portrait',
    header: { logo: { path: files.logo }, lines: ['Muster Haustechnik GmbH', 'BR2611-0001 · Wartung'] },
    cover: null,
    pages,
    info: { title: 'Bericht Ölbrenner', author: 'Muster Haustechnik GmbH', subject: 'Wartung' },
    ...overrides,
  };
}

/** Renders into a file; returns its path and the page count. */
async function render(name: string, data: PdfDocumentInput): Promise<{ file: string; pageCount: number }> {
  const file = path.join(dir, name);
  const { pageCount } = await renderReportPdf(data, createWriteStream(file));
  return { file, pageCount };
}

async function pdfinfo(file: string): Promise<{ pages: number; sizes: Array<[number, number]>; fields: Record<string, string> }> {
  const info = await pdfInfo(file);
  return { pages: info.pages, sizes: info.sizes.map((s): [number, number] => [s.width, s.height]), fields: info.fields };
}

/** pdftotext -layout, one string per page. */
async function pageTexts(file: string): Promise<string[]> {
  return (await pdfText(file)).split('\f').slice(0, -1);
}

/** Text with every run of white space as one space, for phrases that may wrap. */
const flat = (text: string): string => text.replace(/\s+/g, ' ');

function assertSize([width, height]: [number, number], expected: [number, number]): void {
  assert.ok(
    Math.abs(width - expected[0]) <= 1 && Math.abs(height - expected[1]) <= 1,
    `page is ${width}×${height}, expected ${expected.join('×')}`,
  );
}

const everyKind = (): PdfPage[] => [
  {
    kind: 'photo',
    title: TITLE,
    note: 'Der Brenner wurde gereinigt und neu eingestellt. '.repeat(4),
    rotation: 0,
    image: { path: files.portrait },
  },
  { kind: 'photo', title: 'Gedreht', note: null, rotation: 90, image: { path: files.landscape } },
  {
    kind: 'before_after',
    title: 'Abgasrohr',
    note: 'Dichtung erneuert',
    rotation: 0,
    before: { path: files.portrait },
    after: { path: files.landscape },
  },
  { kind: 'title_only', title: 'Außenanlage', note: 'Kontrolle der Zuleitungen' },
  { kind: 'image', title: 'Unterschriften', note: null, image: { path: files.signature } },
  { kind: 'photo', title: 'Kein Bild', note: null, rotation: 0, image: null },
];

describe('renderReportPdf', () => {
  test('every page kind behind a two-page PDF cover: page count, A4 size, footers, text, metadata, fonts', async (t) => {
    const cover: PdfCover = { kind: 'pdf', path: files.cover };
    const { file, pageCount } = await render('every-kind.pdf', input(everyKind(), { cover }));
    assert.equal(pageCount, 8);
    if (popplerMissing) return t.skip(popplerMissing);

    const info = await pdfinfo(file);
    assert.equal(info.pages, 8);
    for (const size of info.sizes) assertSize(size, [595, 842]);
    assert.equal(info.fields.Title, 'Bericht Ölbrenner');
    assert.equal(info.fields.Author, 'Muster Haustechnik GmbH');
    assert.equal(info.fields.Subject, 'Wartung');
    assert.equal(info.fields.Producer, 'fieldreport');
    assert.ok(info.fields.CreationDate);

    const texts = await pageTexts(file);
    assert.equal(texts.length, 8);
    // The cover comes first, its text still text; no header or footer there.
    assert.match(texts[0]!, /Deckblatt – Müller GmbH/);
    assert.match(texts[0]!, /Straße 5, 12345 Großstadt/);
    assert.match(texts[1]!, /Zweite Deckblattseite/);
    for (const text of texts.slice(0, 2)) assert.doesNotMatch(text, /Seite \d|Muster Haustechnik/);
    // Body pages: header lines and "Seite x / 8" counting the cover pages.
    texts.slice(2).forEach((text, index) => {
      assert.match(text, new RegExp(`Seite ${index + 3} / 8`));
      assert.match(text, /Muster Haustechnik GmbH/);
      assert.match(text, /BR2611-0001 · Wartung/);
    });
    assert.match(flat(texts[2]!), new RegExp(TITLE));
    assert.match(texts[2]!, /Der Brenner wurde gereinigt/);
    assert.match(texts[4]!, /Vorher/);
    assert.match(texts[4]!, /Nachher/);
    assert.match(texts[4]!, /Dichtung erneuert/);
    assert.match(texts[5]!, /Außenanlage/);
    assert.match(texts[7]!, /Bild fehlt/);

    const fonts = await poppler('pdffonts', [file]);
    assert.match(fonts, /\+DejaVuSans\s.*yes\s+yes\s+yes/);
    assert.match(fonts, /\+DejaVuSans-Bold\s.*yes\s+yes\s+yes/);
  });

  test('metadata with XML specials stays valid XMP', async (t) => {
    const title = 'Müller & Söhne <GmbH> "Heizung"';
    const { file } = await render('xmp.pdf', input([{ kind: 'title_only', title, note: null }], { info: { title, author: 'A & B' } }));
    if (popplerMissing) return t.skip(popplerMissing);
    assert.equal((await pdfinfo(file)).fields.Title, title);
    const xmp = await poppler('pdfinfo', ['-meta', file]);
    assert.match(xmp, /Müller &#38; Söhne &#60;GmbH&#62; &#34;Heizung&#34;/);
    assert.match(xmp, /<rdf:li>A &#38; B<\/rdf:li>/);
  });

  test('the logo is embedded once however many pages show it; page images are embedded per page', async (t) => {
    const { file } = await render('logo-once.pdf', input(everyKind()));
    if (popplerMissing) return t.skip(popplerMissing);
    const stdout = await poppler('pdfimages', ['-list', file]);
    const rows = stdout
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((line) => line.trim().split(/\s+/));
    const logoObjects = new Set(rows.filter((row) => row[3] === '600' && row[4] === '200').map((row) => row[10]));
    assert.equal(rows.filter((row) => row[3] === '600').length, 6, 'a logo on each of the 6 pages');
    assert.equal(logoObjects.size, 1);
    // portrait.jpg is on pages 1 and 3 (before_after): read per page, not kept between pages.
    const photoObjects = rows.filter((row) => row[3] === '1800' && row[4] === '2400').map((row) => row[10]);
    assert.equal(new Set(photoObjects).size, 2);
  });

  test('A5 landscape with the built-in cover', async (t) => {
    const cover: PdfCover = { kind: 'builtin', title: 'Servicebericht BR2611-0001', lines: ['Kunde: Müller', 'Datum: 01.02.2026'] };
    const pages: PdfPage[] = [
      { kind: 'title_only', title: TITLE, note: null },
      { kind: 'photo', title: 'Foto', note: 'Notiz', rotation: 180, image: { path: files.portrait } },
    ];
    const { file, pageCount } = await render('a5.pdf', input(pages, { format: 'A5', orientation: 'landscape', cover }));
    assert.equal(pageCount, 3);
    if (popplerMissing) return t.skip(popplerMissing);
    const info = await pdfinfo(file);
    assert.equal(info.pages, 3);
    for (const size of info.sizes) assertSize(size, [595, 420]);
    const texts = await pageTexts(file);
    assert.match(texts[0]!, /Servicebericht BR2611-0001/);
    assert.match(texts[0]!, /Kunde: Müller/);
    assert.doesNotMatch(texts[0]!, /Seite/);
    assert.match(texts[1]!, /Seite 2 \/ 3/);
    assert.match(flat(texts[1]!), new RegExp(TITLE), 'a wrapped title');
    assert.match(texts[2]!, /Seite 3 \/ 3/);
  });

  test('a cover page with /Rotate is placed turned and fitted, its text kept', async (t) => {
    const rotated = await PdfLibDocument.load(await readFile(files.cover));
    rotated.getPage(0).setRotation(degrees(90));
    const coverFile = path.join(dir, 'cover-rotated.pdf');
    await writeFile(coverFile, await rotated.save());
    const { file, pageCount } = await render(
      'rotated-cover.pdf',
      input([{ kind: 'title_only', title: 'Eins', note: null }], { cover: { kind: 'pdf', path: coverFile } }),
    );
    assert.equal(pageCount, 3);
    if (popplerMissing) return t.skip(popplerMissing);
    const texts = await pageTexts(file);
    assert.match(flat(texts[0]!), /Deckblatt – Müller GmbH/);
    assert.match(texts[2]!, /Seite 3 \/ 3/);
  });

  test('rotation turns the image clockwise and the fit uses the turned size', async (t) => {
    // landscape.jpg: yellow left half, green right half. Turned 90° clockwise the left half is on top.
    const pages: PdfPage[] = [
      { kind: 'photo', title: null, note: null, rotation: 0, image: { path: files.landscape } },
      { kind: 'photo', title: null, note: null, rotation: 90, image: { path: files.landscape } },
      { kind: 'photo', title: null, note: null, rotation: 270, image: { path: files.landscape } },
    ];
    const { file } = await render('rotation.pdf', input(pages, { header: { logo: null, lines: [] } }));
    if (popplerMissing) return t.skip(popplerMissing);
    const prefix = path.join(dir, 'rotation');
    await poppler('pdftoppm', ['-png', '-r', '36', file, prefix]);
    const bounds = async (page: number) => {
      const { data, info } = await sharp(`${prefix}-${page}.png`).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const colourAt = (x: number, y: number) => {
        const at = (y * info.width + x) * 3;
        const [r, g, b] = [data[at]!, data[at + 1]!, data[at + 2]!];
        if (r > 180 && g > 150 && b < 80) return 'yellow';
        if (g > 120 && r < 80 && b < 120) return 'green';
        return 'other';
      };
      let [minX, minY, maxX, maxY] = [info.width, info.height, 0, 0];
      for (let y = 0; y < info.height; y++)
        for (let x = 0; x < info.width; x++)
          if (colourAt(x, y) !== 'other')
            [minX, minY, maxX, maxY] = [Math.min(minX, x), Math.min(minY, y), Math.max(maxX, x), Math.max(maxY, y)];
      return {
        w: maxX - minX,
        h: maxY - minY,
        top: colourAt((minX + maxX) >> 1, minY + 3),
        bottom: colourAt((minX + maxX) >> 1, maxY - 3),
        left: colourAt(minX + 3, (minY + maxY) >> 1),
      };
    };
    const upright = await bounds(1);
    assert.ok(upright.w > upright.h, 'unturned: wider than tall');
    assert.equal(upright.left, 'yellow');
    const quarter = await bounds(2);
    assert.ok(quarter.h > quarter.w, 'turned: taller than wide');
    assert.ok(quarter.h > upright.w * 0.95, 'turned: fitted to the page height, so larger than the unturned width');
    assert.deepEqual([quarter.top, quarter.bottom], ['yellow', 'green']);
    const threeQuarters = await bounds(3);
    assert.deepEqual([threeQuarters.top, threeQuarters.bottom], ['green', 'yellow']);
  });

  test('an image file that has gone is drawn as missing', async (t) => {
    const { file, pageCount } = await render(
      'gone.pdf',
      input([{ kind: 'photo', title: 'Weg', note: null, rotation: 0, image: { path: path.join(dir, 'nothing.jpg') } }]),
    );
    assert.equal(pageCount, 1);
    if (popplerMissing) return t.skip(popplerMissing);
    assert.match((await pageTexts(file))[0]!, /Bild fehlt/);
  });

  test('an unreadable image rejects with IMAGE_INVALID, destroys the output and writes nothing more', async () => {
    let written = 0;
    let writesAfterFailure = 0;
    let failed = false;
    const out = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written += chunk.length;
        if (failed) writesAfterFailure++;
        callback();
      },
    });
    const pages = [
      ...everyKind().slice(0, 2),
      { kind: 'photo', title: 'Kaputt', note: null, rotation: 0, image: { path: files.broken } } satisfies PdfPage,
      ...everyKind(),
    ];
    await assert.rejects(
      renderReportPdf(input(pages), out),
      (error: unknown) => error instanceof AppError && error.code === 'IMAGE_INVALID',
    );
    failed = true;
    assert.ok(written > 0);
    assert.equal(out.destroyed, true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(writesAfterFailure, 0);
  });

  test('a slow reader holds the render back: buffered output stays around one page', async () => {
    // About 1 MB per page that does not compress.
    const noisy = path.join(dir, 'noisy.jpg');
    await sharp({
      create: { width: 1600, height: 1200, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
    })
      .jpeg({ quality: 90 })
      .toFile(noisy);
    const pageSize = (await readFile(noisy)).length;
    let maxBuffered = 0;
    const out: Writable = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        maxBuffered = Math.max(maxBuffered, out.writableLength);
        setTimeout(callback, chunk.length > 100_000 ? 10 : 0);
      },
    });
    const pages = Array.from(
      { length: 12 },
      (): PdfPage => ({ kind: 'photo', title: 'Rauschen', note: null, rotation: 0, image: { path: noisy } }),
    );
    const { pageCount } = await renderReportPdf(input(pages), out);
    assert.equal(pageCount, 12);
    assert.ok(maxBuffered < (1 << 20) + 2 * pageSize, `buffered up to ${maxBuffered} bytes with pages of ${pageSize}`);
  });
});

describe('isPlainPng', () => {
  test('only PNGs pdfkit embeds without its asynchronous decoder', async () => {
    const rgb = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const rgba = await sharp({ create: { width: 4, height: 4, channels: 4, background: { r: 1, g: 2, b: 3, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const interlaced = await sharp(rgb).png({ progressive: true }).toBuffer();
    const palette = await sharp({ create: { width: 4, height: 4, channels: 4, background: { r: 1, g: 2, b: 3, alpha: 0.5 } } })
      .png({ palette: true })
      .toBuffer();
    assert.equal(isPlainPng(rgb), true);
    assert.equal(isPlainPng(rgba), false);
    assert.equal(isPlainPng(interlaced), false);
    assert.equal(isPlainPng(palette), false);
    assert.equal(isPlainPng(Buffer.from('not a png at all, just some text here')), false);
  });
});
