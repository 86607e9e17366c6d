/**
 * Every PDF the service makes is PDF/A-1b, as Apache PDFBox Preflight checks it
 * (test/helpers/pdfa.ts): the final report and the preview; photos, before/after and title pages;
 * the ODT cover sheet converted by LibreOffice (the demo template, and one with a logo on a
 * transparent background, a CMYK picture, a half-transparent shape and a link); the built-in
 * cover; signature pages and the notice after them; a missing photo's placeholder; images pdfkit
 * gets directly (CMYK JPEG, alpha, palette, 16-bit), text with emoji and tabs, and metadata with XML
 * specials and control characters. Also the ODT's pictures put onto white before LibreOffice's
 * PDF/A-1 export, which can otherwise print a transparent background black.
 *
 * The PDF does not depend on the database, so this runs on SQLite only; the API tests that make
 * PDFs check them on every database. Without Preflight the tests skip and say why; without
 * LibreOffice the tests of the ODT cover do.
 */
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { createLibreOffice } from '../../src/adapters/libreoffice.js';
import { renderReportPdf, type PdfPage } from '../../src/adapters/pdf.js';
import { flattenOdtPictures, isPdfaJpeg, jpegComponents, pdfaInfo } from '../../src/adapters/pdfa.js';
import { COVER_TEMPLATE_FILENAME, makeCoverTemplateOdt } from '../../src/demo/cover-template.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { entityRoot } from '../../src/dolibarr/ecm.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { hasTool, pdfInfo, pdfText, poppler } from '../helpers/pdf-tools.js';
import { assertPdfA1b, pdfaSkipReason } from '../helpers/pdfa.js';
import { sign } from '../helpers/signature.js';

const TITLE = 'Müller & Söhne <GmbH> "Heizung" \'Öl\' – Maße ÄÖÜß 🔧';
const RICH_TEMPLATE = 'template_reich.odt';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-pdfa-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** A photo of `width` × `height` in two colours, as JPEG (sRGB, grey or CMYK) or PNG (with alpha, palette, 16-bit grey). */
async function picture(
  kind: 'jpeg' | 'jpeg-grey' | 'jpeg-cmyk' | 'jpeg-p3' | 'png-alpha' | 'png-palette' | 'png-grey16' | 'webp-alpha',
  width = 1200,
  height = 900,
): Promise<Buffer> {
  const half = await sharp({ create: { width, height: height / 2, channels: 3, background: '#d02020' } })
    .png()
    .toBuffer();
  const base = sharp({
    create: {
      width,
      height,
      channels: kind.endsWith('alpha') ? 4 : 3,
      background: kind.endsWith('alpha') ? { r: 0, g: 0, b: 0, alpha: 0.3 } : '#2050c0',
    },
  }).composite([{ input: half, left: 0, top: 0 }]);
  const flat = await base.png().toBuffer();
  switch (kind) {
    case 'jpeg':
      return sharp(flat).jpeg().toBuffer();
    case 'jpeg-grey':
      return sharp(flat).toColourspace('b-w').jpeg().toBuffer();
    case 'jpeg-cmyk':
      return sharp(flat).toColourspace('cmyk').jpeg().toBuffer();
    case 'jpeg-p3':
      return sharp(flat).withIccProfile('p3').jpeg().toBuffer();
    case 'png-alpha':
      return flat;
    case 'png-palette':
      return sharp(flat).png({ palette: true, colours: 16 }).toBuffer();
    case 'png-grey16':
      return sharp(flat).toColourspace('grey16').png().toBuffer();
    case 'webp-alpha':
      return sharp(flat).webp().toBuffer();
  }
}

