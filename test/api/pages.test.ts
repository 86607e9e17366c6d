/**
 * Endpoints 11-13, /api/pages.php, on every database: adding pages from an order's attachments
 * (layouts, sources, image checks, input validation), updating, deleting (with the rule that only
 * files of the reports' work area are ever removed), reordering in one transaction, rights,
 * visibility and the fixed pages of a final report.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { toDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import type { PageResponse } from '../../src/modules/reports/reports.schemas.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

/** The file endpoint's link as a client receives it. */
const fileLink = (modulepart: string, file: string, size?: string) =>
  `/api/photo.php?modulepart=${modulepart}&file=${encodeURIComponent(file)}${size ? `&size=${size}` : ''}`;

for (const dialect of testDialects()) {
  describe(`pages [${dialect}]`, () => {
    let ctx: TestContext;
    let jpeg: Buffer;
    let png: Buffer;
    let gif: Buffer;

    before(async () => {
      ctx = await createTestContext(dialect);
      const base = sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } } });
      jpeg = await base.clone().jpeg().toBuffer();
      png = await base.clone().png().toBuffer();
      gif = await base.clone().gif().toBuffer();
    });
    after(async () => ctx?.close());

    const { caller, api, newReport, addPage } = testClient(() => ctx);

    /** An order naming `owner` as author, with `files` written into its folder. */
    async function orderWith(owner: number, files: Record<string, Buffer> = {}) {
      const order = await ctx.make.order({ author: owner });
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(dir, { recursive: true });
      for (const [name, data] of Object.entries(files)) await writeFile(path.join(dir, name), data);
      return { ...order, dir };
    }

    /** A writer, an order of theirs with two photos (IMG_1.jpg, IMG_2.png) and a draft on it. */
    async function setup() {
      const me = await caller();
      const order = await orderWith(me.id, { 'IMG_1.jpg': jpeg, 'IMG_2.png': png });
      const report = await newReport(me, order.id);
      return { me, order, report };
    }

    const addUrl = (reportId: number) => `/api/pages.php?action=add&bericht_id=${reportId}`;

    const pageRows = (reportId: number) =>
      ctx.handle.db
        .selectFrom('bericht_page')
        .selectAll()
        .where('fk_bericht', '=', reportId)
        .orderBy('page_order')
        .orderBy('rowid')
        .execute();
    const pageRow = (pageId: number) => ctx.handle.db.selectFrom('bericht_page').selectAll().where('rowid', '=', pageId).executeTakeFirst();
    /** [id, page_order] of the report's pages, in page_order. */
    const ordering = async (reportId: number) => (await pageRows(reportId)).map((r) => [Number(r.rowid), Number(r.page_order)]);
    const setFinal = (reportId: number) => ctx.handle.db.updateTable('bericht').set({ status: 1 }).where('rowid', '=', reportId).execute();
    const detail = async (who: Caller, reportId: number) => {
      const res = await api('GET', `/api/reports.php?id=${reportId}`, who.token);
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { id: number; page_count: number; pages: PageResponse[] };
    };
    /** Points a page at a file of the report's work area, as copies from templates and versions do. */
    const pointAt = (pageId: number, set: { source_path?: string | null; source_path_2?: string | null }) =>
      ctx.handle.db.updateTable('bericht_page').set(set).where('rowid', '=', pageId).execute();
    /** Writes `name` with its two thumbnails into the report's work area; returns the paths. */
    async function workAreaFile(reportRef: string, name: string) {
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', reportRef).dir;
      await mkdir(path.join(dir, 'thumbs'), { recursive: true });
      const ext = path.extname(name);
      const file = path.join(dir, name);
      const thumbs = ['small', 'mini'].map((s) => path.join(dir, 'thumbs', `${path.basename(name, ext)}_${s}${ext}`));
      await writeFile(file, jpeg);
      for (const t of thumbs) await writeFile(t, jpeg);
      return { file, thumbs, relPath: `bericht/${reportRef}/${name}` };
    }

    describe('add', () => {
      test('a photo page from an order attachment: source_path, file links, stored and listed', async () => {
        const { me, order, report } = await setup();
        const res = await api('POST', addUrl(report.id), me.token, {
          source: 'IMG_1.jpg',
          title: 'Kessel',
          note: 'vor der Reinigung',
          rotation: 90,
        });
        assert.equal(res.statusCode, 201, res.body);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const page = res.json() as PageResponse;
        assert.equal(typeof page.id, 'number');
        assert.deepEqual(page, {
          id: page.id,
          fk_bericht: report.id,
          page_order: 1,
          title: 'Kessel',
          note: 'vor der Reinigung',
          prompt: null,
          rotation: 90,
          layout: 'photo',
          source_path: `commande/${order.ref}/IMG_1.jpg`,
          source_path_2: null,
          url: fileLink('commande', `${order.ref}/IMG_1.jpg`),
          thumb_url: fileLink('commande', `${order.ref}/IMG_1.jpg`, 'small'),
          url_2: null,
          thumb_url_2: null,
          signature: null,
          checklist: null,
          // Placed in the folder without an upload: no evidence was recorded for it.
          evidence: null,
          evidence_2: null,
        });
        const row = await pageRow(page.id);
        assert.equal(row?.source_path, `commande/${order.ref}/IMG_1.jpg`);
        assert.equal(row?.layout, 'photo');
        assert.equal(Number(row?.rotation), 90);
        const shown = await detail(me, report.id);
        assert.equal(shown.page_count, 1);
        assert.deepEqual(shown.pages, [page]);
        // The attachment stays where it is: it is referenced, not moved or copied.
        assert.ok(readFileSync(path.join(order.dir, 'IMG_1.jpg')).equals(jpeg));
        assert.equal(existsSync(objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', report.ref).dir), false);
      });

      test('a PNG is accepted; explicit layout photo with a source', async () => {
        const { me, order, report } = await setup();
        const page = await addPage(me, report.id, { layout: 'photo', source: 'IMG_2.png' });
        assert.equal(page.layout, 'photo');
        assert.equal(page.source_path, `commande/${order.ref}/IMG_2.png`);
        assert.equal(page.rotation, 0);
        assert.equal(page.title, null);
        assert.equal(page.note, null);
      });

      test('a WebP attachment is accepted, a GIF is 415', async () => {
        const me = await caller();
        const webp = await sharp(jpeg).webp().toBuffer();
        const order = await orderWith(me.id, { 'a.webp': webp, 'b.gif': gif });
        const report = await newReport(me, order.id);
        assert.equal((await addPage(me, report.id, { source: 'a.webp' })).source_path, `commande/${order.ref}/a.webp`);
        assertError(await api('POST', addUrl(report.id), me.token, { source: 'b.gif' }), 415, 'UPLOAD_TYPE_UNSUPPORTED');
        assert.equal((await pageRows(report.id)).length, 1);
      });

      test('before_after needs both sources; with both it links both', async () => {
        const { me, order, report } = await setup();
        assertError(
          await api('POST', addUrl(report.id), me.token, { layout: 'before_after', source: 'IMG_1.jpg' }),
          400,
          'PAGE_SOURCE_REQUIRED',
        );
        assertError(
          await api('POST', addUrl(report.id), me.token, { layout: 'before_after', source_2: 'IMG_2.png' }),
          400,
          'PAGE_SOURCE_REQUIRED',
        );
        assertError(await api('POST', addUrl(report.id), me.token, { layout: 'before_after' }), 400, 'PAGE_SOURCE_REQUIRED');
        assert.equal((await pageRows(report.id)).length, 0);
        const page = await addPage(me, report.id, { layout: 'before_after', source: 'IMG_1.jpg', source_2: 'IMG_2.png', title: 'Filter' });
        assert.equal(page.layout, 'before_after');
        assert.equal(page.source_path, `commande/${order.ref}/IMG_1.jpg`);
        assert.equal(page.source_path_2, `commande/${order.ref}/IMG_2.png`);
        assert.equal(page.url_2, fileLink('commande', `${order.ref}/IMG_2.png`));
        assert.equal(page.thumb_url_2, fileLink('commande', `${order.ref}/IMG_2.png`, 'small'));
      });

      test('title_only needs no source; without layout and source the page is title_only; photo without source is 400', async () => {
        const { me, report } = await setup();
        const explicit = await addPage(me, report.id, { layout: 'title_only', title: 'Zusammenfassung', note: 'Alles in Ordnung' });
        assert.equal(explicit.layout, 'title_only');
        assert.equal(explicit.source_path, null);
        assert.equal(explicit.url, null);
        assert.equal(explicit.thumb_url, null);
        const defaulted = await addPage(me, report.id, { title: 'Nur Titel' });
        assert.equal(defaulted.layout, 'title_only');
        // A title-only page without a title would be an empty page: refused, naming the field.
        assertError(await api('POST', addUrl(report.id), me.token, {}), 400, 'VALIDATION_FAILED');
        assertError(await api('POST', addUrl(report.id), me.token), 400, 'VALIDATION_FAILED');
        assertError(await api('POST', addUrl(report.id), me.token, { layout: 'photo' }), 400, 'PAGE_SOURCE_REQUIRED');
        assert.equal((await pageRows(report.id)).length, 2);
      });

      test('page_order appends 1..n', async () => {
        const { me, report } = await setup();
        const a = await addPage(me, report.id, { source: 'IMG_1.jpg' });
        const b = await addPage(me, report.id, { title: 'Zwischentitel' });
        const c = await addPage(me, report.id, { source: 'IMG_2.png' });
        assert.deepEqual([a.page_order, b.page_order, c.page_order], [1, 2, 3]);
        assert.deepEqual(await ordering(report.id), [
          [a.id, 1],
          [b.id, 2],
          [c.id, 3],
        ]);
        assert.deepEqual(
          (await detail(me, report.id)).pages.map((p) => p.id),
          [a.id, b.id, c.id],
        );
      });

      test('a source that does not exist is 404 FILE_NOT_FOUND; a file of another order cannot be named', async () => {
        const { me, report } = await setup();
        const other = await orderWith(me.id, { 'OTHER.jpg': jpeg });
        assertError(await api('POST', addUrl(report.id), me.token, { source: 'nope.jpg' }), 404, 'FILE_NOT_FOUND');
        // OTHER.jpg exists, but in another order's folder.
        assertError(await api('POST', addUrl(report.id), me.token, { source: 'OTHER.jpg' }), 404, 'FILE_NOT_FOUND');
        assertError(
          await api('POST', addUrl(report.id), me.token, { layout: 'before_after', source: 'IMG_1.jpg', source_2: 'nope.jpg' }),
          404,
          'FILE_NOT_FOUND',
        );
        assert.equal((await pageRows(report.id)).length, 0);
        assert.ok(existsSync(path.join(other.dir, 'OTHER.jpg')));
      });

      test('a source with a folder or a parent reference is 400 FILE_PATH_INVALID', async () => {
        const { me, order, report } = await setup();
        const other = await orderWith(me.id, { 'OTHER.jpg': jpeg });
        await mkdir(path.join(order.dir, 'sub'));
        await writeFile(path.join(order.dir, 'sub', 'x.jpg'), jpeg);
        for (const source of ['sub/x.jpg', `../${other.ref}/OTHER.jpg`, '..', '.', '..\\x.jpg', 'sub\\x.jpg', '/etc/passwd']) {
          assertError(await api('POST', addUrl(report.id), me.token, { source }), 400, 'FILE_PATH_INVALID');
          assertError(
            await api('POST', addUrl(report.id), me.token, { layout: 'before_after', source: 'IMG_1.jpg', source_2: source }),
            400,
            'FILE_PATH_INVALID',
          );
        }
        assert.equal((await pageRows(report.id)).length, 0);
      });

      test('a text file named .jpg is 400 IMAGE_INVALID, and so is a corrupt JPEG', async () => {
        const me = await caller();
        const order = await orderWith(me.id, {
          'x.jpg': Buffer.from('Dies ist kein Bild.\n'),
          'broken.jpg': jpeg.subarray(0, 40),
          'empty.jpg': Buffer.alloc(0),
        });
        const report = await newReport(me, order.id);
        const text = assertError(await api('POST', addUrl(report.id), me.token, { source: 'x.jpg' }), 400, 'IMAGE_INVALID');
        assert.deepEqual(text.details, { source: 'x.jpg' });
        assertError(await api('POST', addUrl(report.id), me.token, { source: 'broken.jpg' }), 400, 'IMAGE_INVALID');
        assertError(await api('POST', addUrl(report.id), me.token, { source: 'empty.jpg' }), 400, 'IMAGE_INVALID');
        assert.equal((await pageRows(report.id)).length, 0);
      });

      test('wrong types, unknown fields and unknown layouts are 400 VALIDATION_FAILED and add nothing', async () => {
        const { me, report } = await setup();
        const bodies: unknown[] = [
          { rotation: 45 },
          { rotation: '90' },
          { rotation: -90 },
          { rotation: 360 },
          { title: 5 },
          { note: ['a'] },
          { source: 5 },
          { source: '' },
          { layout: 'signature' },
          { layout: 'collage', source: 'IMG_1.jpg' },
          { layout: null },
          { extra: 1 },
          { source: 'IMG_1.jpg', fk_bericht: report.id + 1 },
          { title: 'x'.repeat(256) },
          { note: 'x'.repeat(10_001) },
        ];
        for (const body of bodies) {
          const err = assertError(await api('POST', addUrl(report.id), me.token, body), 400, 'VALIDATION_FAILED');
          assert.ok(Array.isArray(err.details), `details for ${JSON.stringify(body)}`);
        }
        assertError(await api('POST', addUrl(report.id), me.token, [{ title: 'x' }]), 400, 'VALIDATION_FAILED');
        assert.equal((await pageRows(report.id)).length, 0);
        // The limits themselves are allowed.
        const page = await addPage(me, report.id, { title: 'x'.repeat(255), note: 'y'.repeat(10_000), rotation: 270 });
        assert.equal(page.title?.length, 255);
        assert.equal(page.note?.length, 10_000);
      });

      test('bericht_id is required and must be an id; an unknown action is 400 ACTION_UNKNOWN', async () => {
        const { me, report } = await setup();
        assertError(await api('POST', '/api/pages.php?action=add', me.token, { title: 'x' }), 400, 'VALIDATION_FAILED');
        assertError(await api('POST', '/api/pages.php?action=add&bericht_id=abc', me.token, { title: 'x' }), 400, 'VALIDATION_FAILED');
        assertError(await api('POST', '/api/pages.php?action=add&bericht_id=0', me.token, { title: 'x' }), 400, 'VALIDATION_FAILED');
        assertError(
          await api('POST', `/api/pages.php?action=append&bericht_id=${report.id}`, me.token, { title: 'x' }),
          400,
          'ACTION_UNKNOWN',
        );
        assertError(await api('POST', `/api/pages.php?action=signature_x&bericht_id=${report.id}`, me.token, {}), 400, 'ACTION_UNKNOWN');
        // Neither action nor id: nothing to do.
        assertError(await api('POST', `/api/pages.php?bericht_id=${report.id}`, me.token, { title: 'x' }), 400, 'VALIDATION_FAILED');
        assert.equal((await pageRows(report.id)).length, 0);
      });

      test('without a token 401; with the read right only 403; nothing added', async () => {
        const { report } = await setup();
        assertError(await api('POST', addUrl(report.id), null, { title: 'x' }), 401, 'AUTH_TOKEN_MISSING');
        assertError(await api('POST', addUrl(report.id), 'not-a-token', { title: 'x' }), 401, 'AUTH_TOKEN_INVALID');
        const reader = await caller(['read'], true);
        assertError(await api('POST', addUrl(report.id), reader.token, { title: 'x' }), 403, 'AUTH_RIGHT_MISSING');
        assert.equal((await pageRows(report.id)).length, 0);
      });

      test("another user's report is 404 REPORT_NOT_FOUND like an unknown one, and gets no page", async () => {
        const { report } = await setup();
        const stranger = await caller();
        assertError(await api('POST', addUrl(report.id), stranger.token, { title: 'x' }), 404, 'REPORT_NOT_FOUND');
        assertError(await api('POST', addUrl(report.id), stranger.token, { source: 'IMG_1.jpg' }), 404, 'REPORT_NOT_FOUND');
        // Even a source that would be refused: the report is not found first.
        assertError(await api('POST', addUrl(report.id), stranger.token, { source: 'nope.jpg' }), 404, 'REPORT_NOT_FOUND');
        assertError(await api('POST', addUrl(2147483647), stranger.token, { title: 'x' }), 404, 'REPORT_NOT_FOUND');
        assert.equal((await pageRows(report.id)).length, 0);
      });

      test('whoever sees the order (named in it, or admin) may add pages to a report they did not create', async () => {
        const { me, order, report } = await setup();
        const validator = await caller();
        await ctx.handle.db.updateTable('commande').set({ fk_user_valid: validator.id }).where('rowid', '=', order.id).execute();
        const byValidator = await addPage(validator, report.id, { source: 'IMG_1.jpg' });
        const admin = await caller(['read', 'write'], true);
        const byAdmin = await addPage(admin, report.id, { title: 'Admin' });
        assert.deepEqual(await ordering(report.id), [
          [byValidator.id, 1],
          [byAdmin.id, 2],
        ]);
        assert.equal((await detail(me, report.id)).page_count, 2);
        const row = await ctx.handle.db
          .selectFrom('bericht')
          .select('fk_user_modif')
          .where('rowid', '=', report.id)
          .executeTakeFirstOrThrow();
        assert.equal(Number(row.fk_user_modif), admin.id);
      });

      test('a final report gets no page: 409 REPORT_FINAL', async () => {
        const { me, report } = await setup();
        await addPage(me, report.id, { source: 'IMG_1.jpg' });
        await setFinal(report.id);
        assertError(await api('POST', addUrl(report.id), me.token, { title: 'x' }), 409, 'REPORT_FINAL');
        assertError(await api('POST', addUrl(report.id), me.token, { source: 'IMG_2.png' }), 409, 'REPORT_FINAL');
        assert.equal((await pageRows(report.id)).length, 1);
      });
    });

    describe('update', () => {
      const updateUrl = (pageId: number) => `/api/pages.php?id=${pageId}`;

      test('each field changes alone and the others stay', async () => {
        const { me, order, report } = await setup();
        const page = await addPage(me, report.id, { source: 'IMG_1.jpg', title: 'Alt', note: 'alte Notiz', rotation: 0 });

        let res = await api('POST', updateUrl(page.id), me.token, { title: 'Neu' });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { ...page, title: 'Neu' });

        res = await api('POST', updateUrl(page.id), me.token, { note: 'neue Notiz' });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { ...page, title: 'Neu', note: 'neue Notiz' });

        res = await api('POST', updateUrl(page.id), me.token, { source: 'IMG_2.png' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().source_path, `commande/${order.ref}/IMG_2.png`);
        assert.equal(res.json().url, fileLink('commande', `${order.ref}/IMG_2.png`));

        res = await api('POST', updateUrl(page.id), me.token, { layout: 'before_after', source_2: 'IMG_1.jpg' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().layout, 'before_after');
        assert.equal(res.json().source_path_2, `commande/${order.ref}/IMG_1.jpg`);

        assertError(
          await api('POST', updateUrl(page.id), me.token, { layout: 'title_only', title: null, note: null }),
          400,
          'VALIDATION_FAILED',
        );
        res = await api('POST', updateUrl(page.id), me.token, { layout: 'title_only', title: 'Schluss', note: null });
        assert.equal(res.statusCode, 200, res.body);
        const final = res.json() as PageResponse;
        assert.equal(final.layout, 'title_only');
        assert.equal(final.title, 'Schluss');
        assert.equal(final.note, null);
        assert.equal(final.page_order, 1);

        const row = await pageRow(page.id);
        assert.equal(row?.layout, 'title_only');
        assert.equal(row?.title, 'Schluss');
        assert.equal(row?.note, null);
        // An empty body changes nothing.
        res = await api('POST', updateUrl(page.id), me.token, {});
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), final);
        assert.deepEqual((await detail(me, report.id)).pages, [final]);
      });

      test('rotation takes 0, 90, 180 and 270, nothing else', async () => {
        const { me, report } = await setup();
        const page = await addPage(me, report.id, { source: 'IMG_1.jpg' });
        for (const rotation of [90, 180, 270, 0]) {
          const res = await api('POST', updateUrl(page.id), me.token, { rotation });
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.json().rotation, rotation);
          assert.equal(Number((await pageRow(page.id))?.rotation), rotation);
        }
        for (const rotation of [45, '90', 360, -90, 90.5, null]) {
          assertError(await api('POST', updateUrl(page.id), me.token, { rotation }), 400, 'VALIDATION_FAILED');
        }
        for (const body of [{ layout: 'signature' }, { title: 5 }, { unknown: true }, { fk_bericht: 1 }, { page_order: 3 }]) {
          assertError(await api('POST', updateUrl(page.id), me.token, body), 400, 'VALIDATION_FAILED');
        }
        assert.equal(Number((await pageRow(page.id))?.rotation), 0);
      });

      test('layout rules hold on update; a bad source changes nothing', async () => {
        const { me, order, report } = await setup();
        const page = await addPage(me, report.id, { title: 'Titel' });
        assertError(await api('POST', updateUrl(page.id), me.token, { layout: 'photo' }), 400, 'PAGE_SOURCE_REQUIRED');
        assertError(
          await api('POST', updateUrl(page.id), me.token, { layout: 'before_after', source: 'IMG_1.jpg' }),
          400,
          'PAGE_SOURCE_REQUIRED',
        );
        assertError(await api('POST', updateUrl(page.id), me.token, { layout: 'photo', source: 'nope.jpg' }), 404, 'FILE_NOT_FOUND');
        assertError(await api('POST', updateUrl(page.id), me.token, { layout: 'photo', source: '../x.jpg' }), 400, 'FILE_PATH_INVALID');
        const row = await pageRow(page.id);
        assert.equal(row?.layout, 'title_only');
        assert.equal(row?.source_path, null);
        const res = await api('POST', updateUrl(page.id), me.token, { layout: 'photo', source: 'IMG_1.jpg' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().source_path, `commande/${order.ref}/IMG_1.jpg`);
      });

      test("a final report's page is 409 REPORT_FINAL and stays as it was", async () => {
        const { me, report } = await setup();
        const page = await addPage(me, report.id, { source: 'IMG_1.jpg', title: 'Fest', note: 'n', rotation: 0 });
        await setFinal(report.id);
        const before = await pageRow(page.id);
        for (const body of [{ title: 'Anders' }, { note: 'x' }, { rotation: 180 }, { layout: 'title_only' }, { source: 'IMG_2.png' }]) {
          assertError(await api('POST', updateUrl(page.id), me.token, body), 409, 'REPORT_FINAL');
        }
        assert.deepEqual(await pageRow(page.id), before);
      });

      test("another user's page is 404 PAGE_NOT_FOUND like an unknown one; missing id is 400", async () => {
        const { me, report } = await setup();
        const page = await addPage(me, report.id, { title: 'Meins' });
        const stranger = await caller();
        assertError(await api('POST', updateUrl(page.id), stranger.token, { title: 'Fremd' }), 404, 'PAGE_NOT_FOUND');
        assertError(await api('POST', updateUrl(2147483647), stranger.token, { title: 'Fremd' }), 404, 'PAGE_NOT_FOUND');
        assertError(await api('POST', updateUrl(2147483647), me.token, { title: 'Fremd' }), 404, 'PAGE_NOT_FOUND');
        assertError(await api('POST', '/api/pages.php', me.token, { title: 'x' }), 400, 'VALIDATION_FAILED');
        assertError(await api('POST', '/api/pages.php?id=abc', me.token, { title: 'x' }), 400, 'VALIDATION_FAILED');
        const reader = await caller(['read'], true);
        assertError(await api('POST', updateUrl(page.id), reader.token, { title: 'Leser' }), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', updateUrl(page.id), null, { title: 'Niemand' }), 401, 'AUTH_TOKEN_MISSING');
        assert.equal((await pageRow(page.id))?.title, 'Meins');
      });

      test('a signature page cannot be changed: 409', async () => {
        const { me, report } = await setup();
        const now = toDbDateTime();
        await ctx.handle.db
          .insertInto('bericht_page')
          .values({
            fk_bericht: report.id,
            page_order: 1,
            title: 'Unterschrift',
            note: null,
            rotation: 0,
            layout: 'signature',
            source_path: null,
            source_path_2: null,
            datec: now,
            tms: now,
          })
          .execute();
        const [row] = await pageRows(report.id);
        assertError(await api('POST', updateUrl(Number(row!.rowid)), me.token, { title: 'Anders' }), 409, 'PAGE_SIGNED');
        assert.equal((await pageRow(Number(row!.rowid)))?.title, 'Unterschrift');
      });
    });

    describe('delete', () => {
      test('DELETE removes the page and closes the gap in page_order', async () => {
        const { me, report } = await setup();
        const a = await addPage(me, report.id, { title: 'A' });
        const b = await addPage(me, report.id, { title: 'B' });
        const c = await addPage(me, report.id, { title: 'C' });
        const d = await addPage(me, report.id, { title: 'D' });
        const res = await api('DELETE', `/api/pages.php?id=${b.id}`, me.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { id: b.id, fk_bericht: report.id, deleted: true, files_deleted: [] });
        assert.equal(await pageRow(b.id), undefined);
        assert.deepEqual(await ordering(report.id), [
          [a.id, 1],
          [c.id, 2],
          [d.id, 3],
        ]);
        const shown = await detail(me, report.id);
        assert.deepEqual(
          shown.pages.map((p) => [p.id, p.page_order]),
          [
            [a.id, 1],
            [c.id, 2],
            [d.id, 3],
          ],
        );
        assert.equal(shown.page_count, 3);
        // Gone means gone.
        assertError(await api('DELETE', `/api/pages.php?id=${b.id}`, me.token), 404, 'PAGE_NOT_FOUND');
        // The next page is appended after the last.
        assert.equal((await addPage(me, report.id, { title: 'E' })).page_order, 4);
      });

      test('POST with delete=1 deletes like DELETE; the first page too', async () => {
        const { me, report } = await setup();
        const a = await addPage(me, report.id, { title: 'A' });
        const b = await addPage(me, report.id, { title: 'B' });
        const c = await addPage(me, report.id, { title: 'C' });
        const res = await api('POST', `/api/pages.php?id=${a.id}&delete=1`, me.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { id: a.id, fk_bericht: report.id, deleted: true, files_deleted: [] });
        assert.deepEqual(await ordering(report.id), [
          [b.id, 1],
          [c.id, 2],
        ]);
        const last = await api('POST', `/api/pages.php?id=${c.id}&delete=true`, me.token, {});
        assert.equal(last.statusCode, 200, last.body);
        assert.deepEqual(await ordering(report.id), [[b.id, 1]]);
        // Without an id there is nothing to delete.
        assertError(await api('DELETE', '/api/pages.php', me.token), 400, 'VALIDATION_FAILED');
        assertError(await api('POST', '/api/pages.php?delete=1', me.token), 400, 'VALIDATION_FAILED');
      });

      test('an order attachment is never deleted with the page, nor its thumbnails', async () => {
        const { me, order, report } = await setup();
        await mkdir(path.join(order.dir, 'thumbs'), { recursive: true });
        await writeFile(path.join(order.dir, 'thumbs', 'IMG_1_small.jpg'), jpeg);
        const photo = await addPage(me, report.id, { source: 'IMG_1.jpg' });
        const pair = await addPage(me, report.id, { layout: 'before_after', source: 'IMG_1.jpg', source_2: 'IMG_2.png' });
        let res = await api('DELETE', `/api/pages.php?id=${photo.id}`, me.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, []);
        res = await api('POST', `/api/pages.php?id=${pair.id}&delete=1`, me.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, []);
        // No page shows them any more, and still they stay.
        assert.ok(readFileSync(path.join(order.dir, 'IMG_1.jpg')).equals(jpeg));
        assert.ok(readFileSync(path.join(order.dir, 'IMG_2.png')).equals(png));
        assert.ok(existsSync(path.join(order.dir, 'thumbs', 'IMG_1_small.jpg')));
        assert.deepEqual(await pageRows(report.id), []);
      });

      test('a work-area file goes with its thumbnails when no other page shows it, and stays while one does', async () => {
        const { me, order, report } = await setup();
        const shared = await workAreaFile(report.ref, 'x.jpg');
        const own = await workAreaFile(report.ref, 'y.jpg');
        const first = await addPage(me, report.id, { source: 'IMG_1.jpg' });
        const second = await addPage(me, report.id, { source: 'IMG_1.jpg' });
        const third = await addPage(me, report.id, { layout: 'before_after', source: 'IMG_1.jpg', source_2: 'IMG_2.png' });
        await pointAt(first.id, { source_path: shared.relPath });
        await pointAt(second.id, { source_path: shared.relPath });
        await pointAt(third.id, { source_path_2: own.relPath });
        // The detail links the work area through the file endpoint.
        const shown = await detail(me, report.id);
        assert.equal(shown.pages[0]!.url, fileLink('bericht', `${report.ref}/x.jpg`));
        assert.equal(shown.pages[2]!.url_2, fileLink('bericht', `${report.ref}/y.jpg`));

        let res = await api('DELETE', `/api/pages.php?id=${first.id}`, me.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, [], 'the second page still shows x.jpg');
        assert.ok(existsSync(shared.file));
        for (const t of shared.thumbs) assert.ok(existsSync(t));

        res = await api('POST', `/api/pages.php?id=${second.id}&delete=1`, me.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, [shared.relPath]);
        assert.equal(existsSync(shared.file), false);
        for (const t of shared.thumbs) assert.equal(existsSync(t), false, `${t} removed`);

        // The second image of a before/after page follows the same rule; the attachment stays.
        res = await api('DELETE', `/api/pages.php?id=${third.id}`, me.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, [own.relPath]);
        assert.equal(existsSync(own.file), false);
        for (const t of own.thumbs) assert.equal(existsSync(t), false);
        assert.ok(existsSync(path.join(order.dir, 'IMG_1.jpg')));
      });

      test("a work-area file another report's page shows is kept", async () => {
        const { me, order, report } = await setup();
        const second = await newReport(me, order.id);
        const file = await workAreaFile(report.ref, 'z.jpg');
        const mine = await addPage(me, report.id, { title: 'a' });
        const theirs = await addPage(me, second.id, { title: 'b' });
        await pointAt(mine.id, { source_path: file.relPath, source_path_2: file.relPath });
        await pointAt(theirs.id, { source_path: file.relPath });
        const res = await api('DELETE', `/api/pages.php?id=${mine.id}`, me.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, []);
        assert.ok(existsSync(file.file));
      });

      test('a page that stops showing a work-area image (new source, or title only) lets it go; attachments stay', async () => {
        const { me, report } = await setup();
        const old = await workAreaFile(report.ref, 'alt.jpg');
        const page = await addPage(me, report.id, { source: 'IMG_1.jpg' });
        await pointAt(page.id, { source_path: old.relPath });
        const res = await api('POST', `/api/pages.php?id=${page.id}`, me.token, { source: 'IMG_1.jpg' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(existsSync(old.file), false);
        for (const t of old.thumbs) assert.equal(existsSync(t), false);
        const kept = await workAreaFile(report.ref, 'bleibt.jpg');
        const other = await addPage(me, report.id, { title: 'zeigt es auch' });
        await pointAt(page.id, { source_path: kept.relPath });
        await pointAt(other.id, { source_path: kept.relPath });
        assert.equal((await api('POST', `/api/pages.php?id=${page.id}`, me.token, { source: 'IMG_1.jpg' })).statusCode, 200);
        assert.ok(existsSync(kept.file), 'another page still shows it');
      });

      test("a report's creator who no longer sees the order cannot pull its photos into the report", async () => {
        const { me, order, report } = await setup();
        await ctx.handle.db
          .updateTable('commande')
          .set({ fk_user_author: null, fk_user_valid: null, fk_user_modif: null })
          .where('rowid', '=', order.id)
          .execute();
        assertError(await api('POST', addUrl(report.id), me.token, { source: 'IMG_1.jpg' }), 404, 'FILE_NOT_FOUND');
        assertError(await api('POST', addUrl(report.id), me.token, { source: 'gibt-es-nicht.jpg' }), 404, 'FILE_NOT_FOUND');
        assert.equal(
          (await api('POST', addUrl(report.id), me.token, { title: 'nur Titel' })).statusCode,
          201,
          "the report itself stays the creator's",
        );
      });

      test("a final report's page is 409 REPORT_FINAL: the page and its files stay", async () => {
        const { me, report } = await setup();
        const file = await workAreaFile(report.ref, 'w.jpg');
        const page = await addPage(me, report.id, { source: 'IMG_1.jpg' });
        await addPage(me, report.id, { title: 'zwei' });
        await pointAt(page.id, { source_path: file.relPath });
        await setFinal(report.id);
        const before = await ordering(report.id);
        assertError(await api('DELETE', `/api/pages.php?id=${page.id}`, me.token), 409, 'REPORT_FINAL');
        assertError(await api('POST', `/api/pages.php?id=${page.id}&delete=1`, me.token), 409, 'REPORT_FINAL');
        assert.deepEqual(await ordering(report.id), before);
        assert.ok(existsSync(file.file));
        for (const t of file.thumbs) assert.ok(existsSync(t));
      });

      test('deleting a page needs the delete right: a writer without it gets 403 and the page stays', async () => {
        const { me, report } = await setup();
        const page = await addPage(me, report.id, { title: 'bleibt' });
        const writer = await caller(['read', 'write'], true);
        assertError(await api('DELETE', `/api/pages.php?id=${page.id}`, writer.token), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', `/api/pages.php?id=${page.id}&delete=1`, writer.token), 403, 'AUTH_RIGHT_MISSING');
        assert.equal((await pageRows(report.id)).length, 1);
      });

      test("another user's page is 404 and stays; read-only is 403; no token 401", async () => {
        const { me, report } = await setup();
        const file = await workAreaFile(report.ref, 'v.jpg');
        const page = await addPage(me, report.id, { title: 'A' });
        await pointAt(page.id, { source_path: file.relPath });
        const stranger = await caller(['read', 'write', 'delete']);
        assertError(await api('DELETE', `/api/pages.php?id=${page.id}`, stranger.token), 404, 'PAGE_NOT_FOUND');
        assertError(await api('POST', `/api/pages.php?id=${page.id}&delete=1`, stranger.token), 404, 'PAGE_NOT_FOUND');
        const reader = await caller(['read'], true);
        assertError(await api('DELETE', `/api/pages.php?id=${page.id}`, reader.token), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', `/api/pages.php?id=${page.id}&delete=1`, reader.token), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('DELETE', `/api/pages.php?id=${page.id}`, null), 401, 'AUTH_TOKEN_MISSING');
        assert.ok(await pageRow(page.id));
        assert.ok(existsSync(file.file));
      });
    });

    describe('reorder', () => {
      const reorderUrl = (reportId?: number) => `/api/pages.php?action=reorder${reportId === undefined ? '' : `&bericht_id=${reportId}`}`;

      async function threePages() {
        const s = await setup();
        const a = await addPage(s.me, s.report.id, { title: 'A' });
        const b = await addPage(s.me, s.report.id, { source: 'IMG_1.jpg' });
        const c = await addPage(s.me, s.report.id, { title: 'C' });
        return { ...s, ids: [a.id, b.id, c.id] as [number, number, number] };
      }

      test('a permutation is written and persisted; the answer is the report', async () => {
        const { me, report, ids } = await threePages();
        const [a, b, c] = ids;
        const res = await api('POST', reorderUrl(report.id), me.token, { order: [c, a, b] });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.id, report.id);
        assert.equal(body.ref, report.ref);
        assert.deepEqual(
          body.pages.map((p: PageResponse) => [p.id, p.page_order]),
          [
            [c, 1],
            [a, 2],
            [b, 3],
          ],
        );
        assert.deepEqual(await ordering(report.id), [
          [c, 1],
          [a, 2],
          [b, 3],
        ]);
        assert.deepEqual(
          (await detail(me, report.id)).pages.map((p) => p.id),
          [c, a, b],
        );
        // bericht_id in the body works as well.
        const again = await api('POST', reorderUrl(), me.token, { bericht_id: report.id, order: [b, c, a] });
        assert.equal(again.statusCode, 200, again.body);
        assert.deepEqual(await ordering(report.id), [
          [b, 1],
          [c, 2],
          [a, 3],
        ]);
        // The same order again is fine.
        assert.equal((await api('POST', reorderUrl(report.id), me.token, { order: [b, c, a] })).statusCode, 200);
        assert.deepEqual(await ordering(report.id), [
          [b, 1],
          [c, 2],
          [a, 3],
        ]);
        // Without bericht_id the report is the one of the first page named.
        const byPage = await api('POST', reorderUrl(), me.token, { order: [a, b, c] });
        assert.equal(byPage.statusCode, 200, byPage.body);
        assert.deepEqual(await ordering(report.id), [
          [a, 1],
          [b, 2],
          [c, 3],
        ]);
      });

      test('a page of another report is 400 PAGE_ORDER_MISMATCH and changes nothing', async () => {
        const { me, order, report, ids } = await threePages();
        const other = await newReport(me, order.id);
        const foreign = await addPage(me, other.id, { title: 'fremd' });
        const before = await ordering(report.id);
        const [a, b, c] = ids;
        let err = assertError(
          await api('POST', reorderUrl(report.id), me.token, { order: [c, foreign.id, a, b] }),
          400,
          'PAGE_ORDER_MISMATCH',
        );
        assert.deepEqual(err.details, { duplicates: [], unknown: [foreign.id], missing: [] });
        err = assertError(await api('POST', reorderUrl(report.id), me.token, { order: [c, foreign.id, a] }), 400, 'PAGE_ORDER_MISMATCH');
        assert.deepEqual(err.details, { duplicates: [], unknown: [foreign.id], missing: [b] });
        assert.deepEqual(await ordering(report.id), before);
        assert.deepEqual(await ordering(other.id), [[foreign.id, 1]]);
      });

      test('a missing page, duplicates, an empty list are 400 and change nothing', async () => {
        const { me, report, ids } = await threePages();
        const [a, b, c] = ids;
        const before = await ordering(report.id);
        let err = assertError(await api('POST', reorderUrl(report.id), me.token, { order: [c, a] }), 400, 'PAGE_ORDER_MISMATCH');
        assert.deepEqual(err.details, { duplicates: [], unknown: [], missing: [b] });
        err = assertError(await api('POST', reorderUrl(report.id), me.token, { order: [c, a, b, a] }), 400, 'PAGE_ORDER_MISMATCH');
        assert.deepEqual(err.details, { duplicates: [a], unknown: [], missing: [] });
        err = assertError(await api('POST', reorderUrl(report.id), me.token, { order: [c, a, a] }), 400, 'PAGE_ORDER_MISMATCH');
        assert.deepEqual(err.details, { duplicates: [a], unknown: [], missing: [b] });
        err = assertError(await api('POST', reorderUrl(report.id), me.token, { order: [] }), 400, 'PAGE_ORDER_MISMATCH');
        assert.deepEqual(err.details, { duplicates: [], unknown: [], missing: [a, b, c] });
        assertError(await api('POST', reorderUrl(report.id), me.token, { order: [2147483646, a, b, c] }), 400, 'PAGE_ORDER_MISMATCH');
        assert.deepEqual(await ordering(report.id), before);
      });

      test('an empty list on a report without pages is fine', async () => {
        const { me, report } = await setup();
        const res = await api('POST', reorderUrl(report.id), me.token, { order: [] });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().pages, []);
      });

      test('ids that are not positive integers, and bodies without order, are 400 VALIDATION_FAILED', async () => {
        const { me, report, ids } = await threePages();
        const [a, b, c] = ids;
        const before = await ordering(report.id);
        for (const body of [
          { order: [String(a), b, c] },
          { order: [a + 0.5, b, c] },
          { order: [a, b, null] },
          { order: [a, b, -c] },
          { order: [a, b, 0] },
          { order: `${a},${b},${c}` },
          { order: { 0: a } },
          {},
          { order: [a, b, c], extra: true },
          { order: [a, b, c], bericht_id: 'x' },
        ]) {
          assertError(await api('POST', reorderUrl(report.id), me.token, body), 400, 'VALIDATION_FAILED');
        }
        assert.deepEqual(await ordering(report.id), before);
      });

      test('without bericht_id and with no known page there is no report to reorder: 400', async () => {
        const { me } = await setup();
        assertError(await api('POST', reorderUrl(), me.token, { order: [] }), 400, 'PAGE_ORDER_MISMATCH');
        assertError(await api('POST', reorderUrl(), me.token, { order: [2147483647] }), 400, 'PAGE_ORDER_MISMATCH');
      });

      test("a final report's pages keep their order: 409 REPORT_FINAL", async () => {
        const { me, report, ids } = await threePages();
        const [a, b, c] = ids;
        await setFinal(report.id);
        assertError(await api('POST', reorderUrl(report.id), me.token, { order: [c, b, a] }), 409, 'REPORT_FINAL');
        assertError(await api('POST', reorderUrl(), me.token, { bericht_id: report.id, order: [c, b, a] }), 409, 'REPORT_FINAL');
        assert.deepEqual(await ordering(report.id), [
          [a, 1],
          [b, 2],
          [c, 3],
        ]);
      });

      test('a report the caller does not see is 404, however it is named, and keeps its order', async () => {
        const { report, ids } = await threePages();
        const [a, b, c] = ids;
        const stranger = await caller();
        assertError(await api('POST', reorderUrl(report.id), stranger.token, { order: [c, b, a] }), 404, 'REPORT_NOT_FOUND');
        assertError(await api('POST', reorderUrl(), stranger.token, { bericht_id: report.id, order: [c, b, a] }), 404, 'REPORT_NOT_FOUND');
        assertError(await api('POST', reorderUrl(2147483647), stranger.token, { order: [c, b, a] }), 404, 'REPORT_NOT_FOUND');
        // Named only through its pages, it answers as a page that does not exist: no existence leak.
        const hidden = await api('POST', reorderUrl(), stranger.token, { order: [c, b, a] });
        const missing = await api('POST', reorderUrl(), stranger.token, { order: [2147483647, 2147483646, 2147483645] });
        assert.equal(hidden.statusCode, missing.statusCode, `${hidden.body} vs ${missing.body}`);
        assert.equal(hidden.json().code, missing.json().code);
        assertError(hidden, 400, 'PAGE_ORDER_MISMATCH');
        const reader = await caller(['read'], true);
        assertError(await api('POST', reorderUrl(report.id), reader.token, { order: [c, b, a] }), 403, 'AUTH_RIGHT_MISSING');
        assert.deepEqual(await ordering(report.id), [
          [a, 1],
          [b, 2],
          [c, 3],
        ]);
      });
    });
  });
}
