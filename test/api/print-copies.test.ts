/**
 * Print-size copies made ahead, in the background: after a photo's upload (for the default layout,
 * 4 to a sheet on A4 portrait) and after a page is added (for its paper, layout and rotation), without any PDF being
 * asked for; finalizing then reuses them. Real uploads through the API, real sharp, the documents
 * folder checked on disk.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { imageBoxFor, largestImageBox } from '../../src/adapters/pdf.js';
import { printSize } from '../../src/adapters/print-image.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

/** How long a copy may take to appear: one photo's work, with room for a loaded CI machine. */
const SHORTLY_MS = 20_000;

for (const dialect of testDialects()) {
  describe(`print-size copies made ahead [${dialect}]`, () => {
    let ctx: TestContext;
    let me: Caller;
    let photo: Buffer; // 3000×2000 stored, EXIF orientation 6: 2000×3000 upright

    before(async () => {
      ctx = await createTestContext(dialect);
      me = await caller(['read', 'write']);
      photo = await sharp({
        create: { width: 3000, height: 2000, channels: 3, background: '#5a7d9a', noise: { type: 'gaussian', mean: 120, sigma: 8 } },
      })
        .jpeg({ quality: 85 })
        .withMetadata({ orientation: 6 })
        .toBuffer();
    });
    after(async () => ctx?.close());

    const { caller, json, uploadPhoto } = testClient(() => ctx);

    const cacheDir = () => path.join(ctx.config.dataRoot, 'bericht', 'temp', 'print');
    const copies = () =>
      existsSync(cacheDir())
        ? readdirSync(cacheDir())
            .filter((n) => n.endsWith('.jpg'))
            .sort()
        : [];
    const sizeOf = (name: string) => /-(\d+x\d+)\.jpg$/.exec(name)?.[1];

    /** Waits until `wanted` holds for the copies on disk; fails with what is there after SHORTLY_MS. */
    async function shortly(wanted: (names: string[]) => boolean, what: string): Promise<string[]> {
      const deadline = Date.now() + SHORTLY_MS;
      for (;;) {
        const names = copies();
        if (wanted(names)) return names;
        if (Date.now() > deadline) assert.fail(`${what}: after ${SHORTLY_MS} ms the print folder holds ${names.join(', ') || 'nothing'}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    test('an uploaded photo gets its copy for the default layout (4 to a sheet) without any PDF; a page of one photo to a sheet and a before/after page on landscape paper get their own; finalizing reuses them', async (t) => {
      const order = await ctx.make.order({ author: me.id });
      const before = copies();
      await uploadPhoto(me, order.id, 'Zaehler.jpg', photo);
      await uploadPhoto(me, order.id, 'Ventil.jpg', photo);
      const onPhotoPage = printSize(2000, 3000, largestImageBox('A4', 'portrait', 'photo'));
      const inDefaultLayout = printSize(2000, 3000, imageBoxFor('A4', 'portrait', 4, 'photo'));
      const afterUpload = await shortly((names) => names.length === before.length + 2, 'copies after two uploads');
      const made = afterUpload.filter((n) => !before.includes(n));
      // Each photo: the copy for the default layout (4 to a sheet), made with its thumbnails.
      const large = `${onPhotoPage.width}x${onPhotoPage.height}`;
      const small = `${inDefaultLayout.width}x${inDefaultLayout.height}`;
      assert.deepEqual(made.map(sizeOf), [small, small]);
      const pixels = await sharp(path.join(cacheDir(), made[0]!)).metadata();
      assert.deepEqual([pixels.format, pixels.width, pixels.height], ['jpeg', inDefaultLayout.width, inDefaultLayout.height]);

      // A report of one photo to a sheet: its page asks for the copy for the largest box.
      const single = await json('POST', '/api/reports.php?action=create', me, {
        fk_element: order.id,
        title: 'Einzeln',
        photos_per_sheet: 1,
      });
      await json('POST', `/api/pages.php?action=add&bericht_id=${single.id}`, me, { source: 'Zaehler.jpg' });
      const afterSingle = await shortly((names) => names.length === afterUpload.length + 1, 'the copy for a page of one photo to a sheet');
      assert.deepEqual(afterSingle.filter((n) => !afterUpload.includes(n)).map(sizeOf), [large]);

      // A before/after page of a landscape report (4 to a sheet): each photo in a column of a row of landscape A4.
      const report = await json('POST', '/api/reports.php?action=create', me, {
        fk_element: order.id,
        title: 'Vorher/Nachher',
        orientation: 'landscape',
      });
      await json('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, {
        layout: 'before_after',
        source: 'Zaehler.jpg',
        source_2: 'Ventil.jpg',
      });
      const inColumn = printSize(2000, 3000, imageBoxFor('A4', 'landscape', 4, 'before_after'));
      const afterPage = await shortly((names) => names.length === afterSingle.length + 2, 'copies after adding a before/after page');
      assert.deepEqual(afterPage.filter((n) => !afterSingle.includes(n)).map(sizeOf), [
        `${inColumn.width}x${inColumn.height}`,
        `${inColumn.width}x${inColumn.height}`,
      ]);

      // Finalizing needs no copy it does not find: the folder holds the same files, each just used.
      const anHourAgo = new Date(Date.now() - 3_600_000);
      for (const name of afterPage) utimesSync(path.join(cacheDir(), name), anHourAgo, anHourAgo);
      const used = Date.now();
      const final = await json('POST', `/api/reports.php?id=${report.id}&action=finalize`, me);
      assert.equal(final.status, 'final');
      assert.deepEqual(copies(), afterPage);
      for (const name of afterPage.filter((n) => !afterSingle.includes(n))) {
        assert.ok(statSync(path.join(cacheDir(), name)).mtimeMs >= used - 1000, `${name} was used by the finalize`);
      }
      await assertPdfA1b(t, path.join(ctx.config.dataRoot, final.final_pdf_path), 'final PDF from print copies');
    });

    test('a voice recording gets no print copy', async () => {
      const order = await ctx.make.order({ author: me.id });
      const { payload, contentType } = multipart([
        {
          filename: 'notiz.webm',
          type: 'audio/webm',
          data: Buffer.from('1a45dfa3a34286810142f7810142f2810442f381084282847765626d42878104428581021853806701ffffffffffffff', 'hex'),
        },
      ]);
      const before = copies();
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/voice.php?id=${order.id}`,
        payload,
        headers: { 'content-type': contentType, authorization: `Bearer ${me.token}` },
      });
      assert.equal(res.statusCode, 201, res.body);
      // A photo uploaded after it shows the queue has run past the recording.
      await uploadPhoto(me, order.id, 'Danach.jpg', photo);
      // The photo's copy (default layout), nothing for the recording.
      const names = await shortly((n) => n.length === before.length + 1, 'the copy of the photo after the recording');
      assert.equal(names.filter((n) => !before.includes(n)).length, 1);
    });
  });
}
