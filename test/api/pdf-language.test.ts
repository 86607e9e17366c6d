/**
 * The report PDF in the customer's language: Dolibarr's llx_societe.default_lang (en_US, en_GB …)
 * gives English fixed texts, anything else or none German; the person's words are printed as typed.
 * Through the service on every database, read back with pdftotext, checked as PDF/A-1b.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';
import { sign } from '../helpers/signature.js';

for (const dialect of testDialects()) {
  describe(`PDF in the customer's language [${dialect}]`, { skip: pdfToolsMissing }, () => {
    let ctx: TestContext;
    let headers: Record<string, string>;
    let tmp: string;
    let me: number;
    before(async () => {
      ctx = await createTestContext(dialect);
      const user = await ctx.make.user({ rights: ['read', 'write'] });
      me = user.id;
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
      tmp = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-pdf-language-'));
    });
    after(async () => {
      await ctx?.close();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    /** A signed report with a section and a material line for a customer of `lang`; its final PDF's text. */
    async function finalText(lang: string | null, t: Parameters<typeof assertPdfA1b>[0]): Promise<string> {
      const customer = await ctx.make.thirdParty({ name: `Kunde ${lang ?? 'ohne Sprache'}` });
      await ctx.handle.db.updateTable('societe').set({ default_lang: lang }).where('rowid', '=', customer.id).execute();
      const order = await ctx.make.order({ author: me, customer: customer.id });
      const post = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, headers, payload });
      const created = await post('/api/reports.php?action=create', { fk_element: order.id, title: 'Wartung Gastherme' });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id as number;
      assert.equal(
        (await post(`/api/pages.php?action=add&bericht_id=${id}`, { layout: 'title_only', title: 'Sichtprüfung', note: 'Keine Mängel' }))
          .statusCode,
        201,
      );
      const line = await post('/api/materials.php', {
        element_type: 'commande',
        fk_element: order.id,
        label: 'Dichtungssatz',
        qty: 1,
        unit: 'Stk',
      });
      assert.equal(line.statusCode, 201, line.body);
      assert.equal((await sign(ctx.app, headers, id, 'Erika Müller')).statusCode, 201);
      const done = await post(`/api/reports.php?id=${id}&action=finalize`, {});
      assert.equal(done.statusCode, 200, done.body);
      const file = path.join(tmp, `${lang ?? 'none'}.pdf`);
      await writeFile(file, (await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${id}`, headers })).rawPayload);
      await assertPdfA1b(t, file, `final PDF for a customer of language ${lang ?? 'unset'}`);
      return (await pdfText(file)).replace(/\s+/g, ' ');
    }

    test("en_US: the fixed texts in English, the technician's words as typed", async (t) => {
      const text = await finalText('en_US', t);
      for (const word of [
        'Summary: Wartung Gastherme',
        'Materials',
        'Item',
        'Qty',
        'pcs',
        'Dichtungssatz',
        'Signature Erika Müller',
        'Signed by Erika Müller',
        'Sichtprüfung',
        'Keine Mängel',
        'Page 1 of',
      ])
        assert.ok(text.includes(word), `"${word}" in: ${text}`);
      for (const word of ['Zusammenfassung', 'Seite 1', 'Unterzeichner']) assert.ok(!text.includes(word), `no German "${word}"`);
    });

    test('de_DE, and no language: German', async (t) => {
      for (const lang of ['de_DE', null]) {
        const text = await finalText(lang, t);
        for (const word of [
          'Zusammenfassung: Wartung Gastherme',
          'Material',
          'Bezeichnung',
          'Stk',
          'Unterschrift Erika Müller',
          'Unterzeichner Erika Müller',
          'Seite 1 / ',
        ])
          assert.ok(text.includes(word), `"${word}" (${lang})`);
      }
    });
  });
}
