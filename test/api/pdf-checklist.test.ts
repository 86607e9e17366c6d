/**
 * A maintenance visit on paper, through the service on every database: a checklist with a defect,
 * a value outside its limits, a value within, a not-applicable item and one left unchecked, a photo
 * the defect points at, and time on site (tapped and entered by hand). The final PDF's text holds,
 * in this order: the time on site with its total, then the checklist once, as its page: every
 * item's result, value and limit, the defect's note and photo, the reason for an OK outside its
 * limit. With one page a sheet the summary lists the defects first. It passes PDF/A-1b. Finalizing takes the intervals it printed (a
 * later report does not show them again, and they no longer change); a checklist of 200 items with
 * long notes goes on over several sheets and loses nothing.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { inOrder, pdfBytesText, pdfInfo, pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

const ITEMS = [
  { label: 'Sichtprüfung Heizgerät' },
  { label: 'Abgasleitung dicht' },
  { label: 'Anlagendruck', unit: 'bar', lower: 1, upper: 2 },
  { label: 'CO im Abgas', unit: 'ppm', upper: 1000 },
  { label: 'Abgasverlust', unit: '%', upper: 10 },
  { label: 'Kondensatpumpe' },
  { label: 'Übergabe an den Kunden' },
];
const DEFECT_NOTE = 'Abgasleitung im Dachboden undicht, Dichtung porös';
/** "OK trotz Grenzwert": why a flue gas loss over its limit is accepted. */
const OK_REASON = 'Kessel noch nicht warm; Messung wird wiederholt';

