/**
 * Endpoints 16 (GET /api/photo.php) and 18 (POST /api/delete_photo.php): who may read and delete
 * which file (every database), every traversal form refused, thumbnails made on request, and the
 * HTTP details of file delivery (SQLite); resolveInside and the path helpers on their own.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { toDbDateTime } from '../../src/db/dialect.js';
import { checkRelativePath, objectFolder, resolveInside } from '../../src/dolibarr/documents.js';
import { AppError } from '../../src/errors.js';
import { contentDisposition, servedContentType } from '../../src/modules/files/file-path.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

const PHOTO = '/api/photo.php';
const DELETE = '/api/delete_photo.php';

const jpeg = (width = 1200, height = 900) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 10 } } })
    .jpeg({ quality: 80 })
    .toBuffer();
const png = (width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 4, background: { r: 0, g: 120, b: 200, alpha: 1 } } })
    .png()
    .toBuffer();
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');

/** Writes `data` at `rel` under the documents folder. */
async function put(ctx: TestContext, rel: string, data: Buffer | string): Promise<string> {
  const full = path.join(ctx.config.dataRoot, rel);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, data);
  return full;
}

const q = (params: Record<string, string>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');

function photo(ctx: TestContext, token: string | undefined, params: Record<string, string> | string, headers: Record<string, string> = {}) {
  const query = typeof params === 'string' ? params : q(params);
  return ctx.app.inject({
    method: 'GET',
    url: `${PHOTO}?${query}`,
    headers: token ? { authorization: `Bearer ${token}`, ...headers } : headers,
  });
}

/** The answer is refused (400 or 404 in the error shape) and carries none of `secret`'s bytes. */
function assertRefused(res: LightMyRequestResponse, secret: Buffer, status: 400 | 404 = 400) {
  assertError(res, status, status === 400 ? 'FILE_PATH_INVALID' : 'FILE_NOT_FOUND');
  assert.equal(res.rawPayload.includes(secret.subarray(0, 32)), false);
}

for (const dialect of testDialects()) {
  describe(`files: who sees and deletes which file [${dialect}]`, () => {
    let ctx: TestContext;
    let alice: { token: string; id: number };
    let bob: { token: string; id: number };
    let adminToken: string;
    let deleterToken: string;
    let deleter: number;
    let image: Buffer;
    const refs: Record<string, string> = {};

    before(async () => {
      ctx = await createTestContext(dialect);
      image = await jpeg(320, 240);
      const a = await ctx.make.user({ rights: ['read'] });
      const b = await ctx.make.user({ rights: ['read'] });
      const d = await ctx.make.user({ rights: ['read', 'delete'] });
      const admin = await ctx.make.user({ rights: ['read'], admin: true });
      alice = { id: a.id, token: await ctx.make.token(a) };
      bob = { id: b.id, token: await ctx.make.token(b) };
      deleter = d.id;
      deleterToken = await ctx.make.token(d);
      adminToken = await ctx.make.token(admin);

      const aliceOrder = await ctx.make.order({ author: a.id });
      const bobOrder = await ctx.make.order({ author: b.id });
      refs.aliceOrder = aliceOrder.ref;
      refs.bobOrder = bobOrder.ref;
      refs.aliceInvoice = (await ctx.make.invoice({ valid: a.id })).ref;
      refs.bobInvoice = (await ctx.make.invoice({ author: b.id })).ref;
      refs.aliceProposal = (await ctx.make.proposal({ modif: a.id })).ref;
      refs.bobProposal = (await ctx.make.proposal({ author: b.id })).ref;
      refs.aliceReport = (await ctx.make.report({ creator: a.id, element: bobOrder.id })).ref;
      // Bob's report on Alice's order: Alice sees it through its parent.
      refs.parentReport = (await ctx.make.report({ creator: b.id, element: aliceOrder.id })).ref;
      refs.bobReport = (await ctx.make.report({ creator: b.id, element: bobOrder.id })).ref;
      const dirs: Record<string, string> = {
        aliceOrder: 'commande',
        bobOrder: 'commande',
        aliceInvoice: 'facture',
        bobInvoice: 'facture',
        aliceProposal: 'propale',
        bobProposal: 'propale',
        aliceReport: 'bericht',
        parentReport: 'bericht',
        bobReport: 'bericht',
      };
      for (const [key, dir] of Object.entries(dirs)) await put(ctx, `${dir}/${refs[key]}/x.jpg`, image);
    });
    after(async () => ctx?.close());

    const cases: Array<[string, string, string]> = [
      ['commande', 'aliceOrder', 'bobOrder'],
      ['facture', 'aliceInvoice', 'bobInvoice'],
      ['propal', 'aliceProposal', 'bobProposal'],
      ['propale', 'aliceProposal', 'bobProposal'],
      ['bericht', 'aliceReport', 'bobReport'],
    ];
    for (const [modulepart, own, other] of cases) {
      test(`${modulepart}: the caller's file is served, another user's is 404`, async () => {
        const res = await photo(ctx, alice.token, { modulepart, file: `${refs[own]}/x.jpg` });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['content-type'], 'image/jpeg');
        assert.deepEqual(res.rawPayload, image);
        assertError(await photo(ctx, alice.token, { modulepart, file: `${refs[other]}/x.jpg` }), 404, 'FILE_NOT_FOUND');
        // The same for its thumbnail, and nothing is made for a file the caller may not see.
        assertError(await photo(ctx, alice.token, { modulepart, file: `${refs[other]}/x.jpg`, size: 'mini' }), 404, 'FILE_NOT_FOUND');
      });
    }

    test('a report is visible through its parent order', async () => {
      const res = await photo(ctx, alice.token, { modulepart: 'bericht', file: `${refs.parentReport}/x.jpg` });
      assert.equal(res.statusCode, 200, res.body);
    });

    test("the admin flag shows every order's files", async () => {
      const res = await photo(ctx, adminToken, { modulepart: 'commande', file: `${refs.bobOrder}/x.jpg` });
      assert.equal(res.statusCode, 200, res.body);
    });

    test('unknown refs, a missing file, and a ref under the wrong module are 404 alike', async () => {
      for (const params of [
        { modulepart: 'commande', file: 'CO9999-9999/x.jpg' },
        { modulepart: 'commande', file: `${refs.aliceOrder}/nope.jpg` },
        { modulepart: 'facture', file: `${refs.aliceOrder}/x.jpg` },
        { modulepart: 'bericht', file: `${refs.aliceOrder}/x.jpg` },
        { modulepart: 'commande', file: `${refs.aliceOrder!.toLowerCase()}/x.jpg` },
      ]) {
        assertError(await photo(ctx, alice.token, params), 404, 'FILE_NOT_FOUND');
      }
    });

    test('an unknown modulepart is 400 FILE_MODULE_UNKNOWN', async () => {
      for (const modulepart of ['societe', 'user', 'Commande', '../commande', 'constructor', '__proto__']) {
        assertError(await photo(ctx, alice.token, { modulepart, file: `${refs.aliceOrder}/x.jpg` }), 400, 'FILE_MODULE_UNKNOWN');
      }
    });

    test('the token is read from Authorization, X-Authorization and ?jwt=; none is 401', async () => {
      const file = `${refs.aliceOrder}/x.jpg`;
      const base = q({ modulepart: 'commande', file });
      const viaHeader = await ctx.app.inject({ method: 'GET', url: `${PHOTO}?${base}`, headers: { authorization: alice.token } });
      assert.equal(viaHeader.statusCode, 200);
      const viaX = await ctx.app.inject({
        method: 'GET',
        url: `${PHOTO}?${base}`,
        headers: { 'x-authorization': `Bearer ${alice.token}` },
      });
      assert.equal(viaX.statusCode, 200);
      const viaQuery = await ctx.app.inject({ method: 'GET', url: `${PHOTO}?${base}&jwt=${encodeURIComponent(alice.token)}` });
      assert.equal(viaQuery.statusCode, 200);
      // ?jwt= is the caller like any token: Bob's is 404 for Alice's file.
      assertError(
        await ctx.app.inject({ method: 'GET', url: `${PHOTO}?${base}&jwt=${encodeURIComponent(bob.token)}` }),
        404,
        'FILE_NOT_FOUND',
      );
      assertError(await ctx.app.inject({ method: 'GET', url: `${PHOTO}?${base}` }), 401, 'AUTH_TOKEN_MISSING');
      assertError(await ctx.app.inject({ method: 'GET', url: `${PHOTO}?${base}&jwt=nonsense` }), 401, 'AUTH_TOKEN_INVALID');
    });

    test('delete_photo removes the file, its thumbnails and its ecm_files row', async () => {
      const order = await ctx.make.order({ author: deleter });
      const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
      await put(ctx, `commande/${order.ref}/p.jpg`, image);
      await put(ctx, `commande/${order.ref}/thumbs/p_small.jpg`, image);
      await put(ctx, `commande/${order.ref}/thumbs/p_mini.jpg`, image);
      await put(ctx, `commande/${order.ref}/keep.jpg`, image);
      const row = {
        label: 'x',
        entity: ctx.config.entity,
        filepath: folder.filepath,
        src_object_type: 'commande',
        src_object_id: order.id,
        gen_or_uploaded: 'uploaded',
        date_c: toDbDateTime(),
        tms: toDbDateTime(),
      };
      await ctx.handle.db
        .insertInto('ecm_files')
        .values([
          { ...row, filename: 'p.jpg' },
          { ...row, filename: 'keep.jpg' },
        ])
        .execute();

      const res = await ctx.app.inject({
        method: 'POST',
        url: DELETE,
        headers: { authorization: `Bearer ${deleterToken}` },
        payload: { id: order.id, file: 'p.jpg' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { deleted: true, name: 'p.jpg' });
      for (const f of ['p.jpg', 'thumbs/p_small.jpg', 'thumbs/p_mini.jpg']) assert.equal(existsSync(path.join(folder.dir, f)), false, f);
      assert.equal(existsSync(path.join(folder.dir, 'keep.jpg')), true);
      const names = await ctx.handle.db.selectFrom('ecm_files').select('filename').where('filepath', '=', folder.filepath).execute();
      assert.deepEqual(
        names.map((n) => n.filename),
        ['keep.jpg'],
      );

      // Again: it is gone.
      assertError(
        await ctx.app.inject({
          method: 'POST',
          url: DELETE,
          headers: { authorization: deleterToken },
          payload: { id: order.id, file: 'p.jpg' },
        }),
        404,
        'FILE_NOT_FOUND',
      );
      // Query parameters work as well, and a file without thumbnails or a row is fine.
      const viaQuery = await ctx.app.inject({
        method: 'POST',
        url: `${DELETE}?id=${order.id}&file=keep.jpg`,
        headers: { authorization: deleterToken },
      });
      assert.equal(viaQuery.statusCode, 200, viaQuery.body);
      assert.equal(existsSync(path.join(folder.dir, 'keep.jpg')), false);
    });

    test("delete_photo: another user's order is 404, without the delete right 403, and nothing is removed", async () => {
      const other = await ctx.make.order({ author: bob.id });
      const file = await put(ctx, `commande/${other.ref}/p.jpg`, image);
      assertError(
        await ctx.app.inject({
          method: 'POST',
          url: DELETE,
          headers: { authorization: deleterToken },
          payload: { id: other.id, file: 'p.jpg' },
        }),
        404,
        'ORDER_NOT_FOUND',
      );
      assertError(
        await ctx.app.inject({
          method: 'POST',
          url: DELETE,
          headers: { authorization: deleterToken },
          payload: { id: 99999999, file: 'p.jpg' },
        }),
        404,
        'ORDER_NOT_FOUND',
      );
      assertError(
        await ctx.app.inject({
          method: 'POST',
          url: DELETE,
          headers: { authorization: bob.token },
          payload: { id: other.id, file: 'p.jpg' },
        }),
        403,
        'AUTH_RIGHT_MISSING',
      );
      assertError(
        await ctx.app.inject({ method: 'POST', url: DELETE, payload: { id: other.id, file: 'p.jpg' } }),
        401,
        'AUTH_TOKEN_MISSING',
      );
      assert.equal(existsSync(file), true);
    });

    test('delete_photo refuses names with a path, and a missing name is 404', async () => {
      const order = await ctx.make.order({ author: deleter });
      await put(ctx, `commande/${order.ref}/thumbs/x_small.jpg`, image);
      const secret = await put(ctx, `commande/x`, 'secret');
      const send = (payload: Record<string, unknown>) =>
        ctx.app.inject({ method: 'POST', url: DELETE, headers: { authorization: deleterToken }, payload });
      for (const file of ['../x', 'thumbs/x_small.jpg', '..', '.', '/etc/passwd', 'a\\..\\x', 'x%2e%2e', 'x\u0000.jpg']) {
        assertError(await send({ id: order.id, file }), 400, 'FILE_PATH_INVALID');
      }
      assertError(await send({ id: order.id, file: 'thumbs' }), 404, 'FILE_NOT_FOUND');
      assertError(await send({ id: order.id, file: 'missing.jpg' }), 404, 'FILE_NOT_FOUND');
      assertError(await send({ id: order.id }), 400, 'VALIDATION_FAILED');
      assertError(await send({ id: 'abc', file: 'x.jpg' }), 400, 'VALIDATION_FAILED');
      assert.equal(existsSync(secret), true);
      assert.equal(existsSync(path.join(ctx.config.dataRoot, `commande/${order.ref}/thumbs/x_small.jpg`)), true);
    });
  });
}

describe('files: paths and HTTP details [sqlite]', () => {
  let ctx: TestContext;
  let token: string;
  let ref: string;
  let otherRef: string;
  let image: Buffer;
  let secret: Buffer;

  before(async () => {
    ctx = await createTestContext('sqlite');
    const user = await ctx.make.user({ rights: ['read'] });
    token = await ctx.make.token(user);
    ref = (await ctx.make.order({ author: user.id })).ref;
    otherRef = (await ctx.make.order({})).ref;
    image = await jpeg();
    secret = await jpeg(50, 50);
    await put(ctx, `commande/${ref}/x.jpg`, image);
    await put(ctx, `commande/${ref}/fake.jpg`, await png());
    await put(ctx, `commande/${ref}/doc.pdf`, PDF);
    await put(ctx, `commande/${ref}/notes (1).txt`, 'Nur Text, kein Bild\n');
    await put(ctx, `commande/${otherRef}/x.jpg`, secret);
    await put(ctx, 'commande/x.jpg', secret);
    const outside = await put(ctx, '../outside.jpg', secret);
    await symlink(outside, path.join(ctx.config.dataRoot, `commande/${ref}/link.jpg`));
    await symlink(path.dirname(outside), path.join(ctx.config.dataRoot, `commande/${ref}/up`));
  });
  after(async () => ctx?.close());

  test('every traversal form is refused and never serves the bytes', async () => {
    const raw: Array<[string, 400 | 404]> = [
      [`${ref}/../${otherRef}/x.jpg`, 400],
      [`${ref}/..`, 400],
      [`../commande/${otherRef}/x.jpg`, 400],
      [`${ref}/./x.jpg`, 400],
      [`${ref}//x.jpg`, 400],
      [`/${ref}/x.jpg`, 400],
      [`${ref}/`, 400],
      ['/etc/passwd', 400],
      [path.join(ctx.config.dataRoot, `commande/${otherRef}/x.jpg`), 400],
      [`${ref}\\..\\${otherRef}\\x.jpg`, 400],
      [`${ref}/x.jpg\u0000.png`, 400],
      [`${ref}/link.jpg`, 400],
      [`${ref}/up/outside.jpg`, 400],
      ['x.jpg', 400],
    ];
    for (const [file, status] of raw) assertRefused(await photo(ctx, token, { modulepart: 'commande', file }), secret, status);

    // Encoded in the URL itself: decoded once by the query parser.
    for (const file of [
      `${ref}%2F..%2F${otherRef}%2Fx.jpg`, // ..%2f → ../
      `${ref}/..%2f${otherRef}/x.jpg`,
      `${ref}/%2e%2e/${otherRef}/x.jpg`, // %2e%2e → ..
      `${ref}/%2E%2E%2F${otherRef}%2Fx.jpg`,
      `${ref}%2F%252e%252e%252f${otherRef}%2Fx.jpg`, // double-encoded: stays %2e%2e%2f
      `${ref}/%252e%252e/${otherRef}/x.jpg`,
      `${ref}/x.jpg%00`,
      `${ref}%5C..%5C${otherRef}%5Cx.jpg`,
      `%2Fetc%2Fpasswd`,
      `${ref}/%2e/x.jpg`,
    ]) {
      const res = await photo(ctx, token, `modulepart=commande&file=${file}`);
      assertRefused(res, secret, 400);
    }
    // With size too: nothing is read or written outside.
    assertRefused(await photo(ctx, token, { modulepart: 'commande', file: `${ref}/link.jpg`, size: 'small' }), secret);
    assert.equal(existsSync(path.join(ctx.config.dataRoot, '..', 'thumbs')), false);
  });

  test('a link inside the folder to a file inside the folder is served', async () => {
    await symlink(path.join(ctx.config.dataRoot, `commande/${ref}/x.jpg`), path.join(ctx.config.dataRoot, `commande/${ref}/same.jpg`));
    const res = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/same.jpg` });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.rawPayload, image);
  });

  test('size=small and size=mini: made on first request, fitting their boxes, then served as stored', async () => {
    for (const [size, box] of [
      ['small', [480, 270]],
      ['mini', [128, 72]],
    ] as const) {
      const thumb = path.join(ctx.config.dataRoot, `commande/${ref}/thumbs/x_${size}.jpg`);
      assert.equal(existsSync(thumb), false);
      const res = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg`, size });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'image/jpeg');
      assert.equal(res.headers['content-disposition'], `inline; filename*=UTF-8''x_${size}.jpg`);
      const meta = await sharp(res.rawPayload).metadata();
      assert.equal(meta.format, 'jpeg');
      assert.ok(meta.width! <= box[0] && meta.height! <= box[1], `${meta.width}x${meta.height} fits ${box.join('x')}`);
      assert.ok(meta.width === box[0] || meta.height === box[1], 'fills the box on one side');
      assert.equal(existsSync(thumb), true);
      assert.deepEqual(await readFile(thumb), res.rawPayload);
    }
    // An existing thumbnail is served as it is, not made again.
    const marker = await jpeg(10, 10);
    await writeFile(path.join(ctx.config.dataRoot, `commande/${ref}/thumbs/x_mini.jpg`), marker);
    const again = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg`, size: 'mini' });
    assert.deepEqual(again.rawPayload, marker);
  });

  test('thumbnails: none of a PDF or text, none of a thumbnail, an unknown size is 400', async () => {
    assertError(await photo(ctx, token, { modulepart: 'commande', file: `${ref}/doc.pdf`, size: 'small' }), 404, 'THUMBNAIL_UNAVAILABLE');
    assertError(
      await photo(ctx, token, { modulepart: 'commande', file: `${ref}/notes (1).txt`, size: 'mini' }),
      404,
      'THUMBNAIL_UNAVAILABLE',
    );
    await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg`, size: 'small' });
    assertError(
      await photo(ctx, token, { modulepart: 'commande', file: `${ref}/thumbs/x_small.jpg`, size: 'mini' }),
      404,
      'THUMBNAIL_UNAVAILABLE',
    );
    const body = assertError(
      await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg`, size: 'large' }),
      400,
      'VALIDATION_FAILED',
    );
    assert.ok(Array.isArray(body.details));
    assert.equal(existsSync(path.join(ctx.config.dataRoot, `commande/${ref}/thumbs/doc_small.pdf`)), false);
    // A thumbnail can be asked for by its own path too, as Dolibarr's viewimage.php links it.
    const direct = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/thumbs/x_small.jpg` });
    assert.equal(direct.statusCode, 200);
  });

  test('a corrupt image has no thumbnail (404, not 500)', async () => {
    await put(ctx, `commande/${ref}/broken.jpg`, Buffer.concat([image.subarray(0, 200)]));
    assertError(
      await photo(ctx, token, { modulepart: 'commande', file: `${ref}/broken.jpg`, size: 'small' }),
      404,
      'THUMBNAIL_UNAVAILABLE',
    );
  });

  test('Content-Type comes from the bytes; headers for caching and safety', async () => {
    const fake = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/fake.jpg` });
    assert.equal(fake.statusCode, 200);
    assert.equal(fake.headers['content-type'], 'image/png');
    const pdf = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/doc.pdf` });
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    const text = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/notes (1).txt` });
    assert.equal(text.statusCode, 200);
    assert.equal(text.headers['content-type'], 'application/octet-stream');
    assert.equal(text.headers['content-disposition'], "inline; filename*=UTF-8''notes%20%281%29.txt");

    const res = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg` });
    assert.equal(res.headers['cache-control'], 'private, max-age=3600');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-disposition'], "inline; filename*=UTF-8''x.jpg");
    assert.equal(res.headers['accept-ranges'], 'bytes');
    assert.equal(Number(res.headers['content-length']), image.length);
    assert.match(String(res.headers.etag), /^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    assert.ok(!Number.isNaN(Date.parse(String(res.headers['last-modified']))));
  });

  test('conditional requests: If-None-Match and If-Modified-Since give 304 without a body', async () => {
    const first = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg` });
    const etag = String(first.headers.etag);
    const byTag = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg` }, { 'if-none-match': etag });
    assert.equal(byTag.statusCode, 304);
    assert.equal(byTag.rawPayload.length, 0);
    assert.equal(byTag.headers.etag, etag);
    assert.equal(byTag.headers['cache-control'], 'private, max-age=3600');
    const byDate = await photo(
      ctx,
      token,
      { modulepart: 'commande', file: `${ref}/x.jpg` },
      { 'if-modified-since': String(first.headers['last-modified']) },
    );
    assert.equal(byDate.statusCode, 304);
    const stale = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg` }, { 'if-none-match': 'W/"0-0"' });
    assert.equal(stale.statusCode, 200);
    assert.deepEqual(stale.rawPayload, image);
    const failed = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg` }, { 'if-match': '"other"' });
    assert.equal(failed.statusCode, 412);
    assert.equal(failed.json().code, 'PRECONDITION_FAILED');
    // A 304 is still only for a caller who may see the file.
    const other = await ctx.make.user({ rights: ['read'] });
    const otherToken = await ctx.make.token(other);
    assertError(
      await photo(ctx, otherToken, { modulepart: 'commande', file: `${ref}/x.jpg` }, { 'if-none-match': etag }),
      404,
      'FILE_NOT_FOUND',
    );
  });

  test('ranges: bytes=0-9 is 206 with 10 bytes; beyond the end is 416 in the error shape', async () => {
    const res = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg` }, { range: 'bytes=0-9' });
    assert.equal(res.statusCode, 206);
    assert.equal(res.headers['content-range'], `bytes 0-9/${image.length}`);
    assert.equal(res.rawPayload.length, 10);
    assert.deepEqual(res.rawPayload, image.subarray(0, 10));
    assert.equal(res.headers['content-type'], 'image/jpeg');
    const tail = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg` }, { range: 'bytes=-5' });
    assert.equal(tail.statusCode, 206);
    assert.deepEqual(tail.rawPayload, image.subarray(image.length - 5));
    const beyond = await photo(ctx, token, { modulepart: 'commande', file: `${ref}/x.jpg` }, { range: 'bytes=999999999-' });
    assertError(beyond, 416, 'RANGE_NOT_SATISFIABLE');
    assert.equal(beyond.headers['content-range'], `bytes */${image.length}`);
  });

  test('HEAD gives the headers without the body', async () => {
    const res = await ctx.app.inject({
      method: 'HEAD',
      url: `${PHOTO}?${q({ modulepart: 'commande', file: `${ref}/x.jpg`, jwt: token })}`,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.rawPayload.length, 0);
    assert.equal(res.headers['content-type'], 'image/jpeg');
  });

  test('a directory is not a file', async () => {
    assertError(await photo(ctx, token, { modulepart: 'commande', file: `${ref}/thumbs` }), 404, 'FILE_NOT_FOUND');
  });

  test('the OpenAPI document describes both endpoints', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const get = doc.paths['/api/photo.php'].get;
    assert.deepEqual(get.parameters.map((p: { name: string }) => p.name).sort(), ['file', 'jwt', 'modulepart', 'size']);
    assert.ok(doc.paths['/api/delete_photo.php'].post.description.includes('delete'));
  });
});

