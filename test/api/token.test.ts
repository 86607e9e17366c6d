/**
 * Per-request authentication: where the token may come from, what makes a token invalid, and that
 * the user is read from the database, not the token (status, validity dates, rights, Dolibarr's
 * "invalidate sessions"): changed through the service's connection, at once. (Changed elsewhere,
 * within AUTH_CACHE_SECONDS: auth-cache.test.ts.)
 *
 * None of the contract's endpoints exist yet, so the app here gets three probe routes before it is
 * ready: the default (token), a file-like route (token or ?jwt=) and one that needs `write`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { toDbDateTime } from '../../src/db/dialect.js';
import { RIGHTS_MODULE, type Right } from '../../src/dolibarr/rights.js';
import { deriveTokenSecret } from '../../src/modules/auth/token.js';
import { TEST_INSTANCE_ID, createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import type { CreatedUser } from '../helpers/factories.js';
import { assertError } from '../helpers/assertions.js';
import { registerProbes } from '../helpers/probes.js';

// ---- Tokens made by hand --------------------------------------------------------------------

const SECRET = deriveTokenSecret(TEST_INSTANCE_ID);
const nowSeconds = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

/** The claims the service itself would sign for the user, with overrides; `undefined` drops a claim. */
function claimsFor(user: CreatedUser, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = nowSeconds();
  const claims: Record<string, unknown> = {
    sub: user.id,
    login: user.login,
    name: 'Test Nutzer',
    iat,
    exp: iat + 3600,
    iss: 'bericht-api',
    perms: { read: true, write: false, delete: false, admin: false },
    ...overrides,
  };
  for (const key of Object.keys(claims)) if (claims[key] === undefined) delete claims[key];
  return claims;
}

async function sign(claims: Record<string, unknown>, options: { alg?: string; secret?: Uint8Array } = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' }).sign(options.secret ?? SECRET);
}

// ---- Assertions -----------------------------------------------------------------------------

const READ_ONLY = { read: true, write: false, delete: false, admin: false };

