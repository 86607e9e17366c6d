/**
 * A photo deleted through Dolibarr's own document screen (the order's "Verknüpfte Dateien" tab,
 * trash icon, confirm_deletefile) leaves every signed report's check valid, on every database.
 * The deletion is done exactly as Dolibarr 22's core/actions_linkedfiles.inc.php and
 * dol_delete_file do it: the file, its thumbnails `thumbs/<base>_small.<ext>` and `_mini.<ext>`,
 * and its `ecm_files` row (filepath and filename, its entity); nothing of the service's tables.
 * Then the API's verify, the public check behind the QR code and `fieldreport verify` say valid,
 * because the signature kept what it covers in the report's own folder (kept-copies.ts).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';

for (const dialect of testDialects()) {
  describe(`a signed photo deleted in Dolibarr [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    const { caller, api, newReport, addPage, uploadPhoto, sign } = testClient(() => ctx);

    /** A writer who is also the module's admin. */
    const writer = () => caller(['read', 'write', 'delete', 'admin']);

    /** A draft on a fresh order whose photos were uploaded as the app uploads them (file, thumbnails, ecm_files row). */
    async function report(who: Caller) {
      const order = await ctx.make.order({ author: who.id });
      for (const [name, colour] of [
        ['Heizung vorher.jpg', '#a33'],
        ['Heizung nachher.jpg', '#3a3'],
        ['Zaehler.png', '#33a'],
      ] as const) {
        const image = sharp({ create: { width: 640, height: 480, channels: 3, background: colour } });
        const data = await (name.endsWith('.png') ? image.png() : image.jpeg()).toBuffer();
        await uploadPhoto(who, order.id, name, data, { type: name.endsWith('.png') ? 'image/png' : 'image/jpeg' });
      }
      const r: { id: number; ref: string } = await newReport(who, order.id);
      for (const body of [
        { source: 'Heizung vorher.jpg', title: 'Eins' },
        { layout: 'before_after', source: 'Heizung vorher.jpg', source_2: 'Heizung nachher.jpg', title: 'Zwei' },
        { source: 'Zaehler.png', title: 'Drei' },
      ])
        await addPage(who, r.id, body);
      return {
        ...r,
        order,
        orderDir: objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir,
        workDir: objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', r.ref).dir,
      };
    }

    /** What Dolibarr's confirm_deletefile removes for `name` in the order's folder. */
    async function deleteAsDolibarr(order: { ref: string }, orderDir: string, name: string) {
      const ext = path.extname(name);
      const base = name.slice(0, -ext.length);
      await rm(path.join(orderDir, name));
      for (const size of ['small', 'mini']) await rm(path.join(orderDir, 'thumbs', `${base}_${size}${ext}`), { force: true });
      const deleted = await ctx.handle.db
        .deleteFrom('ecm_files')
        .where('filepath', '=', `commande/${order.ref}`)
        .where('filename', '=', name)
        .where('entity', '=', ctx.config.entity)
        .executeTakeFirst();
      assert.equal(Number(deleted.numDeletedRows), 1, `the ecm_files row of ${name}`);
    }

    const publicCheck = (code: string) => ctx.app.inject({ method: 'GET', url: `/public/verify_signature.php?code=${code}` });
    const cliVerify = async (ref: string) => {
      const result = await runCli(['verify', ref], cliEnv(ctx.config));
      return { code: result.code, output: result.stdout + result.stderr };
    };

    test('a signed, final report stays valid for the API, the public check and the CLI when its photos are deleted as Dolibarr deletes them', async () => {
      const me = await writer();
      const r = await report(me);
      const signed = await sign(me, r.id);
      assert.equal(signed.statusCode, 201, signed.body);
      const sig = signed.json() as { id: number; source_path: string };
      const done = await api('POST', `/api/reports.php?id=${r.id}&action=finalize`, me);
      assert.equal(done.statusCode, 200, done.body);
      const meta = JSON.parse(await readFile(path.join(ctx.config.dataRoot, sig.source_path.replace(/\.png$/, '.json')), 'utf8')) as {
        verify_code: string;
      };

      // Dolibarr's document tab of the order lists its photos and the report's PDF, nothing kept for the signature.
      const orderDocs = await ctx.handle.db
        .selectFrom('ecm_files')
        .select('filename')
        .where('filepath', '=', `commande/${r.order.ref}`)
        .execute();
      assert.deepEqual(orderDocs.map((row) => row.filename).sort(), [
        `${r.ref}.pdf`,
        'Heizung nachher.jpg',
        'Heizung vorher.jpg',
        'Zaehler.png',
      ]);
      const originals = new Map<string, Buffer>();
      for (const name of ['Heizung vorher.jpg', 'Heizung nachher.jpg', 'Zaehler.png'])
        originals.set(name, await readFile(path.join(r.orderDir, name)));
      for (const name of originals.keys()) await deleteAsDolibarr(r.order, r.orderDir, name);
      assert.equal(existsSync(path.join(r.orderDir, 'Heizung vorher.jpg')), false);

      const verified = await api('GET', `/ajax/verify_signature.php?id=${sig.id}`, me);
      assert.equal(verified.statusCode, 200, verified.body);
      assert.equal(verified.json().verified, true, verified.body);
      const pub = await publicCheck(meta.verify_code);
      assert.equal(pub.statusCode, 200);
      assert.ok(pub.body.includes('Gültig') && !pub.body.includes('Nicht gültig'), pub.body);
      const cli = await cliVerify(r.ref);
      assert.equal(cli.code, 0, cli.output);
      assert.match(cli.output, /: valid/);

      // What made it survive: the copies kept with the signature, in the report's folder, below signiert/<signature image>/, without an ecm_files row.
      const keptDir = path.join(r.workDir, 'signiert', path.basename(sig.source_path, '.png'), 'commande', r.order.ref);
      assert.deepEqual((await readdir(keptDir)).sort(), ['Heizung nachher.jpg', 'Heizung vorher.jpg', 'Zaehler.png']);
      for (const [name, bytes] of originals) assert.deepEqual(await readFile(path.join(keptDir, name)), bytes, name);
      const indexed = await ctx.handle.db
        .selectFrom('ecm_files')
        .select(['filepath', 'filename'])
        .where('filepath', 'like', `bericht/${r.ref}%`)
        .execute();
      assert.deepEqual(
        indexed.map((row) => row.filename).filter((n) => !n.endsWith('.pdf')),
        [],
        'no kept copy is listed as a document',
      );

      // An original still there is read: a photo replaced behind the service's back still breaks the check.
      await writeFile(
        path.join(r.orderDir, 'Zaehler.png'),
        await sharp({ create: { width: 640, height: 480, channels: 3, background: '#000' } })
          .png()
          .toBuffer(),
      );
      assert.equal((await api('GET', `/ajax/verify_signature.php?id=${sig.id}`, me)).json().reason, 'content_changed');
      await rm(path.join(r.orderDir, 'Zaehler.png'));
      assert.equal((await api('GET', `/ajax/verify_signature.php?id=${sig.id}`, me)).json().verified, true);
      // A kept copy altered is no proof either.
      await writeFile(path.join(keptDir, 'Heizung nachher.jpg'), 'not the photo');
      assert.equal((await api('GET', `/ajax/verify_signature.php?id=${sig.id}`, me)).json().reason, 'content_changed');

      // Deleting the report takes its kept copies with it.
      assert.equal((await api('DELETE', `/api/reports.php?id=${r.id}`, me)).statusCode, 200);
      assert.equal(existsSync(r.workDir), false);
    });

    test('a signed draft whose photo was deleted is finalized with the kept copy in its PDF', async (t) => {
      const me = await writer();
      const r = await report(me);
      const sig = (await sign(me, r.id)).json() as { id: number };
      await deleteAsDolibarr(r.order, r.orderDir, 'Heizung vorher.jpg');
      const done = await api('POST', `/api/reports.php?id=${r.id}&action=finalize`, me);
      assert.equal(done.statusCode, 200, done.body);
      assert.equal((await api('GET', `/ajax/verify_signature.php?id=${sig.id}`, me)).json().verified, true);
      if (pdfToolsMissing) return t.skip('pdftotext missing');
      const text = await pdfText(path.join(ctx.config.dataRoot, done.json().final_pdf_path));
      assert.doesNotMatch(text, /fehlt|missing/i, 'no placeholder for a missing image');
    });

    test("a new version of a signed report takes a photo deleted in Dolibarr from the signature's kept copy", async () => {
      const me = await writer();
      const r = await report(me);
      assert.equal((await sign(me, r.id)).statusCode, 201);
      assert.equal((await api('POST', `/api/reports.php?id=${r.id}&action=finalize`, me)).statusCode, 200);
      const bytes = await readFile(path.join(r.orderDir, 'Heizung vorher.jpg'));
      await deleteAsDolibarr(r.order, r.orderDir, 'Heizung vorher.jpg');
      const v2 = await api('POST', `/api/reports.php?id=${r.id}&action=new_version`, me);
      assert.equal(v2.statusCode, 201, v2.body);
      const next = v2.json() as { id: number; ref: string; pages: Array<{ source_path: string | null; source_path_2: string | null }> };
      const own = `bericht/${next.ref}/Heizung vorher.jpg`;
      assert.deepEqual(
        next.pages.map((p) => [p.source_path, p.source_path_2]),
        [
          [own, null],
          [own, `commande/${r.order.ref}/Heizung nachher.jpg`],
          [`commande/${r.order.ref}/Zaehler.png`, null],
        ],
        "the deleted photo from the kept copy, once, into the new work area; the others stay the order's",
      );
      assert.deepEqual(await readFile(path.join(ctx.config.dataRoot, own)), bytes);
      const done = await api('POST', `/api/reports.php?id=${next.id}&action=finalize`, me);
      assert.equal(done.statusCode, 200, done.body);
    });

    test('a signature that fails leaves no kept copies behind; pages after the signature get none', async () => {
      const me = await writer();
      const r = await report(me);
      await deleteAsDolibarr(r.order, r.orderDir, 'Zaehler.png');
      const refused = await sign(me, r.id);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json().code, 'REPORT_SOURCE_MISSING');
      assert.equal(existsSync(path.join(r.workDir, 'signiert')), false, 'the copies made before the refusal are gone');
      // Without the page whose photo is gone, it signs; a page added later is not covered.
      const pages = await ctx.handle.db
        .selectFrom('bericht_page')
        .select(['rowid', 'page_order'])
        .where('fk_bericht', '=', r.id)
        .orderBy('page_order')
        .execute();
      assert.equal((await api('DELETE', `/api/pages.php?id=${pages[2]!.rowid}`, me)).statusCode, 200);
      const sig = (await sign(me, r.id)).json() as { source_path: string };
      const after = await api('POST', `/api/pages.php?action=add&bericht_id=${r.id}`, me, {
        source: 'Heizung nachher.jpg',
        title: 'Danach',
      });
      assert.equal(after.statusCode, 201, after.body);
      const keptDir = path.join(r.workDir, 'signiert', path.basename(sig.source_path, '.png'), 'commande', r.order.ref);
      assert.deepEqual((await readdir(keptDir)).sort(), ['Heizung nachher.jpg', 'Heizung vorher.jpg']);
    });

    test('a signature that fails while keeping its copies (after the first copy) leaves none behind', async () => {
      const me = await writer();
      const r = await report(me);
      // The second photo cannot be read as a file (here: a folder took its name), the first is copied already.
      await rm(path.join(r.orderDir, 'Heizung nachher.jpg'));
      await mkdir(path.join(r.orderDir, 'Heizung nachher.jpg'));
      const refused = await sign(me, r.id);
      assert.ok(refused.statusCode >= 400, refused.body);
      assert.equal(
        existsSync(path.join(r.workDir, 'signiert')),
        false,
        `no kept copies after ${refused.statusCode}: ${existsSync(path.join(r.workDir, 'signiert')) ? (await readdir(path.join(r.workDir, 'signiert'), { recursive: true })).join(', ') : ''}`,
      );
      const rows = await ctx.handle.db
        .selectFrom('bericht_page')
        .select('rowid')
        .where('fk_bericht', '=', r.id)
        .where('layout', '=', 'signature')
        .execute();
      assert.equal(rows.length, 0);
    });

    test("the customer signs after the technician although a signed photo was deleted meanwhile; the second signature links the first one's copies", async () => {
      const me = await writer();
      const r = await report(me);
      const first = await sign(me, r.id);
      assert.equal(first.statusCode, 201, first.body);
      const sig1 = first.json() as { id: number; source_path: string };
      await deleteAsDolibarr(r.order, r.orderDir, 'Heizung vorher.jpg');
      const second = await sign(me, r.id);
      assert.equal(second.statusCode, 201, second.body);
      const sig2 = second.json() as { id: number; source_path: string };
      for (const sig of [sig1, sig2]) {
        const checked = await api('GET', `/ajax/verify_signature.php?id=${sig.id}`, me);
        assert.equal(checked.json().verified, true, checked.body);
      }
      const keptOf = (sig: { source_path: string }, name: string) =>
        path.join(r.workDir, 'signiert', path.basename(sig.source_path, '.png'), 'commande', r.order.ref, name);
      // The kept copies never change: the second signature's are the first one's bytes, on the disk once.
      for (const name of ['Heizung vorher.jpg', 'Heizung nachher.jpg', 'Zaehler.png']) {
        const [a, b] = [await stat(keptOf(sig1, name)), await stat(keptOf(sig2, name))];
        assert.equal(b.ino, a.ino, `${name}: one file`);
      }
      // No marker of the signing run is left in a stored signature's folder.
      for (const sig of [sig1, sig2]) {
        assert.deepEqual(
          (await readdir(path.dirname(path.dirname(keptOf(sig, 'x'))))).filter((n) => n.startsWith('.')),
          [],
        );
      }
      const done = await api('POST', `/api/reports.php?id=${r.id}&action=finalize`, me);
      assert.equal(done.statusCode, 200, done.body);
    });
  });
}
