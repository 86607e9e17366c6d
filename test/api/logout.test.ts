/**
 * Tokens that end on the server: POST /api/logout.php ("log out everywhere") ends every token of
 * the caller at once in this process and within AUTH_CACHE_SECONDS in another one (on SQLite at
 * once); a token issued in the same second as the logout, before it, is ended too, and a login
 * right after it works. A user deactivated in Dolibarr and activated again does not get its
 * tokens back. Dolibarr's own cut-off (flagdelsessionsbefore, written in UTC) counts whatever the
 * time zone. The token keeps the contract's claims and no more.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { toDolibarrDateTime } from '../../src/dolibarr/time.js';
import { createTokenVoidRepository } from '../../src/modules/auth/token-void.repository.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

const WINDOW_MS = 5_000;
const SLACK_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

for (const dialect of testDialects()) {
  describe(`log out everywhere [${dialect}]`, () => {
    let ctx: TestContext;
    /** Another process's view of the same database: its own connection and its own kept users. */
    let otherHandle: DbHandle;
    let other: FastifyInstance;
    /** A connection of its own, as Dolibarr's PHP has. */
    let dolibarr: DbHandle;
    before(async () => {
      ctx = await createTestContext(dialect);
      otherHandle = createDb(ctx.config, { poolSize: 2 });
      other = await buildApp(ctx.config, { db: otherHandle, logger: false });
      await other.ready();
      dolibarr = createDb(ctx.config, { poolSize: 1 });
    });
    after(async () => {
      await other?.close();
      await otherHandle?.destroy();
      await dolibarr?.destroy();
      await ctx?.close();
    });

    const list = (app: FastifyInstance, token: string) =>
      app.inject({ method: 'GET', url: '/api/orders.php?limit=1', headers: { authorization: `Bearer ${token}` } });
    const logout = (token: string) =>
      ctx.app.inject({ method: 'POST', url: '/api/logout.php?action=everywhere', headers: { authorization: `Bearer ${token}` } });
    const logoutHere = (token: string) =>
      ctx.app.inject({ method: 'POST', url: '/api/logout.php', headers: { authorization: `Bearer ${token}` } });

    test('ends every token of the caller at once, not those of others; 200 { logged_out: true }', async () => {
      const anna = await ctx.make.user({ rights: ['read'] });
      const bert = await ctx.make.user({ rights: ['read'] });
      const phone = await ctx.make.token(anna);
      const laptop = await ctx.make.token(anna);
      const bertsToken = await ctx.make.token(bert);
      for (const t of [phone, laptop, bertsToken]) assert.equal((await list(ctx.app, t)).statusCode, 200);
      const res = await logout(phone);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { logged_out: true, everywhere: true });
      assertError(await list(ctx.app, phone), 401, 'AUTH_TOKEN_INVALID');
      assertError(await list(ctx.app, laptop), 401, 'AUTH_TOKEN_INVALID');
      assert.equal((await list(ctx.app, bertsToken)).statusCode, 200, "another user's token is left alone");
      // Nothing left to end.
      assertError(await logout(phone), 401, 'AUTH_TOKEN_INVALID');
    });

    test("a logout without action ends only the token sent: the same person's other login goes on, here and in another process", async () => {
      const anna = await ctx.make.user({ rights: ['read'] });
      // Two logins right after each other, mostly within one second: different tokens all the same.
      const phone = await ctx.make.token(anna);
      const laptop = await ctx.make.token(anna);
      assert.notEqual(phone, laptop);
      assert.ok((claimsOf(laptop).iat as number) > (claimsOf(phone).iat as number), 'the later login has the later iat');
      assert.equal((await list(other, phone)).statusCode, 200, 'the other process keeps the user');
      const res = await logoutHere(phone);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { logged_out: true, everywhere: false });
      assertError(await list(ctx.app, phone), 401, 'AUTH_TOKEN_INVALID');
      assert.equal((await list(ctx.app, laptop)).statusCode, 200, 'the other login goes on');
      const stored = await ctx.handle.db
        .selectFrom('bericht_token_revoked')
        .select(['token_hash', 'fk_user'])
        .where('fk_user', '=', anna.id)
        .execute();
      assert.equal(stored.length, 1);
      assert.ok(!stored[0]!.token_hash.includes('.') && stored[0]!.token_hash.length === 64, 'a hash, not the token');
      const since = performance.now();
      for (;;) {
        const r = await list(other, phone);
        if (r.statusCode !== 200) {
          assertError(r, 401, 'AUTH_TOKEN_INVALID');
          break;
        }
        assert.ok(dialect !== 'sqlite', 'SQLite: at once');
        assert.ok(performance.now() - since <= WINDOW_MS + SLACK_MS, 'still served after the window');
        await sleep(100);
      }
      assert.equal((await list(other, laptop)).statusCode, 200);
      assertError(await logoutHere(phone), 401, 'AUTH_TOKEN_INVALID');
      assertError(
        await ctx.app.inject({ method: 'POST', url: '/api/logout.php?action=nowhere', headers: { authorization: `Bearer ${laptop}` } }),
        400,
        'ACTION_UNKNOWN',
      );
    });

    test('in the same second: the token before the logout is ended, the login right after it works', async () => {
      const anna = await ctx.make.user({ rights: ['read'] });
      // Rounds until one falls within one second, at least three and at most twelve (on a busy
      // machine a round can take a second); each login issues an iat one second after the one
      // before, far within ISSUE_AHEAD_SECONDS.
      let sameSecond = 0;
      for (let round = 0; round < 12 && (round < 3 || sameSecond === 0); round++) {
        const before = await ctx.make.token(anna);
        const startedAt = Math.floor(Date.now() / 1000);
        assert.equal((await logout(before)).statusCode, 200);
        const after = await ctx.make.token(anna);
        if (Math.floor(Date.now() / 1000) === startedAt) sameSecond++;
        assertError(await list(ctx.app, before), 401, 'AUTH_TOKEN_INVALID');
        assert.equal((await list(ctx.app, after)).statusCode, 200, `round ${round}: the login right after the logout works`);
        assert.ok((claimsOf(after).iat as number) > (claimsOf(before).iat as number), 'the new token is issued after the void');
      }
      assert.ok(sameSecond > 0, 'at least one round within one second');
    });

    test("the token keeps the contract's claims and no more", async () => {
      const anna = await ctx.make.user({ rights: ['read'] });
      const token = await ctx.make.token(anna);
      await logout(token);
      const claims = claimsOf(await ctx.make.token(anna));
      assert.deepEqual(Object.keys(claims).sort(), ['exp', 'iat', 'iss', 'login', 'name', 'perms', 'sub']);
      assert.equal((claims.exp as number) - (claims.iat as number), 7 * 86_400);
    });

    test(`another process refuses the token within ${WINDOW_MS / 1000} s${dialect === 'sqlite' ? ' (SQLite: at once)' : ''}`, async () => {
      const anna = await ctx.make.user({ rights: ['read'] });
      const token = await ctx.make.token(anna);
      assert.equal((await list(other, token)).statusCode, 200, 'the other process keeps the user');
      const loggedOut = performance.now();
      assert.equal((await logout(token)).statusCode, 200);
      if (dialect === 'sqlite') {
        assertError(await list(other, token), 401, 'AUTH_TOKEN_INVALID');
        return;
      }
      for (;;) {
        const res = await list(other, token);
        if (res.statusCode !== 200) {
          assertError(res, 401, 'AUTH_TOKEN_INVALID');
          break;
        }
        assert.ok(
          performance.now() - loggedOut <= WINDOW_MS + SLACK_MS,
          `still served ${Math.round(performance.now() - loggedOut)} ms after the logout`,
        );
        await sleep(100);
      }
    });

    test('a user deactivated in Dolibarr and activated again does not get its tokens back', async () => {
      const anna = await ctx.make.user({ rights: ['read'] });
      const token = await ctx.make.token(anna);
      assert.equal((await list(ctx.app, token)).statusCode, 200);
      await dolibarr.db.updateTable('user').set({ statut: 0 }).where('rowid', '=', anna.id).execute();
      // No request with the token meanwhile: the service's sweep (every SWEEP_SECONDS) notes the
      // deactivation by itself; called here rather than waited for.
      // (The app's own sweep may have come first: either way the deactivation is noted once.)
      await createTokenVoidRepository(ctx.handle.db).sweep(ctx.config.entity, Math.floor(Date.now() / 1000));
      const noted = await ctx.handle.db
        .selectFrom('bericht_token_void')
        .select(['inactive', 'void_through'])
        .where('fk_user', '=', anna.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(noted.inactive), 1);
      assert.ok(Number(noted.void_through) >= (claimsOf(token).iat as number));
      assert.ok(
        !(await createTokenVoidRepository(ctx.handle.db).sweep(ctx.config.entity, Math.floor(Date.now() / 1000))).includes(anna.id),
        'once per deactivation',
      );
      await dolibarr.db.updateTable('user').set({ statut: 1 }).where('rowid', '=', anna.id).execute();
      assertError(await list(ctx.app, token), 401, 'AUTH_TOKEN_INVALID');
      assertError(await list(other, token), 401, 'AUTH_TOKEN_INVALID');
      const fresh = await ctx.make.token(anna);
      assert.equal((await list(ctx.app, fresh)).statusCode, 200, 'a login after the reactivation works');
    });

    test('a request during the deactivation is refused as such (403), and the token stays void afterwards', async () => {
      const anna = await ctx.make.user({ rights: ['read'] });
      const token = await ctx.make.token(anna);
      await ctx.handle.db.updateTable('user').set({ statut: 0 }).where('rowid', '=', anna.id).execute();
      assertError(await list(ctx.app, token), 403, 'AUTH_USER_DISABLED');
      assertError(await list(ctx.app, token), 403, 'AUTH_USER_DISABLED');
      await ctx.handle.db.updateTable('user').set({ statut: 1 }).where('rowid', '=', anna.id).execute();
      assertError(await list(ctx.app, token), 401, 'AUTH_TOKEN_INVALID');
    });

    test('GET /api/logout.php → 405; without a token → 401', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/logout.php' });
      assert.equal(res.statusCode, 405);
      assert.equal(res.headers.allow, 'POST');
      assertError(await ctx.app.inject({ method: 'POST', url: '/api/logout.php' }), 401, 'AUTH_TOKEN_MISSING');
    });
  });

  describe(`Dolibarr's session cut-off is UTC whatever TIME_ZONE says [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { timeZone: 'Europe/Berlin' });
    });
    after(async () => ctx?.close());

    test('a password changed in Dolibarr (flagdelsessionsbefore = now - 5 s, UTC) ends a token issued half an hour before', async () => {
      const anna = await ctx.make.user({ rights: ['read'] });
      const token = await ctx.make.token(anna);
      const list = () => ctx.app.inject({ method: 'GET', url: '/api/orders.php?limit=1', headers: { authorization: `Bearer ${token}` } });
      assert.equal((await list()).statusCode, 200);
      // As Dolibarr's User::setPassword writes it: $db->idate(dol_now() - 5, 'gmt'), here with the token 30 minutes old.
      const iat = claimsOf(token).iat as number;
      await ctx.handle.db
        .updateTable('user')
        .set({ flagdelsessionsbefore: toDolibarrDateTime(iat + 1800 - 5, 'UTC') })
        .where('rowid', '=', anna.id)
        .execute();
      assertError(await list(), 401, 'AUTH_TOKEN_INVALID');
    });
  });
}
