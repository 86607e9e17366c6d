/**
 * The report of a real visit as the customer reads it, made by the service in the default layout
 * (4 to a sheet): the demo's ODT cover, 6 photos (untitled, with their EXIF capture time), a
 * template's 2 title pages, a before/after pair, one more title page, 3 material lines, the
 * order's work description and a signature. At most 6 sheets with the evidence; every material label, the work
 * description, every photo's caption and the signer's name in pdftotext's text in reading order;
 * PDF/A-1b by Apache PDFBox Preflight; the same in English for an English customer.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createLibreOffice } from '../../src/adapters/libreoffice.js';
import { COVER_TEMPLATE_FILENAME, makeCoverTemplateOdt } from '../../src/demo/cover-template.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { inOrder, pdfInfo, pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';
import { sign } from '../helpers/signature.js';

const WORK = 'Jährliche Wartung der Gas-Brennwerttherme im Keller; Abgasmessung.';
const MATERIALS = ['Dichtungssatz Brenner', 'Zündelektrode', 'Reinigungsmittel'];
const STEPS = ['Sichtprüfung der Anlage', 'Funktionsprüfung und Übergabe'];
const CLOSING = 'Hinweise an den Kunden';
const SIGNER = 'Erika Müller';

/** The index of the sheet where the evidence sheet begins (pdftotext's text, sheets split by form feeds); -1 without. */
function evidenceSheetAt(text: string, heading = 'Nachweisblatt'): number {
  return text.split('\f').findIndex((sheet) => sheet.includes(heading));
}

