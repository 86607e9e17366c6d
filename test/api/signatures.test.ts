/**
 * Endpoints 14 and 15 on every database: signing (the composite image and its sealed metadata),
 * verification and each reason it fails for, the chain of signatures, the protection of signed
 * pages in the API, the public check behind the QR code, and bad input that leaves nothing behind.
 */
import { signaturePng } from '../helpers/signature.js';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { assertError } from '../helpers/assertions.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { type Caller, callerOf, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { pdfInfo, pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

const crc32 = (data: Buffer): number => {
  let c = ~0;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
};
const chunk = (type: string, data: Buffer) => {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
};
/**
 * A real, complete `width` × `height` PNG (1-bit greyscale, all white): a few kilobytes on the wire
 * that decode to hundreds of megapixels, the shape of a decompression bomb.
 */
function hugePng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter method, no interlace
  const row = Buffer.alloc(1 + Math.ceil(width / 8), 0xff);
  row[0] = 0; // filter: none
  const raw = Buffer.alloc(row.length * height);
  for (let y = 0; y < height; y++) row.copy(raw, y * row.length);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

for (const dialect of testDialects()) {
  describe(`signatures [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    const { caller, api, newReport, addPage, sign } = testClient(() => ctx);

    /** A draft on a fresh order with a photo page, a before/after page and a title page. */
    async function report(who: Caller) {
      const customer = await ctx.make.thirdParty({ name: 'Müller & Söhne GmbH' });
      const order = await ctx.make.order({ author: who.id, customer: customer.id });
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(dir, { recursive: true });
      for (const [name, colour] of [
        ['a.jpg', '#a33'],
        ['b.jpg', '#3a3'],
      ] as const) {
        await sharp({ create: { width: 640, height: 480, channels: 3, background: colour } })
          .jpeg()
          .toFile(path.join(dir, name));
      }
      const r = await newReport(who, order.id);
      for (const body of [
        { source: 'a.jpg', title: 'Eins', note: 'Notiz eins' },
        { layout: 'before_after', source: 'a.jpg', source_2: 'b.jpg', title: 'Zwei' },
        { title: 'Drei' },
      ])
        await addPage(who, r.id, body);
      return { ...r, order, orderDir: dir, workDir: objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', r.ref).dir };
    }

    const verify = (who: Caller, pageId: number) => api('GET', `/ajax/verify_signature.php?id=${pageId}`, who);
    const pageRows = (reportId: number) =>
      ctx.handle.db.selectFrom('bericht_page').selectAll().where('fk_bericht', '=', reportId).orderBy('page_order').execute();

    test('a fresh signature verifies; the page, the composite image and the sealed metadata are stored', async () => {
      const me = await caller();
      const r = await report(me);
      const res = await sign(me, r.id, {
        signer: 'Erika Müller',
        fields: { gps_lat: '48.137154', gps_lon: '11.576124', confirmation_text: 'Arbeiten abgenommen.' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json();
      assert.equal(page.layout, 'signature');
      assert.equal(page.page_order, 4);
      assert.match(page.note, /^Unterschrieben von Erika Müller am \d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d Uhr \(UTC\)$/);
      assert.match(page.source_path, new RegExp(`^bericht/${r.ref}/unterschrift_\\d{14}_[A-Za-z0-9]{6}\\.png$`));
      const image = await sharp(await readFile(path.join(ctx.config.dataRoot, page.source_path))).metadata();
      assert.equal(image.format, 'png');
      const meta = JSON.parse(await readFile(path.join(ctx.config.dataRoot, page.source_path.replace(/\.png$/, '.json')), 'utf8'));
      assert.equal(meta.report_ref, r.ref);
      assert.equal(meta.parent_ref, r.order.ref);
      assert.equal(meta.customer, 'Müller & Söhne GmbH');
      assert.equal(meta.signer_name, 'Erika Müller');
      assert.equal(meta.confirmation_text, 'Arbeiten abgenommen.');
      assert.equal(meta.gps_lat, 48.137154);
      assert.equal(meta.gps_lon, 11.576124);
      assert.equal(meta.page_count_at_signing, 3);
      assert.match(meta.hash, /^[0-9a-f]{64}$/);
      assert.equal(meta.user.id, me.id);
      assert.equal(typeof meta.client_ip, 'string');
      assert.equal(typeof meta.server_name, 'string');
      assert.equal(meta.seal.algorithm, 'Ed25519');

      const checked = await verify(me, page.id);
      assert.equal(checked.statusCode, 200, checked.body);
      assert.equal(checked.json().verified, true);
      assert.equal(checked.json().reason, undefined);
      assert.equal(checked.json().metadata.hash, meta.hash);
      const byPost = await api('POST', '/ajax/verify_signature.php', me, { id: page.id });
      assert.equal(byPost.json().verified, true);

      const key = await ctx.app.inject({ method: 'GET', url: '/api/signing_key.php' });
      assert.equal(key.statusCode, 200);
      assert.equal(key.json().key_id, meta.seal.key_id);
    });

    test('each tampering fails with its reason: swapped pages, edited note, replaced image, deleted page, edited metadata', async () => {
      const me = await caller();
      const cases: Array<
        [string, (r: Awaited<ReturnType<typeof report>>, sigPage: { id: number; source_path: string }) => Promise<void>, string]
      > = [
        [
          'swap two signed pages',
          async (r) => {
            const [p1, p2] = await pageRows(r.id);
            await ctx.handle.db.updateTable('bericht_page').set({ page_order: 2 }).where('rowid', '=', p1!.rowid).execute();
            await ctx.handle.db.updateTable('bericht_page').set({ page_order: 1 }).where('rowid', '=', p2!.rowid).execute();
          },
          'content_changed',
        ],
        [
          'edit a signed note in the database',
          async (r) => {
            const [p1] = await pageRows(r.id);
            await ctx.handle.db
              .updateTable('bericht_page')
              .set({ note: 'Notiz eins, nachträglich geändert' })
              .where('rowid', '=', p1!.rowid)
              .execute();
          },
          'content_changed',
        ],
        [
          'replace a signed image file',
          async (r) => {
            await sharp({ create: { width: 640, height: 480, channels: 3, background: '#33a' } })
              .jpeg()
              .toFile(path.join(r.orderDir, 'b.jpg'));
          },
          'content_changed',
        ],
        [
          'replace the signature image itself',
          async (_r, sig) => {
            await sharp({ create: { width: 50, height: 50, channels: 3, background: '#fff' } })
              .png()
              .toFile(path.join(ctx.config.dataRoot, sig.source_path));
          },
          'content_changed',
        ],
        [
          'delete a signed page in the database',
          async (r) => {
            const [, , p3] = await pageRows(r.id);
            await ctx.handle.db.deleteFrom('bericht_page').where('rowid', '=', p3!.rowid).execute();
          },
          'page_count_changed',
        ],
        [
          'edit the metadata JSON',
          async (_r, sig) => {
            const file = path.join(ctx.config.dataRoot, sig.source_path.replace(/\.png$/, '.json'));
            const meta = JSON.parse(await readFile(file, 'utf8'));
            meta.signer_name = 'Jemand anderes';
            await writeFile(file, JSON.stringify(meta, null, 2));
          },
          'seal_broken',
        ],
        [
          'remove the metadata JSON',
          async (_r, sig) => {
            const { rm } = await import('node:fs/promises');
            await rm(path.join(ctx.config.dataRoot, sig.source_path.replace(/\.png$/, '.json')));
          },
          'metadata_missing',
        ],
      ];
      for (const [what, tamper, reason] of cases) {
        const r = await report(me);
        const res = await sign(me, r.id);
        assert.equal(res.statusCode, 201, res.body);
        assert.equal((await verify(me, res.json().id)).json().verified, true, what);
        await tamper(r, res.json());
        const after = (await verify(me, res.json().id)).json();
        assert.equal(after.verified, false, what);
        assert.equal(after.reason, reason, what);
        assert.equal(typeof after.message, 'string');
      }
    });

    test('re-indenting the metadata JSON keeps the seal (it covers the values, not the layout)', async () => {
      const me = await caller();
      const r = await report(me);
      const sig = (await sign(me, r.id)).json();
      const file = path.join(ctx.config.dataRoot, sig.source_path.replace(/\.png$/, '.json'));
      await writeFile(file, JSON.stringify(JSON.parse(await readFile(file, 'utf8'))));
      assert.equal((await verify(me, sig.id)).json().verified, true);
    });

    test('a second signature chains over the first: changing the first signature breaks both', async () => {
      const me = await caller();
      const r = await report(me);
      const first = (await sign(me, r.id, { signer: 'Kunde' })).json();
      await api('POST', `/api/pages.php?action=add&bericht_id=${r.id}`, me, { title: 'Nachtrag' });
      const second = (await sign(me, r.id, { signer: 'Techniker' })).json();
      const secondMeta = (await verify(me, second.id)).json();
      assert.equal(secondMeta.verified, true);
      assert.equal(secondMeta.metadata.page_count_at_signing, 5, 'the first signature page and the later page are covered');
      await sharp({ create: { width: 60, height: 60, channels: 3, background: '#000' } })
        .png()
        .toFile(path.join(ctx.config.dataRoot, first.source_path));
      assert.equal((await verify(me, first.id)).json().reason, 'content_changed');
      assert.equal((await verify(me, second.id)).json().reason, 'content_changed');
    });

    test('the API refuses changes that would break a signature (409 PAGE_SIGNED); pages after it stay free', async () => {
      const me = await caller();
      const r = await report(me);
      const sig = (await sign(me, r.id)).json();
      const free = (await api('POST', `/api/pages.php?action=add&bericht_id=${r.id}`, me, { title: 'Danach' })).json();
      const before = await pageRows(r.id);
      const [p1, p2] = before;
      assertError(await api('POST', `/api/pages.php?id=${p1!.rowid}`, me, { note: 'anders' }), 409, 'PAGE_SIGNED');
      assertError(await api('DELETE', `/api/pages.php?id=${p2!.rowid}`, me), 409, 'PAGE_SIGNED');
      assertError(await api('POST', `/api/pages.php?id=${sig.id}`, me, { title: 'anders' }), 409, 'PAGE_SIGNED');
      const ids = before.map((p) => Number(p.rowid));
      assertError(
        await api('POST', `/api/pages.php?action=reorder&bericht_id=${r.id}`, me, { order: [ids[1], ids[0], ...ids.slice(2)] }),
        409,
        'PAGE_SIGNED',
      );
      assertError(
        await api('POST', `/api/pages.php?action=reorder&bericht_id=${r.id}`, me, { order: [...ids.slice(0, 3), ids[4], ids[3]] }),
        409,
        'PAGE_SIGNED',
      );
      assert.deepEqual(await pageRows(r.id), before);
      assert.equal((await api('POST', `/api/pages.php?id=${free.id}`, me, { note: 'frei' })).statusCode, 200);
      assert.equal((await verify(me, sig.id)).json().verified, true);
      // A signature is evidence: even the last one is never removed.
      assert.equal((await api('DELETE', `/api/pages.php?id=${free.id}`, me)).statusCode, 200);
      assertError(await api('DELETE', `/api/pages.php?id=${sig.id}`, me), 409, 'PAGE_SIGNED');
      assert.equal((await readdir(r.workDir)).filter((n) => n.startsWith('unterschrift_')).length, 2);
      assert.equal(
        (await ctx.handle.db.selectFrom('bericht_signature').select('rowid').where('fk_bericht', '=', r.id).execute()).length,
        1,
      );
    });

    test('finalizing keeps the signature page; the public check shows ref, signer, time and result only', async (t) => {
      const me = await caller();
      const r = await report(me);
      const sig = (await sign(me, r.id, { signer: 'Erika Müller' })).json();
      const done = await api('POST', `/api/reports.php?id=${r.id}&action=finalize`, me);
      assert.equal(done.statusCode, 200, done.body);
      assert.equal((await verify(me, sig.id)).json().verified, true);
      const meta = JSON.parse(await readFile(path.join(ctx.config.dataRoot, sig.source_path.replace(/\.png$/, '.json')), 'utf8'));
      const pub = await ctx.app.inject({ method: 'GET', url: `/public/verify_signature.php?code=${meta.verify_code}` });
      assert.equal(pub.statusCode, 200);
      assert.match(String(pub.headers['content-type']), /^text\/html/);
      assert.ok(pub.body.includes(r.ref) && pub.body.includes('Erika Müller') && pub.body.includes('Gültig'));
      assert.ok(
        !pub.body.includes('Müller &amp; Söhne') && !pub.body.includes(meta.hash) && !pub.body.includes(meta.client_ip),
        'nothing beyond ref, signer, time and result',
      );
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: '/public/verify_signature.php?code=AAAAAAAAAAAAAAAAAAAAAA' })).statusCode,
        404,
      );
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/public/verify_signature.php?code=%3Cscript%3E' })).statusCode, 404);
      const file = path.join(ctx.config.dataRoot, done.json().final_pdf_path);
      await assertPdfA1b(t, file, 'final PDF with a signature page');
      if (pdfToolsMissing) return t.skip(pdfToolsMissing);
      // The summary, the photos, the signature and the evidence flow over the sheets.
      const text = await pdfText(file);
      assert.ok((await pdfInfo(file)).pages <= 4, 'at most 4 sheets');
      assert.match(text.split('\f')[0]!, /Unterschrift\s+Erika Müller/, 'the summary names the signer');
      // The signature: one heading, its facts as text (the checksum included), then the burned-in sheet.
      const signature = text.slice(text.indexOf('Unterzeichner'));
      assert.ok(text.indexOf('Unterzeichner') > 0 && signature.includes('Erika Müller'), text);
      assert.ok(signature.replace(/\s+/g, '').includes(meta.hash), 'the checksum is text on the sheet');
    });

    test('`fieldreport verify REF` checks every signature offline: exit 0 when valid, 1 after tampering, 2 for an unknown report', async () => {
      const me = await caller();
      const r = await report(me);
      const sig = (await sign(me, r.id, { signer: 'Erika Müller' })).json();
      const run = async (argv: string[]) => {
        const result = await runCli(argv, cliEnv(ctx.config));
        return { code: result.code, output: result.stdout + result.stderr };
      };
      const valid = await run(['verify', r.ref]);
      assert.equal(valid.code, 0, valid.output);
      assert.match(valid.output, new RegExp(`${r.ref} page 4 \\(Erika Müller, .*\\): valid`));
      await ctx.handle.db
        .updateTable('bericht_page')
        .set({ title: 'Eins, geändert' })
        .where('fk_bericht', '=', r.id)
        .where('page_order', '=', 1)
        .execute();
      const broken = await run(['verify', r.ref]);
      assert.equal(broken.code, 1, broken.output);
      assert.match(broken.output, /NOT VALID: content_changed/);
      assert.equal((await run(['verify', 'BR0000-9999'])).code, 2);
      await ctx.handle.db.updateTable('bericht_page').set({ layout: 'photo' }).where('rowid', '=', sig.id).execute();
      const hidden = await run(['verify', r.ref]);
      assert.equal(hidden.code, 1, `a signature page turned into a photo page is still found through its row: ${hidden.output}`);
      await ctx.handle.db.updateTable('bericht_page').set({ layout: 'signature' }).where('rowid', '=', sig.id).execute();
      assert.equal((await verify(me, sig.id)).json().reason, 'content_changed', 'the API agrees');
    });

    test('a new version leaves the signature out (it is signed anew); the old one still verifies; deleting a report ends its public checks', async () => {
      const me = await caller();
      const r = await report(me);
      const sig = (await sign(me, r.id)).json();
      const v2 = await api('POST', `/api/reports.php?id=${r.id}&action=new_version`, me);
      assert.equal(v2.statusCode, 201, v2.body);
      assert.deepEqual(
        v2.json().pages.map((p: { layout: string }) => p.layout),
        ['photo', 'before_after', 'title_only'],
      );
      assert.equal((await verify(me, sig.id)).json().verified, true);
      const code = JSON.parse(
        await readFile(path.join(ctx.config.dataRoot, sig.source_path.replace(/\.png$/, '.json')), 'utf8'),
      ).verify_code;
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/public/verify_signature.php?code=${code}` })).statusCode, 200);
      assert.equal((await api('DELETE', `/api/reports.php?id=${r.id}`, me)).statusCode, 200);
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/public/verify_signature.php?code=${code}` })).statusCode, 404);
    });

    test('the public check trusts only the sealed metadata: a row edited in the database or pointed at another signature does not verify', async () => {
      const me = await caller();
      const r = await report(me);
      const first = (await sign(me, r.id, { signer: 'Erika Müller' })).json();
      const second = await sign(me, r.id, { signer: 'Max Muster' });
      assert.equal(second.statusCode, 201, second.body);
      const { verify_url: url, hash, page_count_at_signing: count } = second.json();
      assert.match(hash, /^[0-9a-f]{64}$/);
      assert.equal(count, 4);
      const code = new URL(url).searchParams.get('code')!;
      await ctx.handle.db.updateTable('bericht_signature').set({ signer_name: 'Erfunden' }).where('verify_code', '=', code).execute();
      const shown = await ctx.app.inject({ method: 'GET', url: `/public/verify_signature.php?code=${code}` });
      assert.ok(shown.body.includes('Max Muster') && !shown.body.includes('Erfunden'), 'the signer comes from the sealed metadata');
      await ctx.handle.db.deleteFrom('bericht_signature').where('fk_page', '=', first.id).execute();
      await ctx.handle.db.updateTable('bericht_signature').set({ fk_page: first.id }).where('verify_code', '=', code).execute();
      const moved = await ctx.app.inject({ method: 'GET', url: `/public/verify_signature.php?code=${code}` });
      assert.ok(moved.body.includes('Nicht gültig'), moved.body);
    });

    test('a seal by another key is key_unknown; a signer name with control characters, or an image that is gone, is refused', async () => {
      const me = await caller();
      const r = await report(me);
      const sig = (await sign(me, r.id)).json();
      const file = path.join(ctx.config.dataRoot, sig.source_path.replace(/\.png$/, '.json'));
      const meta = JSON.parse(await readFile(file, 'utf8'));
      meta.seal.key_id = '0000000000000000';
      await writeFile(file, JSON.stringify(meta));
      assert.equal((await verify(me, sig.id)).json().reason, 'key_unknown');
      assertError(await sign(me, r.id, { signer: 'Erika\u202eMüller' }), 400, 'VALIDATION_FAILED');
      assertError(await sign(me, r.id, { signer: 'Erika\nMüller' }), 400, 'VALIDATION_FAILED');
      const { rm } = await import('node:fs/promises');
      // An image that is gone and that no earlier signature kept cannot be signed.
      const fresh = await report(me);
      await rm(path.join(fresh.orderDir, 'b.jpg'));
      assertError(await sign(me, fresh.id), 409, 'REPORT_SOURCE_MISSING');
      assert.equal((await pageRows(fresh.id)).length, 3);
      // One the first signature kept is signed again from that copy (kept-copies.ts).
      await rm(path.join(r.orderDir, 'b.jpg'));
      assert.equal((await sign(me, r.id)).statusCode, 201);
      assert.equal((await pageRows(r.id)).length, 5);
    });

    test('bad input is refused clearly and leaves no page and no file', async () => {
      const me = await caller();
      const r = await report(me);
      const count = async () => (await pageRows(r.id)).length;
      const files = async () => (await readdir(r.workDir).catch(() => [] as string[])).filter((n) => n !== 'thumbs');
      assertError(await sign(me, r.id, { signer: null }), 400, 'VALIDATION_FAILED');
      assertError(await sign(me, r.id, { signer: '   ' }), 400, 'VALIDATION_FAILED');
      assertError(await sign(me, r.id, { signer: 'x'.repeat(256) }), 400, 'VALIDATION_FAILED');
      assertError(await sign(me, r.id, { signer: 'A', fields: { gps_lat: '91', gps_lon: '10' } }), 400, 'VALIDATION_FAILED');
      assertError(await sign(me, r.id, { signer: 'A', fields: { gps_lat: '45', gps_lon: '-180.5' } }), 400, 'VALIDATION_FAILED');
      assertError(await sign(me, r.id, { signer: 'A', fields: { gps_lat: 'nord', gps_lon: '10' } }), 400, 'VALIDATION_FAILED');
      for (const lat of ['0x10', '1e1', 'Infinity', '0b1', '.5', '+-1']) {
        const refused = assertError(
          await sign(me, r.id, { signer: 'A', fields: { gps_lat: lat, gps_lon: '10' } }),
          400,
          'VALIDATION_FAILED',
        );
        assert.deepEqual(
          (refused.details as Array<{ field: string }>).map((d) => d.field),
          ['body.gps_lat'],
          lat,
        );
        assert.match(String(refused.error), /gps_lat muss eine Dezimalzahl/, lat);
      }
      assertError(await sign(me, r.id, { signer: 'A', fields: { gps_lat: '45' } }), 400, 'VALIDATION_FAILED');
      assertError(
        await sign(me, r.id, {
          signer: 'A',
          file: {
            data: await sharp({ create: { width: 100, height: 50, channels: 3, background: '#fff' } })
              .jpeg()
              .toBuffer(),
          },
        }),
        415,
        'UPLOAD_TYPE_UNSUPPORTED',
      );
      assertError(await sign(me, r.id, { signer: 'A', file: { data: Buffer.from('no image at all') } }), 415, 'UPLOAD_TYPE_UNSUPPORTED');
      assertError(await sign(me, r.id, { signer: 'A', file: { data: hugePng(20000, 20000) } }), 413, 'SIGNATURE_TOO_LARGE');
      assertError(await sign(me, r.id, { signer: 'A', file: { data: (await signaturePng()).subarray(0, 200) } }), 400, 'IMAGE_INVALID');
      assertError(await sign(me, r.id, { signer: 'A', file: { data: Buffer.alloc(6 * 1024 * 1024, 1) } }), 413, 'SIGNATURE_TOO_LARGE');
      const stranger = await caller();
      assertError(await sign(stranger, r.id), 404, 'REPORT_NOT_FOUND');
      const reader = await ctx.make.user({ rights: ['read'], admin: true });
      const readerToken = await ctx.make.token(reader);
      assertError(await sign(callerOf(reader.id, readerToken), r.id), 403, 'AUTH_RIGHT_MISSING');
      assert.equal(await count(), 3);
      assert.deepEqual(await files(), []);
      assertError(await verify(me, (await pageRows(r.id))[0]!.rowid), 404, 'PAGE_NOT_FOUND');
      assertError(await api('GET', '/ajax/verify_signature.php', me), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/ajax/verify_signature.php?id=1', null), 401, 'AUTH_TOKEN_MISSING');
    });
  });
}
