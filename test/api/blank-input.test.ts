/**
 * Text a person types is trimmed before it is stored, and what is empty after trimming is refused
 * with a 400 that names the field: report titles, template names, page titles and notes (a
 * title-only page needs a title), material lines, signer names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

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
      assert.ok(body.details.some((d) => d.field === field), `names ${field}: ${res.body}`);
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

    test('a blank material line is refused; its text is trimmed', async () => {
      assertBlank(await post('/api/materials.php', { element_type: 'commande', fk_element: order.id, label: '    ', qty: 1 }), 'body.label');
      const res = await post('/api/materials.php', { element_type: 'commande', fk_element: order.id, label: ' Kupferrohr ', qty: 1, unit: ' m ', note: ' ' });
      assert.equal(res.statusCode, 201, res.body);
      const line = res.json() as { label: string; unit: string; note: string | null };
      assert.deepEqual([line.label, line.unit], ['Kupferrohr', 'm']);
    });
  });
}