describe('PDF/A-1b: images and metadata handed to renderReportPdf', () => {
  test('the JPEG frame header tells CMYK from grey and RGB', async () => {
    assert.equal(jpegComponents(await picture('jpeg', 64, 48)), 3);
    assert.equal(jpegComponents(await picture('jpeg-grey', 64, 48)), 1);
    assert.equal(jpegComponents(await picture('jpeg-cmyk', 64, 48)), 4);
    assert.equal(isPdfaJpeg(await picture('jpeg-cmyk', 64, 48)), false);
    assert.equal(isPdfaJpeg(await picture('jpeg-p3', 64, 48)), true);
    assert.equal(jpegComponents(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.alloc(64, 0x41)])), undefined);
    assert.equal(jpegComponents(await picture('png-alpha', 64, 48)), undefined);
  });

  test('metadata: one line of text XML can carry, the same in the Info dictionary and the XMP packet', () => {
    const date = new Date();
    assert.deepEqual(pdfaInfo({ Title: 'A\tB\r\nC\u0001D\uFFFE\uD800E 🔧 & <x>', CreationDate: date }), {
      Title: 'A B C DE 🔧 & <x>',
      CreationDate: date,
    });
  });

  test('CMYK, grey, ICC, alpha, palette and 16-bit images, the built-in cover, a notice, a missing image; A4 and A5 landscape', {
    skip: pdfaSkipReason,
  }, async (t) => {
    const files: Record<string, string> = {};
    for (const kind of ['jpeg', 'jpeg-grey', 'jpeg-cmyk', 'jpeg-p3', 'png-alpha', 'png-palette', 'png-grey16', 'webp-alpha'] as const) {
      files[kind] = path.join(dir, `${kind}.${kind.split('-')[0]}`);
      await writeFile(files[kind], await picture(kind));
    }
    const logo = path.join(dir, 'logo-cmyk.jpg');
    await writeFile(logo, await picture('jpeg-cmyk', 600, 200));
    const image = (kind: string) => ({ path: files[kind]! });
    const pages: PdfPage[] = [
      { kind: 'photo', title: TITLE, note: 'Notiz\tmit & und <Zeichen> 👍🏽', rotation: 0, image: image('jpeg') },
      { kind: 'photo', title: 'CMYK', note: null, rotation: 90, image: image('jpeg-cmyk') },
      { kind: 'before_after', title: 'Grau und P3', note: 'n', rotation: 180, before: image('jpeg-grey'), after: image('jpeg-p3') },
      {
        kind: 'before_after',
        title: 'Alpha und Palette',
        note: null,
        rotation: 0,
        before: image('png-alpha'),
        after: image('png-palette'),
      },
      { kind: 'image', title: '16 Bit grau', note: null, image: image('png-grey16') },
      { kind: 'photo', title: 'WebP mit Alpha', note: null, rotation: 270, image: image('webp-alpha') },
      { kind: 'title_only', title: 'Außenanlage', note: 'Kontrolle der Zuleitungen' },
      { kind: 'photo', title: 'Kein Bild', note: null, rotation: 0, image: null, notice: 'Nicht von der Unterschrift erfasst' },
    ];
    const made: string[] = [];
    for (const [format, orientation] of [
      ['A4', 'portrait'],
      ['A5', 'landscape'],
    ] as const) {
      const file = path.join(dir, `direct-${format}.pdf`);
      await renderReportPdf(
        {
          format,
          orientation,
          header: { logo: { path: logo }, lines: ['Müller & Söhne', 'BR2611-0001 · <Wartung>'] },
          cover: { kind: 'builtin', title: TITLE, lines: ['Kunde: Müller & Söhne', 'Datum: 01.02.2026'] },
          pages,
          info: { title: `BR2611-0001 ${TITLE}\r\n\u0001zweite Zeile`, author: 'A & B <C>', subject: 'CO2401-0001 "x"' },
        },
        createWriteStream(file),
      );
      made.push(file);
    }
    await assertPdfA1b(t, made, 'renderReportPdf: every image kind');
    if (!hasTool('pdfimages')) return t.diagnostic('poppler-utils not installed: the images and the text are not read back');
    // DejaVu Sans has no emoji (nor a glyph for a tab): one U+FFFD for each run of missing characters, a space for the tab.
    const text = await pdfText(made[0]!);
    assert.ok(text.includes('Maße ÄÖÜß \uFFFD') && text.includes('Notiz mit & und <Zeichen> \uFFFD'), text);
    const images = await poppler('pdfimages', ['-list', made[0]!]);
    assert.doesNotMatch(images, /\bcmyk\b/, 'no CMYK image is embedded');
    assert.equal((await pdfInfo(made[0]!)).title, `BR2611-0001 ${TITLE} zweite Zeile`, 'line breaks and control characters as one space');
  });
});

