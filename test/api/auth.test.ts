/**
 * Endpoint 1, POST /api/auth.php (docs/api-contract.md, Login and Authentication), on every database:
 * the response and its token, every error row of the contract, the password kinds Dolibarr stores,
 * rights (direct, group, entity), validity dates, entities, login by e-mail, throttling, the
 * timing of failures, and the body limits.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import bcrypt from 'bcrypt';
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { buildApp } from '../../src/app.js';
import type { LoginThrottleConfig } from '../../src/config.js';
import { errorCatalogue } from '../../src/errors.js';
import { createUserRepository } from '../../src/modules/auth/user.repository.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { assertError as assertErrorShape } from '../helpers/assertions.js';

const LOGIN_PATH = '/api/auth.php';

/** Values made by real PHP 8.2 (test/fixtures/make-php-fixtures.php). */
const php = JSON.parse(readFileSync(new URL('../fixtures/php-made.json', import.meta.url), 'utf8')) as {
  password: string;
  password_hash: string;
  salt: string;
  md5_salted: string;
  sha1md5_salted: string;
};

/** The contract's message texts ("Errors"), to the letter. */
const MESSAGES = {
  methodNotAllowed: 'POST erforderlich',
  credentialsMissing: 'login + password erforderlich',
  loginFailed: 'Login fehlgeschlagen',
  userDisabled: 'User deaktiviert',
  noRights: 'Keine Bericht-Rechte',
} as const;

/** Limits so high that the ordinary tests never meet the throttle. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NO_THROTTLE: LoginThrottleConfig = { maxFailuresPerLogin: 100_000, maxFailuresPerAddress: 100_000, windowSeconds: 900 };
const TOKEN_LIFETIME = 7 * 24 * 3600;
const DAY_MS = 24 * 3600 * 1000;

interface PostOptions {
  /** Client address as the server sees it. @default '127.0.0.1' (inject's own) */
  remoteAddress?: string;
  headers?: Record<string, string>;
}

/** POST /api/auth.php with `body` sent as JSON text exactly as given. */
function post(ctx: TestContext, body: unknown, options: PostOptions = {}): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: LOGIN_PATH,
    headers: { 'content-type': 'application/json', ...options.headers },
    payload: JSON.stringify(body),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

function login(ctx: TestContext, user: { login: string; password: string }, options: PostOptions = {}) {
  return post(ctx, { login: user.login, password: user.password }, options);
}

/** The API's error shape: exactly `error` and `code`, as JSON, with this status. */
/** Login errors are exactly { error, code }: no details. */
function assertError(res: LightMyRequestResponse, status: number, code: string, message?: string): void {
  const body = assertErrorShape(res, status, code, message);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error']);
}

const assertMissing = (res: LightMyRequestResponse) => assertError(res, 400, 'AUTH_CREDENTIALS_MISSING', MESSAGES.credentialsMissing);
const assertFailed = (res: LightMyRequestResponse) => assertError(res, 401, 'AUTH_LOGIN_FAILED', MESSAGES.loginFailed);
const assertDisabled = (res: LightMyRequestResponse) => assertError(res, 403, 'AUTH_USER_DISABLED', MESSAGES.userDisabled);
const assertNoRights = (res: LightMyRequestResponse) => assertError(res, 403, 'AUTH_NO_RIGHTS', MESSAGES.noRights);

function assertThrottled(res: LightMyRequestResponse, windowSeconds: number): void {
  assertError(res, 429, 'AUTH_TOO_MANY_ATTEMPTS', errorCatalogue.AUTH_TOO_MANY_ATTEMPTS.message);
  const retryAfter = String(res.headers['retry-after']);
  assert.match(retryAfter, /^\d+$/, `Retry-After is '${retryAfter}'`);
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= windowSeconds, `Retry-After ${retryAfter}`);
}

interface LoginAnswer {
  token: string;
  expires: number;
  user: { id: number; login: string; name: string; admin: boolean };
  perms: { read: boolean; write: boolean; delete: boolean; admin: boolean };
}