for (const dialect of testDialects()) {
  describe(`checklists and time on site in the report PDF [${dialect}]`, { skip: pdfToolsMissing }, () => {
    let ctx: TestContext;
    let headers: Record<string, string>;
    let me: number;
    before(async () => {
      ctx = await createTestContext(dialect);
      const user = await ctx.make.user({ rights: ['read', 'write'], firstname: 'Max', lastname: 'Mustermann' });
      me = user.id;
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
    });
    after(async () => ctx?.close());

    async function call<T = Record<string, unknown>>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> {
      const res = await ctx.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json() as T;
    }

    /** An order with a photo, a report with a checklist page (first) and that photo as a page. */
    async function visit(items: object[] = ITEMS) {
      const order = await ctx.make.order({ author: me });
      const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
      await mkdir(folder.dir, { recursive: true });
      await writeFile(
        path.join(folder.dir, 'Abgasleitung.jpg'),
        await sharp({ create: { width: 320, height: 240, channels: 3, background: '#884422' } })
          .jpeg()
          .toBuffer(),
      );
      const report = await call<{ id: number }>('POST', '/api/reports.php?action=create', {
        fk_element: order.id,
        title: 'Wartung',
        odt_template: null,
        photos_per_sheet: 4,
      });
      const checklist = await call<{ id: number }>('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, {
        layout: 'checklist',
        title: 'Wartungscheckliste',
        checklist: items,
      });
      await call('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, { layout: 'title_only', title: 'Arbeiten' });
      await call('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, { source: 'Abgasleitung.jpg', title: 'Undichte Stelle' });
      return { order, report: report.id, page: checklist.id };
    }

    const check = (page: number, body: object) => call('POST', `/api/pages.php?action=check&id=${page}`, body);

    test('defects first, every item with its result and value, time on site with its total; PDF/A-1b', async (t) => {
      const { order, report, page } = await visit();
      await check(page, { item: 1, state: 'ok' });
      await check(page, { item: 2, state: 'defect', note: DEFECT_NOTE, photos: ['Abgasleitung.jpg'] });
      await check(page, { item: 3, state: 'ok', value: 1.6 });
      await check(page, { item: 4, state: 'ok', value: 12 });
      await check(page, { item: 5, state: 'ok', value: 11.4, ok_reason: OK_REASON });
      await check(page, { item: 6, state: 'na' });
      const now = Math.floor(Date.now() / 1000);
      const element = { element_type: 'commande', fk_element: order.id };
      await call('POST', '/api/times.php?action=arrive', { ...element, at: now - 3 * 3600 });
      await call('POST', '/api/times.php?action=leave', { ...element, at: now - 2 * 3600 - 5 * 60 });
      await call('POST', '/api/times.php?action=add', {
        ...element,
        arrival: now - 3600,
        departure: now - 1800,
        reason: 'Rückfahrt vom Großhandel, Tippen vergessen',
      });
      // Still on site at finalizing: not printed, not taken.
      await call('POST', '/api/times.php?action=arrive', { ...element, at: now - 60 });

      const final = await call<{ final_pdf_path: string; status: string }>('POST', `/api/reports.php?id=${report}&action=finalize`);
      assert.equal(final.status, 'final');
      const file = path.join(ctx.config.dataRoot, final.final_pdf_path);
      const text = await pdfText(file);
      const positions = inOrder(text, [
        // The summary: time on site with its total (the checklist, the first page, follows and counts itself).
        'Zeit vor Ort',
        'Ankunft',
        'Abfahrt',
        'Dauer',
        '55 min',
        '30 min',
        'von Hand erfasst: Rückfahrt vom Großhandel',
        'Gesamt',
        '1 h 25 min',
        // The checklist, once: every item with its result, value and limit, the defect's note and photo, the reason.
        'Wartungscheckliste',
        '7 Punkte, 1 Mangel, 1 nicht geprüft',
        'Grenzwert',
        'Sichtprüfung Heizgerät',
        '✓ OK',
        'Abgasleitung dicht',
        '✗ Mangel',
        DEFECT_NOTE.slice(0, 30),
        'Fotos: Foto 1',
        'Anlagendruck',
        '✓ OK',
        '1,6 bar',
        '1 – 2 bar',
        'CO im Abgas',
        '✓ OK',
        '12 ppm',
        '≤ 1.000 ppm',
        'Abgasverlust',
        '✓ OK trotz',
        '11,4 % ▲',
        '≤ 10 %',
        `Begründung: ${OK_REASON}`,
        'Kondensatpumpe',
        '– n. z.',
        'Übergabe an den Kunden',
        '○ nicht',
        'Foto 1 – Undichte Stelle',
      ]);
      assert.ok(
        positions.every((p) => p >= 0),
        `in order: ${JSON.stringify(positions)}\n${text}`,
      );
      assert.equal(text.split('Sichtprüfung Heizgerät').length - 1, 1, 'the checklist printed once');
      await assertPdfA1b(t, file, 'a report with a checklist and time on site');

      // The report took the two closed intervals, not the open one; they no longer change.
      const times = await ctx.handle.db
        .selectFrom('bericht_time')
        .select(['rowid', 'fk_bericht', 'departure'])
        .where('fk_element', '=', order.id)
        .orderBy('rowid')
        .execute();
      assert.deepEqual(
        times.map((r) => (r.fk_bericht === null ? null : Number(r.fk_bericht))),
        [report, report, null],
      );
      const refused = await ctx.app.inject({
        method: 'POST',
        url: `/api/times.php?id=${times[0]!.rowid}`,
        headers,
        payload: { arrival: now - 4 * 3600, reason: 'zu spät' },
      });
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().code, 'TIME_REPORTED');
      const shown = await call<{ total_seconds: number; items: unknown[] }>('GET', `/api/times.php?bericht_id=${report}`);
      assert.equal(shown.items.length, 2);
      assert.equal(shown.total_seconds, 55 * 60 + 30 * 60);

      // The next visit's report shows only what came after.
      await call('POST', '/api/times.php?action=leave', { ...element });
      const next = await call<{ id: number }>('POST', '/api/reports.php?action=create', {
        fk_element: order.id,
        title: 'Nachkontrolle',
        odt_template: null,
      });
      await call('POST', `/api/pages.php?action=add&bericht_id=${next.id}`, { layout: 'title_only', title: 'Nachkontrolle' });
      const later = await call<{ items: Array<{ id: number }> }>('GET', `/api/times.php?bericht_id=${next.id}`);
      assert.deepEqual(
        later.items.map((i) => i.id),
        [Number(times[2]!.rowid)],
      );
      const preview = await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${next.id}&preview=1`, headers });
      const previewText = pdfBytesText(preview.rawPayload, ctx.config.dataRoot);
      assert.match(previewText, /Zeit vor Ort/);
      assert.doesNotMatch(previewText, /Rückfahrt vom Großhandel/, 'an interval of the earlier report');

      // One page a sheet: the checklist comes on a later sheet, so the summary lists what was found.
      const again = await call<{ id: number }>('POST', `/api/reports.php?id=${report}&action=new_version`);
      await call('POST', `/api/reports.php?id=${again.id}&action=update`, { photos_per_sheet: 1 });
      const single = pdfBytesText(
        (await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${again.id}&preview=1`, headers })).rawPayload,
        ctx.config.dataRoot,
      );
      const found = inOrder(single, [
        'Mängel und Abweichungen',
        'Wartungscheckliste: 7 Punkte, 1 Mangel, 1 nicht geprüft',
        '2. Abgasleitung dicht',
        '✗ Mangel',
        '5. Abgasverlust',
        '✓ OK trotz Grenzwert · 11,4 % – über dem Grenzwert',
        'Wartungscheckliste',
        'Sichtprüfung Heizgerät',
      ]);
      assert.ok(
        found.every((p) => p >= 0),
        `one page a sheet, in order: ${JSON.stringify(found)}\n${single}`,
      );
    });

    test("in the customer's language: an English customer's PDF says defects, results and time on site in English", async () => {
      const { order, report, page } = await visit();
      const customer = await ctx.handle.db.selectFrom('commande').select('fk_soc').where('rowid', '=', order.id).executeTakeFirstOrThrow();
      await ctx.handle.db.updateTable('societe').set({ default_lang: 'en_GB' }).where('rowid', '=', Number(customer.fk_soc)).execute();
      await check(page, { item: 2, state: 'defect', note: 'Leaking joint' });
      await check(page, { item: 5, state: 'ok', value: 11.4, ok_reason: 'Boiler still cold; measure again at the next visit' });
      await check(page, { item: 6, state: 'na' });
      const now = Math.floor(Date.now() / 1000);
      await call('POST', '/api/times.php?action=add', {
        element_type: 'commande',
        fk_element: order.id,
        arrival: now - 5400,
        departure: now - 3600,
        reason: 'Forgot to tap',
      });
      const preview = await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${report}&preview=1`, headers });
      const text = pdfBytesText(preview.rawPayload, ctx.config.dataRoot);
      const positions = inOrder(text, [
        'Time on site',
        'Arrived',
        'Left',
        'Duration',
        'entered by hand: Forgot to tap',
        'Total',
        '30 min',
        'Wartungscheckliste',
        '7 items, 1 defect, 4 not checked',
        'Limit',
        '✗ Defect',
        'Leaking joint',
        '≤ 1,000 ppm',
        '✓ OK',
        'despite the',
        'Reason: Boiler still cold',
        '– N/A',
        '○ not checked',
      ]);
      assert.ok(
        positions.every((p) => p >= 0),
        `in order: ${JSON.stringify(positions)}\n${text}`,
      );
      assert.doesNotMatch(text, /Mängel|Prüfpunkt|Zeit vor Ort|nicht geprüft/);
    });

    test('a checklist of 200 items with long notes goes on over the next sheets and loses nothing', async (t) => {
      const items = Array.from({ length: 200 }, (_, i) => ({
        label: `Prüfpunkt Nummer ${i + 1}`,
        unit: i % 5 === 0 ? 'bar' : null,
        lower: i % 5 === 0 ? 1 : null,
        upper: i % 5 === 0 ? 2 : null,
      }));
      const { report, page } = await visit(items);
      const long = (n: number) => `Befund ${n}: ${'Die Dichtung ist porös und muss ersetzt werden. '.repeat(40)}Ende ${n}.`;
      await check(page, { item: 1, state: 'defect', note: long(1), value: 2.5 });
      await check(page, { item: 150, state: 'defect', note: long(150) });
      const final = await call<{ final_pdf_path: string }>('POST', `/api/reports.php?id=${report}&action=finalize`);
      const file = path.join(ctx.config.dataRoot, final.final_pdf_path);
      const text = await pdfText(file);
      for (const n of [1, 150]) {
        assert.equal(text.split(`Ende ${n}.`).length - 1, 1, `the whole note of item ${n}, once, on the checklist page`);
      }
      for (const n of [1, 77, 199, 200]) assert.ok(text.includes(`Prüfpunkt Nummer ${n}`), `item ${n}`);
      assert.match(text, /Prüfpunkt \(Fortsetzung\)/, 'the table goes on under its header');
      assert.ok((await pdfInfo(file)).pages >= 8, 'several sheets');
      await assertPdfA1b(t, file, 'a checklist of 200 items');
      assert.ok((await readFile(file)).length < 2_000_000);
    });
  });
}