describe('resolveInside, objectFolder and the path helpers', () => {
  let root: string;
  let folder: string;

  before(async () => {
    root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'fieldreport-paths-')));
    folder = path.join(root, 'commande', 'CO1');
    await mkdir(path.join(folder, 'sub'), { recursive: true });
    await writeFile(path.join(folder, 'a.jpg'), 'a');
    await writeFile(path.join(folder, 'sub', 'b.jpg'), 'b');
    await writeFile(path.join(root, 'secret.txt'), 'secret');
    await mkdir(path.join(root, 'commande', 'CO1x'), { recursive: true });
    await writeFile(path.join(root, 'commande', 'CO1x', 'c.jpg'), 'c');
    await symlink(path.join(root, 'secret.txt'), path.join(folder, 'out.txt'));
    await symlink(root, path.join(folder, 'rootlink'));
    await symlink(path.join(root, 'commande', 'CO1x'), path.join(folder, 'sibling'));
    await symlink(path.join(folder, 'sub', 'b.jpg'), path.join(folder, 'in.jpg'));
    await symlink(path.join(folder, 'nowhere'), path.join(folder, 'dangling'));
  });
  after(async () => rm(root, { recursive: true, force: true }));

  const code = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'ok';
    } catch (error) {
      assert.ok(error instanceof AppError, String(error));
      return error.code;
    }
  };

  test('resolves files inside the folder, links inside included', async () => {
    assert.equal(await resolveInside(folder, 'a.jpg'), path.join(folder, 'a.jpg'));
    assert.equal(await resolveInside(folder, 'sub/b.jpg'), path.join(folder, 'sub', 'b.jpg'));
    assert.equal(await resolveInside(folder, 'in.jpg'), path.join(folder, 'sub', 'b.jpg'));
  });

  test('refuses every way out with FILE_PATH_INVALID', async () => {
    for (const rel of [
      '',
      '..',
      '../secret.txt',
      'sub/../../secret.txt',
      './a.jpg',
      'sub//b.jpg',
      'sub/',
      '/etc/passwd',
      path.join(root, 'secret.txt'),
      'sub\\b.jpg',
      '..\\secret.txt',
      'a.jpg\u0000',
      'a\u0001.jpg',
      '%2e%2e/secret.txt',
      '..%2fsecret.txt',
      '%252e%252e%252f',
      'a%00.jpg',
      'out.txt',
      'rootlink/secret.txt',
      'sibling/c.jpg',
      'x'.repeat(1001),
    ]) {
      assert.equal(await code(resolveInside(folder, rel)), 'FILE_PATH_INVALID', JSON.stringify(rel));
    }
    // Checked by the same rules without touching the disk.
    for (const rel of ['', '..', '../x', './a', 'a//b', '/a', 'a\\b', 'a\u0000', '%2e%2e']) {
      assert.throws(
        () => checkRelativePath(rel),
        (e: unknown) => e instanceof AppError && e.code === 'FILE_PATH_INVALID',
        JSON.stringify(rel),
      );
    }
    assert.deepEqual(checkRelativePath('CO1/sub/b.jpg'), ['CO1', 'sub', 'b.jpg']);
  });

  test('a missing file, a dangling link and a missing folder are FILE_NOT_FOUND', async () => {
    assert.equal(await code(resolveInside(folder, 'nope.jpg')), 'FILE_NOT_FOUND');
    assert.equal(await code(resolveInside(folder, 'dangling')), 'FILE_NOT_FOUND');
    assert.equal(await code(resolveInside(path.join(root, 'missing'), 'a.jpg')), 'FILE_NOT_FOUND');
  });

  test("objectFolder: Dolibarr's folders, sanitized names, entity folders, never `..`", () => {
    assert.deepEqual(objectFolder('/data', 1, 'propal', 'PR2401-0001'), {
      dir: '/data/propale/PR2401-0001',
      filepath: 'propale/PR2401-0001',
      name: 'PR2401-0001',
    });
    assert.deepEqual(objectFolder('/data', 2, 'commande', 'CO/1'), {
      dir: '/data/2/commande/CO_1',
      filepath: '2/commande/CO_1',
      name: 'CO_1',
    });
    assert.equal(objectFolder('/data', 1, 'bericht', '../../etc').dir, '/data/bericht/__etc');
    for (const ref of ['', '..', '....', '.']) {
      assert.throws(
        () => objectFolder('/data', 1, 'commande', ref),
        (e: unknown) => e instanceof AppError && e.code === 'FILE_NOT_FOUND',
      );
    }
  });

  test('contentDisposition and servedContentType', () => {
    assert.equal(contentDisposition("Müller's Foto (1).jpg"), "inline; filename*=UTF-8''M%C3%BCller%27s%20Foto%20%281%29.jpg");
    assert.equal(contentDisposition('a"b\r\n.jpg'), "inline; filename*=UTF-8''a%22b%0D%0A.jpg");
    assert.equal(servedContentType('image/jpeg'), 'image/jpeg');
    assert.equal(servedContentType(undefined), 'application/octet-stream');
    for (const t of ['text/html', 'image/svg+xml', 'application/xml', 'text/javascript'])
      assert.equal(servedContentType(t), 'application/octet-stream');
  });
});
