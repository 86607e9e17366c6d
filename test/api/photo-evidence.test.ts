/**
 * Photo evidence (migration 0014) through the API on every database: what an upload records (the
 * bytes' SHA-256, EXIF time and place, the phone's time and place sent beside the file, before or
 * after it), bad fields refused with a 400 naming the field and nothing left behind, the evidence
 * on the pages that show the photo, with copies of the photo (templates) and gone with the photo or
 * the report, and in the signature's hash (form 3): a signature over evidence that is changed later
 * no longer verifies, while signatures made without evidence verify as before.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { assertError } from '../helpers/assertions.js';
import { testDialects } from '../helpers/databases.js';
import type { Part } from '../helpers/multipart.js';

const MAX_PHOTO = 300 * 1024;
const PHONE_TIME = '2026-11-24T09:14:03.120+01:00';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const text = (name: string, data: string): Part => ({ name, type: 'text/plain; charset=utf-8', data });

for (const dialect of testDialects()) {
  describe(`photo evidence [${dialect}]`, () => {
    let ctx: TestContext;
    let writer: { id: number; token: string };
    let other: { id: number; token: string };
    let plain: Buffer; // no EXIF
    let camera: Buffer; // EXIF time with offset and GPS position (Munich, Marienplatz)

    before(async () => {
      ctx = await createTestContext(dialect, { uploads: { maxPhotoBytes: MAX_PHOTO, maxAudioBytes: 100 * 1024 } });
      const w = await ctx.make.user({ rights: ['read', 'write', 'delete'], admin: true });
      writer = { id: w.id, token: await ctx.make.token(w) };
      const o = await ctx.make.user({ rights: ['read', 'write'] });
      other = { id: o.id, token: await ctx.make.token(o) };
      const base = sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 30, g: 120, b: 90 } } });
      plain = await base.clone().jpeg().toBuffer();
      camera = await base
        .clone()
        .jpeg()
        .withExif({
          IFD2: { DateTimeOriginal: '2026:11:24 09:12:33', OffsetTimeOriginal: '+01:00' },
          IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 8/1 1474/100', GPSLongitudeRef: 'E', GPSLongitude: '11/1 34/1 3176/100' },
        })
        .toBuffer();
    });
    after(async () => ctx?.close());

    const { api, newReport, addPage, form, sign } = testClient(() => ctx);

    const folderOf = (ref: string) => path.join(ctx.config.dataRoot, 'commande', ref);
    /** Everything in the order's folder, temporary files (dot names) included. */
    const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);
    const evidenceRows = (filepath: string) =>
      ctx.handle.db.selectFrom('bericht_photo_evidence').selectAll().where('filepath', '=', filepath).orderBy('filename').execute();
    const ecmRows = (filepath: string) =>
      ctx.handle.db.selectFrom('ecm_files').select('filename').where('filepath', '=', filepath).execute();
    const photoUrl = (id: number) => `/api/orders.php?id=${id}&action=upload_photo`;

    test("an upload records the SHA-256, the EXIF time and place, and the phone's time and place (fields before the file)", async () => {
      const order = await ctx.make.order({ author: writer.id });
      const res = await form(photoUrl(order.id), writer, [
        text('taken_at_device', PHONE_TIME),
        text('gps_lat', '48.137433'),
        text('gps_lon', '11,575494'),
        { filename: 'kessel.jpg', type: 'image/jpeg', data: camera },
      ]);
      assert.equal(res.statusCode, 201, res.body);
      const evidence = res.json().evidence;
      assert.deepEqual(evidence, {
        sha256: sha256(camera),
        size: camera.length,
        received_at: evidence.received_at,
        exif_taken_at: '2026-11-24 09:12:33',
        exif_offset: '+01:00',
        // 48° 8' 14.74" N, 11° 34' 31.76" E in 1e-7 degrees.
        exif_gps_lat: 48.1374278,
        exif_gps_lon: 11.5754889,
        taken_at_device: PHONE_TIME,
        taken_at_device_unix: Date.UTC(2026, 10, 24, 8, 14, 3) / 1000,
        gps_lat: 48.137433,
        gps_lon: 11.575494,
      });
      assert.ok(Math.abs(evidence.received_at - Date.now() / 1000) < 60);
      const [row] = await evidenceRows(`commande/${order.ref}`);
      assert.equal(row?.filename, 'kessel.jpg');
      assert.equal(row?.sha256, sha256(camera));
      assert.deepEqual(
        [row?.exif_lat_e7, row?.exif_lon_e7, row?.device_lat_e7, row?.device_lon_e7].map(Number),
        [481374278, 115754889, 481374330, 115754940],
      );
      assert.equal(Number(row?.fk_user), writer.id);
    });

    test("an EXIF offset no place uses (+99:99) is not kept: the camera's time stays, without an offset", async () => {
      const order = await ctx.make.order({ author: writer.id });
      const odd = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } })
        .jpeg()
        .withExif({ IFD2: { DateTimeOriginal: '2026:11:24 09:12:33', OffsetTimeOriginal: '+99:99' } })
        .toBuffer();
      const res = await form(photoUrl(order.id), writer, [{ filename: 'versatz.jpg', type: 'image/jpeg', data: odd }]);
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual([res.json().evidence.exif_taken_at, res.json().evidence.exif_offset], ['2026-11-24 09:12:33', null]);
      const [row] = await evidenceRows(`commande/${order.ref}`);
      assert.equal(row?.exif_offset, null);
    });

    test('fields after the file count too; empty fields count as absent; a photo without EXIF or fields records its hash only', async () => {
      const order = await ctx.make.order({ author: writer.id });
      const after_ = await form(photoUrl(order.id), writer, [
        { filename: 'a.jpg', data: plain },
        text('taken_at_device', '2026-11-24T08:00:00Z'),
        text('gps_lat', '-33.8688'),
        text('gps_lon', '151.2093'),
      ]);
      assert.equal(after_.statusCode, 201, after_.body);
      assert.deepEqual(
        [after_.json().evidence.taken_at_device, after_.json().evidence.gps_lat, after_.json().evidence.gps_lon],
        ['2026-11-24T08:00:00Z', -33.8688, 151.2093],
      );
      const empty = await form(photoUrl(order.id), writer, [
        text('taken_at_device', ''),
        text('gps_lat', ' '),
        text('gps_lon', ''),
        { filename: 'b.jpg', data: plain },
      ]);
      assert.equal(empty.statusCode, 201, empty.body);
      const none = empty.json().evidence;
      assert.deepEqual(
        [none.sha256, none.exif_taken_at, none.exif_gps_lat, none.taken_at_device, none.taken_at_device_unix, none.gps_lat, none.gps_lon],
        [sha256(plain), null, null, null, null, null, null],
      );
      // Other fields beside the file are left alone, as before.
      const extra = await form(photoUrl(order.id), writer, [text('note', 'egal'), { filename: 'c.jpg', data: plain }]);
      assert.equal(extra.statusCode, 201, extra.body);
      assert.deepEqual(
        (await evidenceRows(`commande/${order.ref}`)).map((r) => r.filename),
        ['a.jpg', 'b.jpg', 'c.jpg'],
      );
    });

    test('bad fields: 400 VALIDATION_FAILED naming the field, and no file, row, evidence or temporary file left', async () => {
      const order = await ctx.make.order({ author: writer.id });
      const file: Part = { filename: 'x.jpg', data: camera };
      const cases: Array<[string, Part[], string]> = [
        ['no offset', [text('taken_at_device', '2026-11-24T09:14:03'), file], 'body.taken_at_device'],
        ['no such day', [text('taken_at_device', '2026-02-30T09:14:03+01:00'), file], 'body.taken_at_device'],
        ['a number, not a time', [text('taken_at_device', '1764000000'), file], 'body.taken_at_device'],
        ['a date only, after the file', [file, text('taken_at_device', '2026-11-24')], 'body.taken_at_device'],
        ['latitude alone', [text('gps_lat', '48.1'), file], 'body.gps_lon'],
        ['longitude alone, after the file', [file, text('gps_lon', '11.5')], 'body.gps_lat'],
        ['latitude out of range', [text('gps_lat', '90.0001'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        ['longitude out of range', [text('gps_lat', '48.1'), text('gps_lon', '-180.5'), file], 'body.gps_lon'],
        ['latitude no number', [text('gps_lat', 'north'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        ['longitude a JSON object', [text('gps_lat', '48.1'), text('gps_lon', '{"deg":11}'), file], 'body.gps_lon'],
        ['infinite', [text('gps_lat', 'Infinity'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        // Only plain decimals: Number() would read each of these as a coordinate.
        ['hexadecimal', [text('gps_lat', '0x10'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        ['binary', [text('gps_lat', '48.1'), text('gps_lon', '0b1010'), file], 'body.gps_lon'],
        ['octal', [text('gps_lat', '0o17'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        ['an exponent', [text('gps_lat', '4.81e1'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        ['a bare fraction', [text('gps_lat', '48.1'), text('gps_lon', '.5'), file], 'body.gps_lon'],
        ['a point at the end', [text('gps_lat', '48.'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        ['two signs', [text('gps_lat', '--48.1'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        ['digits apart', [text('gps_lat', '4 8.1'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        [
          'a coordinate sent as a file',
          [file, { name: 'gps_lat', filename: 'lat.txt', data: '48.1' }, text('gps_lon', '11.5')],
          'body.gps_lat',
        ],
        [
          'a time sent as a file before the photo',
          [{ name: 'taken_at_device', filename: 't.txt', data: PHONE_TIME }, file],
          'body.taken_at_device',
        ],
        ['a field twice', [text('gps_lat', '48.1'), text('gps_lat', '48.2'), text('gps_lon', '11.5'), file], 'body.gps_lat'],
        ['a field too long for a field', [text('taken_at_device', `${PHONE_TIME}${' '.repeat(2000)}`), file], 'body.taken_at_device'],
      ];
      for (const [index, [what, parts, field]] of cases.entries()) {
        const body = assertError(
          await form(photoUrl(order.id), writer, parts, { headers: { 'idempotency-key': `bad-${index}` } }),
          400,
          'VALIDATION_FAILED',
        );
        assert.deepEqual(
          (body.details as Array<{ field: string }>).map((d) => d.field),
          [field],
          `${what}: ${JSON.stringify(body)}`,
        );
        assert.match(String(body.error), /taken_at_device|gps_lat|gps_lon/, `${what}: the message names the field`);
      }
      // Nothing at all: no file, no temporary file, no folder left behind, no row, no evidence, no key held.
      assert.deepEqual(filesIn(folderOf(order.ref)), []);
      assert.equal(existsSync(folderOf(order.ref)), false);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 0);
      assert.equal((await evidenceRows(`commande/${order.ref}`)).length, 0);
      // The refused keys are free: the same key with good fields stores the photo once.
      const good = await form(photoUrl(order.id), writer, [text('gps_lat', '48.1'), text('gps_lon', '11.5'), file], {
        headers: {
          'idempotency-key': 'bad-4',
        },
      });
      assert.equal(good.statusCode, 201, good.body);
      assert.deepEqual(filesIn(folderOf(order.ref)), ['thumbs', 'x.jpg']);
    });

    test('a second and a third file in the form are passed over as before; fields between and after them still count', async () => {
      const order = await ctx.make.order({ author: writer.id });
      const res = await form(photoUrl(order.id), writer, [
        { filename: 'eins.jpg', data: plain },
        text('gps_lat', '48.5'),
        { name: 'anhang', filename: 'zwei.jpg', data: camera },
        text('gps_lon', '11.5'),
        { name: 'noch', filename: 'drei.jpg', data: camera },
      ]);
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(
        [res.json().name, res.json().evidence.sha256, res.json().evidence.gps_lat, res.json().evidence.gps_lon],
        ['eins.jpg', sha256(plain), 48.5, 11.5],
      );
      assert.deepEqual(filesIn(folderOf(order.ref)), ['eins.jpg', 'thumbs']);
    });

    test('the QR upload page records evidence too, and refuses bad fields the same way', async () => {
      const order = await ctx.make.order({ author: writer.id });
      const made = await api('POST', '/api/upload_token.php', writer, { fk_element: order.id });
      assert.equal(made.statusCode, 201, made.body);
      const url = `/public/upload.php?token=${made.json().token}`;
      const ok = await form(url, null, [text('taken_at_device', PHONE_TIME), { filename: 'qr.jpg', data: camera }]);
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal(ok.json().evidence.taken_at_device, PHONE_TIME);
      assert.equal(ok.json().evidence.exif_taken_at, '2026-11-24 09:12:33');
      assertError(
        await form(url, null, [text('gps_lat', '95'), text('gps_lon', '1'), { filename: 'qr2.jpg', data: camera }]),
        400,
        'VALIDATION_FAILED',
      );
      assert.deepEqual(filesIn(folderOf(order.ref)), ['qr.jpg', 'thumbs']);
      const rows = await evidenceRows(`commande/${order.ref}`);
      assert.deepEqual(
        rows.map((r) => [r.filename, Number(r.fk_user)]),
        [['qr.jpg', writer.id]],
      );
      // The page itself sends the phone's capture time with each photo.
      const page = await ctx.app.inject({ method: 'GET', url });
      assert.match(page.body, /taken_at_device/);
    });

    test("another user's order is 404 before any field is read: no evidence", async () => {
      const order = await ctx.make.order({ author: writer.id });
      assertError(
        await form(photoUrl(order.id), other, [text('gps_lat', '48.1'), text('gps_lon', '11.5'), { filename: 'fremd.jpg', data: camera }]),
        404,
        'ORDER_NOT_FOUND',
      );
      assertError(
        await form(photoUrl(order.id), other, [text('gps_lat', 'x'), { filename: 'fremd.jpg', data: camera }]),
        404,
        'ORDER_NOT_FOUND',
      );
      assert.equal((await evidenceRows(`commande/${order.ref}`)).length, 0);
      assert.equal(existsSync(folderOf(order.ref)), false);
    });

    test('a repeat with the same Idempotency-Key answers the same evidence and records it once', async () => {
      const order = await ctx.make.order({ author: writer.id });
      const parts = [text('taken_at_device', PHONE_TIME), { filename: 'einmal.jpg', data: camera }];
      const first = await form(photoUrl(order.id), writer, parts, { headers: { 'idempotency-key': 'evidence-once' } });
      const again = await form(photoUrl(order.id), writer, parts, { headers: { 'idempotency-key': 'evidence-once' } });
      assert.equal(first.statusCode, 201, first.body);
      assert.deepEqual(again.json(), first.json());
      assert.equal((await evidenceRows(`commande/${order.ref}`)).length, 1);
    });

    test('pages carry the evidence of their images (before/after both); a deleted photo takes its evidence along; a new file under its name gets its own', async () => {
      const order = await ctx.make.order({ author: writer.id });
      const up = async (name: string, data: Buffer, parts: Part[] = []) => {
        const res = await form(photoUrl(order.id), writer, [...parts, { filename: name, data }]);
        assert.equal(res.statusCode, 201, res.body);
        return res.json().evidence;
      };
      const before_ = await up('vorher.jpg', camera, [
        text('taken_at_device', PHONE_TIME),
        text('gps_lat', '48.1'),
        text('gps_lon', '11.5'),
      ]);
      const after_ = await up('nachher.jpg', plain, [text('taken_at_device', '2026-11-24T10:00:00+01:00')]);
      const report = await newReport(writer, { fk_element: order.id, title: 'Beweise' });
      const photo = await addPage(writer, report.id, { source: 'vorher.jpg' });
      assert.deepEqual([photo.evidence, photo.evidence_2], [before_, null]);
      const pair = await addPage(writer, report.id, { layout: 'before_after', source: 'vorher.jpg', source_2: 'nachher.jpg' });
      assert.deepEqual([pair.evidence, pair.evidence_2], [before_, after_]);
      const title = await addPage(writer, report.id, { layout: 'title_only', title: 'Ohne Bild' });
      assert.deepEqual([title.evidence, title.evidence_2], [null, null]);
      const detail = (await api('GET', `/api/reports.php?id=${report.id}`, writer)).json();
      assert.deepEqual(
        detail.pages.map((p: { evidence: unknown; evidence_2: unknown }) => [p.evidence, p.evidence_2]),
        [
          [before_, null],
          [before_, after_],
          [null, null],
        ],
      );
      // A page changed to show another photo answers that photo's evidence.
      const changed = await api('POST', `/api/pages.php?id=${photo.id}`, writer, { source: 'nachher.jpg' });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual(changed.json().evidence, after_);

      // A photo no page shows is deleted with its evidence; uploaded again under that name it has the new file's.
      const spare = await up('spare.jpg', camera, [text('gps_lat', '1'), text('gps_lon', '2')]);
      assert.equal(spare.gps_lat, 1);
      const deleted = await api('POST', '/api/delete_photo.php', writer, { id: order.id, file: 'spare.jpg' });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.deepEqual(
        (await evidenceRows(`commande/${order.ref}`)).map((r) => r.filename),
        ['nachher.jpg', 'vorher.jpg'],
      );
      const anew = await up('spare.jpg', plain);
      assert.deepEqual([anew.sha256, anew.gps_lat], [sha256(plain), null]);
      assert.equal((await evidenceRows(`commande/${order.ref}`)).length, 3);
    });

    test("a template copies the photo with its evidence; a report from it too; deleting a report takes its copies' evidence", async () => {
      const order = await ctx.make.order({ author: writer.id });
      const res = await form(photoUrl(order.id), writer, [text('taken_at_device', PHONE_TIME), { filename: 'muster.jpg', data: camera }]);
      const evidence = res.json().evidence;
      const report = await newReport(writer, { fk_element: order.id, title: 'Beweise' });
      await addPage(writer, report.id, { source: 'muster.jpg' });
      const template = await api('POST', '/api/templates.php?action=create', writer, {
        template_label: 'Mit Beweis',
        from_report: report.id,
      });
      assert.equal(template.statusCode, 201, template.body);
      const copied = template.json().pages[0];
      assert.match(copied.source_path, /^bericht\//);
      assert.deepEqual(copied.evidence, evidence, "the copy in the template's work area has the evidence of its bytes");
      const fromTemplate = await api('POST', '/api/reports.php?action=create', writer, {
        fk_element: order.id,
        template_id: template.json().id,
      });
      assert.equal(fromTemplate.statusCode, 201, fromTemplate.body);
      const inReport = fromTemplate.json().pages[0];
      assert.notEqual(inReport.source_path, copied.source_path);
      assert.deepEqual(inReport.evidence, evidence);
      const folder = path.posix.dirname(inReport.source_path);
      assert.equal((await evidenceRows(folder)).length, 1);
      assert.equal((await api('DELETE', `/api/reports.php?id=${fromTemplate.json().id}`, writer)).statusCode, 200);
      assert.equal((await evidenceRows(folder)).length, 0, "gone with the report's work area");
      assert.equal((await evidenceRows(path.posix.dirname(copied.source_path))).length, 1, 'the template keeps its own');
    });

    test("the signature's hash covers the evidence (form 3): changed evidence fails the check; without evidence forms 1 and 2 as before", async () => {
      const order = await ctx.make.order({ author: writer.id });
      await form(photoUrl(order.id), writer, [
        text('taken_at_device', PHONE_TIME),
        text('gps_lat', '48.1'),
        text('gps_lon', '11.5'),
        { filename: 'beweis.jpg', data: camera },
      ]);
      const report = await newReport(writer, { fk_element: order.id, title: 'Beweise' });
      await addPage(writer, report.id, { source: 'beweis.jpg', title: 'Zustand' });
      const signed = await sign(writer, report.id, { signer: 'Erika Muster' });
      assert.equal(signed.statusCode, 201, signed.body);
      const verify = async (pageId: number) => (await api('GET', `/ajax/verify_signature.php?id=${pageId}`, writer)).json();
      const check = await verify(signed.json().id);
      assert.equal(check.verified, true, JSON.stringify(check));
      assert.equal(check.metadata.hash_form, 'fieldreport-pages/3');

      // The recorded phone time changed afterwards (someone with the database): the content changed.
      const where = (q: any) => q.where('filepath', '=', `commande/${order.ref}`).where('filename', '=', 'beweis.jpg');
      await where(ctx.handle.db.updateTable('bericht_photo_evidence').set({ device_taken_at: '2026-11-23T09:14:03.120+01:00' })).execute();
      const broken = await verify(signed.json().id);
      assert.deepEqual([broken.verified, broken.reason, broken.checks.hash], [false, 'content_changed', false]);
      await where(ctx.handle.db.updateTable('bericht_photo_evidence').set({ device_taken_at: PHONE_TIME })).execute();
      assert.equal((await verify(signed.json().id)).verified, true, 'restored: valid again');
      // Removed altogether: changed too.
      const [saved] = await where(ctx.handle.db.selectFrom('bericht_photo_evidence').selectAll()).execute();
      await where(ctx.handle.db.deleteFrom('bericht_photo_evidence')).execute();
      assert.equal((await verify(signed.json().id)).reason, 'content_changed');
      const { rowid: _rowid, ...restore } = saved;
      await ctx.handle.db.insertInto('bericht_photo_evidence').values(restore).execute();
      assert.equal((await verify(signed.json().id)).verified, true);

      // A report whose photos have no evidence (placed in the folder, as before this existed) is signed in form 1,
      // and evidence appearing later for them is not read by its check.
      const old = await newReport(writer, { fk_element: order.id, title: 'Beweise' });
      const { mkdir, writeFile } = await import('node:fs/promises');
      await mkdir(folderOf(order.ref), { recursive: true });
      await writeFile(path.join(folderOf(order.ref), 'alt.jpg'), plain);
      await addPage(writer, old.id, { source: 'alt.jpg' });
      const oldSigned = await sign(writer, old.id, { signer: 'Max Alt' });
      assert.equal(oldSigned.statusCode, 201, oldSigned.body);
      assert.equal((await verify(oldSigned.json().id)).metadata.hash_form, 'fieldreport-pages/1');
      await ctx.handle.db
        .insertInto('bericht_photo_evidence')
        .values({ ...restore, filename: 'alt.jpg', sha256: sha256(plain), size: plain.length })
        .execute();
      assert.equal((await verify(oldSigned.json().id)).verified, true);
    });
  });
}