/** A successful login (status 200, as this user when `userId` is given); returns the body. */
function assertLoggedIn(res: LightMyRequestResponse, userId?: number): LoginAnswer {
  assert.equal(res.statusCode, 200, `expected 200, got ${res.statusCode}: ${res.body}`);
  const body = res.json<LoginAnswer>();
  if (userId !== undefined) assert.equal(body.user.id, userId);
  return body;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A PHP-style `$2y$` bcrypt hash of `password` with this cost. */
async function phpBcrypt(password: string, cost: number): Promise<string> {
  const hash = `$2y$${(await bcrypt.hash(password, cost)).slice(4)}`; // Node writes $2b$
  assert.match(hash, new RegExp(`^\\$2y\\$${String(cost).padStart(2, '0')}\\$`));
  return hash;
}

/** The id of the module's `read` right in rights_def (registered for entity 1 only). */
async function readRightId(ctx: TestContext): Promise<number> {
  const row = await ctx.handle.db
    .selectFrom('rights_def')
    .select('id')
    .where('module', '=', 'bericht')
    .where('perms', '=', 'read')
    .where('entity', '=', ctx.config.entity)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

for (const dialect of testDialects()) {
  describe(`login [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { login: NO_THROTTLE });
    });
    after(async () => ctx?.close());

    // ---- success ------------------------------------------------------------------------------

    test('answers 200 with exactly token, expires, user and perms, typed as the contract says', async () => {
      const u = await ctx.make.user({ firstname: 'Erika', lastname: 'Mustermann', rights: ['read', 'write'] });
      const res = await login(ctx, u);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['expires', 'perms', 'token', 'user']);
      assert.equal(typeof body.token, 'string');
      assert.ok(Number.isInteger(body.expires));
      assert.deepEqual(body.user, { id: u.id, login: u.login, name: 'Erika Mustermann', admin: false });
      assert.ok(Number.isInteger(body.user.id));
      assert.deepEqual(body.perms, { read: true, write: true, delete: false, admin: false });
    });

    test('user.admin is true for a Dolibarr administrator', async () => {
      const u = await ctx.make.user({ admin: true, rights: ['read'] });
      assert.equal(assertLoggedIn(await login(ctx, u), u.id).user.admin, true);
    });

    test('name is the login when the user has neither first nor last name', async () => {
      const u = await ctx.make.user({ firstname: null, lastname: null, rights: ['read'] });
      const res = await login(ctx, u);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().user.name, u.login);
      assert.equal(decodeJwt(res.json().token).name, u.login);
    });

    test('the token is an HS256 JWT with the contract claims, and expires equals its exp', async () => {
      const u = await ctx.make.user({ firstname: 'Max', lastname: 'Muster', rights: ['read', 'delete'] });
      const issuedFrom = nowSeconds();
      const res = await login(ctx, u);
      const afterwards = nowSeconds();
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.token.split('.').length, 3);

      const header = decodeProtectedHeader(body.token);
      assert.equal(header.alg, 'HS256');

      const claims = decodeJwt(body.token) as Record<string, unknown>;
      assert.deepEqual(Object.keys(claims).sort(), ['exp', 'iat', 'iss', 'login', 'name', 'perms', 'sub']);
      assert.ok(Number.isInteger(claims.sub));
      assert.equal(claims.sub, u.id);
      assert.equal(claims.login, u.login);
      assert.equal(claims.name, 'Max Muster');
      assert.ok(Number.isInteger(claims.iat));
      assert.ok((claims.iat as number) >= issuedFrom - 2 && (claims.iat as number) <= afterwards + 2, `iat ${claims.iat}`);
      assert.equal(claims.exp, (claims.iat as number) + TOKEN_LIFETIME);
      assert.equal(claims.iss, 'bericht-api');
      assert.deepEqual(claims.perms, body.perms);
      assert.deepEqual(claims.perms, { read: true, write: false, delete: true, admin: false });
      assert.equal(body.expires, claims.exp);
    });

    test('the login is trimmed', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      const res = await post(ctx, { login: `  ${u.login}  `, password: u.password });
      assertLoggedIn(res, u.id);
      assert.equal(res.json().user.login, u.login);
    });

    test('needs no token and ignores a garbage Authorization header', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      assertLoggedIn(await login(ctx, u), u.id);
      assertLoggedIn(await login(ctx, u, { headers: { authorization: 'Bearer not.a.token' } }), u.id);
      assertLoggedIn(await login(ctx, u, { headers: { authorization: 'garbage' } }), u.id);
    });

    // ---- method -------------------------------------------------------------------------------

    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
      test(`${method} is 405 "POST erforderlich" with an Allow header naming POST`, async () => {
        const res = await ctx.app.inject({ method, url: LOGIN_PATH });
        assertError(res, 405, 'AUTH_METHOD_NOT_ALLOWED', MESSAGES.methodNotAllowed);
        assert.ok(String(res.headers.allow).split(/,\s*/).includes('POST'), `Allow: ${res.headers.allow}`);
      });
    }

    test('PUT with valid credentials in a JSON body is still 405', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      const res = await ctx.app.inject({ method: 'PUT', url: LOGIN_PATH, payload: { login: u.login, password: u.password } });
      assertError(res, 405, 'AUTH_METHOD_NOT_ALLOWED', MESSAGES.methodNotAllowed);
    });

    // ---- missing or mistyped credentials: 400 -------------------------------------------------

    const missingCases: Array<[string, unknown]> = [
      ['an empty login', { login: '', password: 'secret' }],
      ['an empty password', { login: 'someone', password: '' }],
      ['a whitespace-only login', { login: '   \t ', password: 'secret' }],
      ['no fields at all', {}],
      ['no password field', { login: 'someone' }],
      ['no login field', { password: 'secret' }],
      ['a numeric login', { login: 123, password: 'secret' }],
      ['a boolean password', { login: 'someone', password: true }],
      ['a null login', { login: null, password: 'secret' }],
      ['a JSON array body', [{ login: 'someone', password: 'secret' }]],
      ['a JSON string body', 'login=someone&password=secret'],
    ];
    for (const [label, body] of missingCases) {
      test(`${label} is 400 "login + password erforderlich"`, async () => {
        assertMissing(await post(ctx, body));
      });
    }

    // ---- failed login: 401 --------------------------------------------------------------------

    test('an unknown login is 401 "Login fehlgeschlagen"', async () => {
      assertFailed(await post(ctx, { login: 'nobody-knows-me', password: 'whatever' }));
    });

    test('a wrong password is 401 with the very body of an unknown login', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      const wrong = await post(ctx, { login: u.login, password: `${u.password}x` });
      const unknown = await post(ctx, { login: `${u.login}-unknown`, password: u.password });
      assertFailed(wrong);
      assertFailed(unknown);
      assert.equal(wrong.body, unknown.body);
    });

    test('the password is compared exactly (case, surrounding spaces)', async () => {
      const u = await ctx.make.user({ password: 'Geheim-123', rights: ['read'] });
      assertFailed(await post(ctx, { login: u.login, password: 'geheim-123' }));
      assertFailed(await post(ctx, { login: u.login, password: ' Geheim-123' }));
      assertLoggedIn(await post(ctx, { login: u.login, password: 'Geheim-123' }), u.id);
    });

    // ---- deactivated and without rights: 403 --------------------------------------------------

    test('a deactivated user (statut 0) with the right password is 403 "User deaktiviert"', async () => {
      const u = await ctx.make.user({ statut: 0, rights: ['read'] });
      assertDisabled(await login(ctx, u));
    });

    test('a deactivated user with a wrong password is 401, as an unknown login', async () => {
      const u = await ctx.make.user({ statut: 0, rights: ['read'] });
      assertFailed(await post(ctx, { login: u.login, password: 'not-the-password' }));
    });

    test('a user with only the write right is 403 "Keine Bericht-Rechte"', async () => {
      const u = await ctx.make.user({ rights: ['write'] });
      assertNoRights(await login(ctx, u));
    });

    test('a user with every report right but read (also through a group) is 403 "Keine Bericht-Rechte"', async () => {
      const u = await ctx.make.user({ admin: true, rights: ['write', 'delete'], groupRights: ['admin'] });
      assertNoRights(await login(ctx, u));
    });

    test('a user with no rights at all is 403 "Keine Bericht-Rechte"', async () => {
      const u = await ctx.make.user({ rights: [] });
      assertNoRights(await login(ctx, u));
    });

    test('a user without rights and a wrong password is 401, not 403', async () => {
      const u = await ctx.make.user({ rights: [] });
      assertFailed(await post(ctx, { login: u.login, password: 'not-the-password' }));
    });

    // ---- password kinds as Dolibarr stores them ----------------------------------------------

    describe('password kinds', () => {
      before(async () => {
        // The install step's salt; used by the legacy md5 / sha1(md5) hashes only.
        await ctx.make.setConst('MAIN_SECURITY_SALT', php.salt, 0);
      });
      after(async () => {
        await ctx.handle.db.deleteFrom('const').where('name', '=', 'MAIN_SECURITY_SALT').execute();
      });

      const kinds: Array<[string, () => Promise<{ login: string; password: string; id: number }>]> = [
        [
          'a PHP password_hash() $2y$ bcrypt hash',
          () => ctx.make.user({ passCrypted: php.password_hash, password: php.password, rights: ['read'] }),
        ],
        [
          'a $2b$ bcrypt hash (as Node writes it)',
          () => ctx.make.user({ passCrypted: `$2b$${php.password_hash.slice(4)}`, password: php.password, rights: ['read'] }),
        ],
        [
          'md5(MAIN_SECURITY_SALT + password), made by PHP',
          () => ctx.make.user({ passCrypted: php.md5_salted, password: php.password, rights: ['read'] }),
        ],
        [
          'sha1(md5(MAIN_SECURITY_SALT + password)), made by PHP',
          () => ctx.make.user({ passCrypted: php.sha1md5_salted, password: php.password, rights: ['read'] }),
        ],
        ['the legacy clear-text pass column', () => ctx.make.user({ hash: 'clear', password: php.password, rights: ['read'] })],
      ];
      for (const [label, make] of kinds) {
        test(`${label}: the right password logs in`, async () => {
          const u = await make();
          assertLoggedIn(await login(ctx, u), u.id);
        });
        test(`${label}: a wrong password is 401`, async () => {
          const u = await make();
          assertFailed(await post(ctx, { login: u.login, password: `${php.password}!` }));
          assertFailed(await post(ctx, { login: u.login, password: php.password.toLowerCase() }));
        });
      }

      // The case as a whole: a row as Dolibarr writes it, the right only through a group.
      for (const [label, passCrypted] of [
        ['PHP password_hash()', php.password_hash],
        ['PHP md5 with salt', php.md5_salted],
      ] as const) {
        test(`${label} hash with read only through a group logs in; the same without the right is 403`, async () => {
          const withRight = await ctx.make.user({ passCrypted, password: php.password, rights: [], groupRights: ['read'] });
          assertLoggedIn(await login(ctx, withRight), withRight.id);
          const without = await ctx.make.user({ passCrypted, password: php.password, rights: [], groupRights: ['write'] });
          const res = await login(ctx, without);
          assert.equal(res.statusCode, 403);
          assert.deepEqual(res.json(), { error: 'Keine Bericht-Rechte', code: 'AUTH_NO_RIGHTS' });
        });
      }

      test('an md5 hash made with another salt does not verify', async () => {
        await ctx.make.setConst('MAIN_SECURITY_SALT', '19990101000000', 0);
        try {
          const u = await ctx.make.user({ passCrypted: php.md5_salted, password: php.password, rights: ['read'] });
          assertFailed(await login(ctx, u));
        } finally {
          await ctx.make.setConst('MAIN_SECURITY_SALT', php.salt, 0);
        }
      });

      test('a user without a stored password (pass_crypted and pass empty) cannot log in', async () => {
        const u = await ctx.make.user({ hash: 'clear', password: 'x', rights: ['read'] });
        await ctx.handle.db.updateTable('user').set({ pass: null, pass_crypted: null }).where('rowid', '=', u.id).execute();
        assertFailed(await post(ctx, { login: u.login, password: 'x' }));
        await ctx.handle.db.updateTable('user').set({ pass: '' }).where('rowid', '=', u.id).execute();
        assertFailed(await post(ctx, { login: u.login, password: ' ' }));
      });
    });

    // ---- rights -------------------------------------------------------------------------------

    test('the read right given only through a group logs in', async () => {
      const u = await ctx.make.user({ rights: [], groupRights: ['read'] });
      const body = assertLoggedIn(await login(ctx, u), u.id);
      assert.deepEqual(body.perms, { read: true, write: false, delete: false, admin: false });
    });

    test('perms merge the direct rights and the group rights', async () => {
      const u = await ctx.make.user({ rights: ['write'], groupRights: ['read', 'delete'] });
      const res = await login(ctx, u);
      const body = assertLoggedIn(res, u.id);
      assert.deepEqual(body.perms, { read: true, write: true, delete: true, admin: false });
      assert.deepEqual(decodeJwt(res.json().token).perms, body.perms);
    });

    test('a read right held in another entity (user_rights.entity 2) does not count: 403', async () => {
      const u = await ctx.make.user({ rights: [] });
      await ctx.handle.db
        .insertInto('user_rights')
        .values({ entity: 2, fk_user: u.id, fk_id: await readRightId(ctx) })
        .execute();
      assertNoRights(await login(ctx, u));
    });

    test('a read right through a group of another entity does not count: 403', async () => {
      const u = await ctx.make.user({ rights: [] });
      const { db } = ctx.handle;
      const group = await db
        .insertInto('usergroup')
        .values({ nom: `g-entity2-${u.id}`, entity: 2 })
        .executeTakeFirst();
      const groupId =
        dialect === 'postgres'
          ? Number(
              (await db.selectFrom('usergroup').select('rowid').where('nom', '=', `g-entity2-${u.id}`).executeTakeFirstOrThrow()).rowid,
            )
          : Number(group.insertId);
      await db
        .insertInto('usergroup_rights')
        .values({ entity: 2, fk_usergroup: groupId, fk_id: await readRightId(ctx) })
        .execute();
      await db.insertInto('usergroup_user').values({ entity: 2, fk_user: u.id, fk_usergroup: groupId }).execute();
      assertNoRights(await login(ctx, u));
    });

    // ---- validity dates -----------------------------------------------------------------------

    test('an end of validity in the past is 403 "User deaktiviert"', async () => {
      const u = await ctx.make.user({ rights: ['read'], validUntil: new Date(Date.now() - DAY_MS) });
      assertDisabled(await login(ctx, u));
    });

    test('a start of validity in the future is 403 "User deaktiviert"', async () => {
      const u = await ctx.make.user({ rights: ['read'], validFrom: new Date(Date.now() + DAY_MS) });
      assertDisabled(await login(ctx, u));
    });

    test('a validity period around now logs in', async () => {
      const u = await ctx.make.user({
        rights: ['read'],
        validFrom: new Date(Date.now() - DAY_MS),
        validUntil: new Date(Date.now() + DAY_MS),
      });
      assertLoggedIn(await login(ctx, u), u.id);
    });

    test('the last day of validity still logs in, as in Dolibarr (end date stored at 00:00 of that day)', async () => {
      // Dolibarr's user card stores dateendvalidity as the chosen day at 00:00:00, and
      // User::isNotIntoValidityDateRange() refuses only when it lies before the first hour of today.
      const today = new Date();
      const startOfToday = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
      const u = await ctx.make.user({ rights: ['read'], validUntil: startOfToday });
      assertLoggedIn(await login(ctx, u), u.id);
    });

    test('an expired user with a wrong password is 401, not 403', async () => {
      const u = await ctx.make.user({ rights: ['read'], validUntil: new Date(Date.now() - DAY_MS) });
      assertFailed(await post(ctx, { login: u.login, password: 'not-the-password' }));
    });

    // ---- entities -----------------------------------------------------------------------------

    test('a user of entity 2 cannot log in to entity 1: 401', async () => {
      const u = await ctx.make.user({ entity: 2, rights: ['read'] });
      assertFailed(await login(ctx, u));
    });

    test('a superadmin of entity 0 with rights in entity 1 logs in', async () => {
      const u = await ctx.make.user({ entity: 0, admin: true, rights: ['read', 'admin'] });
      const res = await login(ctx, u);
      const body = assertLoggedIn(res, u.id);
      assert.equal(res.json().user.admin, true);
      assert.deepEqual(body.perms, { read: true, write: false, delete: false, admin: true });
    });

    test("with the same login in entity 0 and entity 1, the entity's own user is the one checked", async () => {
      const own = await ctx.make.user({ entity: 1, password: 'own-password', rights: ['read'] });
      await ctx.make.user({ entity: 0, login: own.login, password: 'superadmin-password', rights: ['read'] });
      assertLoggedIn(await login(ctx, own), own.id);
      assertFailed(await post(ctx, { login: own.login, password: 'superadmin-password' }));
    });

    // ---- login by e-mail ----------------------------------------------------------------------

    test('an e-mail address naming exactly one user logs in as that user', async () => {
      const u = await ctx.make.user({ email: `anna.${Date.now()}@example.com`, rights: ['read'] });
      const email = (await ctx.handle.db.selectFrom('user').select('email').where('rowid', '=', u.id).executeTakeFirstOrThrow()).email!;
      const res = await post(ctx, { login: email, password: u.password });
      assertLoggedIn(res, u.id);
      assert.equal(res.json().user.login, u.login);
      assert.equal(decodeJwt(res.json().token).login, u.login);
    });

    test('an e-mail address with a wrong password is 401', async () => {
      const email = `bert.${Date.now()}@example.com`;
      await ctx.make.user({ email, rights: ['read'] });
      assertFailed(await post(ctx, { login: email, password: 'not-the-password' }));
    });

    test('an e-mail address shared by two users is 401, whichever password', async () => {
      const email = `shared.${Date.now()}@example.com`;
      const a = await ctx.make.user({ email, rights: ['read'] });
      const b = await ctx.make.user({ email, rights: ['read'] });
      assertFailed(await post(ctx, { login: email, password: a.password }));
      assertFailed(await post(ctx, { login: email, password: b.password }));
    });

    test('the e-mail address of a user of another entity is 401', async () => {
      const email = `other.${Date.now()}@example.com`;
      const u = await ctx.make.user({ email, entity: 2, rights: ['read'] });
      assertFailed(await post(ctx, { login: email, password: u.password }));
    });

    // ---- odd but well-formed input ------------------------------------------------------------

    test('a very long unknown login (200 characters) is an ordinary 401', async () => {
      assertFailed(await post(ctx, { login: 'x'.repeat(200), password: 'whatever' }));
    });

    // ---- body limits --------------------------------------------------------------------------

    test('a JSON body above config.bodyLimit is 413 BODY_TOO_LARGE in the error shape', async () => {
      const payload = JSON.stringify({ login: 'someone', password: 'p'.repeat(1_500_000) });
      assert.ok(payload.length > ctx.config.bodyLimit);
      const res = await ctx.app.inject({ method: 'POST', url: LOGIN_PATH, headers: { 'content-type': 'application/json' }, payload });
      assertError(res, 413, 'BODY_TOO_LARGE', errorCatalogue.BODY_TOO_LARGE.message);
    });

    // The original endpoint decoded whatever came: a body it could not read had no login and no
    // password, so it answered the contract's 400. Malformed, empty, non-JSON and form bodies alike.
    const unreadable: Array<[string, string, string]> = [
      ['malformed JSON', 'application/json', '{"login":'],
      ['an empty JSON body', 'application/json', ''],
      ['a text/plain body', 'text/plain', '{"login":"x","password":"y"}'],
      ['a form-encoded body', 'application/x-www-form-urlencoded', 'login=x&password=y'],
      ['a login with a NUL byte', 'application/json', JSON.stringify({ login: 'a\u0000b', password: 'y' })],
      ['a login with a line feed', 'application/json', JSON.stringify({ login: 'a\nb', password: 'y' })],
    ];
    for (const [label, type, payload] of unreadable) {
      test(`${label} is 400 "login + password erforderlich"`, async () => {
        const res = await ctx.app.inject({ method: 'POST', url: LOGIN_PATH, headers: { 'content-type': type }, payload });
        assertError(res, 400, 'AUTH_CREDENTIALS_MISSING', 'login + password erforderlich');
      });
    }

    // ---- timing -------------------------------------------------------------------------------

    if (dialect === 'sqlite') {
      test('an unknown login takes about as long as a wrong password (one bcrypt comparison each)', async () => {
        const u = await ctx.make.user({ rights: ['read'] });
        const attempt = async (body: { login: string; password: string }) => {
          const started = process.hrtime.bigint();
          const res = await post(ctx, body);
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          assertFailed(res);
          return ms;
        };
        // Warm up both paths (the dummy hash is made on first use).
        await attempt({ login: 'timing-unknown-warmup', password: 'x' });
        await attempt({ login: u.login, password: 'x' });
        const unknown: number[] = [];
        const wrong: number[] = [];
        for (let i = 0; i < 7; i++) {
          unknown.push(await attempt({ login: `timing-unknown-${i}`, password: 'not-the-password' }));
          wrong.push(await attempt({ login: u.login, password: 'not-the-password' }));
        }
        const ratio = median(unknown) / median(wrong);
        assert.ok(
          ratio >= 0.5 && ratio <= 2,
          `median unknown ${median(unknown).toFixed(1)} ms vs wrong password ${median(wrong).toFixed(1)} ms (ratio ${ratio.toFixed(2)})`,
        );
      });

      test("an unknown login costs what a wrong password does when the users' hashes have cost 12", async () => {
        // PHP 8.4 hashes with cost 12. With a fixed cost-10 dummy hash an unknown login took about a
        // quarter of a wrong password's time, which tells the two apart.
        const u = await ctx.make.user({
          login: `cost12_${Date.now()}`,
          passCrypted: await phpBcrypt('Kosten-12', 12),
          password: 'Kosten-12',
          rights: ['read'],
        });
        // The dummy cost is found when the app is built: a second app on the same database.
        const app = await buildApp(ctx.config, { db: ctx.handle, logger: false });
        try {
          const attempt = async (body: { login: string; password: string }) => {
            const started = process.hrtime.bigint();
            const res = await app.inject({ method: 'POST', url: LOGIN_PATH, payload: body });
            const ms = Number(process.hrtime.bigint() - started) / 1e6;
            assertFailed(res);
            return ms;
          };
          await attempt({ login: 'cost12-unknown-warmup', password: 'x' });
          await attempt({ login: u.login, password: 'x' });
          const unknown: number[] = [];
          const wrong: number[] = [];
          for (let i = 0; i < 5; i++) {
            unknown.push(await attempt({ login: `cost12-unknown-${i}`, password: 'not-the-password' }));
            wrong.push(await attempt({ login: u.login, password: 'not-the-password' }));
          }
          const ratio = median(unknown) / median(wrong);
          assert.ok(
            ratio >= 0.5,
            `median unknown ${median(unknown).toFixed(1)} ms vs wrong password (cost 12) ${median(wrong).toFixed(1)} ms (ratio ${ratio.toFixed(2)})`,
          );
        } finally {
          await app.close();
        }
      });
    }
  });

  describe(`login throttling [${dialect}]`, () => {
    const limits: LoginThrottleConfig = { maxFailuresPerLogin: 3, maxFailuresPerAddress: 5, windowSeconds: 900 };
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { login: limits });
    });
    after(async () => ctx?.close());

    /** `n` failed logins (wrong password) for `userLogin` from `remoteAddress`, each one a 401. */
    async function fail(userLogin: string, n: number, remoteAddress: string): Promise<void> {
      for (let i = 0; i < n; i++) {
        assertFailed(await post(ctx, { login: userLogin, password: `wrong-${i}` }, { remoteAddress }));
      }
    }

    test('after 3 failures for a login, the 4th attempt is 429 even with the right password', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      await fail(u.login, 3, '10.0.1.1');
      assertThrottled(await login(ctx, u, { remoteAddress: '10.0.1.1' }), limits.windowSeconds);
    });

    test('a login blocked at one address is slowed down, not locked, at another: 429 for a few seconds, then the right password works', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      await fail(u.login, 3, '10.0.2.1');
      const slowed = await login(ctx, u, { remoteAddress: '10.0.0.9' });
      assertThrottled(slowed, 2);
      await sleep(Number(slowed.headers['retry-after']) * 1000 + 50);
      assertLoggedIn(await login(ctx, u, { remoteAddress: '10.0.0.9' }), u.id);
      // The guessing address stays blocked for the window.
      assertThrottled(await login(ctx, u, { remoteAddress: '10.0.2.1' }), limits.windowSeconds);
    });

    test('another login from the address of a blocked login still works below the address limit', async () => {
      const blocked = await ctx.make.user({ rights: ['read'] });
      const other = await ctx.make.user({ rights: ['read'] });
      await fail(blocked.login, 3, '10.0.3.1');
      assertThrottled(await login(ctx, blocked, { remoteAddress: '10.0.3.1' }), limits.windowSeconds);
      assertLoggedIn(await login(ctx, other, { remoteAddress: '10.0.3.1' }), other.id);
    });

    test('refused attempts count toward the address limit: an address that goes on sending blocks itself for every login', async () => {
      const blocked = await ctx.make.user({ rights: ['read'] });
      const other = await ctx.make.user({ rights: ['read'] });
      await fail(blocked.login, 3, '10.0.3.2');
      // Refused unchecked, three times: with the three failures, six attempts from the address (limit 5).
      for (let i = 0; i < 3; i++) assertThrottled(await login(ctx, blocked, { remoteAddress: '10.0.3.2' }), limits.windowSeconds);
      assertThrottled(await login(ctx, other, { remoteAddress: '10.0.3.2' }), limits.windowSeconds);
      assertLoggedIn(await login(ctx, other, { remoteAddress: '10.0.3.3' }), other.id);
    });

    test('IPv6 addresses count by their /64: another address of the same /64 is blocked, not merely slowed down', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      await fail(u.login, 3, '2001:db8:9:1::1');
      const res = await login(ctx, u, { remoteAddress: '2001:db8:9:1::2' });
      assertThrottled(res, limits.windowSeconds);
      assert.ok(Number(res.headers['retry-after']) > 60, 'blocked for the window, as the guessing address itself');
    });

    test('the login name is counted case-insensitively', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      await fail(u.login.toUpperCase(), 2, '10.0.4.1');
      await fail(u.login, 1, '10.0.4.1');
      const res = await login(ctx, u, { remoteAddress: '10.0.4.1' });
      assertThrottled(res, limits.windowSeconds);
      assert.ok(Number(res.headers['retry-after']) > 60, 'blocked for the window, not only slowed');
    });

    test('5 failures over different unknown logins block the address for every login', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      for (let i = 0; i < 5; i++) {
        assertFailed(await post(ctx, { login: `spray-${i}`, password: 'guess' }, { remoteAddress: '10.0.5.1' }));
      }
      assertThrottled(await login(ctx, u, { remoteAddress: '10.0.5.1' }), limits.windowSeconds);
      assertThrottled(await post(ctx, { login: 'spray-new', password: 'guess' }, { remoteAddress: '10.0.5.1' }), limits.windowSeconds);
    });

    test('a blocked address does not block the same login from another address', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      for (let i = 0; i < 5; i++) {
        assertFailed(await post(ctx, { login: `spray2-${i}`, password: 'guess' }, { remoteAddress: '10.0.6.1' }));
      }
      assertThrottled(await login(ctx, u, { remoteAddress: '10.0.6.1' }), limits.windowSeconds);
      assertLoggedIn(await login(ctx, u, { remoteAddress: '10.0.6.2' }), u.id);
    });

    test('a successful login resets the failure count of the login', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      await fail(u.login, 2, '10.0.7.1');
      assertLoggedIn(await login(ctx, u, { remoteAddress: '10.0.7.1' }), u.id);
      await fail(u.login, 2, '10.0.7.2');
      assertLoggedIn(await login(ctx, u, { remoteAddress: '10.0.7.3' }), u.id);
    });

    test('a spelling the database treats as the same login does not open a fresh budget', async () => {
      // MariaDB/MySQL compare with a case- and accent-insensitive collation: 'ú_…' finds the user 'u_…',
      // and the failure table, compared the same way, counts the failures of 'u_…' for it.
      const u = await ctx.make.user({ login: `u_acc_${Date.now()}`, rights: ['read'] });
      await fail(u.login, 3, '10.0.9.1');
      const variant = `ú${u.login.slice(1)}`;
      const res = await post(ctx, { login: variant, password: u.password }, { remoteAddress: '10.0.9.2' });
      if (dialect === 'mysql') assertThrottled(res, limits.windowSeconds);
      else assertFailed(res); // an unknown login where logins compare exactly
    });

    test('40 wrong passwords sent at once: at most 3 are checked (401), the others 429; then the right password is 429 too', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      const remoteAddress = '10.0.10.1';
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => post(ctx, { login: u.login, password: `parallel-wrong-${i}` }, { remoteAddress })),
      );
      const statuses = answers.map((r) => r.statusCode);
      const failed = answers.filter((r) => r.statusCode === 401);
      const throttled = answers.filter((r) => r.statusCode === 429);
      assert.ok(failed.length <= limits.maxFailuresPerLogin, `${failed.length} answers were 401 (checked): ${statuses.join(' ')}`);
      assert.equal(failed.length + throttled.length, 40, `only 401 and 429: ${statuses.join(' ')}`);
      for (const res of failed) assertFailed(res);
      for (const res of throttled) assertThrottled(res, limits.windowSeconds);
      // The burst used up the budget of the login at that address: blocked there for the window …
      const there = await login(ctx, u, { remoteAddress });
      assert.equal(
        there.statusCode,
        429,
        `after a burst that got ${failed.length} answer(s) 401, the right password got ${there.statusCode}`,
      );
      assertThrottled(there, limits.windowSeconds);
      // … and elsewhere slowed down (a few seconds at most), never locked.
      let elsewhere = await login(ctx, u, { remoteAddress: '10.0.10.2' });
      if (elsewhere.statusCode === 429) {
        assertThrottled(elsewhere, 2);
        await sleep(Number(elsewhere.headers['retry-after']) * 1000 + 50);
        elsewhere = await login(ctx, u, { remoteAddress: '10.0.10.2' });
      }
      assertLoggedIn(elsewhere, u.id);
    });

    test("failures through the user's e-mail address count against the same account", async () => {
      const email = `throttle.${Date.now()}@example.com`;
      const u = await ctx.make.user({ email, rights: ['read'] });
      await fail(u.login, 3, '10.0.8.1');
      // The account is blocked; its e-mail address must not open a fresh budget of attempts.
      assertThrottled(await post(ctx, { login: email, password: u.password }, { remoteAddress: '10.0.8.2' }), limits.windowSeconds);
    });
  });

  describe(`a stranger cannot lock out a person [${dialect}]`, () => {
    // The defaults: 10 failures per login and address, 30 per address, 15 minutes.
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
      assert.deepEqual(
        { ...ctx.config.login },
        { maxFailuresPerLogin: 10, maxFailuresPerAddress: 30, windowSeconds: 900, knownAddressDays: 30, maxDelaySeconds: 60 },
      );
    });
    after(async () => ctx?.close());

    test('11 wrong passwords from A: the right password still works from B (known) at once and from a new address C after a short delay; A stays blocked', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      const [A, B, C] = ['192.0.2.1', '192.0.2.2', '192.0.2.3'];
      assertLoggedIn(await login(ctx, u, { remoteAddress: B }), u.id);
      for (let i = 0; i < 11; i++) {
        const res = await post(ctx, { login: u.login, password: `guess-${i}` }, { remoteAddress: A });
        if (i < 10) assertFailed(res);
        else assertThrottled(res, 900);
      }
      // B succeeded before: not slowed at all.
      assertLoggedIn(await login(ctx, u, { remoteAddress: B }), u.id);
      // C is new: at most a short wait, then the right password works.
      let fromC = await login(ctx, u, { remoteAddress: C });
      if (fromC.statusCode === 429) {
        assertThrottled(fromC, 2);
        await sleep(Number(fromC.headers['retry-after']) * 1000 + 50);
        fromC = await login(ctx, u, { remoteAddress: C });
      }
      assertLoggedIn(fromC, u.id);
      // The attacker at A: still refused, with the right password too, for the rest of the window.
      const atA = await login(ctx, u, { remoteAddress: A });
      assertThrottled(atA, 900);
      assert.ok(Number(atA.headers['retry-after']) > 800, `Retry-After ${atA.headers['retry-after']}`);
    });
  });

  describe(`the slow-down for unknown addresses grows and is bounded [${dialect}]`, () => {
    const limits: LoginThrottleConfig = {
      maxFailuresPerLogin: 2,
      maxFailuresPerAddress: 50,
      windowSeconds: 900,
      knownAddressDays: 30,
      maxDelaySeconds: 4,
    };
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { login: limits });
    });
    after(async () => ctx?.close());

    test('guesses from ever new addresses get one attempt per delay for the whole account (2 s, 4 s, at most LOGIN_MAX_DELAY_SECONDS); unchecked while slowed', async () => {
      const u = await ctx.make.user({ rights: ['read'] });
      assertFailed(await post(ctx, { login: u.login, password: 'g1' }, { remoteAddress: '198.51.100.1' }));
      assertFailed(await post(ctx, { login: u.login, password: 'g2' }, { remoteAddress: '198.51.100.2' }));
      // 2 failures: one attempt per 2 s from unknown addresses; the right password is not even checked.
      const first = await login(ctx, u, { remoteAddress: '198.51.100.3' });
      assertThrottled(first, 2);
      await sleep(Number(first.headers['retry-after']) * 1000 + 50);
      assertFailed(await post(ctx, { login: u.login, password: 'g3' }, { remoteAddress: '198.51.100.3' }));
      // 3 failures: 4 s; 4 failures: 8 s, bounded by 4.
      const second = await login(ctx, u, { remoteAddress: '198.51.100.4' });
      assertThrottled(second, 4);
      assert.ok(Number(second.headers['retry-after']) >= 3, `Retry-After ${second.headers['retry-after']} for a 4 s delay`);
      await sleep(Number(second.headers['retry-after']) * 1000 + 50);
      assertFailed(await post(ctx, { login: u.login, password: 'g4' }, { remoteAddress: '198.51.100.4' }));
      const third = await login(ctx, u, { remoteAddress: '198.51.100.5' });
      assertThrottled(third, 4);
      await sleep(Number(third.headers['retry-after']) * 1000 + 50);
      assertLoggedIn(await login(ctx, u, { remoteAddress: '198.51.100.5' }), u.id);
    });
  });

  describe(`user repository: maxBcryptCost [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { login: NO_THROTTLE });
    });
    after(async () => ctx?.close());

    async function maxBcryptCost(): Promise<number | undefined> {
      // Built as src/app.ts builds it: the entity, and the llx_user columns found on the database.
      const table = (await ctx.handle.db.introspection.getTables()).find((t) => t.name === `${ctx.config.dbPrefix}user`);
      assert.ok(table);
      const users = createUserRepository(ctx.handle.db, {
        entity: ctx.config.entity,
        userColumns: new Set(table.columns.map((c) => c.name)),
      });
      return users.maxBcryptCost();
    }

    test('is undefined while no user has a bcrypt hash', async () => {
      assert.equal(await maxBcryptCost(), undefined, 'no users');
      await ctx.make.user({ hash: 'md5', rights: ['read'] });
      await ctx.make.user({ hash: 'sha1md5', rights: ['read'] });
      await ctx.make.user({ hash: 'clear', rights: ['read'] });
      assert.equal(await maxBcryptCost(), undefined, 'legacy hashes and clear text only');
    });

    test("is the highest cost among the users' $2y$ hashes", async () => {
      await ctx.make.user({ passCrypted: await phpBcrypt('cost-ten', 10), rights: ['read'] });
      assert.equal(await maxBcryptCost(), 10);
      await ctx.make.user({ passCrypted: await phpBcrypt('cost-eleven', 11), rights: ['read'] });
      await ctx.make.user({ passCrypted: await phpBcrypt('cost-four', 4), rights: ['read'] });
      assert.equal(await maxBcryptCost(), 11);
    });
  });
}
