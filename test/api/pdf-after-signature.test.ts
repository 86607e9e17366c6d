/**
 * Pages added after a report's last signature are not covered by it: in the preview and in the
 * final PDF each carries, as text, "Nicht von der Unterschrift erfasst: nach der Unterschrift
 * hinzugefügt"; pages before a signature, the signature pages, and reports without a signature
 * are drawn as before. Read back with pdftotext, page by page.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext as NodeTestContext } from 'node:test';
import { AFTER_SIGNATURE_NOTICE } from '../../src/modules/report-pdf/report-pdf.service.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

const NOTICE = 'Nicht von der Unterschrift erfasst: nach der Unterschrift hinzugefügt';

for (const dialect of testDialects()) {
  describe(`PDF pages after the last signature [${dialect}]`, { skip: pdfToolsMissing }, () => {
    let ctx: TestContext;
    let writer: Caller;
    let tmp: string;
    let orderId: number;
    before(async () => {
      ctx = await createTestContext(dialect);
      writer = await caller(['read', 'write']);
      tmp = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-pdf-notice-'));
      const order = await ctx.make.order({ author: writer.id });
      orderId = order.id;
    });
    after(async () => {
      await ctx?.close();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    const { caller, api, newReport, addPage, sign } = testClient(() => ctx);

    /** A draft with `titles` as its pages, one page a sheet unless `perSheet` says otherwise (the PDF's first sheet is the summary). */
    async function draft(titles: string[], perSheet = 1) {
      const id = (await newReport(writer, { fk_element: orderId, title: 'Wartung', photos_per_sheet: perSheet })).id as number;
      for (const title of titles) await addPage(writer, id, { title });
      return id;
    }
    async function signed(id: number, who: string) {
      const res = await sign(writer, id, { signer: who });
      assert.equal(res.statusCode, 201, res.body);
    }
    /** The text of each page of a PDF, read by pdftotext; with `t`, the PDF is checked to be PDF/A-1b, as `label`. */
    async function pagesOf(pdf: Buffer, check?: { t: NodeTestContext; label: string }): Promise<string[]> {
      assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
      const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.pdf`);
      await writeFile(file, pdf);
      if (check) await assertPdfA1b(check.t, file, check.label);
      return (await pdfText(file)).split('\f').slice(0, -1);
    }
    const preview = async (id: number, check?: { t: NodeTestContext; label: string }) =>
      pagesOf((await api('GET', `/api/pdf.php?id=${id}&preview=1`, writer)).rawPayload, check);
    /** For each page: does it carry the notice? */
    const marked = (pages: string[]) => pages.map((text) => text.includes(NOTICE));

    test('the notice is the one the service draws', () => {
      assert.equal(AFTER_SIGNATURE_NOTICE, NOTICE);
    });

    test('a report without a signature: no page carries the notice', async () => {
      const id = await draft(['Eins', 'Zwei']);
      const pages = await preview(id);
      // The summary, the two pages, the evidence sheet.
      assert.equal(pages.length, 4);
      assert.deepEqual(marked(pages), [false, false, false, false]);
      assert.ok(pages[1]!.includes('Eins') && pages[1]!.includes('Seite 2 / 4'), 'the text is read at all');
    });

    test('preview: the pages after the last signature carry it, the pages before and the signature pages do not', async (t) => {
      const id = await draft(['Eins', 'Zwei']);
      await signed(id, 'Erika Müller');
      await addPage(writer, id, { title: 'Nachtrag A' });
      await addPage(writer, id, { title: 'Nachtrag B' });
      let pages = await preview(id, { t, label: 'preview with a signature and notices' });
      // The evidence sheet at the end belongs to no page: it carries no notice.
      assert.deepEqual(marked(pages), [false, false, false, false, true, true, false]);
      assert.ok(pages[4]!.includes('Nachtrag A') && pages[5]!.includes('Nachtrag B'));
      assert.ok(pages[3]!.includes('Unterschrift') && pages[3]!.includes('Erika Müller'), pages[3]);
      // A second signature covers them: only what comes after it is marked.
      await signed(id, 'Max Muster');
      pages = await preview(id);
      assert.deepEqual(marked(pages), [false, false, false, false, false, false, false, false]);
      await addPage(writer, id, { title: 'Nachtrag C' });
      assert.deepEqual(marked(await preview(id)), [false, false, false, false, false, false, false, true, false]);
    });

    test('4 to a sheet: the sheet with the pages added after the signature carries it, the others do not', async () => {
      const id = await draft(['Eins', 'Zwei'], 4);
      await signed(id, 'Erika Müller');
      await addPage(writer, id, { title: 'Nachtrag A' });
      await addPage(writer, id, { title: 'Nachtrag B' });
      const pages = await preview(id);
      // The pages flow (summary, the two pages, the signature, the two late pages, the evidence): a
      // sheet carries the notice exactly when a late page is on it.
      const late = pages.map((p) => p.includes('Nachtrag A') || p.includes('Nachtrag B'));
      assert.ok(late.some(Boolean), 'the late pages are printed');
      assert.deepEqual(marked(pages), late);
    });

    test('the final PDF carries it too, and GET /api/pdf.php serves that file', async (t) => {
      const id = await draft(['Eins']);
      await signed(id, 'Erika Müller');
      await addPage(writer, id, { title: 'Nachtrag' });
      const done = await api('POST', `/api/reports.php?id=${id}&action=finalize`, writer);
      assert.equal(done.statusCode, 200, done.body);
      const pages = await pagesOf((await api('GET', `/api/pdf.php?id=${id}`, writer)).rawPayload, {
        t,
        label: 'final PDF with a signature and a notice',
      });
      // The evidence sheet at the end belongs to no page: it carries no notice.
      assert.deepEqual(marked(pages), [false, false, false, true, false]);
      assert.ok(pages[3]!.includes('Nachtrag') && pages[3]!.includes('Seite 4 / 5'));
      assert.ok(pages[4]!.includes('Nachweisblatt'));
    });
  });
}