describe('the report of a visit as the customer reads it [sqlite]', { skip: pdfToolsMissing }, () => {
  let ctx: TestContext;
  let headers: Record<string, string>;
  let me: number;
  let tmp: string;
  before(async () => {
    ctx = await createTestContext('sqlite');
    const user = await ctx.make.user({ rights: ['read', 'write'] });
    me = user.id;
    headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
    tmp = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-visit-pdf-'));
    const templates = path.join(ctx.config.dataRoot, 'doctemplates', 'bericht');
    await mkdir(templates, { recursive: true });
    await writeFile(path.join(templates, COVER_TEMPLATE_FILENAME), await makeCoverTemplateOdt());
  });
  after(async () => {
    await ctx?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  const post = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, headers, payload });

  /** The visit for a customer of `lang`; the final PDF's path. */
  async function visit(lang: string | null): Promise<string> {
    const customer = await ctx.make.thirdParty({ name: 'Müller & Söhne GmbH', town: 'Köln' });
    await ctx.handle.db.updateTable('societe').set({ default_lang: lang }).where('rowid', '=', customer.id).execute();
    const order = await ctx.make.order({ author: me, customer: customer.id, refClient: 'Best-77' });
    await ctx.handle.db.updateTable('commande').set({ note_public: WORK }).where('rowid', '=', order.id).execute();
    const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
    await mkdir(folder.dir, { recursive: true });
    for (let i = 1; i <= 6; i++) {
      await sharp({ create: { width: 1600, height: 1200, channels: 3, background: { r: 40 * i, g: 90, b: 160 } } })
        .jpeg({ quality: 80 })
        .withExif({ IFD0: { DateTime: '2026:11:24 09:00:00' }, IFD2: { DateTimeOriginal: `2026:11:24 09:1${i}:00` } })
        .toFile(path.join(folder.dir, `foto-${i}.jpg`));
    }
    const created = await post('/api/reports.php?action=create', {
      fk_element: order.id,
      title: 'Wartung Gas-Brennwertheizung',
      odt_template: COVER_TEMPLATE_FILENAME,
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as number;
    assert.equal(created.json().photos_per_sheet, 4, 'the default layout');
    const page = async (fields: object) => assert.equal((await post(`/api/pages.php?action=add&bericht_id=${id}`, fields)).statusCode, 201);
    for (const title of STEPS) await page({ layout: 'title_only', title, note: 'In Ordnung' });
    for (let i = 1; i <= 6; i++) await page({ source: `foto-${i}.jpg`, ...(i === 2 ? { note: 'Belag am Wärmetauscher' } : {}) });
    await page({ layout: 'before_after', source: 'foto-1.jpg', source_2: 'foto-2.jpg', title: 'Wärmetauscher' });
    await page({ layout: 'title_only', title: CLOSING, note: 'Ionisationselektrode im nächsten Jahr tauschen' });
    for (const [i, label] of MATERIALS.entries()) {
      const line = await post('/api/materials.php', { element_type: 'commande', fk_element: order.id, label, qty: i + 1, unit: 'Stk' });
      assert.equal(line.statusCode, 201, line.body);
    }
    assert.equal((await sign(ctx.app, headers, id, SIGNER)).statusCode, 201);
    const done = await post(`/api/reports.php?id=${id}&action=finalize`, {});
    assert.equal(done.statusCode, 200, done.body);
    const file = path.join(process.env.KEEP_PDF ?? tmp, `visit-${lang ?? 'de'}.pdf`);
    await writeFile(file, (await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${id}`, headers })).rawPayload);
    return file;
  }

  test('German: at most 6 sheets with the evidence at the end, everything in reading order, PDF/A-1b', async (t) => {
    // (The renders in docs/screenshots/report-pdf-*.png are made from this file: KEEP_PDF=<folder>.)
    if (!(await createLibreOffice().available())) return t.skip('LibreOffice (soffice) is not installed');
    const file = await visit(null);
    const sheets = (await pdfInfo(file)).pages;
    // The report and its evidence in at most 6 sheets; the evidence last, beginning under the signature or on the last sheet.
    assert.ok(sheets <= 6, `${sheets} sheets`);
    assert.ok(evidenceSheetAt(await pdfText(file)) >= sheets - 2, 'the evidence at the end');
    assert.equal((await pdfText(file)).split('Nachweisblatt').length - 1, 1, 'one evidence part');
    const text = (await pdfText(file)).replace(/\s+/g, ' ');
    // Two photos side by side are read line by line: both numbers, then both times taken.
    const order = inOrder(text, [
      'Zusammenfassung',
      SIGNER,
      'Arbeitsbeschreibung',
      WORK,
      'Material',
      ...MATERIALS,
      ...STEPS,
      ...[1, 2, 3, 4, 5, 6].map((n) => `Foto ${n}`),
      'Vorher',
      'Nachher',
      'Wärmetauscher',
      CLOSING,
      'Unterschrift',
      SIGNER,
    ]);
    assert.ok(!order.includes(-1), `missing or out of order: ${JSON.stringify(order)}\n${text}`);
    for (let n = 1; n <= 6; n++) assert.ok(text.includes(`Aufgenommen 24.11.2026 09:1${n}`), `photo ${n}'s time taken`);
    assert.ok(text.includes('Belag am Wärmetauscher'), 'a note under its photo');
    await assertPdfA1b(t, file, 'the visit, German, default layout');
  });

  test('English for an English customer: the same, in English', async (t) => {
    if (!(await createLibreOffice().available())) return t.skip('LibreOffice (soffice) is not installed');
    const file = await visit('en_GB');
    const sheets = (await pdfInfo(file)).pages;
    assert.ok(sheets <= 6, `${sheets} sheets`);
    assert.ok(evidenceSheetAt(await pdfText(file), 'Evidence sheet') >= sheets - 2, 'the evidence at the end');
    const text = (await pdfText(file)).replace(/\s+/g, ' ');
    const order = inOrder(text, [
      'Summary',
      SIGNER,
      'Work description',
      WORK,
      'Materials',
      ...MATERIALS,
      ...STEPS,
      ...[1, 2, 3, 4, 5, 6].map((n) => `Photo ${n}`),
      'Before',
      'After',
      'Wärmetauscher',
      CLOSING,
      'Signature',
      SIGNER,
    ]);
    assert.ok(!order.includes(-1), `missing or out of order: ${JSON.stringify(order)}\n${text}`);
    for (let n = 1; n <= 6; n++) assert.ok(text.includes(`Taken 24 Nov 2026, 09:1${n}`), `photo ${n}'s time taken`);
    await assertPdfA1b(t, file, 'the visit, English, default layout');
  });
});