describe('PDF/A-1b: the ODT cover sheet', () => {
  test('pictures with alpha are put onto white in a copy, the rest of the document as it was; without such pictures nothing is written', async () => {
    const source = path.join(dir, 'reich.odt');
    await writeFile(source, await richCoverTemplate());
    const target = path.join(dir, 'flach', 'reich.odt');
    assert.equal(await flattenOdtPictures(source, target), true);
    const before = unzipSync(await readFile(source));
    const bytes = await readFile(target);
    const after = unzipSync(bytes);
    assert.deepEqual(Object.keys(after), Object.keys(before));
    for (const name of Object.keys(before)) if (name !== 'Pictures/logo.png') assert.deepEqual(after[name], before[name], name);
    // mimetype first, stored, without extra fields: its text at offset 38, as the OpenDocument spec asks.
    assert.equal(bytes.toString('latin1', 30, 38 + 39), 'mimetypeapplication/vnd.oasis.opendocument.text');
    const logo = sharp(after['Pictures/logo.png']!);
    const meta = await logo.metadata();
    assert.equal(meta.format, 'png');
    assert.equal(meta.hasAlpha, false);
    const corner = await logo.extract({ left: 360, top: 10, width: 1, height: 1 }).raw().toBuffer();
    assert.deepEqual([...corner], [255, 255, 255], 'the transparent background is white');

    // The demo template with an opaque logo: nothing to put onto white.
    const plain = path.join(dir, 'schlicht.odt');
    const opaqueLogo = await sharp({ create: { width: 400, height: 160, channels: 3, background: '#1f4e79' } })
      .png()
      .toBuffer();
    await writeFile(plain, await makeCoverTemplateOdt(opaqueLogo));
    const untouched = path.join(dir, 'flach', 'schlicht.odt');
    assert.equal(await flattenOdtPictures(plain, untouched), false);
    await assert.rejects(stat(untouched), { code: 'ENOENT' });
  });

  test("LibreOffice's PDF of a template with pictures and transparency is PDF/A-1b by itself, the logo on white", {
    skip: pdfaSkipReason,
  }, async (t) => {
    if (!(await createLibreOffice().available()))
      return t.skip('LibreOffice (soffice) is not installed: apt-get install libreoffice-writer-nogui');
    const source = path.join(dir, 'deckblatt-reich.odt');
    await writeFile(source, await richCoverTemplate());
    const pdf = await createLibreOffice().convertToPdf(source, path.join(dir, 'lo'));
    await assertPdfA1b(t, pdf, 'LibreOffice cover by itself');
    if (!hasTool('pdftoppm')) return t.diagnostic('poppler-utils not installed: the cover is not looked at');
    // Unfilled, this template puts the logo where LibreOffice 7.4's PDF/A-1 export prints an image's
    // transparent background black, unless the picture was put onto white first.
    const prefix = path.join(dir, 'lo', 'deckblatt');
    await poppler('pdftoppm', ['-png', '-r', '40', '-f', '1', '-l', '1', '-singlefile', pdf, prefix]);
    await assertLogoOnWhite(`${prefix}.png`);
  });
});

/** The rich cover's page, rendered: no black box where the logo's transparent background is, its red circle there. */
async function assertLogoOnWhite(png: string): Promise<void> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let black = 0;
  let red = 0;
  for (let at = 0; at < data.length; at += 3) {
    const [r, g, b] = [data[at]!, data[at + 1]!, data[at + 2]!];
    if (r < 24 && g < 24 && b < 24) black++;
    if (r > 180 && g < 80 && b < 80) red++;
  }
  // Text is black too (about 0.3 % of the demo letter's page); a logo's background printed black adds
  // more than 1 % at once.
  assert.ok(black / (info.width * info.height) < 0.006, `${black} black pixels of ${info.width * info.height} on the cover`);
  assert.ok(red > 20, `the logo's red circle: ${red} red pixels`);
}

