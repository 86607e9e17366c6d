/**
 * QR upload links and the daily clean-up, on every database: making a link (rights, visibility,
 * validation), the page and the upload behind it (same checks and storage as the photo upload),
 * expired and unknown links, and a clean-up that removes exactly the expired links, also when it
 * runs twice at once.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { toDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { msUntil, runCleanup } from '../../src/modules/maintenance/cleanup.js';
import { createTokenVoidRepository } from '../../src/modules/auth/token-void.repository.js';
import { tokenHash } from '../../src/modules/uploads/upload-tokens.service.js';
import { assertError } from '../helpers/assertions.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { type Caller, callerOf, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

for (const dialect of testDialects()) {
  describe(`upload tokens [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { publicUrl: 'https://berichte.example.com' });
    });
    after(async () => ctx?.close());

    const { caller, api, form } = testClient(() => ctx);

    const makeLink = (who: Caller, body: unknown) => api('POST', '/api/upload_token.php', who, body);
    async function link(who: Caller, orderId: number) {
      const res = await makeLink(who, { fk_element: orderId });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as { id: number; token: string; expires: number; upload_url: string; qr_svg: string; qr_png: string };
    }
    /** The public upload with a link's token (no login). */
    const uploadWith = (token: string, data: Buffer, filename = 'baustelle.jpg') =>
      form(`/public/upload.php?token=${token}`, null, [{ name: 'file', filename, type: 'image/jpeg', data }]);
    const jpeg = () =>
      sharp({ create: { width: 1200, height: 900, channels: 3, background: '#6a8' } })
        .jpeg()
        .toBuffer();

    test('a link for an order: token, expiry, address and QR code; only its hash is stored', async () => {
      const me = await caller(['read', 'write']);
      const order = await ctx.make.order({ author: me.id });
      const before = Math.floor(Date.now() / 1000);
      const made = await link(me, order.id);
      assert.match(made.token, /^[A-Za-z0-9_-]{43}$/);
      assert.ok(made.expires >= before + 24 * 3600 - 2 && made.expires <= before + 24 * 3600 + 2, 'default 24 hours');
      assert.equal(made.upload_url, `https://berichte.example.com/public/upload.php?token=${made.token}`);
      assert.match(made.qr_svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      const png = Buffer.from(made.qr_png.replace(/^data:image\/png;base64,/, ''), 'base64');
      assert.equal((await sharp(png).metadata()).format, 'png');
      const rows = await ctx.handle.db.selectFrom('bericht_upload_token').selectAll().where('fk_element', '=', order.id).execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.token, tokenHash(made.token));
      assert.notEqual(rows[0]!.token, made.token);
      assert.equal(Number(rows[0]!.fk_user_creat), me.id);
      const short = (await makeLink(me, { fk_element: order.id, hours: 2 })).json();
      assert.ok(short.expires <= Math.floor(Date.now() / 1000) + 2 * 3600 + 2);
    });

    test('making a link needs the write right and a visible order; bad bodies are 400', async () => {
      const me = await caller(['read', 'write']);
      const order = await ctx.make.order({ author: me.id });
      const reader = await caller(['read'], true);
      assertError(await makeLink(reader, { fk_element: order.id }), 403, 'AUTH_RIGHT_MISSING');
      const stranger = await caller(['read', 'write']);
      assertError(await makeLink(stranger, { fk_element: order.id }), 404, 'ORDER_NOT_FOUND');
      for (const body of [
        {},
        { fk_element: 'x' },
        { fk_element: order.id, hours: 0 },
        { fk_element: order.id, hours: 24 * 91 },
        { fk_element: order.id, element_type: 'facture' },
        { fk_element: order.id, extra: 1 },
      ]) {
        assertError(await makeLink(me, body), 400, 'VALIDATION_FAILED');
      }
      assertError(
        await ctx.app.inject({ method: 'POST', url: '/api/upload_token.php', payload: { fk_element: order.id } }),
        401,
        'AUTH_TOKEN_MISSING',
      );
      assert.equal(
        (await ctx.handle.db.selectFrom('bericht_upload_token').select('rowid').where('fk_element', '=', order.id).execute()).length,
        0,
      );
    });

    test('the link opens a phone page and uploads into the order folder with thumbnails and an ecm_files row, without a login', async () => {
      const me = await caller(['read', 'write']);
      const order = await ctx.make.order({ author: me.id });
      const made = await link(me, order.id);
      const page = await ctx.app.inject({ method: 'GET', url: `/public/upload.php?token=${made.token}` });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.match(String(page.headers['content-security-policy']), /script-src 'nonce-[^']+'/);
      assert.ok(
        page.body.includes(`Fotos zum Auftrag ${order.ref}`) &&
          page.body.includes('Fotos aufnehmen oder auswählen') &&
          page.body.includes('multiple'),
      );
      const res = await uploadWith(made.token, await jpeg());
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().name, 'baustelle.jpg');
      const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
      await ctx.app.printQueue.idle(); // a JPEG's thumbnails follow the answer
      for (const f of ['baustelle.jpg', 'thumbs/baustelle_small.jpg', 'thumbs/baustelle_mini.jpg'])
        assert.ok(existsSync(path.join(folder.dir, f)), f);
      const ecm = await ctx.handle.db.selectFrom('ecm_files').selectAll().where('filepath', '=', folder.filepath).execute();
      assert.equal(ecm.length, 1);
      assert.equal(Number(ecm[0]!.fk_user_c), me.id, "the file is the link maker's");
      const listed = await api('GET', `/api/orders.php?id=${order.id}&action=photos`, me);
      assert.deepEqual(
        listed.json().items.map((i: { name: string }) => i.name),
        ['baustelle.jpg'],
      );
      assertError(await uploadWith(made.token, Buffer.from('kein Bild')), 415, 'UPLOAD_TYPE_UNSUPPORTED');
      assertError(
        await uploadWith(
          made.token,
          Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xdb, 0, 0x43, 0]),
        ),
        400,
        'IMAGE_INVALID',
      );
      assert.equal(
        (await ctx.handle.db.selectFrom('ecm_files').select('rowid').where('filepath', '=', folder.filepath).execute()).length,
        1,
      );
    });

    test('an expired link is 410 and an unknown one 404, page and upload alike; nothing is stored', async () => {
      const me = await caller(['read', 'write']);
      const order = await ctx.make.order({ author: me.id });
      const made = await link(me, order.id);
      await ctx.handle.db
        .updateTable('bericht_upload_token')
        .set({ date_expiry: toDbDateTime(Math.floor(Date.now() / 1000) - 60) })
        .where('token', '=', tokenHash(made.token))
        .execute();
      const page = await ctx.app.inject({ method: 'GET', url: `/public/upload.php?token=${made.token}` });
      assert.equal(page.statusCode, 410);
      assert.ok(page.body.includes('abgelaufen'));
      assertError(await uploadWith(made.token, await jpeg()), 410, 'UPLOAD_TOKEN_EXPIRED');
      for (const token of ['A'.repeat(43), 'kurz', '../../etc/passwd']) {
        const unknown = await ctx.app.inject({ method: 'GET', url: `/public/upload.php?token=${encodeURIComponent(token)}` });
        assert.equal(unknown.statusCode, 404);
        assertError(await uploadWith(encodeURIComponent(token), await jpeg()), 404, 'UPLOAD_TOKEN_NOT_FOUND');
      }
      assert.equal(existsSync(objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir), false);
    });

    test('the clean-up removes exactly the expired links, also when two run at once; the command does the same', async () => {
      const me = await caller(['read', 'write']);
      const order = await ctx.make.order({ author: me.id });
      await runCleanup(ctx.handle.db); // start from no expired links
      const made = await Promise.all([link(me, order.id), link(me, order.id), link(me, order.id), link(me, order.id)]);
      const past = toDbDateTime(Math.floor(Date.now() / 1000) - 3600);
      for (const m of made.slice(0, 2))
        await ctx.handle.db
          .updateTable('bericht_upload_token')
          .set({ date_expiry: past })
          .where('token', '=', tokenHash(m.token))
          .execute();
      const [a, b] = await Promise.all([runCleanup(ctx.handle.db), runCleanup(ctx.handle.db)]);
      assert.equal(a.upload_tokens + b.upload_tokens, 2);
      const left = (await ctx.handle.db.selectFrom('bericht_upload_token').select('token').where('fk_element', '=', order.id).execute())
        .map((r) => r.token)
        .sort();
      assert.deepEqual(
        left,
        made
          .slice(2)
          .map((m) => tokenHash(m.token))
          .sort(),
      );
      assert.equal((await uploadWith(made[2]!.token, await jpeg())).statusCode, 201, 'a valid link still works');

      await ctx.handle.db
        .updateTable('bericht_upload_token')
        .set({ date_expiry: past })
        .where('token', '=', tokenHash(made[3]!.token))
        .execute();
      const { code, stdout } = await runCli(['cleanup'], cliEnv(ctx.config));
      assert.equal(code, 0, stdout);
      assert.match(stdout, /Removed: 1 expired upload links/);
      assert.deepEqual(
        (await ctx.handle.db.selectFrom('bericht_upload_token').select('token').where('fk_element', '=', order.id).execute()).map(
          (r) => r.token,
        ),
        [tokenHash(made[2]!.token)],
      );
    });

    const listLinks = (who: Caller, orderId: number) => api('GET', `/api/upload_token.php?fk_element=${orderId}`, who);
    const revoke = (who: Caller, id: number) => api('DELETE', `/api/upload_token.php?id=${id}`, who);
    const pageStatus = async (token: string) =>
      (await ctx.app.inject({ method: 'GET', url: `/public/upload.php?token=${token}` })).statusCode;

    test('the longest life is UPLOAD_TOKEN_MAX_DAYS (default 7 days): 168 hours are taken, 169 are 400; a link made earlier for 90 days ends 7 days after it was made', async () => {
      assert.equal(ctx.config.uploadTokenMaxDays, 7);
      const me = await caller(['read', 'write']);
      const order = await ctx.make.order({ author: me.id });
      const week = await makeLink(me, { fk_element: order.id, hours: 168 });
      assert.equal(week.statusCode, 201, week.body);
      assert.ok(week.json().expires <= Math.floor(Date.now() / 1000) + 168 * 3600 + 2);
      assertError(await makeLink(me, { fk_element: order.id, hours: 169 }), 400, 'VALIDATION_FAILED');
      // Made 8 days ago under the old limit of 90 days: it ended a day ago.
      const old = await link(me, order.id);
      const now = Math.floor(Date.now() / 1000);
      await ctx.handle.db
        .updateTable('bericht_upload_token')
        .set({ datec: toDbDateTime(now - 8 * 86_400), date_expiry: toDbDateTime(now + 82 * 86_400) })
        .where('token', '=', tokenHash(old.token))
        .execute();
      assertError(await uploadWith(old.token, await jpeg()), 410, 'UPLOAD_TOKEN_EXPIRED');
      assert.equal(await pageStatus(old.token), 410);
      assert.ok(!(await listLinks(me, order.id)).json().items.some((l: { id: number }) => l.id === old.id), 'not listed');
    });

    test("a link dies with its maker's right: deactivated, the write right withdrawn, the order no longer visible → 410 UPLOAD_TOKEN_REVOKED; checked on every use", async () => {
      const me = await caller(['read', 'write']);
      const order = await ctx.make.order({ author: me.id });
      const made = await link(me, order.id);
      assert.equal((await uploadWith(made.token, await jpeg())).statusCode, 201);

      // The write right withdrawn (and given back: the check is made on each use).
      const writeRight = await ctx.handle.db
        .selectFrom('rights_def')
        .select('id')
        .where('module', '=', 'bericht')
        .where('perms', '=', 'write')
        .where('entity', '=', ctx.config.entity)
        .executeTakeFirstOrThrow();
      await ctx.handle.db.deleteFrom('user_rights').where('fk_user', '=', me.id).where('fk_id', '=', writeRight.id).execute();
      assertError(await uploadWith(made.token, await jpeg()), 410, 'UPLOAD_TOKEN_REVOKED');
      const page = await ctx.app.inject({ method: 'GET', url: `/public/upload.php?token=${made.token}` });
      assert.equal(page.statusCode, 410);
      assert.ok(page.body.includes('gilt nicht mehr'), page.body);
      await ctx.handle.db.insertInto('user_rights').values({ entity: ctx.config.entity, fk_user: me.id, fk_id: writeRight.id }).execute();
      assert.equal((await uploadWith(made.token, await jpeg(), 'zwei.jpg')).statusCode, 201);

      // The order handed to someone else: the maker no longer sees it.
      const other = await caller(['read', 'write']);
      await ctx.handle.db.updateTable('commande').set({ fk_user_author: other.id }).where('rowid', '=', order.id).execute();
      assertError(await uploadWith(made.token, await jpeg()), 410, 'UPLOAD_TOKEN_REVOKED');
      await ctx.handle.db.updateTable('commande').set({ fk_user_author: me.id }).where('rowid', '=', order.id).execute();

      // Deactivated, then activated again: a deactivation ends the maker's links for good.
      await ctx.handle.db.updateTable('user').set({ statut: 0 }).where('rowid', '=', me.id).execute();
      assertError(await uploadWith(made.token, await jpeg()), 410, 'UPLOAD_TOKEN_REVOKED');
      // Seen by the service (a request with the maker's token, or its sweep).
      assertError(await listLinks(me, order.id), 403, 'AUTH_USER_DISABLED');
      await ctx.handle.db.updateTable('user').set({ statut: 1 }).where('rowid', '=', me.id).execute();
      assertError(await uploadWith(made.token, await jpeg()), 410, 'UPLOAD_TOKEN_REVOKED');
    });

    test("a logout everywhere ends the maker's links too", async () => {
      const me = await caller(['read', 'write']);
      const order = await ctx.make.order({ author: me.id });
      const made = await link(me, order.id);
      await new Promise((r) => setTimeout(r, 1100)); // made in an earlier second than the logout
      assert.equal((await api('POST', '/api/logout.php?action=everywhere', me)).statusCode, 200);
      assertError(await uploadWith(made.token, await jpeg()), 410, 'UPLOAD_TOKEN_REVOKED');
    });

    test('a link made after a void lives, however many voids came before in that second', async () => {
      const user = await ctx.make.user({ rights: ['read', 'write'] });
      const order = await ctx.make.order({ author: user.id });
      const voids = createTokenVoidRepository(ctx.handle.db);
      // Several voids in a row (a password changed twice, a logout everywhere): none of them
      // reaches past the clock, as no token was issued meanwhile.
      const at = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 4; i++) await voids.voidThrough(user.id, at);
      const row = await ctx.handle.db
        .selectFrom('bericht_token_void')
        .select(['void_through', 'voided_at'])
        .where('fk_user', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.void_through), at, 'the void covers the tokens issued, not seconds to come');
      // The next second: after the voids.
      while (Math.floor(Date.now() / 1000) <= at) await new Promise((r) => setTimeout(r, 50));
      const me = callerOf(user.id, await ctx.make.token(user));
      const made = await link(me, order.id);
      assert.equal((await uploadWith(made.token, await jpeg())).statusCode, 201, 'the new link lives');
    });

    test("the order's live links are listed; whoever may write to the order revokes one (idempotent), and it is gone at once", async () => {
      const me = await caller(['read', 'write']);
      const colleague = await caller(['read', 'write'], true);
      const stranger = await caller(['read', 'write']);
      const reader = await caller(['read'], true);
      const order = await ctx.make.order({ author: me.id });
      const first = await link(me, order.id);
      const second = await link(me, order.id);
      const expired = await link(me, order.id);
      await ctx.handle.db
        .updateTable('bericht_upload_token')
        .set({ date_expiry: toDbDateTime(Math.floor(Date.now() / 1000) - 60) })
        .where('token', '=', tokenHash(expired.token))
        .execute();

      const listed = await listLinks(me, order.id);
      assert.equal(listed.statusCode, 200, listed.body);
      const items = listed.json().items as Array<{
        id: number;
        created: number;
        expires: number;
        created_by: { id: number; name: string };
      }>;
      assert.deepEqual(
        items.map((l) => l.id),
        [second.id, first.id],
        'live links, newest first',
      );
      assert.equal(items[0]!.expires, second.expires);
      assert.ok(Math.abs(items[0]!.created - Math.floor(Date.now() / 1000)) < 60);
      assert.equal(items[0]!.created_by.id, me.id);
      assert.equal(typeof items[0]!.created_by.name, 'string');
      assert.ok(!JSON.stringify(items).includes(first.token), 'no token listed');

      assertError(await listLinks(stranger, order.id), 404, 'ORDER_NOT_FOUND');
      assertError(await listLinks(reader, order.id), 403, 'AUTH_RIGHT_MISSING');
      assertError(await revoke(stranger, first.id), 404, 'UPLOAD_TOKEN_NOT_FOUND');
      assertError(await revoke(reader, first.id), 403, 'AUTH_RIGHT_MISSING');
      assert.equal(await pageStatus(first.token), 200, 'untouched by refused revocations');

      // A colleague who may write to the order (here: an administrator) revokes the maker's link.
      const done = await revoke(colleague, first.id);
      assert.equal(done.statusCode, 200, done.body);
      assert.deepEqual(done.json(), { id: first.id, revoked: true });
      assertError(await uploadWith(first.token, await jpeg()), 404, 'UPLOAD_TOKEN_NOT_FOUND');
      assert.equal(await pageStatus(first.token), 404);
      // Gone, unknown and not visible answer alike.
      const again = await revoke(me, first.id);
      const unknown = await revoke(me, 2_000_000_000);
      assertError(again, 404, 'UPLOAD_TOKEN_NOT_FOUND');
      assertError(unknown, 404, 'UPLOAD_TOKEN_NOT_FOUND');
      const invisible = await revoke(stranger, second.id);
      assertError(invisible, 404, 'UPLOAD_TOKEN_NOT_FOUND');
      assert.deepEqual(unknown.json(), invisible.json(), 'the same body');
      assert.deepEqual(
        (await listLinks(me, order.id)).json().items.map((l: { id: number }) => l.id),
        [second.id],
      );
      assert.equal((await uploadWith(second.token, await jpeg())).statusCode, 201, 'the other link still works');

      for (const url of ['/api/upload_token.php?id=0', '/api/upload_token.php?id=x', '/api/upload_token.php']) {
        assertError(await api('DELETE', url, me), 400, 'VALIDATION_FAILED');
      }
      assertError(await ctx.app.inject({ method: 'DELETE', url: `/api/upload_token.php?id=${second.id}` }), 401, 'AUTH_TOKEN_MISSING');
    });

    test('old idempotency keys, failed logins, expired ended tokens, unused login addresses and links past their longest life go with the clean-up; recent ones stay', async () => {
      const me = await caller(['read', 'write']);
      const now = Math.floor(Date.now() / 1000);
      await ctx.handle.db
        .insertInto('bericht_idempotency')
        .values([
          {
            entity: 1,
            fk_user: me.id,
            idem_key: 'a'.repeat(64),
            scope: 's',
            status_code: 201,
            response: '{}',
            datec: toDbDateTime(now - 8 * 86_400),
          },
          {
            entity: 1,
            fk_user: me.id,
            idem_key: 'b'.repeat(64),
            scope: 's',
            status_code: 201,
            response: '{}',
            datec: toDbDateTime(now - 86_400),
          },
        ])
        .execute();
      await ctx.handle.db
        .insertInto('bericht_login_failure')
        .values([
          { login: 'alt', address: '1.2.3.4', at: now - 2 * 86_400 },
          { login: 'neu', address: '1.2.3.4', at: now - 60 },
        ])
        .execute();
      const user = await ctx.make.user({ rights: ['read', 'write'] });
      const order = await ctx.make.order({ author: user.id });
      await ctx.handle.db
        .insertInto('bericht_token_revoked')
        .values([
          { token_hash: 'c'.repeat(64), fk_user: me.id, exp: now - 10 },
          { token_hash: 'd'.repeat(64), fk_user: me.id, exp: now + 3600 },
        ])
        .execute();
      await ctx.handle.db
        .insertInto('bericht_login_known')
        .values([
          { login: 'alt-bekannt', address: '1.2.3.4', at: now - 31 * 86_400 },
          { login: 'neu-bekannt', address: '1.2.3.4', at: now - 29 * 86_400 },
        ])
        .execute();
      // Made 8 days ago for 90 days (before UPLOAD_TOKEN_MAX_DAYS): past its longest life.
      await ctx.handle.db
        .insertInto('bericht_upload_token')
        .values([
          {
            entity: ctx.config.entity,
            token: 'e'.repeat(64),
            element_type: 'commande',
            fk_element: order.id,
            fk_user_creat: user.id,
            datec: toDbDateTime(now - 8 * 86_400),
            date_expiry: toDbDateTime(now + 82 * 86_400),
          },
          {
            entity: ctx.config.entity,
            token: 'f'.repeat(64),
            element_type: 'commande',
            fk_element: order.id,
            fk_user_creat: user.id,
            datec: toDbDateTime(now - 6 * 86_400),
            date_expiry: toDbDateTime(now + 86_400),
          },
        ])
        .execute();
      await runCleanup(ctx.handle.db, new Date(), { uploadTokenMaxDays: ctx.config.uploadTokenMaxDays, knownAddressDays: 30 });
      assert.deepEqual(
        (await ctx.handle.db.selectFrom('bericht_token_revoked').select('token_hash').where('fk_user', '=', me.id).execute()).map(
          (r) => r.token_hash,
        ),
        ['d'.repeat(64)],
      );
      assert.deepEqual(
        (
          await ctx.handle.db
            .selectFrom('bericht_login_known')
            .select('login')
            .where('login', 'in', ['alt-bekannt', 'neu-bekannt'])
            .execute()
        ).map((r) => r.login),
        ['neu-bekannt'],
      );
      assert.deepEqual(
        (await ctx.handle.db.selectFrom('bericht_upload_token').select('token').where('fk_element', '=', order.id).execute()).map(
          (r) => r.token,
        ),
        ['f'.repeat(64)],
      );
      assert.deepEqual(
        (await ctx.handle.db.selectFrom('bericht_idempotency').select('idem_key').where('fk_user', '=', me.id).execute()).map(
          (r) => r.idem_key,
        ),
        ['b'.repeat(64)],
      );
      const logins = (
        await ctx.handle.db.selectFrom('bericht_login_failure').select('login').where('login', 'in', ['alt', 'neu']).execute()
      ).map((r) => r.login);
      assert.deepEqual(logins, ['neu']);
    });
  });
}

describe('clean-up time', () => {
  test('the next run is today at the time when it is still ahead, else tomorrow (UTC)', () => {
    const now = new Date(Date.UTC(2026, 10, 22, 2, 0, 0));
    assert.equal(msUntil('03:30', now), 90 * 60 * 1000);
    assert.equal(msUntil('02:00', now), 24 * 3600 * 1000);
    assert.equal(msUntil('01:59', now), (24 * 60 - 1) * 60 * 1000);
  });
});
