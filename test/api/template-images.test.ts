/**
 * Where a template's images live: the template keeps one copy of each image in its work area
 * (bericht/<template ref>/); a report made from it gets the images under its own names in its
 * own work area as hard links to the same bytes, so using a template a hundred times takes no
 * more space, one image on several pages is one file, and a report keeps its images when the
 * template changes or goes.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

for (const dialect of testDialects()) {
  describe(`a template's images [${dialect}]`, () => {
    let ctx: TestContext;
    let headers: Record<string, string>;
    before(async () => {
      ctx = await createTestContext(dialect);
      const user = await ctx.make.user({ rights: ['read', 'write', 'delete', 'admin'] });
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
    });
    after(async () => ctx?.close());

    const post = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, headers, payload });
    const workArea = (ref: string) => objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', ref).dir;
    const images = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.jpg'));

    test('one file per image in the template; reports made from it share its bytes under their own names', async () => {
      const me = (await ctx.handle.db.selectFrom('user').select('rowid').orderBy('rowid', 'desc').executeTakeFirstOrThrow()).rowid;
      const order = await ctx.make.order({ author: Number(me) });
      const orderDir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(orderDir, { recursive: true });
      await sharp({ create: { width: 320, height: 240, channels: 3, background: '#2a6' } })
        .jpeg()
        .toFile(path.join(orderDir, 'a.jpg'));
      await sharp({ create: { width: 320, height: 240, channels: 3, background: '#a62' } })
        .jpeg()
        .toFile(path.join(orderDir, 'b.jpg'));
      const report = (await post('/api/reports.php?action=create', { fk_element: order.id, title: 'Vorlage-Quelle' })).json() as {
        id: number;
      };
      for (const page of [
        { source: 'a.jpg' },
        { layout: 'before_after', source: 'a.jpg', source_2: 'b.jpg' },
        { source: 'a.jpg', title: 'noch einmal' },
      ]) {
        assert.equal((await post(`/api/pages.php?action=add&bericht_id=${report.id}`, page)).statusCode, 201);
      }
      const template = (await post('/api/templates.php?action=create', { template_label: 'Wartung', from_report: report.id })).json() as {
        id: number;
        ref: string;
      };
      assert.deepEqual(images(workArea(template.ref)).sort(), ['a.jpg', 'b.jpg'], 'one file per image, not a_2.jpg');
      assert.deepEqual(images(orderDir).sort(), ['a.jpg', 'b.jpg'], "nothing copied into the order's folder");

      const made: Array<{ id: number; ref: string }> = [];
      for (let i = 0; i < 3; i++) {
        const res = await post('/api/templates.php?action=create_from_template', { template_id: template.id, fk_element: order.id });
        assert.equal(res.statusCode, 201, res.body);
        made.push(res.json() as { id: number; ref: string });
      }
      const templateA = statSync(path.join(workArea(template.ref), 'a.jpg'));
      for (const r of made) {
        assert.deepEqual(images(workArea(r.ref)).sort(), ['a.jpg', 'b.jpg']);
        assert.equal(statSync(path.join(workArea(r.ref), 'a.jpg')).ino, templateA.ino, 'the same bytes, no copy');
        const detail = (await ctx.app.inject({ method: 'GET', url: `/api/reports.php?id=${r.id}`, headers })).json() as {
          pages: Array<{ source_path: string | null }>;
        };
        assert.deepEqual(
          detail.pages.map((p) => p.source_path),
          [`bericht/${r.ref}/a.jpg`, `bericht/${r.ref}/a.jpg`, `bericht/${r.ref}/a.jpg`],
        );
      }
      assert.equal(statSync(path.join(workArea(template.ref), 'a.jpg')).nlink, 1 + made.length);
      assert.deepEqual(images(orderDir).sort(), ['a.jpg', 'b.jpg'], "still nothing in the order's folder");

      // The template goes; the reports keep their images.
      const removed = await ctx.app.inject({ method: 'DELETE', url: `/api/reports.php?id=${template.id}`, headers });
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal(existsSync(workArea(template.ref)), false);
      for (const r of made) assert.equal((await sharp(path.join(workArea(r.ref), 'a.jpg')).metadata()).width, 320);
    });
  });
}
