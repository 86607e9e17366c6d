/**
 * The technician's round trip across endpoints: upload a phone photo to an order, find it in the
 * order's attachment list, find it in Dolibarr's layout on disk (folder, thumbnails, ecm_files
 * row), and get it and both thumbnails back through the file endpoint; another user gets none of it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { assertError } from '../helpers/assertions.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';

for (const dialect of testDialects()) {
  describe(`upload, list and serve an order's photo [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    test('the uploaded photo is listed, laid out as Dolibarr lays it out, and served with both thumbnails', async () => {
      const tech = await ctx.make.user({ rights: ['read', 'write'] });
      const other = await ctx.make.user({ rights: ['read', 'write', 'delete'] });
      const [token, otherToken] = [await ctx.make.token(tech), await ctx.make.token(other)];
      const order = await ctx.make.order({ author: tech.id });
      // A phone photo: landscape pixels stored with EXIF orientation 6 (shown portrait).
      const photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#7a8b5c' } })
        .jpeg({ quality: 85 })
        .withMetadata({ orientation: 6 })
        .toBuffer();
      const auth = { authorization: `Bearer ${token}` };

      const body = multipart([{ filename: 'Heizung vorher.jpg', type: 'image/jpeg', data: photo }]);
      const up = await ctx.app.inject({
        method: 'POST',
        url: `/api/orders.php?id=${order.id}&action=upload_photo`,
        headers: { ...auth, 'content-type': body.contentType },
        payload: body.payload,
      });
      assert.equal(up.statusCode, 201, up.body);
      const uploaded = up.json() as { name: string; url: string; thumb_small_url: string; thumb_mini_url: string };
      assert.equal(uploaded.name, 'Heizung vorher.jpg');

      // Listed among the order's attachments, with the same links.
      const list = await ctx.app.inject({ method: 'GET', url: `/api/orders.php?id=${order.id}&action=photos`, headers: auth });
      assert.equal(list.statusCode, 200, list.body);
      const entry = (list.json().items as Array<Record<string, unknown>>).find((i) => i.name === uploaded.name);
      assert.ok(entry, 'the upload is in the attachment list');
      assert.equal(entry.type, 'image/jpeg');
      assert.equal(entry.size, photo.length);
      assert.equal(entry.url, uploaded.url);
      assert.equal(entry.thumb_small_url, uploaded.thumb_small_url);
      assert.equal(entry.thumb_mini_url, uploaded.thumb_mini_url);

      // On disk as Dolibarr: commande/<ref>/<name>, thumbs/<base>_small.jpg and _mini.jpg (a JPEG's
      // are written just after the answer); an ecm_files row.
      await ctx.app.printQueue.idle();
      const folder = path.join(ctx.config.dataRoot, 'commande', order.ref);
      assert.deepEqual(readFileSync(path.join(folder, uploaded.name)), photo, 'stored byte for byte');
      for (const size of ['small', 'mini']) assert.ok(existsSync(path.join(folder, 'thumbs', `Heizung vorher_${size}.jpg`)), size);
      const row = await ctx.handle.db
        .selectFrom('ecm_files')
        .selectAll()
        .where('filepath', '=', `commande/${order.ref}`)
        .where('filename', '=', uploaded.name)
        .executeTakeFirstOrThrow();
      assert.equal(row.label, createHash('md5').update(photo).digest('hex'));
      assert.equal(row.src_object_type, 'commande');
      assert.equal(Number(row.src_object_id), order.id);
      assert.equal(row.gen_or_uploaded, 'uploaded');

      // Served: the file, and both thumbnails, upright (portrait) and within Dolibarr's boxes.
      const full = await ctx.app.inject({ method: 'GET', url: uploaded.url, headers: auth });
      assert.equal(full.statusCode, 200);
      assert.equal(full.headers['content-type'], 'image/jpeg');
      assert.deepEqual(full.rawPayload, photo);
      for (const [url, box] of [
        [uploaded.thumb_small_url, [480, 270]],
        [uploaded.thumb_mini_url, [128, 72]],
      ] as const) {
        const res = await ctx.app.inject({ method: 'GET', url: `${url}&jwt=${encodeURIComponent(token)}` });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.equal(res.headers['content-type'], 'image/jpeg');
        const meta = await sharp(res.rawPayload).metadata();
        assert.ok(meta.width! <= box[0] && meta.height! <= box[1], `${url}: ${meta.width}x${meta.height} within ${box}`);
        assert.ok(meta.height! > meta.width!, `${url}: upright (portrait), got ${meta.width}x${meta.height}`);
      }

      // Another user sees none of it.
      const otherAuth = { authorization: `Bearer ${otherToken}` };
      assertError(
        await ctx.app.inject({ method: 'GET', url: `/api/orders.php?id=${order.id}&action=photos`, headers: otherAuth }),
        404,
        'ORDER_NOT_FOUND',
      );
      assertError(await ctx.app.inject({ method: 'GET', url: uploaded.url, headers: otherAuth }), 404, 'FILE_NOT_FOUND');
      assertError(await ctx.app.inject({ method: 'GET', url: uploaded.thumb_small_url, headers: otherAuth }), 404, 'FILE_NOT_FOUND');
      assertError(
        await ctx.app.inject({
          method: 'POST',
          url: '/api/delete_photo.php',
          headers: otherAuth,
          payload: { id: order.id, file: uploaded.name },
        }),
        404,
        'ORDER_NOT_FOUND',
      );
      assert.ok(existsSync(path.join(folder, uploaded.name)), 'still there');
    });
  });
}