describe('PDF/A-1b: reports made by the service [sqlite]', { skip: pdfaSkipReason }, () => {
  let ctx: TestContext;
  let headers: Record<string, string>;
  let me: number;
  before(async () => {
    ctx = await createTestContext('sqlite');
    const user = await ctx.make.user({ rights: ['read', 'write'] });
    me = user.id;
    headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
    // The company: its name with XML specials, its logo a PNG on a transparent background.
    await ctx.make.setConst('MAIN_INFO_SOCIETE_NOM', 'Haustechnik Weiß & Söhne <KG>', ctx.config.entity);
    await ctx.make.setConst('MAIN_INFO_SOCIETE_LOGO', 'logo.png', ctx.config.entity);
    const logos = path.join(entityRoot(ctx.config.dataRoot, ctx.config.entity), 'mycompany', 'logos');
    await mkdir(logos, { recursive: true });
    await writeFile(path.join(logos, 'logo.png'), await picture('png-alpha', 600, 200));
    const templates = path.join(ctx.config.dataRoot, 'doctemplates', 'bericht');
    await mkdir(templates, { recursive: true });
    await writeFile(path.join(templates, COVER_TEMPLATE_FILENAME), await makeCoverTemplateOdt());
    await writeFile(path.join(templates, RICH_TEMPLATE), await richCoverTemplate());
  });
  after(async () => ctx?.close());

  const req = (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
    ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  /** A draft on a fresh order whose folder holds photos of several kinds; `pages` as the API takes them. */
  async function draft(
    title: string,
    pages: Array<Record<string, unknown>>,
    options: Record<string, unknown> = {},
  ): Promise<{ id: number; ref: string }> {
    const customer = await ctx.make.thirdParty({ name: 'Müller & Söhne GmbH', town: 'Köln' });
    const order = await ctx.make.order({ author: me, customer: customer.id, refClient: 'Best-Ä-77' });
    const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
    await mkdir(folder.dir, { recursive: true });
    for (const [name, kind] of [
      ['foto.jpg', 'jpeg'],
      ['cmyk.jpg', 'jpeg-cmyk'],
      ['grau.jpg', 'jpeg-grey'],
      ['alpha.png', 'png-alpha'],
      ['alpha.webp', 'webp-alpha'],
    ] as const) {
      await writeFile(path.join(folder.dir, name), await picture(kind));
    }
    const created = await req('POST', '/api/reports.php?action=create', { fk_element: order.id, title, ...options });
    assert.equal(created.statusCode, 201, created.body);
    const report = created.json() as { id: number; ref: string };
    for (const page of pages) {
      const res = await req('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, page);
      assert.equal(res.statusCode, 201, res.body);
    }
    return report;
  }

  /** Every kind of page, from photos of every kind. */
  const everyKind = [
    { source: 'foto.jpg', title: TITLE, note: 'Ruß an der Düse entfernt & <geprüft>' },
    { source: 'cmyk.jpg', title: 'CMYK-Foto, gedreht', rotation: 90 },
    { layout: 'before_after', source: 'grau.jpg', source_2: 'alpha.png', title: 'Vorher grau, nachher mit Alpha' },
    { source: 'alpha.webp', title: 'WebP', rotation: 180 },
    { layout: 'title_only', title: 'Übergabe an den Kunden', note: 'Alles in Ordnung' },
  ];

  /** The preview of `id` and then its final PDF, both written into `dir`; returns their paths. */
  async function previewAndFinal(id: number, name: string): Promise<[string, string]> {
    const preview = await req('GET', `/api/pdf.php?id=${id}&preview=1`);
    assert.equal(preview.statusCode, 200, preview.body.slice(0, 300));
    const previewFile = path.join(dir, `${name}-preview.pdf`);
    await writeFile(previewFile, preview.rawPayload);
    const done = await req('POST', `/api/reports.php?id=${id}&action=finalize`);
    assert.equal(done.statusCode, 200, done.body);
    return [previewFile, path.join(ctx.config.dataRoot, done.json().final_pdf_path as string)];
  }

  test('photos of every kind, before/after and title pages, no cover, in each layout: preview and final PDF', async (t) => {
    for (const perSheet of [1, 2, 4]) {
      const report = await draft(TITLE, everyKind, { photos_per_sheet: perSheet });
      const files = await previewAndFinal(report.id, `photos-${perSheet}`);
      await assertPdfA1b(t, files, `photos, before/after, title pages, ${perSheet} to a sheet`);
      // One to a sheet: the summary, a sheet per page, the evidence sheet (in the preview too).
      if (perSheet === 1 && hasTool('pdfinfo')) for (const file of files) assert.equal((await pdfInfo(file)).pages, everyKind.length + 2);
    }
  });

  test('the ODT cover sheet (demo template) converted by LibreOffice: preview and final PDF', async (t) => {
    if (!(await createLibreOffice().available()))
      return t.skip('LibreOffice (soffice) is not installed: apt-get install libreoffice-writer-nogui');
    const report = await draft('Prüfbericht Ölheizung & <Brenner>', everyKind.slice(0, 3), { odt_template: COVER_TEMPLATE_FILENAME });
    const files = await previewAndFinal(report.id, 'odt-cover');
    await assertPdfA1b(t, files, 'ODT cover (demo template)');
    if (!hasTool('pdftotext')) return;
    const cover = (await pdfText(files[1])).split('\f')[0]!;
    assert.ok(cover.includes('Prüfbericht Ölheizung & <Brenner>') && cover.includes('Müller & Söhne GmbH'), cover);
  });

  test('an ODT cover with a logo on a transparent background, a CMYK picture, a half-transparent shape and a link', async (t) => {
    if (!(await createLibreOffice().available()))
      return t.skip('LibreOffice (soffice) is not installed: apt-get install libreoffice-writer-nogui');
    const report = await draft('Reiches Deckblatt', [{ layout: 'title_only', title: 'Eins' }], { odt_template: RICH_TEMPLATE });
    const files = await previewAndFinal(report.id, 'rich-cover');
    await assertPdfA1b(t, files, 'ODT cover with pictures and transparency');
    if (!hasTool('pdftoppm')) return t.diagnostic('poppler-utils not installed: the cover is not looked at');
    // LibreOffice's PDF/A-1 export drops an image's alpha channel: unless the picture was put onto
    // white first, the logo's transparent (black) background prints as a black box.
    const prefix = path.join(dir, 'rich-cover');
    await poppler('pdftoppm', ['-png', '-r', '40', '-f', '1', '-l', '1', '-singlefile', files[1], prefix]);
    await assertLogoOnWhite(`${prefix}.png`);
  });

  test('the built-in cover (LibreOffice missing): final PDF', async (t) => {
    const noOffice = await createTestContext('sqlite', { libreOfficeBinary: '/nonexistent/soffice' });
    try {
      const user = await noOffice.make.user({ rights: ['read', 'write'] });
      const auth = { authorization: `Bearer ${await noOffice.make.token(user)}` };
      const templates = path.join(noOffice.config.dataRoot, 'doctemplates', 'bericht');
      await mkdir(templates, { recursive: true });
      await writeFile(path.join(templates, COVER_TEMPLATE_FILENAME), await makeCoverTemplateOdt());
      const order = await noOffice.make.order({ author: user.id });
      const created = await noOffice.app.inject({
        method: 'POST',
        url: '/api/reports.php?action=create',
        headers: auth,
        payload: { fk_element: order.id, title: TITLE, odt_template: COVER_TEMPLATE_FILENAME },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id as number;
      await noOffice.app.inject({
        method: 'POST',
        url: `/api/pages.php?action=add&bericht_id=${id}`,
        headers: auth,
        payload: { title: 'Seite', note: 'mit <Notiz> & mehr' },
      });
      const preview = await noOffice.app.inject({ method: 'GET', url: `/api/pdf.php?id=${id}&preview=1`, headers: auth });
      assert.equal(preview.statusCode, 200);
      const previewFile = path.join(dir, 'builtin-preview.pdf');
      await writeFile(previewFile, preview.rawPayload);
      const done = await noOffice.app.inject({ method: 'POST', url: `/api/reports.php?id=${id}&action=finalize`, headers: auth });
      assert.equal(done.statusCode, 200, done.body);
      const file = path.join(noOffice.config.dataRoot, done.json().final_pdf_path as string);
      await assertPdfA1b(t, [previewFile, file], 'built-in cover');
      if (hasTool('pdftotext')) assert.ok((await pdfText(file)).split('\f')[0]!.includes(`Bericht ${created.json().ref}`));
    } finally {
      await noOffice.close();
    }
  });

  test('signature pages and the notice on pages after them: preview and final PDF', async (t) => {
    const report = await draft('Mit Unterschrift', everyKind.slice(0, 2));
    const signed = await sign(ctx.app, headers, report.id, 'Erika Müller & Söhne');
    assert.equal(signed.statusCode, 201, signed.body);
    const added = await req('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, { title: 'Nachtrag' });
    assert.equal(added.statusCode, 201, added.body);
    const files = await previewAndFinal(report.id, 'signature');
    await assertPdfA1b(t, files, 'signature page');
    if (hasTool('pdftotext')) assert.match(await pdfText(files[1]), /Unterzeichner +Erika Müller & Söhne/);
  });

  test('a preview with a missing photo drawn as a placeholder', async (t) => {
    const report = await draft('Platzhalter', [{ source: 'foto.jpg', title: 'Foto weg' }]);
    const order = (await req('GET', `/api/reports.php?id=${report.id}`)).json() as { pages: Array<{ source_path: string }> };
    await rm(path.join(entityRoot(ctx.config.dataRoot, ctx.config.entity), order.pages[0]!.source_path));
    const preview = await req('GET', `/api/pdf.php?id=${report.id}&preview=1`);
    assert.equal(preview.statusCode, 200);
    const file = path.join(dir, 'placeholder-preview.pdf');
    await writeFile(file, preview.rawPayload);
    await assertPdfA1b(t, file, 'preview with a placeholder');
  });
});

/**
 * The demo cover template with what real templates carry and PDF/A-1 does not allow as it is: a
 * logo PNG on a transparent black background (a red circle on it), a CMYK JPEG, a half-transparent
 * red rectangle over the sender lines, and a link.
 */
async function richCoverTemplate(): Promise<Uint8Array> {
  // The demo template with its logo replaced by a red circle on a transparent background.
  const logo = await sharp({ create: { width: 400, height: 160, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="160"><circle cx="80" cy="80" r="60" fill="#e03020"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const files = unzipSync(await makeCoverTemplateOdt(logo));
  const cmyk = await picture('jpeg-cmyk', 320, 240);
  let content = strFromU8(files['content.xml']!);
  // Namespaces the additions use, where the template does not declare them already.
  for (const [prefix, uri] of [
    ['draw', 'urn:oasis:names:tc:opendocument:xmlns:drawing:1.0'],
    ['xlink', 'http://www.w3.org/1999/xlink'],
  ] as const) {
    if (!content.includes(`xmlns:${prefix}=`))
      content = content.replace('<office:document-content ', `<office:document-content xmlns:${prefix}="${uri}" `);
  }
  const frame = (name: string, href: string, width: string, height: string) =>
    `<draw:frame draw:name="${name}" text:anchor-type="as-char" svg:width="${width}" svg:height="${height}"><draw:image xlink:href="${href}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`;
  content = content
    .replace(
      '</office:automatic-styles>',
      '<style:style style:name="grRich" style:family="graphic"><style:graphic-properties draw:fill="solid" draw:fill-color="#ff0000" draw:opacity="40%" draw:stroke="none" style:run-through="foreground" style:wrap="run-through"/></style:style></office:automatic-styles>',
    )
    // At the end of the letter, away from the logo: a CMYK picture, a link, and a half-transparent
    // shape (LibreOffice renders the area around a transparent shape as one image, which would hide
    // how it draws the logo).
    .replace(
      '</office:text>',
      `<text:p>${frame('Bild', 'Pictures/cmyk.jpg', '3.2cm', '2.4cm')}</text:p>` +
        '<text:p><text:a xlink:type="simple" xlink:href="https://example.org/">example.org</text:a></text:p>' +
        '<text:p><draw:rect draw:style-name="grRich" text:anchor-type="paragraph" svg:x="2cm" svg:y="0.5cm" svg:width="6cm" svg:height="2cm"/>{mycompany_name}</text:p></office:text>',
    );
  const manifest = strFromU8(files['META-INF/manifest.xml']!).replace(
    '</manifest:manifest>',
    ' <manifest:file-entry manifest:full-path="Pictures/cmyk.jpg" manifest:media-type="image/jpeg"/>\n</manifest:manifest>',
  );
  return zipSync({
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'META-INF/manifest.xml': strToU8(manifest),
    'content.xml': strToU8(content),
    'styles.xml': files['styles.xml']!,
    'meta.xml': files['meta.xml']!,
    'Pictures/logo.png': [new Uint8Array(logo), { level: 0 }],
    'Pictures/cmyk.jpg': [new Uint8Array(cmyk), { level: 0 }],
  });
}
