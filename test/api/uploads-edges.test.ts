/**
 * Edges of uploading and serving found in review: keys and names that differ only in case (MariaDB
 * folds case), ids beyond any rowid, long and emoji names, a `thumbs` link out of the folder, a
 * body cut short, `%` in names, and what a served file may do in a browser.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart, type Part } from '../helpers/multipart.js';

for (const dialect of testDialects()) {
  describe(`upload and file edges [${dialect}]`, () => {
    let ctx: TestContext;
    let token: string;
    let userId: number;
    let jpeg: Buffer;
    before(async () => {
      ctx = await createTestContext(dialect);
      const user = await ctx.make.user({ rights: ['read', 'write', 'delete'] });
      userId = user.id;
      token = await ctx.make.token(user);
      jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
        .jpeg()
        .toBuffer();
    });
    after(async () => ctx?.close());

    const upload = (orderId: number, parts: Part[], headers: Record<string, string> = {}) => {
      const body = multipart(parts);
      return ctx.app.inject({
        method: 'POST',
        url: `/api/orders.php?id=${orderId}&action=upload_photo`,
        headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType, ...headers },
        payload: body.payload,
      });
    };
    const folderOf = (ref: string) => path.join(ctx.config.dataRoot, 'commande', ref);

    test('Idempotency-Keys that differ only in case are two keys: two uploads, two files', async () => {
      const order = await ctx.make.order({ author: userId });
      const first = await upload(order.id, [{ filename: 'k1.jpg', data: jpeg }], { 'idempotency-key': 'abcKEY' });
      const second = await upload(order.id, [{ filename: 'k2.jpg', data: jpeg }], { 'idempotency-key': 'ABCkey' });
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(second.statusCode, 201, second.body);
      assert.equal(second.json().name, 'k2.jpg', 'not the first answer replayed');
      assert.deepEqual(
        readdirSync(folderOf(order.ref))
          .filter((n) => n !== 'thumbs')
          .sort(),
        ['k1.jpg', 'k2.jpg'],
      );
    });

    test('a name that differs only in case from a stored one gets a free name, not a 500', async () => {
      const order = await ctx.make.order({ author: userId });
      assert.equal((await upload(order.id, [{ filename: 'photo.jpg', data: jpeg }])).statusCode, 201);
      const res = await upload(order.id, [{ filename: 'Photo.jpg', data: jpeg }]);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().name, 'Photo_2.jpg');
      const rows = await ctx.handle.db.selectFrom('ecm_files').select('filename').where('filepath', '=', `commande/${order.ref}`).execute();
      assert.deepEqual(rows.map((r) => r.filename).sort(), ['Photo_2.jpg', 'photo.jpg']);
    });

    test('an id beyond any rowid is 400 on upload and 404 on delete, never a database error', async () => {
      assertError(await upload(9_999_999_999, [{ filename: 'x.jpg', data: jpeg }]), 400, 'VALIDATION_FAILED');
      const del = await ctx.app.inject({
        method: 'POST',
        url: '/api/delete_photo.php',
        headers: { authorization: `Bearer ${token}` },
        payload: { id: '9999999999', file: 'x.jpg' },
      });
      assertError(del, 404, 'ORDER_NOT_FOUND');
    });

    test('a long multibyte name is cut to fit the file system; emoji become _', async () => {
      const order = await ctx.make.order({ author: userId });
      const long = await upload(order.id, [{ filename: `${'写'.repeat(150)}.jpg`, data: jpeg }]);
      assert.equal(long.statusCode, 201, long.body);
      assert.ok(Buffer.byteLength(long.json().name) <= 200, long.json().name);
      assert.ok(long.json().name.endsWith('.jpg'));
      const emoji = await upload(order.id, [{ filename: 'Urlaub 😀.jpg', data: jpeg }]);
      assert.equal(emoji.statusCode, 201, emoji.body);
      assert.equal(emoji.json().name, 'Urlaub _.jpg');
    });

    test('a thumbs link pointing out of the folder is refused and nothing is written there', async () => {
      const order = await ctx.make.order({ author: userId });
      const outside = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-outside-'));
      try {
        mkdirSync(folderOf(order.ref), { recursive: true });
        symlinkSync(outside, path.join(folderOf(order.ref), 'thumbs'));
        assertError(await upload(order.id, [{ filename: 'sym.jpg', data: jpeg }]), 400, 'FILE_PATH_INVALID');
        assert.deepEqual(readdirSync(outside), [], 'nothing written outside');
        assert.equal(existsSync(path.join(folderOf(order.ref), 'sym.jpg')), false, 'the upload was taken back');
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    test('a multipart body that ends inside the file is 400 and leaves nothing', async () => {
      const order = await ctx.make.order({ author: userId });
      const body = multipart([{ filename: 'cut.jpg', data: jpeg }]);
      const cut = body.payload.subarray(0, body.payload.length - 60);
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/orders.php?id=${order.id}&action=upload_photo`,
        headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType },
        payload: cut,
      });
      assertError(res, 400, 'UPLOAD_MISSING');
      const left = existsSync(folderOf(order.ref)) ? readdirSync(folderOf(order.ref)) : [];
      assert.deepEqual(
        left.filter((n) => n !== 'thumbs'),
        [],
      );
    });

    test('an order whose ref Dolibarr changes for its folder (CO/24:01 → CO_24_01) has its photos served', async () => {
      const ref = `CO/${Date.now() % 100000}:01`;
      const order = await ctx.make.order({ author: userId, ref });
      const up = await upload(order.id, [{ filename: 'Zaehler.jpg', data: jpeg }]);
      assert.equal(up.statusCode, 201, up.body);
      assert.ok(existsSync(path.join(ctx.config.dataRoot, 'commande', ref.replace(/[/:]/g, '_'), 'Zaehler.jpg')));
      const served = await ctx.app.inject({ method: 'GET', url: up.json().url, headers: { authorization: `Bearer ${token}` } });
      assert.equal(served.statusCode, 200, served.body);
      assert.deepEqual(served.rawPayload, jpeg);
      // Another user still gets nothing through the folder name.
      const other = await ctx.make.user({ rights: ['read'] });
      const otherRes = await ctx.app.inject({
        method: 'GET',
        url: up.json().url,
        headers: { authorization: `Bearer ${await ctx.make.token(other)}` },
      });
      assertError(otherRes, 404, 'FILE_NOT_FOUND');
    });

    test('a refused upload leaves no empty order folder behind; an existing folder stays', async () => {
      const fresh = await ctx.make.order({ author: userId });
      assertError(
        await upload(fresh.id, [{ filename: 'note.jpg', data: Buffer.from('just text, no image') }]),
        415,
        'UPLOAD_TYPE_UNSUPPORTED',
      );
      assert.equal(existsSync(folderOf(fresh.ref)), false, 'the folder made for it is gone');
      const used = await ctx.make.order({ author: userId });
      assert.equal((await upload(used.id, [{ filename: 'ok.jpg', data: jpeg }])).statusCode, 201);
      assertError(await upload(used.id, [{ filename: 'note.jpg', data: Buffer.from('just text') }]), 415, 'UPLOAD_TYPE_UNSUPPORTED');
      assert.ok(existsSync(path.join(folderOf(used.ref), 'ok.jpg')), 'a folder with files stays as it was');
    });

    test('a name with % is stored, listed and served; a served file may not run anything', async () => {
      const order = await ctx.make.order({ author: userId });
      const up = await upload(order.id, [{ filename: 'Rabatt%41 50%.jpg', data: jpeg }]);
      assert.equal(up.statusCode, 201, up.body);
      const served = await ctx.app.inject({ method: 'GET', url: up.json().url, headers: { authorization: `Bearer ${token}` } });
      assert.equal(served.statusCode, 200, served.body);
      assert.equal(served.headers['content-type'], 'image/jpeg');
      assert.equal(served.headers['content-security-policy'], "default-src 'none'; sandbox");
      // A type we do not serve as such (here: bytes of an SWF) goes out as octet-stream.
      mkdirSync(folderOf(order.ref), { recursive: true });
      const swf = Buffer.concat([Buffer.from('FWS'), Buffer.from([10, 100, 0, 0, 0]), Buffer.alloc(64)]);
      const { writeFileSync } = await import('node:fs');
      writeFileSync(path.join(folderOf(order.ref), 'film.jpg'), swf);
      const flash = await ctx.app.inject({
        method: 'GET',
        url: `/api/photo.php?modulepart=commande&file=${encodeURIComponent(`${order.ref}/film.jpg`)}`,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(flash.statusCode, 200);
      assert.equal(flash.headers['content-type'], 'application/octet-stream');
    });
  });
}