for (const dialect of testDialects()) {
  describe(`token authentication [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, {}, { routes: registerProbes });
    });
    after(async () => ctx?.close());

    /** A new user with the given rights and a token from a real login. */
    async function userWithToken(rights: Right[] = ['read']): Promise<{ user: CreatedUser; token: string }> {
      const user = await ctx.make.user({ rights });
      return { user, token: await ctx.make.token(user) };
    }

    const probe = (headers: Record<string, string> = {}, url = '/api/probe.php') => ctx.app.inject({ method: 'GET', url, headers });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    async function rightId(right: Right): Promise<number> {
      const row = await ctx.handle.db
        .selectFrom('rights_def')
        .select('id')
        .where('module', '=', RIGHTS_MODULE)
        .where('perms', '=', right)
        .where('entity', '=', ctx.config.entity)
        .executeTakeFirstOrThrow();
      return Number(row.id);
    }

    function assertCaller(res: LightMyRequestResponse, user: CreatedUser, perms = READ_ONLY): void {
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().user, { id: user.id, login: user.login, name: 'Test Nutzer', admin: false, fkSoc: null, perms });
    }

    // -- Where the token comes from --

    test('a valid token as "Authorization: Bearer <token>" → 200, req.user is the caller', async () => {
      const { user, token } = await userWithToken();
      assertCaller(await probe(bearer(token)), user);
    });

    test('a valid token as a bare "Authorization: <token>" → 200', async () => {
      const { user, token } = await userWithToken();
      assertCaller(await probe({ authorization: token }), user);
    });

    test('the Bearer prefix is case-insensitive ("bearer <token>") → 200', async () => {
      const { user, token } = await userWithToken();
      assertCaller(await probe({ authorization: `bearer ${token}` }), user);
    });

    test('a valid token as X-Authorization → 200', async () => {
      const { user, token } = await userWithToken();
      assertCaller(await probe({ 'x-authorization': `Bearer ${token}` }), user);
    });

    test('a valid token as Redirect-Http-Authorization → 200', async () => {
      const { user, token } = await userWithToken();
      assertCaller(await probe({ 'redirect-http-authorization': `Bearer ${token}` }), user);
    });

    test('?jwt= is accepted on a token-or-query route → 200', async () => {
      const { user, token } = await userWithToken();
      assertCaller(await probe({}, `/api/probe-file.php?jwt=${encodeURIComponent(token)}`), user);
    });

    test('?jwt= is not accepted on a default (token) route → 401 AUTH_TOKEN_MISSING', async () => {
      const { token } = await userWithToken();
      assertError(await probe({}, `/api/probe.php?jwt=${encodeURIComponent(token)}`), 401, 'AUTH_TOKEN_MISSING');
    });

    test('no token → 401 AUTH_TOKEN_MISSING (also on the token-or-query route)', async () => {
      assertError(await probe(), 401, 'AUTH_TOKEN_MISSING');
      assertError(await probe({}, '/api/probe-file.php'), 401, 'AUTH_TOKEN_MISSING');
      assertError(await probe({}, '/api/probe-file.php?jwt='), 401, 'AUTH_TOKEN_MISSING');
    });

    test('"Authorization: Bearer " with nothing after it → 401 AUTH_TOKEN_MISSING', async () => {
      assertError(await probe({ authorization: 'Bearer ' }), 401, 'AUTH_TOKEN_MISSING');
      assertError(await probe({ authorization: 'Bearer' }), 401, 'AUTH_TOKEN_MISSING');
    });

    // -- What makes a token invalid --

    test("a token signed here with the service's claims and derived secret → 200 (control for the cases below)", async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      assertCaller(await probe(bearer(await sign(claimsFor(user)))), user);
    });

    test('an expired token → 401 AUTH_TOKEN_EXPIRED', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      const iat = nowSeconds() - 8 * 24 * 3600;
      const token = await sign(claimsFor(user, { iat, exp: iat + 7 * 24 * 3600 }));
      assertError(await probe(bearer(token)), 401, 'AUTH_TOKEN_EXPIRED');
    });

    test('a tampered payload (perms.admin, then sub) with the original signature → 401 AUTH_TOKEN_INVALID', async () => {
      const { token } = await userWithToken();
      const other = await ctx.make.user({ rights: ['read', 'write', 'delete', 'admin'] });
      const [header, , signature] = token.split('.') as [string, string, string];
      const claims = payloadOf(token);
      assert.equal(
        claims.sub,
        (await ctx.app.inject({ method: 'GET', url: '/api/probe.php', headers: bearer(token) })).json().user.id,
        'the untampered token works',
      );
      const admin = `${header}.${b64({ ...claims, perms: { read: true, write: true, delete: true, admin: true } })}.${signature}`;
      assertError(await probe(bearer(admin)), 401, 'AUTH_TOKEN_INVALID');
      const sub = `${header}.${b64({ ...claims, sub: other.id })}.${signature}`;
      assertError(await probe(bearer(sub)), 401, 'AUTH_TOKEN_INVALID');
    });

    test('a token signed with a wrong secret → 401 AUTH_TOKEN_INVALID', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      const wrong = await sign(claimsFor(user), { secret: deriveTokenSecret('another-instance-id') });
      assertError(await probe(bearer(wrong)), 401, 'AUTH_TOKEN_INVALID');
      // The raw instance id is not the secret either: only its derivation is.
      const raw = await sign(claimsFor(user), { secret: new TextEncoder().encode(TEST_INSTANCE_ID) });
      assertError(await probe(bearer(raw)), 401, 'AUTH_TOKEN_INVALID');
    });

    test('an alg "none" token → 401 AUTH_TOKEN_INVALID', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsFor(user))}.`;
      assertError(await probe(bearer(token)), 401, 'AUTH_TOKEN_INVALID');
      const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsFor(user))}`;
      assertError(await probe(bearer(unsigned)), 401, 'AUTH_TOKEN_INVALID');
    });

    test('HS384 and HS512 tokens with the right secret → 401 AUTH_TOKEN_INVALID (HS256 only)', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      for (const alg of ['HS384', 'HS512']) {
        assertError(await probe(bearer(await sign(claimsFor(user), { alg }))), 401, 'AUTH_TOKEN_INVALID');
      }
    });

    test('a wrong issuer and a missing issuer → 401 AUTH_TOKEN_INVALID', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      assertError(await probe(bearer(await sign(claimsFor(user, { iss: 'other' })))), 401, 'AUTH_TOKEN_INVALID');
      assertError(await probe(bearer(await sign(claimsFor(user, { iss: undefined })))), 401, 'AUTH_TOKEN_INVALID');
    });

    test('sub as the string "1", sub missing and sub 0 → 401 AUTH_TOKEN_INVALID', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      for (const sub of [String(user.id), undefined, 0, -1, 1.5]) {
        const res = await probe(bearer(await sign(claimsFor(user, { sub }))));
        assertError(res, 401, 'AUTH_TOKEN_INVALID');
      }
    });

    test('iat or exp missing → 401 AUTH_TOKEN_INVALID', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      assertError(await probe(bearer(await sign(claimsFor(user, { iat: undefined })))), 401, 'AUTH_TOKEN_INVALID');
      assertError(await probe(bearer(await sign(claimsFor(user, { exp: undefined })))), 401, 'AUTH_TOKEN_INVALID');
    });

    test('garbage tokens ("abc", "a.b.c", 10 KB of x) → 401 AUTH_TOKEN_INVALID, never 500', async () => {
      for (const garbage of ['abc', 'a.b.c', '...', 'x'.repeat(10 * 1024), `${b64({ alg: 'HS256' })}.!!!.???`]) {
        for (const headers of [bearer(garbage), { authorization: garbage }, { 'x-authorization': garbage }]) {
          assertError(await probe(headers), 401, 'AUTH_TOKEN_INVALID');
        }
        assertError(await probe({}, `/api/probe-file.php?jwt=${encodeURIComponent(garbage)}`), 401, 'AUTH_TOKEN_INVALID');
      }
    });

    // -- The user is read from the database --

    test('user deactivated after the token was issued → 403 AUTH_USER_DISABLED at once', async () => {
      const { user, token } = await userWithToken();
      assertCaller(await probe(bearer(token)), user);
      await ctx.handle.db.updateTable('user').set({ statut: 0 }).where('rowid', '=', user.id).execute();
      assertError(await probe(bearer(token)), 403, 'AUTH_USER_DISABLED');
    });

    test('user deleted after the token was issued → 401 AUTH_TOKEN_INVALID', async () => {
      const { user, token } = await userWithToken();
      await ctx.handle.db.deleteFrom('user_rights').where('fk_user', '=', user.id).execute();
      await ctx.handle.db.deleteFrom('user').where('rowid', '=', user.id).execute();
      assertError(await probe(bearer(token)), 401, 'AUTH_TOKEN_INVALID');
    });

    test('read right removed after the token was issued → 403 AUTH_NO_RIGHTS', async () => {
      const { user, token } = await userWithToken();
      await ctx.handle.db.deleteFrom('user_rights').where('fk_user', '=', user.id).execute();
      assertError(await probe(bearer(token)), 403, 'AUTH_NO_RIGHTS');
    });

    // Validity is by whole days, as in Dolibarr: the end day itself is still valid.
    test('dateendvalidity set to a past day → 403 AUTH_USER_DISABLED', async () => {
      const { user, token } = await userWithToken();
      await ctx.handle.db
        .updateTable('user')
        .set({ dateendvalidity: toDbDateTime(nowSeconds() - 2 * 86400) })
        .where('rowid', '=', user.id)
        .execute();
      assertError(await probe(bearer(token)), 403, 'AUTH_USER_DISABLED');
    });

    test('datestartvalidity set to a future day → 403 AUTH_USER_DISABLED; a future dateendvalidity is fine', async () => {
      const { user, token } = await userWithToken();
      await ctx.handle.db
        .updateTable('user')
        .set({ dateendvalidity: toDbDateTime(nowSeconds() + 86400) })
        .where('rowid', '=', user.id)
        .execute();
      assertCaller(await probe(bearer(token)), user);
      await ctx.handle.db
        .updateTable('user')
        .set({ datestartvalidity: toDbDateTime(nowSeconds() + 2 * 86400) })
        .where('rowid', '=', user.id)
        .execute();
      assertError(await probe(bearer(token)), 403, 'AUTH_USER_DISABLED');
    });

    test("flagdelsessionsbefore after the token's iat → 401 AUTH_TOKEN_INVALID; before iat → 200", async () => {
      const { user, token } = await userWithToken();
      const iat = payloadOf(token).iat as number;
      assert.ok(Number.isInteger(iat));
      const setFlag = (at: number) =>
        ctx.handle.db
          .updateTable('user')
          .set({ flagdelsessionsbefore: toDbDateTime(at) })
          .where('rowid', '=', user.id)
          .execute();
      await setFlag(iat - 60);
      assertCaller(await probe(bearer(token)), user);
      await setFlag(iat + 1);
      assertError(await probe(bearer(token)), 401, 'AUTH_TOKEN_INVALID');
      // A token issued after the flag works again.
      const fresh = await sign(claimsFor(user, { iat: iat + 2, exp: iat + 3600 }));
      assertCaller(await probe(bearer(fresh)), user);
    });

    test('perms come from the database: write granted after login → 200 on probe-write; removed → 403 AUTH_RIGHT_MISSING', async () => {
      const { user, token } = await userWithToken(['read']);
      assert.deepEqual(payloadOf(token).perms, READ_ONLY);
      const write = () => ctx.app.inject({ method: 'POST', url: '/api/probe-write.php', headers: bearer(token) });
      assertError(await write(), 403, 'AUTH_RIGHT_MISSING');
      assert.deepEqual((await write()).json().details, { right: 'write' });

      const writeId = await rightId('write');
      await ctx.handle.db.insertInto('user_rights').values({ entity: ctx.config.entity, fk_user: user.id, fk_id: writeId }).execute();
      const granted = await write();
      assertCaller(granted, user, { ...READ_ONLY, write: true });

      await ctx.handle.db.deleteFrom('user_rights').where('fk_user', '=', user.id).where('fk_id', '=', writeId).execute();
      assertError(await write(), 403, 'AUTH_RIGHT_MISSING');
    });

    test('perms claimed in the token are ignored: a read-only user with a token claiming every right → 403 on probe-write', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      const token = await sign(claimsFor(user, { perms: { read: true, write: true, delete: true, admin: true } }));
      assertCaller(await probe(bearer(token)), user);
      assertError(await ctx.app.inject({ method: 'POST', url: '/api/probe-write.php', headers: bearer(token) }), 403, 'AUTH_RIGHT_MISSING');
    });

    test('no token on the write route → 401 AUTH_TOKEN_MISSING before any right check', async () => {
      assertError(await ctx.app.inject({ method: 'POST', url: '/api/probe-write.php' }), 401, 'AUTH_TOKEN_MISSING');
    });

    test('same user id, different login claim → 401 AUTH_TOKEN_INVALID', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      const token = await sign(claimsFor(user, { login: `${user.login}_x` }));
      assertError(await probe(bearer(token)), 401, 'AUTH_TOKEN_INVALID');
    });

    test('user row replaced (same rowid, another login) after the token was issued → 401 AUTH_TOKEN_INVALID', async () => {
      const { user, token } = await userWithToken();
      await ctx.handle.db.deleteFrom('user').where('rowid', '=', user.id).execute();
      await ctx.handle.db
        .insertInto('user')
        .values({
          rowid: user.id,
          entity: ctx.config.entity,
          login: `new_${randomBytes(4).toString('hex')}`,
          statut: 1,
          admin: 0,
          firstname: 'Test',
          lastname: 'Nutzer',
        })
        .execute();
      // The rights rows of the old user still point at this id, so only the login tells them apart.
      assertError(await probe(bearer(token)), 401, 'AUTH_TOKEN_INVALID');
    });

    test('a user of another entity → 401 AUTH_TOKEN_INVALID', async () => {
      const user = await ctx.make.user({ entity: ctx.config.entity + 1, rights: [] });
      assertError(await probe(bearer(await sign(claimsFor(user)))), 401, 'AUTH_TOKEN_INVALID');
    });
  });
}
