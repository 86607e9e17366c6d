/**
 * Text a person types is trimmed before it is stored, and what is empty after trimming is refused
 * with a 400 that names the field: report titles, template names, page titles and notes (a
 * title-only page needs a title), material lines, signer names. Control characters (NUL …) and
 * direction overrides (U+202E) are refused in all of them, with the field named.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';
import { signaturePng } from '../helpers/signature.js';

for (const dialect of testDialects()) {
  describe(`blank input [${dialect}]`, () => {
    let ctx: TestContext;
    let headers: Record<string, string>;
    let order: { id: number };
    before(async () => {
      ctx = await createTestContext(dialect);
      const user = await ctx.make.user({ rights: ['read', 'write', 'delete', 'admin'] });
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
      order = await ctx.make.order({ author: user.id });
    });
    after(async () => ctx?.close());

    const post = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, headers, payload });

    function assertBlank(res: LightMyRequestResponse, field: string): void {
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json() as { code: string; details: Array<{ field: string }> };
      assert.equal(body.code, 'VALIDATION_FAILED');
      assert.ok(
        body.details.some((d) => d.field === field),
        `names ${field}: ${res.body}`,
      );
    }

    test('a report title of only spaces is refused; a title is stored trimmed', async () => {
      assertBlank(await post('/api/reports.php?action=create', { fk_element: order.id, title: '   ' }), 'body.title');
      assertBlank(await post('/api/reports.php?action=create', { fk_element: order.id, title: '\t\n ' }), 'body.title');
      const res = await post('/api/reports.php?action=create', { fk_element: order.id, title: '  Wartung Heizung  ' });
      assert.equal(res.statusCode, 201, res.body);
      const report = res.json() as { id: number; title: string };
      assert.equal(report.title, 'Wartung Heizung');
      const row = await ctx.handle.db.selectFrom('bericht').select('title').where('rowid', '=', report.id).executeTakeFirstOrThrow();
      assert.equal(row.title, 'Wartung Heizung');
    });

    test('a blank template name is refused', async () => {
      assertBlank(await post('/api/templates.php?action=create', { template_label: '  ' }), 'body.template_label');
      const res = await post('/api/templates.php?action=create', { template_label: ' Standard ', title: ' Wartung ' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal((res.json() as { template_label: string }).template_label, 'Standard');
    });

    test('a title-only page needs a title; page titles and notes are trimmed', async () => {
      const report = (await post('/api/reports.php?action=create', { fk_element: order.id, title: 'Seiten' })).json() as { id: number };
      assertBlank(await post(`/api/pages.php?action=add&bericht_id=${report.id}`, {}), 'body.title');
      assertBlank(await post(`/api/pages.php?action=add&bericht_id=${report.id}`, { title: '   ' }), 'body.title');
      const res = await post(`/api/pages.php?action=add&bericht_id=${report.id}`, { title: '  Abschluss ', note: '  alles dicht  ' });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json() as { id: number; title: string; note: string };
      assert.deepEqual([page.title, page.note], ['Abschluss', 'alles dicht']);
      // Emptying the title of a title-only page is refused too.
      assertBlank(await post(`/api/pages.php?id=${page.id}`, { title: ' ' }), 'body.title');
    });

    test('NUL, other control characters and direction overrides are refused in every text a person types that goes into the PDF, naming the field; tabs, line breaks and emoji stay', async () => {
      const report = (await post('/api/reports.php?action=create', { fk_element: order.id, title: 'Steuerzeichen' })).json() as {
        id: number;
      };
      const checklist = await post(`/api/pages.php?action=add&bericht_id=${report.id}`, {
        layout: 'checklist',
        title: 'Prüfung',
        checklist: [{ label: 'Druck' }],
      });
      assert.equal(checklist.statusCode, 201, checklist.body);
      const page = checklist.json() as { id: number; checklist: Array<{ id: number }> };
      const item = page.checklist[0]!.id;
      const hour = 3600;
      const now = Math.floor(Date.now() / 1000);
      const texts: Array<[string, string]> = [
        ['NUL', 'a\u0000b'],
        ['U+202E', 'Rechnung \u202Efdp.exe'],
        ['ESC', 'rot \u001b[31m'],
        ['DEL', 'x\u007f'],
        ['C1', 'x\u0085'],
        ['isolate', 'x\u2067y'],
        ['vertical tab', 'x\u000by'],
      ];
      for (const [what, bad] of texts) {
        const cases: Array<[string, string, object]> = [
          ['/api/reports.php?action=create', 'body.title', { fk_element: order.id, title: bad }],
          [`/api/pages.php?action=add&bericht_id=${report.id}`, 'body.title', { title: bad }],
          [`/api/pages.php?action=add&bericht_id=${report.id}`, 'body.note', { title: 'Seite', note: bad }],
          [
            `/api/pages.php?action=add&bericht_id=${report.id}`,
            'body.checklist.0.label',
            { layout: 'checklist', checklist: [{ label: bad }] },
          ],
          [`/api/pages.php?action=check&id=${page.id}`, 'body.note', { item, state: 'defect', note: bad }],
          ['/api/materials.php', 'body.label', { element_type: 'commande', fk_element: order.id, label: bad, qty: 1 }],
          ['/api/materials.php', 'body.note', { element_type: 'commande', fk_element: order.id, label: 'Rohr', qty: 1, note: bad }],
          [
            '/api/times.php?action=add',
            'body.reason',
            { element_type: 'commande', fk_element: order.id, arrival: now - 3 * hour, departure: now - 2 * hour, reason: bad },
          ],
          ['/api/templates.php?action=create', 'body.template_label', { template_label: bad }],
        ];
        for (const [url, field, payload] of cases) {
          const res = await post(url, payload);
          assertBlank(res, field);
          assert.match(res.body, /control or bidirectional override characters \(U\+/, `${what} in ${field}: ${res.body}`);
        }
        // The confirmation text of a signature, a form field.
        const form = multipart([
          { name: 'signer_name', type: 'text/plain; charset=utf-8', data: 'Erika Müller' },
          { name: 'confirmation_text', type: 'text/plain; charset=utf-8', data: bad },
          { name: 'file', filename: 'signature.png', type: 'image/png', data: await signaturePng() },
        ]);
        const signed = await ctx.app.inject({
          method: 'POST',
          url: `/api/pages.php?action=signature&bericht_id=${report.id}`,
          headers: { ...headers, 'content-type': form.contentType },
          payload: form.payload,
        });
        assertBlank(signed, 'body.confirmation_text');
      }
      const fine = await post(`/api/pages.php?action=check&id=${page.id}`, {
        item,
        state: 'defect',
        note: 'Zeile 1\r\n\tZeile 2 👨‍👩‍👧 ok',
      });
      assert.equal(fine.statusCode, 200, fine.body);
      const stored = await ctx.handle.db
        .selectFrom('bericht_page')
        .select('checklist')
        .where('rowid', '=', page.id)
        .executeTakeFirstOrThrow();
      assert.match(stored.checklist ?? '', /Zeile 1\\r\\n\\tZeile 2 👨‍👩‍👧 ok/);
      const pages = await ctx.handle.db.selectFrom('bericht_page').select('rowid').where('fk_bericht', '=', report.id).execute();
      assert.equal(pages.length, 1, 'nothing added but the checklist page');
    });

    test('a blank material line is refused; its text is trimmed', async () => {
      assertBlank(
        await post('/api/materials.php', { element_type: 'commande', fk_element: order.id, label: '    ', qty: 1 }),
        'body.label',
      );
      const res = await post('/api/materials.php', {
        element_type: 'commande',
        fk_element: order.id,
        label: ' Kupferrohr ',
        qty: 1,
        unit: ' m ',
        note: ' ',
      });
      assert.equal(res.statusCode, 201, res.body);
      const line = res.json() as { label: string; unit: string; note: string | null };
      assert.deepEqual([line.label, line.unit], ['Kupferrohr', 'm']);
    });
  });
}
