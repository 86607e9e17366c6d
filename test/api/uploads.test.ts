/**
 * Endpoints 5 (photo upload) and 19 (voice upload): real files (sharp-made images, ffmpeg-made
 * audio samples in test/fixtures/uploads/), Dolibarr's layout on disk and in ecm_files, size and
 * type refusals that leave nothing behind, visibility, file names, idempotency, compensation.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ecmFileRef } from '../../src/dolibarr/ecm.js';
import { toDbDateTime } from '../../src/db/dialect.js';
import { testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { assertError } from '../helpers/assertions.js';
import { testDialects } from '../helpers/databases.js';

const FIXTURES = new URL('../fixtures/uploads/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
/** Idempotency keys are kept as their SHA-256 (exact on every collation). */
const storedKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

const MAX_PHOTO = 200 * 1024;
const MAX_AUDIO = 100 * 1024;

for (const dialect of testDialects()) {
  describe(`uploads [${dialect}]`, () => {
    let ctx: TestContext;
    let writer: { id: number; token: string };
    let reader: { token: string };
    let other: { id: number; token: string };
    let jpeg: Buffer; // 400x200 pixels, EXIF orientation 6
    let png: Buffer;
    let webp: Buffer;

    before(async () => {
      ctx = await createTestContext(dialect, { uploads: { maxPhotoBytes: MAX_PHOTO, maxAudioBytes: MAX_AUDIO } });
      const w = await ctx.make.user({ rights: ['read', 'write'] });
      writer = { id: w.id, token: await ctx.make.token(w) };
      const r = await ctx.make.user({ rights: ['read'] });
      reader = { token: await ctx.make.token(r) };
      const o = await ctx.make.user({ rights: ['read', 'write'] });
      other = { id: o.id, token: await ctx.make.token(o) };
      const base = sharp({ create: { width: 400, height: 200, channels: 3, background: { r: 200, g: 40, b: 40 } } });
      jpeg = await base.clone().jpeg().withMetadata({ orientation: 6 }).toBuffer();
      png = await base.clone().png().toBuffer();
      webp = await base.clone().webp().toBuffer();
    });
    after(async () => ctx?.close());

    const { form } = testClient(() => ctx);

    const folderOf = (ref: string) => path.join(ctx.config.dataRoot, 'commande', ref);
    const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);
    const newOrder = (author = writer.id) => ctx.make.order({ author });

    const photoUrl = (id: number) => `/api/orders.php?id=${id}&action=upload_photo`;
    const voiceUrl = (id: number) => `/api/voice.php?id=${id}`;
    const ecmRows = (filepath: string) =>
      ctx.handle.db.selectFrom('ecm_files').selectAll().where('filepath', '=', filepath).orderBy('rowid').execute();

    test('a JPEG with EXIF orientation: stored, upright thumbnails, ecm_files row as Dolibarr writes it', async () => {
      const order = await newOrder();
      const res = await form(photoUrl(order.id), writer, [{ filename: 'IMG_0001.JPG', type: 'image/jpeg', data: jpeg }]);
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      const file = encodeURIComponent(`${order.ref}/IMG_0001.jpg`);
      assert.deepEqual(body, {
        name: 'IMG_0001.jpg',
        size: jpeg.length,
        type: 'image/jpeg',
        mtime: body.mtime,
        url: `/api/photo.php?modulepart=commande&file=${file}`,
        thumb_small_url: `/api/photo.php?modulepart=commande&file=${file}&size=small`,
        thumb_mini_url: `/api/photo.php?modulepart=commande&file=${file}&size=mini`,
        evidence: {
          sha256: createHash('sha256').update(jpeg).digest('hex'),
          size: jpeg.length,
          received_at: body.evidence.received_at,
          exif_taken_at: null,
          exif_offset: null,
          exif_gps_lat: null,
          exif_gps_lon: null,
          taken_at_device: null,
          taken_at_device_unix: null,
          gps_lat: null,
          gps_lon: null,
        },
      });
      assert.ok(Math.abs(body.mtime - Date.now() / 1000) < 60);
      assert.ok(Math.abs(body.evidence.received_at - Date.now() / 1000) < 60);

      // A JPEG's thumbnails follow the answer; until they are written its intent stays.
      await ctx.app.printQueue.idle();
      assert.equal(
        (await ctx.handle.db.selectFrom('bericht_file_intent').select('rowid').where('filename', '=', 'IMG_0001.jpg').execute()).length,
        0,
        'the upload is settled once its thumbnails are written',
      );
      const dir = folderOf(order.ref);
      assert.deepEqual(filesIn(dir), ['IMG_0001.jpg', 'thumbs']);
      assert.ok(readFileSync(path.join(dir, 'IMG_0001.jpg')).equals(jpeg));
      assert.deepEqual(filesIn(path.join(dir, 'thumbs')), ['IMG_0001_mini.jpg', 'IMG_0001_small.jpg']);
      const small = await sharp(path.join(dir, 'thumbs', 'IMG_0001_small.jpg')).metadata();
      assert.equal(small.format, 'jpeg');
      assert.ok(small.height! > small.width!, `small thumb ${small.width}x${small.height} is not upright`);
      assert.ok(small.width! <= 480 && small.height! <= 270);
      const mini = await sharp(path.join(dir, 'thumbs', 'IMG_0001_mini.jpg')).metadata();
      assert.ok(mini.height! > mini.width! && mini.width! <= 128 && mini.height! <= 72);

      const rows = await ecmRows(`commande/${order.ref}`);
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      const salt = await ctx.make.getConst('MAIN_SECURITY_SALT');
      assert.equal(row.ref, ecmFileRef(salt, `commande/${order.ref}`, 'IMG_0001.jpg'));
      assert.equal(row.label, md5(jpeg));
      assert.equal(Number(row.entity), 1);
      assert.equal(row.filename, 'IMG_0001.jpg');
      assert.equal(row.src_object_type, 'commande');
      assert.equal(Number(row.src_object_id), order.id);
      assert.equal(row.fullpath_orig, 'IMG_0001.JPG');
      assert.equal(row.gen_or_uploaded, 'uploaded');
      assert.equal(Number(row.position), 1);
      assert.equal(Number(row.fk_user_c), writer.id);
      assert.ok(row.date_c, 'date_c set');

      // A second file in the folder: the next position.
      const second = await form(photoUrl(order.id), writer, [{ filename: 'plan.png', data: png }]);
      assert.equal(second.statusCode, 201, second.body);
      const positions = (await ecmRows(`commande/${order.ref}`)).map((r) => Number(r.position));
      assert.deepEqual(positions, [1, 2]);
    });

    test('PNG and WebP: stored with thumbnails in their own format', async () => {
      const order = await newOrder();
      for (const [data, name, type] of [
        [png, 'skizze.png', 'image/png'],
        [webp, 'foto.webp', 'image/webp'],
      ] as const) {
        const res = await form(photoUrl(order.id), writer, [{ filename: name, data }]);
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().name, name);
        assert.equal(res.json().type, type);
        const stem = name.replace(/\.[^.]+$/, '');
        const ext = path.extname(name);
        for (const size of ['small', 'mini']) {
          const thumb = path.join(folderOf(order.ref), 'thumbs', `${stem}_${size}${ext}`);
          assert.ok(existsSync(thumb), `${thumb} missing`);
          assert.equal((await sharp(thumb).metadata()).format, type.slice(6));
        }
      }
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 2);
    });

    test('the extension follows the bytes: a PNG sent as .jpg is stored as .png', async () => {
      const order = await newOrder();
      const res = await form(photoUrl(order.id), writer, [{ filename: 'bild.jpg', type: 'image/jpeg', data: png }]);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().name, 'bild.png');
    });

    test('HEIC/HEIF is accepted without thumbnails', async () => {
      const order = await newOrder();
      // An ISO-BMFF header with the `heic` brand (what file-type reads), then payload bytes.
      const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1')]);
      const res = await form(photoUrl(order.id), writer, [{ filename: 'IMG_5000.HEIC', data: Buffer.concat([ftyp, randomBytes(2000)]) }]);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().name, 'IMG_5000.heic');
      assert.equal(res.json().type, 'image/heic');
      assert.equal(res.json().thumb_small_url, null);
      assert.equal(res.json().thumb_mini_url, null);
      assert.deepEqual(filesIn(folderOf(order.ref)), ['IMG_5000.heic']);
    });

    test('voice: OGG, WebM, MP3 and M4A are stored with ecm rows and no thumbnails', async () => {
      const order = await newOrder();
      const cases = [
        ['voice.ogg', 'audio/ogg', 'Sprachnotiz.ogg'],
        ['voice.webm', 'audio/webm', 'Sprachnotiz.webm'],
        ['voice.mp3', 'audio/mpeg', 'Sprachnotiz.mp3'],
        ['voice.m4a', 'audio/mp4', 'Sprachnotiz.m4a'],
      ] as const;
      for (const [sample, type, stored] of cases) {
        const data = fixture(sample);
        const res = await form(voiceUrl(order.id), writer, [{ filename: `Sprachnotiz${path.extname(sample)}`, data }]);
        assert.equal(res.statusCode, 201, `${sample}: ${res.body}`);
        const body = res.json();
        assert.equal(body.name, stored);
        assert.equal(body.type, type);
        assert.equal(body.size, data.length);
        assert.equal(body.url, `/api/photo.php?modulepart=commande&file=${encodeURIComponent(`${order.ref}/${stored}`)}`);
        assert.equal(body.thumb_small_url, null);
        assert.equal(body.thumb_mini_url, null);
        assert.equal(body.evidence, null, 'no photo evidence for a recording');
      }
      assert.deepEqual(filesIn(folderOf(order.ref)), cases.map((c) => c[2]).sort());
      const rows = await ecmRows(`commande/${order.ref}`);
      assert.deepEqual(
        rows.map((r) => [r.filename, r.gen_or_uploaded, Number(r.position)]),
        cases.map((c, i) => [c[2], 'uploaded', i + 1]),
      );
    });

    test('a type of the other route, or a text file named .jpg, is 415 and leaves nothing', async () => {
      const order = await newOrder();
      assertError(
        await form(photoUrl(order.id), writer, [
          { filename: 'notes.jpg', type: 'image/jpeg', data: 'just some text, not an image\n'.repeat(20) },
        ]),
        415,
        'UPLOAD_TYPE_UNSUPPORTED',
      );
      assertError(
        await form(photoUrl(order.id), writer, [{ filename: 'voice.ogg', data: fixture('voice.ogg') }]),
        415,
        'UPLOAD_TYPE_UNSUPPORTED',
      );
      assertError(await form(voiceUrl(order.id), writer, [{ filename: 'photo.mp3', data: jpeg }]), 415, 'UPLOAD_TYPE_UNSUPPORTED');
      assert.deepEqual(filesIn(folderOf(order.ref)), []);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 0);
    });

    test('a file over the cap is 413 and leaves no file and no temporary file', async () => {
      const order = await newOrder();
      // One byte over the cap, and far over it; both start like a JPEG.
      for (const size of [MAX_PHOTO + 1, MAX_PHOTO * 4]) {
        const data = Buffer.concat([jpeg, randomBytes(size - jpeg.length)]);
        const res = await form(photoUrl(order.id), writer, [{ filename: 'big.jpg', data }]);
        assertError(res, 413, 'UPLOAD_TOO_LARGE');
      }
      const audio = Buffer.concat([fixture('voice.ogg'), randomBytes(MAX_AUDIO)]);
      assertError(await form(voiceUrl(order.id), writer, [{ filename: 'long.ogg', data: audio }]), 413, 'UPLOAD_TOO_LARGE');
      assert.deepEqual(filesIn(folderOf(order.ref)), []);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 0);
      // The photo cap is not the audio cap: a photo-sized voice file above the audio cap is refused, one under it passes.
      const fits = Buffer.concat([fixture('voice.ogg'), Buffer.alloc(MAX_AUDIO - fixture('voice.ogg').length)]);
      assert.equal((await form(voiceUrl(order.id), writer, [{ filename: 'fits.ogg', data: fits }])).statusCode, 201);
    });

    test('a corrupt JPEG (valid header, garbage after) is 400 IMAGE_INVALID and leaves nothing', async () => {
      const order = await newOrder();
      const corrupt = Buffer.concat([jpeg.subarray(0, 400), randomBytes(20_000)]);
      assertError(await form(photoUrl(order.id), writer, [{ filename: 'kaputt.jpg', data: corrupt }]), 400, 'IMAGE_INVALID');
      const truncated = jpeg.subarray(0, Math.floor(jpeg.length / 2));
      assertError(await form(photoUrl(order.id), writer, [{ filename: 'halb.jpg', data: truncated }]), 400, 'IMAGE_INVALID');
      const dir = folderOf(order.ref);
      assert.deepEqual(filesIn(dir), filesIn(dir).includes('thumbs') ? ['thumbs'] : []);
      assert.deepEqual(filesIn(path.join(dir, 'thumbs')), []);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 0);
    });

    test("another user's order is 404 and nothing is written", async () => {
      const order = await newOrder(other.id);
      for (const url of [photoUrl(order.id), voiceUrl(order.id)]) {
        assertError(
          await form(url, writer, [{ filename: 'a.jpg', data: jpeg }], { headers: { 'idempotency-key': `k-${url.length}` } }),
          404,
          'ORDER_NOT_FOUND',
        );
      }
      assertError(await form(photoUrl(999_999), writer, [{ filename: 'a.jpg', data: jpeg }]), 404, 'ORDER_NOT_FOUND');
      assert.equal(existsSync(folderOf(order.ref)), false);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 0);
      const sent = [photoUrl(order.id), voiceUrl(order.id)].map((url) => storedKey(`k-${url.length}`));
      const keys = await ctx.handle.db
        .selectFrom('bericht_idempotency')
        .select('rowid')
        .where('fk_user', '=', writer.id)
        .where('idem_key', 'in', sent)
        .execute();
      assert.equal(keys.length, 0);
    });

    test('rights and request shape: 401 without token, 403 read-only, 400 for wrong field, body or action', async () => {
      const order = await newOrder();
      assertError(await form(photoUrl(order.id), null, [{ filename: 'a.jpg', data: jpeg }]), 401, 'AUTH_TOKEN_MISSING');
      assertError(await form(voiceUrl(order.id), null, [{ filename: 'a.ogg', data: fixture('voice.ogg') }]), 401, 'AUTH_TOKEN_MISSING');
      assertError(await form(photoUrl(order.id), reader, [{ filename: 'a.jpg', data: jpeg }]), 403, 'AUTH_RIGHT_MISSING');
      assertError(await form(voiceUrl(order.id), reader, [{ filename: 'a.ogg', data: fixture('voice.ogg') }]), 403, 'AUTH_RIGHT_MISSING');
      assertError(await form(photoUrl(order.id), writer, [{ name: 'photo', filename: 'a.jpg', data: jpeg }]), 400, 'UPLOAD_MISSING');
      assertError(await form(photoUrl(order.id), writer, [{ name: 'note', data: 'text only' }]), 400, 'UPLOAD_MISSING');
      assertError(
        await form(voiceUrl(order.id), writer, [{ name: 'audio', filename: 'a.ogg', data: fixture('voice.ogg') }]),
        400,
        'UPLOAD_MISSING',
      );
      const json = await ctx.app.inject({
        method: 'POST',
        url: photoUrl(order.id),
        payload: { file: 'x' },
        headers: { authorization: `Bearer ${writer.token}` },
      });
      assertError(json, 400, 'UPLOAD_MISSING');
      assertError(
        await form(`/api/orders.php?id=${order.id}&action=photos`, writer, [{ filename: 'a.jpg', data: jpeg }]),
        400,
        'ACTION_UNKNOWN',
      );
      assertError(await form(`/api/orders.php?id=${order.id}`, writer, [{ filename: 'a.jpg', data: jpeg }]), 400, 'VALIDATION_FAILED');
      assertError(
        await form(`/api/orders.php?id=abc&action=upload_photo`, writer, [{ filename: 'a.jpg', data: jpeg }]),
        400,
        'VALIDATION_FAILED',
      );
      assertError(await form(`/api/voice.php`, writer, [{ filename: 'a.ogg', data: fixture('voice.ogg') }]), 400, 'VALIDATION_FAILED');
      assert.deepEqual(filesIn(folderOf(order.ref)), []);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 0);
    });

    test('file names are cleaned as Dolibarr does and stay inside the folder', async () => {
      const order = await newOrder();
      const dir = folderOf(order.ref);
      const cases: Array<[string, string]> = [
        ['../../etc/passwd.jpg', 'passwd.jpg'],
        ['..\\..\\boot.ini.jpg', 'boot.ini.jpg'],
        ['Größe: 1?.JPG', 'Grosse_ 1_.jpg'],
        ['Größe: 1/2?.JPG', '2_.jpg'],
        ['.htaccess', 'htaccess.jpg'],
        ['a<b>|c*d:e.jpeg', 'a_c_d_e.jpg'],
        ['', 'datei.jpg'],
      ];
      for (const [sent, stored] of cases) {
        const res = await form(photoUrl(order.id), writer, [{ filename: sent, data: jpeg }]);
        assert.equal(res.statusCode, 201, `${sent}: ${res.body}`);
        assert.equal(res.json().name, stored, sent);
        assert.ok(existsSync(path.join(dir, stored)));
      }
      for (const name of filesIn(dir)) assert.ok(!name.startsWith('.'), `stray ${name}`);
      assert.equal(existsSync(path.join(ctx.config.dataRoot, 'etc')), false);
    });

    test('the same name twice makes two files: the second gets _2, nothing is overwritten', async () => {
      const order = await newOrder();
      const first = await form(photoUrl(order.id), writer, [{ filename: 'Baustelle.jpg', data: jpeg }]);
      const second = await form(photoUrl(order.id), writer, [{ filename: 'Baustelle.jpg', data: png }]);
      const third = await form(photoUrl(order.id), writer, [{ filename: 'Baustelle.jpg', data: jpeg }]);
      assert.deepEqual([first.json().name, second.json().name, third.json().name], ['Baustelle.jpg', 'Baustelle.png', 'Baustelle_2.jpg']);
      const dir = folderOf(order.ref);
      assert.ok(readFileSync(path.join(dir, 'Baustelle.jpg')).equals(jpeg));
      await ctx.app.printQueue.idle();
      assert.ok(existsSync(path.join(dir, 'thumbs', 'Baustelle_2_small.jpg')));
      // A name held by a stale index row counts as taken too (the row's unique key would refuse it).
      await ctx.handle.db
        .insertInto('ecm_files')
        .values({
          label: 'x',
          entity: 1,
          filepath: `commande/${order.ref}`,
          filename: 'Baustelle_3.jpg',
          date_c: toDbDateTime(),
          tms: toDbDateTime(),
          ref: null,
          share: null,
          src_object_type: null,
          src_object_id: null,
          fullpath_orig: null,
          description: null,
          keywords: null,
          gen_or_uploaded: 'uploaded',
          position: null,
          fk_user_c: null,
          fk_user_m: null,
        })
        .execute();
      const fourth = await form(photoUrl(order.id), writer, [{ filename: 'Baustelle.jpg', data: jpeg }]);
      assert.equal(fourth.json().name, 'Baustelle_4.jpg');
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 5);
    });

    test('concurrent uploads of one name all get their own file', async () => {
      const order = await newOrder();
      const results = await Promise.all(
        Array.from({ length: 4 }, () => form(photoUrl(order.id), writer, [{ filename: 'gleich.jpg', data: jpeg }])),
      );
      for (const r of results) assert.equal(r.statusCode, 201, r.body);
      const names = results.map((r) => r.json().name as string).sort();
      assert.deepEqual(names, ['gleich.jpg', 'gleich_2.jpg', 'gleich_3.jpg', 'gleich_4.jpg']);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 4);
    });

    test('Idempotency-Key: a repeat gets the same answer, one file and one row', async () => {
      const order = await newOrder();
      const key = `upload-${randomBytes(6).toString('hex')}`;
      const first = await form(photoUrl(order.id), writer, [{ filename: 'wiederholt.jpg', data: jpeg }], {
        headers: { 'idempotency-key': key },
      });
      assert.equal(first.statusCode, 201, first.body);
      const again = await form(photoUrl(order.id), writer, [{ filename: 'wiederholt.jpg', data: jpeg }], {
        headers: { 'idempotency-key': key },
      });
      assert.equal(again.statusCode, 201);
      assert.deepEqual(again.json(), first.json());
      await ctx.app.printQueue.idle();
      assert.deepEqual(filesIn(folderOf(order.ref)), ['thumbs', 'wiederholt.jpg']);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 1);
      const stored = await ctx.handle.db.selectFrom('bericht_idempotency').selectAll().where('idem_key', '=', storedKey(key)).execute();
      assert.equal(stored.length, 1);
      assert.equal(Number(stored[0]!.status_code), 201);
      assert.equal(stored[0]!.scope, `upload_photo:${order.id}`);

      // The same key on another order, or on the voice route: 409, nothing written.
      const otherOrder = await newOrder();
      assertError(
        await form(photoUrl(otherOrder.id), writer, [{ filename: 'x.jpg', data: jpeg }], { headers: { 'idempotency-key': key } }),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
      assertError(
        await form(voiceUrl(order.id), writer, [{ filename: 'x.ogg', data: fixture('voice.ogg') }], {
          headers: { 'idempotency-key': key },
        }),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
      assert.deepEqual(filesIn(folderOf(otherOrder.ref)), []);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 1);

      // Keys are per user: another user's same key is a new request.
      const o = await ctx.make.order({ author: other.id });
      const theirs = await form(photoUrl(o.id), other, [{ filename: 'x.jpg', data: jpeg }], { headers: { 'idempotency-key': key } });
      assert.equal(theirs.statusCode, 201, theirs.body);
    });

    test('Idempotency-Key: in progress is 409, a failed request frees its key, a bad key is 400', async () => {
      const order = await newOrder();
      const busy = `busy-${randomBytes(4).toString('hex')}`;
      await ctx.handle.db
        .insertInto('bericht_idempotency')
        .values({
          entity: 1,
          fk_user: writer.id,
          idem_key: storedKey(busy),
          scope: `voice:${order.id}`,
          status_code: null,
          response: null,
          datec: toDbDateTime(),
        })
        .execute();
      assertError(
        await form(voiceUrl(order.id), writer, [{ filename: 'a.ogg', data: fixture('voice.ogg') }], {
          headers: { 'idempotency-key': busy },
        }),
        409,
        'IDEMPOTENCY_IN_PROGRESS',
      );

      const retry = `retry-${randomBytes(4).toString('hex')}`;
      assertError(
        await form(voiceUrl(order.id), writer, [{ filename: 'a.ogg', data: jpeg }], { headers: { 'idempotency-key': retry } }),
        415,
        'UPLOAD_TYPE_UNSUPPORTED',
      );
      const ok = await form(voiceUrl(order.id), writer, [{ filename: 'a.ogg', data: fixture('voice.ogg') }], {
        headers: {
          'idempotency-key': retry,
        },
      });
      assert.equal(ok.statusCode, 201, ok.body);
      assert.deepEqual(filesIn(folderOf(order.ref)), ['a.ogg']);

      for (const bad of ['with space', 'x'.repeat(129), 'umlaut-ä']) {
        assertError(
          await form(voiceUrl(order.id), writer, [{ filename: 'b.ogg', data: fixture('voice.ogg') }], {
            headers: { 'idempotency-key': bad },
          }),
          400,
          'VALIDATION_FAILED',
        );
      }
      assert.deepEqual(filesIn(folderOf(order.ref)), ['a.ogg']);
    });

    test('Idempotency-Key: a claim left unanswered for over an hour (its request died) is freed and the upload runs', async () => {
      const order = await newOrder();
      const stale = `stale-${randomBytes(4).toString('hex')}`;
      const twoHoursAgo = toDbDateTime(Math.floor(Date.now() / 1000) - 7200);
      await ctx.handle.db
        .insertInto('bericht_idempotency')
        .values({
          entity: 1,
          fk_user: writer.id,
          idem_key: storedKey(stale),
          scope: `voice:${order.id}`,
          status_code: null,
          response: null,
          datec: twoHoursAgo,
        })
        .execute();
      const res = await form(voiceUrl(order.id), writer, [{ filename: 'spaet.ogg', data: fixture('voice.ogg') }], {
        headers: {
          'idempotency-key': stale,
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(filesIn(folderOf(order.ref)), ['spaet.ogg']);
      // The new claim is answered now: a repeat gets the same answer and no second file.
      const again = await form(voiceUrl(order.id), writer, [{ filename: 'spaet.ogg', data: fixture('voice.ogg') }], {
        headers: {
          'idempotency-key': stale,
        },
      });
      assert.equal(again.statusCode, 201);
      assert.deepEqual(again.json(), res.json());
      assert.deepEqual(filesIn(folderOf(order.ref)), ['spaet.ogg']);
    });

    test('a failure after the file exists removes the file, its thumbnails and the row (compensation)', async () => {
      const order = await newOrder();
      const dir = folderOf(order.ref);
      // A plain file where the thumbnails folder belongs: writing a PNG's thumbnails (made before the answer) fails.
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'thumbs'), 'not a folder');
      const key = `comp-${randomBytes(4).toString('hex')}`;
      const res = await form(photoUrl(order.id), writer, [{ filename: 'ausfall.png', data: png }], { headers: { 'idempotency-key': key } });
      assertError(res, 500, 'INTERNAL_ERROR');
      assert.deepEqual(filesIn(dir), ['thumbs']);
      assert.ok(statSync(path.join(dir, 'thumbs')).isFile());
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 0);
      const keys = await ctx.handle.db.selectFrom('bericht_idempotency').select('rowid').where('idem_key', '=', storedKey(key)).execute();
      assert.equal(keys.length, 0, 'the key is free for a retry');
    });

    test('a JPEG is answered before its thumbnails; one sound in structure that cannot be decoded keeps file and row, gets no thumbnails, and its upload is settled', async () => {
      const order = await newOrder();
      // Bytes inside the scan changed to values below FF: the structure stays sound, the pixels do not.
      const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
      const broken = Buffer.from(jpeg);
      for (let i = sos + 40; i < broken.length - 40; i++) broken[i] = (i * 37) & 0x7f;
      const res = await form(photoUrl(order.id), writer, [{ filename: 'innen.jpg', data: broken }]);
      assert.equal(res.statusCode, 201, res.body);
      await ctx.app.printQueue.idle();
      const dir = folderOf(order.ref);
      assert.deepEqual(filesIn(dir), ['innen.jpg', 'thumbs']);
      assert.deepEqual(filesIn(path.join(dir, 'thumbs')), []);
      assert.equal((await ecmRows(`commande/${order.ref}`)).length, 1);
      assert.equal(
        (await ctx.handle.db.selectFrom('bericht_file_intent').select('rowid').where('filename', '=', 'innen.jpg').execute()).length,
        0,
      );
      // Asked for, its thumbnail is refused as the client's file, not a server error.
      const thumb = await ctx.app.inject({
        method: 'GET',
        url: `${res.json().thumb_small_url}`,
        headers: { authorization: `Bearer ${writer.token}` },
      });
      assert.notEqual(thumb.statusCode, 500, thumb.body);
    });

    test('a JPEG cut off or with garbage inside is refused from its structure (400 IMAGE_INVALID naming what is wrong), before any decode', async () => {
      const order = await newOrder();
      // Cut inside its scan, and a wrong marker inside the scan: the header is sound, sharp reads the size.
      const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
      const cut = jpeg.subarray(0, sos + 200);
      assert.ok((await sharp(cut).metadata()).width, 'the header alone reads');
      const res = assertError(await form(photoUrl(order.id), writer, [{ filename: 'cut.jpg', data: cut }]), 400, 'IMAGE_INVALID');
      assert.match(String(res.error), /cut off/);
      const marked = Buffer.from(jpeg);
      marked[sos + 300] = 0xff;
      marked[sos + 301] = 0x37;
      assert.match(
        assertError(await form(photoUrl(order.id), writer, [{ filename: 'marked.jpg', data: marked }]), 400, 'IMAGE_INVALID')
          .error as string,
        /invalid marker FF37/,
      );
      // Data after the end marker (phones append a second image or a trailer there) is fine.
      const trailer = Buffer.concat([jpeg, Buffer.from('SEFT trailer')]);
      assert.equal((await form(photoUrl(order.id), writer, [{ filename: 'trailer.jpg', data: trailer }])).statusCode, 201);
      await ctx.app.printQueue.idle();
      assert.deepEqual(filesIn(folderOf(order.ref)), ['thumbs', 'trailer.jpg']);
    });

    test('the OpenAPI document describes the decisions', async () => {
      const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      const photo = doc.paths['/api/orders.php'].post;
      const voice = doc.paths['/api/voice.php'].post;
      for (const op of [photo, voice]) {
        assert.match(op.description, /field `file`/);
        assert.match(op.description, /413 UPLOAD_TOO_LARGE/);
        assert.match(op.description, /415 UPLOAD_TYPE_UNSUPPORTED/);
        assert.ok(op.parameters.some((p: { name: string; in: string }) => p.name === 'idempotency-key' && p.in === 'header'));
        // The body a client must send: multipart/form-data with the binary file in `file`.
        const form = op.requestBody?.content?.['multipart/form-data']?.schema;
        assert.deepEqual(form?.required, ['file']);
        assert.equal(form?.properties?.file?.format, 'binary');
      }
      assert.match(photo.description, new RegExp(`At most ${MAX_PHOTO} bytes`));
      assert.match(voice.description, new RegExp(`At most ${MAX_AUDIO} bytes`));
      assert.match(voice.description, /WebM/);
    });
  });
}
