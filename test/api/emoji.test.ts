/**
 * Text from a phone holds emoji and other characters beyond three UTF-8 bytes. On a MariaDB that
 * Dolibarr's installer made (`utf8`, 3 bytes a character: .ci/run makes its database so) they do
 * not fit Dolibarr's own columns: what goes there is fitted (U+FFFD), never a 500. The module's
 * own tables keep them as they are, on every database.
 */
import { sign } from '../helpers/signature.js';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

for (const dialect of testDialects()) {
  describe(`emoji and other 4-byte characters [${dialect}]`, () => {
    let ctx: TestContext;
    let headers: Record<string, string>;
    let order: { id: number; ref: string };
    before(async () => {
      ctx = await createTestContext(dialect);
      const user = await ctx.make.user({ rights: ['read', 'write', 'delete'] });
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
      order = await ctx.make.order({ author: user.id });
    });
    after(async () => ctx?.close());

    /** The character set of a column of Dolibarr's ecm_files on MariaDB/MySQL, else null. */
    async function ecmCharset(column: string): Promise<string | null> {
      if (dialect !== 'mysql') return null;
      const { rows } = await sql<{ cs: string }>`select character_set_name as cs from information_schema.columns
        where table_schema = database() and table_name = ${`${ctx.config.dbPrefix}ecm_files`} and column_name = ${column}`.execute(
        ctx.handle.db,
      );
      return rows[0]?.cs ?? null;
    }

    test('a photo named "Zähler 😀 Foto.jpg": 201, a name without the emoji, the original name as its column can hold it', async () => {
      const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#369' } })
        .jpeg()
        .toBuffer();
      const form = multipart([{ name: 'file', filename: 'Zähler 😀 Foto.jpg', type: 'image/jpeg', data: photo }]);
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/orders.php?id=${order.id}&action=upload_photo`,
        headers: { ...headers, 'content-type': form.contentType },
        payload: form.payload,
      });
      assert.equal(res.statusCode, 201, res.body);
      const name = (res.json() as { name: string }).name;
      assert.equal(name, 'Zahler _ Foto.jpg');
      const row = await ctx.handle.db
        .selectFrom('ecm_files')
        .select(['filename', 'fullpath_orig'])
        .where('filepath', '=', `commande/${order.ref}`)
        .executeTakeFirstOrThrow();
      assert.equal(row.filename, name);
      const charset = await ecmCharset('fullpath_orig');
      const expected = charset === 'utf8' || charset === 'utf8mb3' ? 'Zähler \uFFFD Foto.jpg' : 'Zähler 😀 Foto.jpg';
      assert.equal(row.fullpath_orig, expected, `fullpath_orig in a ${charset ?? dialect} column`);
      if (dialect === 'mysql') console.log(`# ecm_files.fullpath_orig is ${charset} here`);
    });

    test('a report title, a page note, a material line and a signer name with emoji are kept as they are', async (t) => {
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(dir, { recursive: true });
      await sharp({ create: { width: 320, height: 240, channels: 3, background: '#963' } })
        .jpeg()
        .toFile(path.join(dir, 'a.jpg'));
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/api/reports.php?action=create',
        headers,
        payload: { fk_element: order.id, title: 'Wartung 🔧 Heizung' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const report = created.json() as { id: number; title: string };
      assert.equal(report.title, 'Wartung 🔧 Heizung');
      const page = await ctx.app.inject({
        method: 'POST',
        url: `/api/pages.php?action=add&bericht_id=${report.id}`,
        headers,
        payload: { source: 'a.jpg', title: 'Vorher 📷', note: 'Alles dicht 👍' },
      });
      assert.equal(page.statusCode, 201, page.body);
      assert.equal((page.json() as { note: string }).note, 'Alles dicht 👍');

      const material = await ctx.app.inject({
        method: 'POST',
        url: '/api/materials.php',
        headers,
        payload: { element_type: 'commande', fk_element: order.id, label: 'Kupferrohr 🔩 15 mm', qty: 2 },
      });
      assert.equal(material.statusCode, 201, material.body);
      const lines = await ctx.app.inject({
        method: 'GET',
        url: `/api/materials.php?element_type=commande&fk_element=${order.id}`,
        headers,
      });
      assert.equal((lines.json() as { items: Array<{ label: string }> }).items[0]!.label, 'Kupferrohr 🔩 15 mm');

      const signed = await sign(ctx.app, headers, report.id, 'Erika 😀 Müller');
      assert.equal(signed.statusCode, 201, signed.body);
      assert.match((signed.json() as { note: string }).note, /Erika 😀 Müller/);
      const row = await ctx.handle.db
        .selectFrom('bericht_signature')
        .select('signer_name')
        .where('fk_bericht', '=', report.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.signer_name, 'Erika 😀 Müller');

      const finalized = await ctx.app.inject({ method: 'POST', url: `/api/reports.php?id=${report.id}&action=finalize`, headers });
      assert.equal(finalized.statusCode, 200, finalized.body);
      // DejaVu Sans has no emoji: the PDF shows U+FFFD, not the font's .notdef glyph PDF/A forbids.
      await assertPdfA1b(
        t,
        path.join(ctx.config.dataRoot, (finalized.json() as { final_pdf_path: string }).final_pdf_path),
        'final PDF with emoji',
      );
      // Dolibarr's event of the finalize holds the title as its column can.
      const event = await ctx.handle.db
        .selectFrom('actioncomm')
        .select(['label', 'note'])
        .where('code', '=', 'AC_BERICHT_VALIDATE')
        .where('fk_element', '=', order.id)
        .executeTakeFirstOrThrow();
      const utf8mb3 = ['utf8', 'utf8mb3'].includes(
        (
          await sql<{ cs: string | null }>`select character_set_name as cs from information_schema.columns
        where table_schema = database() and table_name = ${`${ctx.config.dbPrefix}actioncomm`} and column_name = 'note'`
            .execute(ctx.handle.db)
            .catch(() => ({ rows: [] as Array<{ cs: string | null }> }))
        ).rows[0]?.cs ?? '',
      );
      assert.match(event.note ?? '', utf8mb3 ? /„Wartung \uFFFD Heizung“/ : /„Wartung 🔧 Heizung“/);
    });
  });
}
