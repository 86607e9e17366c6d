/**
 * The PDF prints when and where each photo was taken, from its EXIF and from what the phone sent
 * at upload (photo evidence): under photo pages (one to a sheet and four to a sheet) and under both
 * images of a before/after page, in German and English; the phone's time where the camera wrote
 * none or where they are far apart, the place as coordinates (both where far apart). Evidence for
 * bytes that were replaced outside the service is not printed. PDF/A-1b as every report.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import type { Part } from '../helpers/multipart.js';
import { poppler, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

const text = (name: string, data: string): Part => ({ name, type: 'text/plain', data });

describe('when and where each photo was taken, in the PDF [sqlite]', { skip: pdfToolsMissing }, () => {
  let ctx: TestContext;
  let writer: Caller;
  let headers: Record<string, string>;
  let me: number;
  let tmp: string;
  before(async () => {
    ctx = await createTestContext('sqlite');
    writer = await caller(['read', 'write']);
    me = writer.id;
    headers = writer.headers;
    tmp = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-evidence-pdf-'));
  });
  after(async () => {
    await ctx?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  const { caller, uploadPhoto } = testClient(() => ctx);

  /** The text in the order it is drawn (a caption of the left column whole before the right one's), whitespace made single spaces. */
  const drawnText = async (file: string) => (await poppler('pdftotext', ['-raw', '-enc', 'UTF-8', file, '-'])).replace(/\s+/g, ' ');
  const post = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, headers, payload });
  const image = (color: string) => sharp({ create: { width: 1200, height: 900, channels: 3, background: color } }).jpeg({ quality: 70 });

  /** An order with three uploaded photos and a report of them; the report's id and the order's folder. */
  async function report(lang: string | null, perSheet: 1 | 4) {
    const customer = await ctx.make.thirdParty({ name: 'Beweis GmbH' });
    await ctx.handle.db.updateTable('societe').set({ default_lang: lang }).where('rowid', '=', customer.id).execute();
    const order = await ctx.make.order({ author: me, customer: customer.id });
    // The camera wrote time and place; the phone's are three hours later and 12 km away (picked from the gallery at the office).
    const camera = await image('#5a7d9a')
      .withExif({
        IFD2: { DateTimeOriginal: '2026:11:24 09:12:33' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 8/1 1474/100', GPSLongitudeRef: 'E', GPSLongitude: '11/1 34/1 3176/100' },
      })
      .toBuffer();
    await uploadPhoto(writer, order.id, 'kamera.jpg', camera, {
      fields: [text('taken_at_device', '2026-11-24T12:20:00+01:00'), text('gps_lat', '48.2'), text('gps_lon', '11.45')],
    });
    // No EXIF: what the phone said.
    await uploadPhoto(writer, order.id, 'telefon.jpg', await image('#9a5a3c').toBuffer(), {
      fields: [text('taken_at_device', '2026-11-24T10:05:09.500+01:00'), text('gps_lat', '-33.8688'), text('gps_lon', '151.2093')],
    });
    // EXIF time, and the phone's a few seconds after it, without a position: the camera's time only.
    const near = await image('#3c9a5a')
      .withExif({ IFD2: { DateTimeOriginal: '2026:11:24 11:00:00' } })
      .toBuffer();
    await uploadPhoto(writer, order.id, 'nah.jpg', near, { fields: [text('taken_at_device', '2026-11-24T11:00:07+01:00')] });

    const created = await post('/api/reports.php?action=create', {
      fk_element: order.id,
      title: 'Aufnahmebeweise',
      photos_per_sheet: perSheet,
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as number;
    for (const page of [
      { source: 'kamera.jpg', title: 'Kessel' },
      {
        source: 'telefon.jpg',
        note: 'Eine längere Bemerkung zum Foto, die auf einem Blatt mit vier Fotos nicht mehr ganz in die Bildunterschrift passt und deshalb nach der Reihe folgt.',
      },
      { source: 'nah.jpg' },
      { layout: 'before_after', source: 'kamera.jpg', source_2: 'telefon.jpg', title: 'Vorher und nachher' },
    ]) {
      const res = await post(`/api/pages.php?action=add&bericht_id=${id}`, page);
      assert.equal(res.statusCode, 201, res.body);
    }
    return { id, folder: objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir };
  }

  async function finalPdf(id: number, name: string): Promise<string> {
    const done = await post(`/api/reports.php?id=${id}&action=finalize`, {});
    assert.equal(done.statusCode, 200, done.body);
    const file = path.join(process.env.KEEP_PDF ?? tmp, name);
    await writeFile(file, (await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${id}`, headers })).rawPayload);
    return file;
  }

  const BOTH_TIMES = 'Aufgenommen 24.11.2026 09:12 (Kamera), 24.11.2026 12:20 (UTC+01:00, Gerät)';
  const BOTH_PLACES = 'Ort 48.13743, 11.57549 (Kamera), 48.20000, 11.45000 (Gerät)';
  const PHONE_TIME = 'Aufgenommen 24.11.2026 10:05 (UTC+01:00, laut Gerät)';
  const PHONE_PLACE = 'Ort -33.86880, 151.20930';

  for (const perSheet of [1, 4] as const) {
    test(`German, ${perSheet} to a sheet: time and place under every photo and both images of the pair; PDF/A-1b`, async (t) => {
      const { id } = await report(null, perSheet);
      const file = await finalPdf(id, `evidence-de-${perSheet}.pdf`);
      const words = await drawnText(file);
      const count = (needle: string) => words.split(needle).length - 1;
      // Photo 1 and the pair's "before": the camera's and the phone's, far apart.
      assert.equal(count(BOTH_TIMES), 2, words);
      assert.equal(count(BOTH_PLACES), 2, words);
      // Photo 2 and the pair's "after": only the phone's.
      assert.equal(count(PHONE_TIME), 2, words);
      assert.equal(count(PHONE_PLACE), 2, words);
      // Photo 3: the camera's time alone, as before; no place.
      assert.equal(count('Aufgenommen 24.11.2026 11:00'), 1, words);
      assert.ok(!words.includes('11:00 (UTC+01:00'), 'no second time when both agree');
      // The note is not lost for it.
      assert.ok(words.includes('nach der Reihe folgt'), 'the whole note');
      await assertPdfA1b(t, file, `evidence, German, ${perSheet} to a sheet`);
    });
  }

  test('English for an English customer', async (t) => {
    const { id } = await report('en_GB', 4);
    const file = await finalPdf(id, 'evidence-en-4.pdf');
    const words = await drawnText(file);
    for (const needle of [
      'Taken 24 Nov 2026, 09:12 (camera), 24 Nov 2026, 12:20 (UTC+01:00, device)',
      'Place 48.13743, 11.57549 (camera), 48.20000, 11.45000 (device)',
      'Taken 24 Nov 2026, 10:05 (UTC+01:00, by the device)',
      'Place -33.86880, 151.20930',
      'Taken 24 Nov 2026, 11:00',
    ]) {
      assert.ok(words.includes(needle), `${needle}\n${words}`);
    }
    await assertPdfA1b(t, file, 'evidence, English');
  });

  test("a photo whose file was replaced outside the service shows only what its bytes say, not the phone's evidence", async () => {
    const { id, folder } = await report(null, 1);
    // Replaced once the service has made its print copies of the photos (not while it reads them).
    await ctx.app.printQueue.idle();
    await image('#222222').toFile(path.join(folder, 'telefon.jpg'));
    const file = await finalPdf(id, 'evidence-replaced.pdf');
    const words = await drawnText(file);
    assert.ok(!words.includes(PHONE_TIME) && !words.includes(PHONE_PLACE), words);
    assert.ok(words.includes(BOTH_TIMES), 'the other photos keep theirs');
  });
});
