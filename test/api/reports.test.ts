/**
 * Endpoints 6-10 and 17 on every database: who sees which report, list filters, create (refs
 * unique under concurrency, formats, templates' defaults), finalize (the PDF in the work area,
 * its ecm_files row, all or nothing), new versions that leave the old one byte-for-byte
 * unchanged, delete rules, and the PDF endpoint.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { Writable } from 'node:stream';
import { createLibreOffice } from '../../src/adapters/libreoffice.js';
import { COVER_TEMPLATE_FILENAME, makeCoverTemplateOdt } from '../../src/demo/cover-template.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { pdfInfo, pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

const A4 = { width: 595.28, height: 841.89 };
const A5 = { width: 419.53, height: 595.28 };
const near = (a: number, b: number) => Math.abs(a - b) < 1.5;
const libreOfficeAvailable = () => createLibreOffice().available();

/** Every file under `dir` with the SHA-256 of its bytes (relative path → hash). */
async function snapshotFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    out[path.relative(dir, full)] = createHash('sha256')
      .update(await readFile(full))
      .digest('hex');
  }
  return out;
}

for (const dialect of testDialects()) {
  describe(`reports [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    const { caller, api, newReport, addPage } = testClient(() => ctx);

    /** An order of `who` with photos in its folder. */
    async function orderWithPhotos(who: Caller, names: string[] = ['vorher.jpg', 'nachher.jpg']) {
      const order = await ctx.make.order({ author: who.id });
      const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
      await mkdir(folder.dir, { recursive: true });
      for (const [i, name] of names.entries()) {
        await sharp({ create: { width: 1600, height: 1200, channels: 3, background: { r: 40 * i, g: 120, b: 200 - 30 * i } } })
          .jpeg()
          .toFile(path.join(folder.dir, name));
      }
      return { ...order, dir: folder.dir };
    }

    /** A report on a fresh order with one page of each kind. */
    async function fullReport(who: Caller, options: Record<string, unknown> = {}) {
      const order = await orderWithPhotos(who);
      const report = await newReport(who, { fk_element: order.id, title: 'Prüfung der Heizungsanlage – Ölbrenner', ...options });
      await addPage(who, report.id, { source: 'vorher.jpg', title: 'Brennraum: Maße ÄÖÜß', note: 'Ruß an der Düse entfernt' });
      await addPage(who, report.id, { source: 'nachher.jpg', title: 'Gedreht', rotation: 90 });
      await addPage(who, report.id, {
        layout: 'before_after',
        source: 'vorher.jpg',
        source_2: 'nachher.jpg',
        title: 'Wärmetauscher gereinigt',
      });
      await addPage(who, report.id, { layout: 'title_only', title: 'Übergabe an den Kunden', note: 'Alles in Ordnung' });
      return { order, report };
    }

    const finalize = (who: Caller, id: number) => api('POST', `/api/reports.php?id=${id}&action=finalize`, who);
    const reportRow = (id: number) => ctx.handle.db.selectFrom('bericht').selectAll().where('rowid', '=', id).executeTakeFirst();
    async function installCoverTemplate(dataRoot = ctx.config.dataRoot) {
      const dir = path.join(dataRoot, 'doctemplates', 'bericht');
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, COVER_TEMPLATE_FILENAME), await makeCoverTemplateOdt());
    }
    const workDir = (ref: string) => objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', ref).dir;

    describe('visibility and lists', () => {
      test('a user sees reports they created and reports on orders that name them; others get 404', async () => {
        const me = await caller();
        const colleague = await caller();
        const stranger = await caller();
        const mine = await orderWithPhotos(me);
        const theirs = await ctx.make.order({ author: colleague.id, valid: me.id });
        const hidden = await ctx.make.order({ author: colleague.id });
        const r1 = await newReport(me, { fk_element: mine.id, title: 'Eigener' });
        const r2 = await newReport(colleague, { fk_element: theirs.id, title: 'Über den Auftrag sichtbar' });
        const r3 = await newReport(colleague, { fk_element: hidden.id, title: 'Fremd' });
        const list = await api('GET', '/api/reports.php', me);
        assert.equal(list.statusCode, 200, list.body);
        const ids = list.json().items.map((r: { id: number }) => r.id);
        assert.ok(ids.includes(r1.id) && ids.includes(r2.id));
        assert.ok(!ids.includes(r3.id));
        assertError(await api('GET', `/api/reports.php?id=${r3.id}`, me), 404, 'REPORT_NOT_FOUND');
        assertError(await api('GET', `/api/reports.php?id=${r1.id}`, stranger), 404, 'REPORT_NOT_FOUND');
        assertError(await api('GET', '/api/reports.php?id=999999', stranger), 404, 'REPORT_NOT_FOUND');
        const admin = await caller(['read'], true);
        const all = (await api('GET', '/api/reports.php?limit=500', admin)).json().items.map((r: { id: number }) => r.id);
        assert.ok([r1.id, r2.id, r3.id].every((id) => all.includes(id)));
      });

      test('entries carry parent_ref, page_count and status; filters by object, status and text work', async () => {
        const me = await caller();
        const { order, report } = await fullReport(me);
        const other = await newReport(me, { fk_element: order.id, title: 'Zweiter Bericht Wartung' });
        const res = await api('GET', `/api/reports.php?element_type=commande&fk_element=${order.id}`, me);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.total, 2);
        const entry = body.items.find((r: { id: number }) => r.id === report.id);
        assert.equal(entry.parent_ref, order.ref);
        assert.equal(entry.page_count, 4);
        assert.equal(entry.status, 'draft');
        assert.match(entry.ref, /^BR\d{4}-\d{4}$/);
        assert.equal(body.items[0].id, other.id, 'newest first');
        const search = (await api('GET', `/api/reports.php?q=${encodeURIComponent('wartung')}&fk_element=${order.id}`, me)).json();
        assert.deepEqual(
          search.items.map((r: { id: number }) => r.id),
          [other.id],
        );
        assert.equal((await finalize(me, report.id)).statusCode, 200);
        const finals = (await api('GET', `/api/reports.php?status=final&fk_element=${order.id}`, me)).json();
        assert.deepEqual(
          finals.items.map((r: { id: number }) => r.id),
          [report.id],
        );
        const detail = (await api('GET', `/api/orders.php?id=${order.id}`, me)).json();
        assert.deepEqual(detail.reports.map((r: { id: number }) => r.id).sort(), [report.id, other.id].sort());
      });

      test("q finds a report by its ref, title or template label, or by its parent's ref, whatever the parent's kind", async () => {
        const me = await caller();
        const word = `Such${Date.now().toString(36)}`;
        const order = await ctx.make.order({ author: me.id, ref: `CO-${word}-1` });
        const invoice = await ctx.make.invoice({ author: me.id, ref: `FA-${word}-2` });
        // Refs outside the BR numbering, which the service continues from the highest number.
        const onOrder = await ctx.make.report({ creator: me.id, elementType: 'commande', element: order.id, ref: `T-${word}-a` });
        const onInvoice = await ctx.make.report({ creator: me.id, elementType: 'facture', element: invoice.id, ref: `T-${word}-b` });
        // A report whose element_type names another table than the order's id belongs to: no match through that order.
        await ctx.make.report({ creator: me.id, elementType: 'propal', element: order.id, ref: 'T-x-c' });
        const titled = await ctx.make.report({
          creator: me.id,
          elementType: 'commande',
          element: (await ctx.make.order({ author: me.id })).id,
          ref: 'T-x-d',
        });
        await ctx.handle.db
          .updateTable('bericht')
          .set({ title: `Prüfung ${word.toUpperCase()}` })
          .where('rowid', '=', titled.id)
          .execute();
        const found = async (q: string) => {
          const res = await api('GET', `/api/reports.php?q=${encodeURIComponent(q)}`, me);
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json() as { items: Array<{ id: number }>; total: number };
          assert.equal(body.total, body.items.length);
          return body.items.map((r) => r.id).sort((a, b) => a - b);
        };
        assert.deepEqual(
          await found(word.toLowerCase()),
          [onOrder.id, onInvoice.id, titled.id].sort((a, b) => a - b),
        );
        assert.deepEqual(await found(`CO-${word}-1`), [onOrder.id]);
        assert.deepEqual(await found(`fa-${word}`), [onInvoice.id]);
        assert.deepEqual(await found(`${word}-b`), [onInvoice.id]);
      });

      test('bad queries are 400; no token 401; no read right 403', async () => {
        const me = await caller();
        for (const q of ['id=abc', 'id=0', 'limit=0', 'limit=501', 'status=done', 'element_type=societe', `q=${'x'.repeat(101)}`]) {
          assertError(await api('GET', `/api/reports.php?${q}`, me), 400, 'VALIDATION_FAILED');
        }
        assertError(await api('GET', '/api/reports.php?action=finalize&id=1', me), 400, 'ACTION_UNKNOWN');
        assertError(await api('GET', '/api/reports.php', null), 401, 'AUTH_TOKEN_MISSING');
        const noRead = await ctx.make.user({ rights: [] });
        const login = await ctx.app.inject({
          method: 'POST',
          url: '/api/auth.php',
          payload: { login: noRead.login, password: noRead.password },
        });
        assert.equal(login.statusCode, 403);
      });
    });

    describe('create', () => {
      test('on an order, invoice or proposal the caller sees; refs BR<yy><mm>-<nnnn> in sequence', async () => {
        const me = await caller();
        const order = await ctx.make.order({ author: me.id });
        const invoice = await ctx.make.invoice({ author: me.id });
        const proposal = await ctx.make.proposal({ author: me.id });
        const a = await newReport(me, { fk_element: order.id, title: 'A', format: 'A5', orientation: 'landscape' });
        const b = await newReport(me, { element_type: 'facture', fk_element: invoice.id, title: 'B' });
        const c = await newReport(me, { element_type: 'propal', fk_element: proposal.id, title: 'C' });
        const now = new Date();
        const prefix = `BR${String(now.getUTCFullYear() % 100).padStart(2, '0')}${String(now.getUTCMonth() + 1).padStart(2, '0')}-`;
        for (const r of [a, b, c]) assert.ok(r.ref.startsWith(prefix), r.ref);
        const n = (ref: string) => Number(ref.slice(prefix.length));
        assert.equal(n(b.ref), n(a.ref) + 1);
        assert.equal(n(c.ref), n(b.ref) + 1);
        assert.deepEqual([a.format, a.orientation, a.status, a.version, a.page_count], ['A5', 'landscape', 'draft', 1, 0]);
        assert.deepEqual([b.element_type, b.parent_ref, c.element_type, c.parent_ref], ['facture', invoice.ref, 'propal', proposal.ref]);
        assert.equal(b.format, 'A4');
        assert.equal(b.orientation, 'portrait');
      });

      test('ten creates at once get ten different refs', async () => {
        const me = await caller();
        const order = await ctx.make.order({ author: me.id });
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: `Parallel ${i}` }),
          ),
        );
        for (const r of results) assert.equal(r.statusCode, 201, r.body);
        const refs = results.map((r) => r.json().ref);
        assert.equal(new Set(refs).size, 10);
      });

      test('invalid input is 400 and creates nothing; foreign objects 404; rights 403', async () => {
        const me = await caller();
        const order = await ctx.make.order({ author: me.id });
        const count = async () =>
          Number(
            (
              await ctx.handle.db
                .selectFrom('bericht')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        const before = await count();
        const bad: unknown[] = [
          {},
          { fk_element: order.id },
          { fk_element: order.id, title: '' },
          { fk_element: String(order.id), title: 'x' },
          { fk_element: order.id, title: 'x', format: 'A7' },
          { fk_element: order.id, title: 'x', format: 'a4' },
          { fk_element: order.id, title: 'x', orientation: 'sideways' },
          { fk_element: order.id, title: 'x'.repeat(256) },
          { fk_element: order.id, title: 'x', element_type: 'societe' },
          { fk_element: order.id, title: 'x', unknown: 1 },
          { fk_element: order.id, title: 7 },
          [1, 2],
        ];
        for (const body of bad) assertError(await api('POST', '/api/reports.php?action=create', me, body), 400, 'VALIDATION_FAILED');
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'x', odt_template: 'fehlt.odt' }),
          400,
          'ODT_TEMPLATE_NOT_FOUND',
        );
        assertError(await api('POST', '/api/reports.php?action=explode', me, { fk_element: order.id, title: 'x' }), 400, 'ACTION_UNKNOWN');
        assertError(await api('POST', '/api/reports.php', me, { fk_element: order.id, title: 'x' }), 400, 'ACTION_UNKNOWN');
        const foreign = await ctx.make.order({ author: null });
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: foreign.id, title: 'x' }),
          404,
          'ORDER_NOT_FOUND',
        );
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { element_type: 'facture', fk_element: order.id + 100000, title: 'x' }),
          404,
          'OBJECT_NOT_FOUND',
        );
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'x', template_id: 999999 }),
          404,
          'TEMPLATE_NOT_FOUND',
        );
        const reader = await caller(['read']);
        const readersOrder = await ctx.make.order({ author: reader.id });
        assertError(
          await api('POST', '/api/reports.php?action=create', reader, { fk_element: readersOrder.id, title: 'x' }),
          403,
          'AUTH_RIGHT_MISSING',
        );
        const huge = await ctx.app.inject({
          method: 'POST',
          url: '/api/reports.php?action=create',
          headers: { ...me.headers, 'content-type': 'application/json' },
          payload: JSON.stringify({ fk_element: order.id, title: 'x', pad: 'y'.repeat(2 * 1024 * 1024) }),
        });
        assertError(huge, 413, 'BODY_TOO_LARGE');
        assert.equal(await count(), before);
      });
    });

    describe('finalize', () => {
      test('writes the PDF into the work area, its ecm_files row, and makes the report final; its pages are then fixed', async (t) => {
        const me = await caller();
        const { report } = await fullReport(me);
        const res = await finalize(me, report.id);
        assert.equal(res.statusCode, 200, res.body);
        const done = res.json();
        assert.equal(done.status, 'final');
        assert.equal(done.final_pdf_path, `bericht/${report.ref}/${report.ref}.pdf`);
        const file = path.join(ctx.config.dataRoot, done.final_pdf_path);
        const bytes = await readFile(file);
        assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
        assert.deepEqual(await readdir(workDir(report.ref)), [`${report.ref}.pdf`], 'no temporary file is left');
        const ecm = await ctx.handle.db.selectFrom('ecm_files').selectAll().where('filepath', '=', `bericht/${report.ref}`).execute();
        assert.equal(ecm.length, 1);
        assert.equal(ecm[0]!.filename, `${report.ref}.pdf`);
        assert.equal(ecm[0]!.gen_or_uploaded, 'generated');
        assert.equal(ecm[0]!.fullpath_orig, '', 'a generated document has no original name, as Dolibarr writes it');
        assert.equal(ecm[0]!.label, createHash('md5').update(bytes).digest('hex'));
        assert.equal(ecm[0]!.src_object_type, 'bericht');
        assert.equal(Number(ecm[0]!.src_object_id), report.id);

        // A final report's pages cannot change, and it cannot be finalized twice.
        const page = done.pages[0];
        assertError(await api('POST', `/api/pages.php?id=${page.id}`, me, { note: 'später' }), 409, 'REPORT_FINAL');
        assertError(await api('DELETE', `/api/pages.php?id=${page.id}`, me), 409, 'REPORT_FINAL');
        assertError(await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'neu' }), 409, 'REPORT_FINAL');
        assertError(
          await api('POST', `/api/pages.php?action=reorder&bericht_id=${report.id}`, me, {
            order: done.pages.map((p: { id: number }) => p.id).reverse(),
          }),
          409,
          'REPORT_FINAL',
        );
        assertError(await finalize(me, report.id), 409, 'REPORT_FINAL');
        assert.deepEqual(await readFile(file), bytes, 'the final PDF is untouched');
        await assertPdfA1b(t, file, 'final PDF: photos, before/after, title page');

        if (pdfToolsMissing) return t.skip(pdfToolsMissing);
        const info = await pdfInfo(file);
        assert.equal(
          info.pages,
          3,
          'no cover sheet chosen, 4 to a sheet (the default): the summary, one sheet for the 4 pages, the evidence sheet',
        );
        assert.ok(
          info.sizes.every((s) => near(s.width, A4.width) && near(s.height, A4.height)),
          JSON.stringify(info.sizes),
        );
        const text = await pdfText(file);
        for (const expected of [
          'Zusammenfassung: Prüfung der Heizungsanlage – Ölbrenner',
          'Brennraum: Maße ÄÖÜß',
          'Ruß an der Düse entfernt',
          'Vorher',
          'Nachher',
          'Wärmetauscher gereinigt',
          'Übergabe an den Kunden',
          'Seite 1 / 3',
          'Seite 2 / 3',
          'Nachweisblatt',
          'Seite 3 / 3',
        ]) {
          assert.ok(text.includes(expected), `PDF text lacks "${expected}"`);
        }
      });

      test('A5 landscape pages are A5 landscape; one to a sheet gives the summary and a sheet per page', async (t) => {
        if (pdfToolsMissing) return t.skip(pdfToolsMissing);
        const me = await caller();
        const { report } = await fullReport(me, { format: 'A5', orientation: 'landscape', photos_per_sheet: 1 });
        const res = await finalize(me, report.id);
        assert.equal(res.statusCode, 200, res.body);
        const file = path.join(ctx.config.dataRoot, res.json().final_pdf_path);
        const info = await pdfInfo(file);
        // The summary, 4 page sheets, then the evidence sheet (over more than one A5 sheet).
        const sheets = (await pdfText(file)).split('\f').slice(0, -1);
        assert.equal(
          sheets.findIndex((text) => text.includes('Nachweisblatt')),
          5,
        );
        assert.ok(info.pages >= 6 && info.pages <= 8, `${info.pages} sheets`);
        assert.ok(
          info.sizes.every((s) => near(s.width, A5.height) && near(s.height, A5.width)),
          JSON.stringify(info.sizes),
        );
        await assertPdfA1b(t, file, 'final PDF, A5 landscape');
      });

      test('an empty report, a missing photo or a corrupt photo leave a draft and no file', async () => {
        const me = await caller();
        const order = await orderWithPhotos(me, ['a.jpg', 'b.jpg']);
        const empty = await newReport(me, { fk_element: order.id, title: 'Leer' });
        assertError(await finalize(me, empty.id), 409, 'REPORT_EMPTY');

        const gone = await newReport(me, { fk_element: order.id, title: 'Foto fehlt' });
        await addPage(me, gone.id, { source: 'a.jpg' });
        const { rm } = await import('node:fs/promises');
        await rm(path.join(order.dir, 'a.jpg'));
        const missing = await finalize(me, gone.id);
        assertError(missing, 409, 'REPORT_SOURCE_MISSING');
        assert.deepEqual(missing.json().details.missing, [{ page: 1, source: `commande/${order.ref}/a.jpg` }]);

        const broken = await newReport(me, { fk_element: order.id, title: 'Foto kaputt' });
        await addPage(me, broken.id, { source: 'b.jpg' });
        await writeFile(path.join(order.dir, 'b.jpg'), Buffer.from('this is no longer a JPEG'));
        const failed = await finalize(me, broken.id);
        assert.ok(failed.statusCode >= 400 && failed.statusCode < 500, failed.body);

        for (const r of [empty, gone, broken]) {
          const row = await reportRow(r.id);
          assert.equal(Number(row!.status), 0);
          assert.equal(row!.final_pdf_path, null);
          assert.deepEqual(await snapshotFiles(workDir(r.ref)), {}, `no file for ${r.ref}`);
          const ecm = await ctx.handle.db.selectFrom('ecm_files').select('rowid').where('filepath', '=', `bericht/${r.ref}`).execute();
          assert.equal(ecm.length, 0);
        }
      });

      test('two finalizes at once: one wins, the other is 409, one PDF', async () => {
        const me = await caller();
        const { report } = await fullReport(me);
        const [a, b] = await Promise.all([finalize(me, report.id), finalize(me, report.id)]);
        assert.deepEqual([a.statusCode, b.statusCode].sort(), [200, 409]);
        assert.deepEqual(await readdir(workDir(report.ref)), [`${report.ref}.pdf`]);
        const ecm = await ctx.handle.db.selectFrom('ecm_files').select('rowid').where('filepath', '=', `bericht/${report.ref}`).execute();
        assert.equal(ecm.length, 1);
      });

      test('needs the write right and a visible report', async () => {
        const me = await caller();
        const { report } = await fullReport(me);
        const reader = await caller(['read'], true);
        assertError(await finalize(reader, report.id), 403, 'AUTH_RIGHT_MISSING');
        const stranger = await caller();
        assertError(await finalize(stranger, report.id), 404, 'REPORT_NOT_FOUND');
        assertError(await api('POST', '/api/reports.php?action=finalize', me), 400, 'VALIDATION_FAILED');
        assert.equal(Number((await reportRow(report.id))!.status), 0);
      });
    });

    describe('cover sheet', () => {
      test('the ODT cover is filled with the report, order, customer and company and converted by LibreOffice', async (t) => {
        if (!(await libreOfficeAvailable())) return t.skip('LibreOffice (soffice) is not installed');
        if (pdfToolsMissing) return t.skip(pdfToolsMissing);
        const me = await caller();
        await installCoverTemplate();
        const listed = (await api('GET', '/api/odt_templates.php', me)).json();
        assert.ok(
          listed.items.some((i: { name: string }) => i.name === COVER_TEMPLATE_FILENAME),
          JSON.stringify(listed),
        );
        await ctx.make.setConst('MAIN_INFO_SOCIETE_NOM', 'Haustechnik Weiß & Söhne', ctx.config.entity);
        const customer = await ctx.make.thirdParty({ name: 'Müller & Söhne GmbH', town: 'Köln' });
        const order = await ctx.make.order({ author: me.id, customer: customer.id, refClient: 'Best-Ä-77' });
        const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
        await mkdir(folder.dir, { recursive: true });
        await sharp({ create: { width: 800, height: 600, channels: 3, background: '#88a' } })
          .jpeg()
          .toFile(path.join(folder.dir, 'foto.jpg'));
        const report = await newReport(me, {
          fk_element: order.id,
          title: 'Prüfbericht Ölheizung',
          odt_template: COVER_TEMPLATE_FILENAME,
        });
        assert.equal(report.odt_template, COVER_TEMPLATE_FILENAME);
        await addPage(me, report.id, { source: 'foto.jpg', title: 'Kessel' });
        await addPage(me, report.id, { layout: 'title_only', title: 'Ende' });
        const res = await finalize(me, report.id);
        assert.equal(res.statusCode, 200, res.body);
        const file = path.join(ctx.config.dataRoot, res.json().final_pdf_path);
        const info = await pdfInfo(file);
        // The cover, then the summary, both pages and the evidence flowing over the sheets after it.
        assert.ok(info.pages >= 2 && info.pages <= 4, `${info.pages} sheets`);
        const pages = (await pdfText(file)).split('\f');
        for (const value of [
          'Prüfbericht Ölheizung',
          report.ref,
          order.ref,
          'Best-Ä-77',
          'Müller & Söhne GmbH',
          'Köln',
          'Haustechnik Weiß & Söhne',
        ]) {
          assert.ok(pages[0]!.includes(value), `cover lacks "${value}": ${pages[0]}`);
        }
        assert.ok(!/\{(bericht|object|company|mycompany)_[a-z_]+\}/.test(pages[0]!), `a placeholder was left: ${pages[0]}`);
        const n = info.pages;
        assert.ok(!pages[0]!.includes(`Seite 1 / ${n}`), 'the cover carries no footer');
        for (let i = 1; i < n; i++) assert.ok(pages[i]!.includes(`Seite ${i + 1} / ${n}`), `sheet ${i + 1} names its number`);
        assert.ok(pages.slice(1, n).join('').includes('Nachweisblatt'), 'the evidence at the end');
        await assertPdfA1b(t, file, 'final PDF with the ODT cover');
      });

      test('without LibreOffice the PDF still comes, with the built-in cover and a warning in the log', async (t) => {
        const lines: string[] = [];
        const stream = new Writable({
          write(chunk, _enc, done) {
            lines.push(String(chunk));
            done();
          },
        });
        const noOffice = await createTestContext(
          dialect,
          { libreOfficeBinary: '/nonexistent/soffice' },
          { logger: { level: 'warn', stream } },
        );
        try {
          await installCoverTemplate(noOffice.config.dataRoot);
          const user = await noOffice.make.user({ rights: ['read', 'write'] });
          const headers = { authorization: `Bearer ${await noOffice.make.token(user)}` };
          const order = await noOffice.make.order({ author: user.id });
          const created = await noOffice.app.inject({
            method: 'POST',
            url: '/api/reports.php?action=create',
            headers,
            payload: { fk_element: order.id, title: 'Ohne Büro', odt_template: COVER_TEMPLATE_FILENAME },
          });
          assert.equal(created.statusCode, 201, created.body);
          const report = created.json();
          await noOffice.app.inject({
            method: 'POST',
            url: `/api/pages.php?action=add&bericht_id=${report.id}`,
            headers,
            payload: { title: 'Seite' },
          });
          const res = await noOffice.app.inject({ method: 'POST', url: `/api/reports.php?id=${report.id}&action=finalize`, headers });
          assert.equal(res.statusCode, 200, res.body);
          assert.ok(
            lines.some((l) => /LibreOffice/.test(l) && /"level":40/.test(l)),
            lines.join(''),
          );
          const file = path.join(noOffice.config.dataRoot, res.json().final_pdf_path);
          await assertPdfA1b(t, file, 'final PDF with the built-in cover');
          if (pdfToolsMissing) return t.skip(pdfToolsMissing);
          // The built-in cover, then the summary, the page and the evidence flowing on.
          assert.ok((await pdfInfo(file)).pages >= 2, 'the cover and what follows');
          const cover = (await pdfText(file)).split('\f')[0]!;
          assert.ok(
            cover.includes('Ohne Büro') && cover.includes(`Bericht ${report.ref}`) && cover.includes(`Auftrag ${order.ref}`),
            cover,
          );
        } finally {
          await noOffice.close();
        }
      });
    });

    describe('versions', () => {
      test('a new version copies the report and its work-area files; the old version stays byte-for-byte as it was', async () => {
        const me = await caller();
        const { order, report } = await fullReport(me);
        // A page whose image lies in the report's own work area (as signature and template images do).
        const own = path.join(workDir(report.ref), 'skizze.png');
        await mkdir(path.dirname(own), { recursive: true });
        await sharp({ create: { width: 300, height: 200, channels: 3, background: '#fff' } })
          .png()
          .toFile(own);
        const extra = await addPage(me, report.id, { title: 'Skizze' });
        await ctx.handle.db
          .updateTable('bericht_page')
          .set({ layout: 'photo', source_path: `bericht/${report.ref}/skizze.png` })
          .where('rowid', '=', extra.id)
          .execute();
        assert.equal((await finalize(me, report.id)).statusCode, 200);

        const rowsBefore = {
          report: await reportRow(report.id),
          pages: await ctx.handle.db.selectFrom('bericht_page').selectAll().where('fk_bericht', '=', report.id).orderBy('rowid').execute(),
        };
        const filesBefore = await snapshotFiles(workDir(report.ref));
        const orderFilesBefore = await snapshotFiles(order.dir);

        const res = await api('POST', `/api/reports.php?id=${report.id}&action=new_version`, me);
        assert.equal(res.statusCode, 201, res.body);
        const v2 = res.json();
        assert.notEqual(v2.id, report.id);
        assert.notEqual(v2.ref, report.ref);
        assert.deepEqual(
          [v2.version, v2.fk_bericht_parent, v2.status, v2.final_pdf_path, v2.title],
          [2, report.id, 'draft', null, report.title],
        );
        assert.equal(v2.pages.length, 5);
        assert.deepEqual(
          v2.pages.map((p: { title: string }) => p.title),
          rowsBefore.pages.map((p) => p.title),
        );
        assert.equal(v2.pages[4].source_path, `bericht/${v2.ref}/skizze.png`, 'work-area images are copied');
        assert.equal(v2.pages[0].source_path, `commande/${order.ref}/vorher.jpg`, 'order attachments stay shared');
        const newFiles = await snapshotFiles(workDir(v2.ref));
        assert.deepEqual(Object.keys(newFiles), ['skizze.png'], 'the old PDF is not copied');
        assert.equal(newFiles['skizze.png'], filesBefore['skizze.png']);
        assert.deepEqual(
          v2.versions.map((v: { id: number; version: number }) => [v.id, v.version]),
          [
            [report.id, 1],
            [v2.id, 2],
          ],
        );

        // Changing the new version does not touch the old one.
        await api('POST', `/api/pages.php?id=${v2.pages[0].id}`, me, { note: 'geändert in Version 2' });
        await api('DELETE', `/api/pages.php?id=${v2.pages[4].id}`, me);
        assert.equal((await finalize(me, v2.id)).statusCode, 200);

        assert.deepEqual(await reportRow(report.id), rowsBefore.report);
        assert.deepEqual(
          await ctx.handle.db.selectFrom('bericht_page').selectAll().where('fk_bericht', '=', report.id).orderBy('rowid').execute(),
          rowsBefore.pages,
        );
        assert.deepEqual(await snapshotFiles(workDir(report.ref)), filesBefore);
        // The order's documents gain the new version's PDF (a copy of its final file) and keep the rest.
        const { [`${v2.ref}.pdf`]: v2Copy, ...orderFilesAfter } = await snapshotFiles(order.dir);
        assert.deepEqual(orderFilesAfter, orderFilesBefore);
        assert.equal(v2Copy, (await snapshotFiles(workDir(v2.ref)))[`${v2.ref}.pdf`]);

        const v3 = (await api('POST', `/api/reports.php?id=${report.id}&action=new_version`, me)).json();
        assert.equal(v3.version, 3, 'the next number of the whole chain, even from version 1');
        const old = (await api('GET', `/api/reports.php?id=${report.id}`, me)).json();
        assert.deepEqual(
          old.versions.map((v: { version: number }) => v.version),
          [1, 2, 3],
        );
      });
    });

    describe('delete', () => {
      test('a draft: rows, work-area folder and its ecm rows go; order attachments stay; versions are relinked', async () => {
        const me = await caller();
        const { order, report } = await fullReport(me);
        const v2 = (await api('POST', `/api/reports.php?id=${report.id}&action=new_version`, me)).json();
        const v3 = (await api('POST', `/api/reports.php?id=${v2.id}&action=new_version`, me)).json();
        const res = await api('DELETE', `/api/reports.php?id=${v2.id}`, me);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { id: v2.id, ref: v2.ref, deleted: true });
        assert.equal(await reportRow(v2.id), undefined);
        assert.equal((await ctx.handle.db.selectFrom('bericht_page').select('rowid').where('fk_bericht', '=', v2.id).execute()).length, 0);
        assert.equal(Number((await reportRow(v3.id))!.fk_bericht_parent), report.id);
        assert.deepEqual(Object.keys(await snapshotFiles(order.dir)).sort(), ['nachher.jpg', 'vorher.jpg']);
        assertError(await api('GET', `/api/reports.php?id=${v2.id}`, me), 404, 'REPORT_NOT_FOUND');
      });

      test("a report whose work-area images other reports' pages show is kept (409)", async () => {
        const me = await caller();
        const { report } = await fullReport(me);
        const other = await newReport(me, { fk_element: report.fk_element, title: 'Zeigt fremdes Bild' });
        const page = await addPage(me, other.id, { title: 'x' });
        const own = path.join(workDir(report.ref), 'geteilt.png');
        await mkdir(path.dirname(own), { recursive: true });
        await sharp({ create: { width: 30, height: 20, channels: 3, background: '#fff' } })
          .png()
          .toFile(own);
        await ctx.handle.db
          .updateTable('bericht_page')
          .set({ layout: 'photo', source_path: `bericht/${report.ref}/geteilt.png` })
          .where('rowid', '=', page.id)
          .execute();
        assertError(await api('DELETE', `/api/reports.php?id=${report.id}`, me), 409, 'CONFLICT');
        assert.ok(await reportRow(report.id));
        assert.ok(Object.keys(await snapshotFiles(workDir(report.ref))).includes('geteilt.png'));
      });

      test('needs the delete right; a final report needs the admin right too', async () => {
        const me = await caller(['read', 'write', 'delete']);
        const { report } = await fullReport(me);
        const writer = await caller(['read', 'write'], true);
        assertError(await api('DELETE', `/api/reports.php?id=${report.id}`, writer), 403, 'AUTH_RIGHT_MISSING');
        assert.equal((await finalize(me, report.id)).statusCode, 200);
        assertError(await api('DELETE', `/api/reports.php?id=${report.id}`, me), 403, 'AUTH_RIGHT_MISSING');
        assert.ok(await reportRow(report.id));
        assert.ok(Object.keys(await snapshotFiles(workDir(report.ref))).length === 1);
        const admin = await caller(['read', 'delete', 'admin']);
        // The module's admin right alone does not show the report: it must be visible too.
        assertError(await api('DELETE', `/api/reports.php?id=${report.id}`, admin), 404, 'REPORT_NOT_FOUND');
        const boss = await caller(['read', 'delete'], true);
        const res = await api('DELETE', `/api/reports.php?id=${report.id}`, boss);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(await snapshotFiles(workDir(report.ref)), {});
        assert.equal(
          (await ctx.handle.db.selectFrom('ecm_files').select('rowid').where('filepath', '=', `bericht/${report.ref}`).execute()).length,
          0,
        );
        assertError(await api('DELETE', '/api/reports.php', boss), 400, 'VALIDATION_FAILED');
        assertError(await api('DELETE', '/api/reports.php?id=x', boss), 400, 'VALIDATION_FAILED');
      });
    });

    describe('attachments in use', () => {
      test("a photo a report's page shows cannot be deleted from the order (409, nothing deleted) until no page shows it", async () => {
        const me = await caller(['read', 'write', 'delete']);
        const order = await orderWithPhotos(me, ['benutzt.jpg', 'frei.jpg']);
        const report = await newReport(me, { fk_element: order.id, title: 'Benutzt' });
        const page = await addPage(me, report.id, { layout: 'before_after', source: 'frei.jpg', source_2: 'benutzt.jpg' });
        const refused = await api('POST', '/api/delete_photo.php', me, { id: order.id, file: 'benutzt.jpg' });
        assertError(refused, 409, 'PHOTO_IN_USE');
        assert.deepEqual(refused.json().details, { reports: [report.ref] });
        assertError(await api('POST', '/api/delete_photo.php', me, { id: order.id, file: 'frei.jpg' }), 409, 'PHOTO_IN_USE');
        assert.deepEqual(Object.keys(await snapshotFiles(order.dir)).sort(), ['benutzt.jpg', 'frei.jpg']);
        // A preview made the print-size copies; deleting the photo takes its copy along.
        assert.equal((await api('GET', `/api/pdf.php?id=${report.id}`, me)).statusCode, 200);
        const cache = path.join(ctx.config.dataRoot, 'bericht', 'temp', 'print');
        const cachedBefore = Object.keys(await snapshotFiles(cache)).length;
        assert.ok(cachedBefore >= 2, `print-size copies made: ${cachedBefore}`);
        assert.equal((await api('DELETE', `/api/pages.php?id=${page.id}`, me)).statusCode, 200);
        const done = await api('POST', '/api/delete_photo.php', me, { id: order.id, file: 'benutzt.jpg' });
        assert.equal(done.statusCode, 200, done.body);
        assert.deepEqual(Object.keys(await snapshotFiles(order.dir)), ['frei.jpg']);
        assert.equal(Object.keys(await snapshotFiles(cache)).length, cachedBefore - 1);
      });
    });

    describe('the PDF endpoint', () => {
      test('a draft gives a preview made now; a final report its stored PDF; inline and frameable', async (t) => {
        const me = await caller();
        const { report } = await fullReport(me);
        const preview = await api('GET', `/api/pdf.php?id=${report.id}`, me);
        assert.equal(preview.statusCode, 200, preview.body.slice(0, 200));
        assert.equal(preview.headers['content-type'], 'application/pdf');
        assert.match(String(preview.headers['content-disposition']), /^inline; filename\*=UTF-8''BR\d{4}-\d{4}-Vorschau\.pdf$/);
        assert.match(String(preview.headers['content-security-policy']), /frame-ancestors/);
        assert.equal(preview.headers['x-frame-options'], undefined);
        assert.equal(preview.rawPayload.subarray(0, 5).toString(), '%PDF-');
        assert.equal((await reportRow(report.id))!.final_pdf_path, null, 'a preview stores nothing');

        const done = (await finalize(me, report.id)).json();
        const stored = await readFile(path.join(ctx.config.dataRoot, done.final_pdf_path));
        const byQuery = await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${report.id}&jwt=${me.token}` });
        assert.equal(byQuery.statusCode, 200);
        assert.deepEqual(byQuery.rawPayload, stored);
        const download = await api('GET', `/api/pdf.php?id=${report.id}&download=1`, me);
        assert.match(String(download.headers['content-disposition']), /^attachment; /);
        const fresh = await api('GET', `/api/pdf.php?id=${report.id}&preview=1`, me);
        assert.equal(fresh.statusCode, 200);
        assert.notDeepEqual(fresh.rawPayload, stored);

        const tmp = path.join(ctx.config.dataRoot, 'preview-check.pdf');
        await writeFile(tmp, preview.rawPayload);
        await assertPdfA1b(t, [tmp, path.join(ctx.config.dataRoot, done.final_pdf_path)], 'preview and final PDF');
        if (pdfToolsMissing) return t.skip(pdfToolsMissing);
        // The summary, a sheet for the 4 pages, the evidence sheet marked as a preview: as many as the final PDF.
        assert.equal((await pdfInfo(tmp)).pages, 3);
        assert.equal((await pdfInfo(path.join(ctx.config.dataRoot, done.final_pdf_path))).pages, 3);
      });

      test('a preview draws a missing photo as a placeholder instead of failing', async (t) => {
        const me = await caller();
        const order = await orderWithPhotos(me, ['weg.jpg']);
        const report = await newReport(me, { fk_element: order.id, title: 'Platzhalter' });
        await addPage(me, report.id, { source: 'weg.jpg', title: 'Foto weg' });
        const { rm } = await import('node:fs/promises');
        await rm(path.join(order.dir, 'weg.jpg'));
        const res = await api('GET', `/api/pdf.php?id=${report.id}`, me);
        assert.equal(res.statusCode, 200);
        const tmp = path.join(ctx.config.dataRoot, 'placeholder-check.pdf');
        await writeFile(tmp, res.rawPayload);
        await assertPdfA1b(t, tmp, 'preview with a placeholder');
        if (pdfToolsMissing) return t.skip(pdfToolsMissing);
        assert.ok((await pdfText(tmp)).includes('Bild fehlt'));
      });

      test('errors: no token 401, not visible 404, bad id 400', async () => {
        const me = await caller();
        const { report } = await fullReport(me);
        assertError(await api('GET', `/api/pdf.php?id=${report.id}`, null), 401, 'AUTH_TOKEN_MISSING');
        assertError(await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${report.id}&jwt=nonsense` }), 401, 'AUTH_TOKEN_INVALID');
        assertError(await api('GET', `/api/pdf.php?id=${report.id}`, await caller()), 404, 'REPORT_NOT_FOUND');
        assertError(await api('GET', '/api/pdf.php', me), 400, 'VALIDATION_FAILED');
        assertError(await api('GET', '/api/pdf.php?id=-1', me), 400, 'VALIDATION_FAILED');
      });
    });
  });
}
