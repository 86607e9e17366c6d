/**
 * HTTP basics every route shares: 404/405 in the error shape, CORS (preflights need no token),
 * request ids, the OpenAPI document and docs page, and that tokens never reach a log line.
 *
 * Most of it does not touch the database and runs on SQLite only; the suite at the end (a
 * database failure behind an authenticated route) runs on every dialect.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { redactUrl } from '../../src/app.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { assertError } from '../helpers/assertions.js';
import { registerProbes } from '../helpers/probes.js';

const ORIGIN = 'https://app.example.com';
const preflightHeaders = (origin = ORIGIN, method = 'POST') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'authorization,content-type',
});

describe('http basics [sqlite]', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite', {}, { routes: registerProbes });
  });
  after(async () => ctx?.close());

  // -- 404 / 405 --

  test('an unknown path → 404 ROUTE_NOT_FOUND in the error shape', async () => {
    for (const url of ['/nothing', '/api/nothing', '/api/', '/api/health/x', '/api/auth.php/extra']) {
      assertError(await ctx.app.inject({ method: 'GET', url }), 404, 'ROUTE_NOT_FOUND');
    }
  });

  test('an unknown .php path → 404 ROUTE_NOT_FOUND, with or without a token, any method', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      assertError(await ctx.app.inject({ method, url: '/api/unknown.php' }), 404, 'ROUTE_NOT_FOUND');
      assertError(
        await ctx.app.inject({ method, url: '/api/unknown.php?id=1&action=x', headers: { authorization: 'Bearer abc' } }),
        404,
        'ROUTE_NOT_FOUND',
      );
    }
  });

  test('a known path with a wrong method → 405 METHOD_NOT_ALLOWED with an Allow header', async () => {
    for (const method of ['DELETE', 'POST', 'PUT', 'PATCH'] as const) {
      const res = await ctx.app.inject({ method, url: '/api/health' });
      assertError(res, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(res.headers.allow, 'GET');
    }
    const res = await ctx.app.inject({ method: 'DELETE', url: '/api/health?verbose=1' });
    assertError(res, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.allow, 'GET');
  });

  test('a wrong method on a token route → 405 before authentication', async () => {
    const res = await ctx.app.inject({ method: 'PUT', url: '/api/probe.php' });
    assertError(res, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.allow, 'GET');
  });

  test('GET /api/auth.php → 405 "POST erforderlich" with Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await ctx.app.inject({ method, url: '/api/auth.php' });
      const body = assertError(res, 405, 'AUTH_METHOD_NOT_ALLOWED');
      assert.equal(body.error, 'POST erforderlich');
      assert.equal(res.headers.allow, 'POST');
    }
  });

  // -- CORS --

  test('CORS preflight on /api/auth.php → 204 with allow-origin, -methods (POST) and -headers (authorization)', async () => {
    const res = await ctx.app.inject({ method: 'OPTIONS', url: '/api/auth.php', headers: preflightHeaders() });
    assert.equal(res.statusCode, 204, res.body);
    assert.ok(res.headers['access-control-allow-origin'] === '*' || res.headers['access-control-allow-origin'] === ORIGIN);
    assert.match(String(res.headers['access-control-allow-methods']), /\bPOST\b/);
    const allowed = String(res.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const header of ['authorization', 'content-type', 'x-authorization'])
      assert.ok(allowed.includes(header), `${header} in ${allowed}`);
  });

  test('CORS preflight on a token route needs no token → 204', async () => {
    for (const url of ['/api/probe.php', '/api/probe-write.php', '/api/probe-file.php?jwt=x']) {
      const res = await ctx.app.inject({ method: 'OPTIONS', url, headers: preflightHeaders(ORIGIN, 'GET') });
      assert.equal(res.statusCode, 204, `${url}: ${res.body}`);
      assert.ok(res.headers['access-control-allow-origin']);
    }
  });

  test('a normal POST /api/auth.php with Origin gets access-control-allow-origin (also on its error answers)', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth.php',
      headers: { origin: ORIGIN },
      payload: { login: 'nobody', password: 'x' },
    });
    assertError(res, 401, 'AUTH_LOGIN_FAILED');
    assert.ok(res.headers['access-control-allow-origin'] === '*' || res.headers['access-control-allow-origin'] === ORIGIN);
    assert.match(String(res.headers['access-control-expose-headers']), /X-Request-Id/i);

    const unauthenticated = await ctx.app.inject({ method: 'GET', url: '/api/probe.php', headers: { origin: ORIGIN } });
    assertError(unauthenticated, 401, 'AUTH_TOKEN_MISSING');
    assert.ok(unauthenticated.headers['access-control-allow-origin'], 'a 401 is readable by the browser client');
  });

  // -- Request ids --

  test('every response carries x-request-id, distinct per request', async () => {
    const ids = new Set<string>();
    for (const [method, url] of [
      ['GET', '/api/health'],
      ['GET', '/api/nothing'],
      ['DELETE', '/api/health'],
      ['GET', '/api/probe.php'],
    ] as const) {
      const res = await ctx.app.inject({ method, url });
      const id = res.headers['x-request-id'];
      assert.equal(typeof id, 'string', `${method} ${url}`);
      assert.ok((id as string).length > 0);
      ids.add(id as string);
    }
    assert.equal(ids.size, 4);
    const preflight = await ctx.app.inject({ method: 'OPTIONS', url: '/api/auth.php', headers: preflightHeaders() });
    assert.ok(preflight.headers['x-request-id']);
  });

  test('an incoming X-Request-Id is echoed', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-request-id': 'client-trace-123' } });
    assert.equal(res.headers['x-request-id'], 'client-trace-123');
    const failed = await ctx.app.inject({ method: 'GET', url: '/api/probe.php', headers: { 'X-Request-Id': 'client-trace-456' } });
    assert.equal(failed.statusCode, 401);
    assert.equal(failed.headers['x-request-id'], 'client-trace-456');
  });

  // -- OpenAPI and docs --

  test('GET /api/openapi.json without a token → 200, OpenAPI 3.1 with auth.php, bearerAuth and the secret derivation', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' });
    assert.equal(res.statusCode, 200, res.body);
    const doc = res.json();
    assert.ok(String(doc.openapi).startsWith('3.1'), doc.openapi);
    const post = doc.paths?.['/api/auth.php']?.post;
    assert.ok(post, 'POST /api/auth.php is documented');
    const schema = post.requestBody?.content?.['application/json']?.schema;
    assert.ok(schema?.properties?.login, 'login in the request body');
    assert.ok(schema?.properties?.password, 'password in the request body');
    assert.deepEqual([...(schema.required ?? [])].sort(), ['login', 'password']);
    assert.deepEqual(post.security, [], 'login needs no token');
    assert.equal(doc.components?.securitySchemes?.bearerAuth?.scheme, 'bearer');
    assert.match(String(doc.info?.description), /HMAC-SHA256/);
    assert.match(String(doc.info?.description), /bericht-api/);
  });

  test('GET /api/docs without a token → 200 HTML, and every asset it references loads without a token', async () => {
    let url = '/api/docs';
    let res = await ctx.app.inject({ method: 'GET', url });
    for (let hops = 0; hops < 2 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      url = new URL(String(res.headers.location), `http://localhost${url}`).pathname;
      res = await ctx.app.inject({ method: 'GET', url });
    }
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const assets = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(
      assets.some((a) => a.includes('static/')),
      `assets in ${res.body}`,
    );
    for (const asset of assets) {
      const target = new URL(asset, `http://localhost${url}`).pathname;
      assert.ok(target.startsWith('/api/docs/'), target);
      const loaded = await ctx.app.inject({ method: 'GET', url: target });
      assert.equal(loaded.statusCode, 200, `${target}: ${loaded.statusCode} ${loaded.body.slice(0, 200)}`);
    }
    // Also the trailing-slash form, whatever the first answer was.
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/docs/' })).statusCode, 200);
  });

  test("the docs' own JSON routes are public too", async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(String(res.json().openapi).startsWith('3.1'));
  });

  // -- redactUrl --

  test('redactUrl replaces the jwt value and keeps other parameters', () => {
    const out = redactUrl('/api/photo.php?jwt=abc.def&x=1');
    assert.doesNotMatch(out, /abc\.def/);
    assert.match(out, /[?&]x=1\b/);
    assert.ok(out.startsWith('/api/photo.php?jwt='));
    assert.equal(redactUrl('/api/photo.php?x=1&JWT=abc.def.ghi#frag').includes('abc.def.ghi'), false);
    assert.equal(redactUrl('/api/photo.php?id=3&jwt=a.b.c'), '/api/photo.php?id=3&jwt=[redacted]');
    assert.equal(redactUrl('/api/health'), '/api/health');
  });

  test('redactUrl finds the jwt parameter however its name is spelt (%6Awt, j%77t, +jwt)', () => {
    for (const name of ['%6Awt', 'j%77t', '%6A%77%74', 'Jwt']) {
      assert.equal(redactUrl(`/api/photo.php?a=1&${name}=abc.def.ghi`), `/api/photo.php?a=1&${name}=[redacted]`, name);
    }
    assert.equal(
      redactUrl('/api/photo.php?x=%zz&jwt=s.e.c'),
      '/api/photo.php?x=%zz&jwt=[redacted]',
      'an undecodable pair elsewhere does not stop it',
    );
  });

  test('a %-encoded jwt parameter name authenticates (so it must be redacted)', async () => {
    const user = await ctx.make.user({ rights: ['read'] });
    const token = await ctx.make.token(user);
    const res = await ctx.app.inject({ method: 'GET', url: `/api/probe-file.php?%6Awt=${encodeURIComponent(token)}` });
    assert.equal(res.statusCode, 200, res.body);
  });

  // -- edges of HTTP itself --

  test('a URL with a broken %-escape is 400 REQUEST_INVALID in the error shape', async () => {
    for (const url of ['/api/%zz', '/api/auth.php%zz', '/api/%E0%A4%A']) {
      assertError(await ctx.app.inject({ method: 'GET', url }), 400, 'REQUEST_INVALID');
    }
  });

  test('OPTIONS that is not a CORS preflight is 405 on a known path (auth.php: "POST erforderlich"), 404 elsewhere', async () => {
    const auth = await ctx.app.inject({ method: 'OPTIONS', url: '/api/auth.php' });
    assertError(auth, 405, 'AUTH_METHOD_NOT_ALLOWED', 'POST erforderlich');
    assert.equal(auth.headers.allow, 'POST');
    const health = await ctx.app.inject({ method: 'OPTIONS', url: '/api/health', headers: { origin: ORIGIN } });
    assertError(health, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(health.headers.allow, 'GET');
    assertError(await ctx.app.inject({ method: 'OPTIONS', url: '/api/nothing.php' }), 404, 'ROUTE_NOT_FOUND');
    // A real preflight is still answered, without a token.
    const preflight = await ctx.app.inject({ method: 'OPTIONS', url: '/api/probe.php', headers: preflightHeaders(ORIGIN, 'GET') });
    assert.equal(preflight.statusCode, 204);
  });
});

describe('cors with a list of origins [sqlite]', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite', { corsOrigins: [ORIGIN] }, { routes: registerProbes });
  });
  after(async () => ctx?.close());

  test('a listed origin is allowed (preflight and request), by name', async () => {
    const preflight = await ctx.app.inject({ method: 'OPTIONS', url: '/api/auth.php', headers: preflightHeaders() });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], ORIGIN);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth.php',
      headers: { origin: ORIGIN },
      payload: { login: 'x', password: 'y' },
    });
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
    assert.match(String(res.headers.vary), /origin/i);
  });

  test('an origin not listed gets no access-control-allow-origin', async () => {
    const evil = 'https://evil.example';
    const preflight = await ctx.app.inject({ method: 'OPTIONS', url: '/api/auth.php', headers: preflightHeaders(evil) });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth.php',
      headers: { origin: evil },
      payload: { login: 'x', password: 'y' },
    });
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    const lookalike = await ctx.app.inject({ method: 'GET', url: '/api/health', headers: { origin: `${ORIGIN}.evil.example` } });
    assert.equal(lookalike.headers['access-control-allow-origin'], undefined);
  });
});

// ---- Tokens and logs ------------------------------------------------------------------------

/** A login, then requests that carry the token in every place it may travel. */
async function requestsWithToken(ctx: TestContext): Promise<{ token: string; password: string }> {
  const user = await ctx.make.user({ rights: ['read'] });
  const token = await ctx.make.token(user);
  const q = encodeURIComponent(token);
  const ok = await ctx.app.inject({
    method: 'GET',
    url: `/api/probe-file.php?jwt=${q}&x=1`,
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(ok.statusCode, 200, ok.body);
  await ctx.app.inject({ method: 'GET', url: `/api/probe-file.php?jwt=${q}` });
  await ctx.app.inject({ method: 'GET', url: '/api/probe.php', headers: { 'x-authorization': token } });
  await ctx.app.inject({ method: 'GET', url: '/api/probe.php', headers: { 'redirect-http-authorization': `Bearer ${token}` } });
  await ctx.app.inject({ method: 'GET', url: `/api/probe-file.php?x=1&%6Awt=${q}` });
  // Failing requests log too.
  await ctx.app.inject({ method: 'GET', url: `/api/unknown.php?jwt=${q}` });
  await ctx.app.inject({ method: 'GET', url: `/api/probe.php?jwt=${q}` });
  return { token, password: user.password };
}

describe('logs never contain the token [sqlite]', () => {
  test('an app given a logger option with its own stream does not log the token', async () => {
    let captured = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        captured += chunk.toString();
        done();
      },
    });
    const ctx = await createTestContext('sqlite', {}, { logger: { level: 'info', stream }, routes: registerProbes });
    try {
      const { token, password } = await requestsWithToken(ctx);
      assert.match(captured, /incoming request/, 'requests are logged at info');
      const [, payload, signature] = token.split('.') as [string, string, string];
      assert.equal(
        captured.includes(signature),
        false,
        `the token's signature is in the log:\n${captured
          .split('\n')
          .filter((l) => l.includes(signature))
          .slice(0, 2)
          .join('\n')}`,
      );
      assert.equal(captured.includes(payload), false, 'the token payload is in the log');
      assert.equal(captured.includes(password), false, 'the password is in the log');
    } finally {
      await ctx.close();
    }
  });

  test('the default logger (as `serve` builds the app) does not log the token', () => {
    // The default logger writes to file descriptor 1, so the app runs in a child process.
    const here = path.dirname(fileURLToPath(import.meta.url));
    const mod = (p: string) => JSON.stringify(pathToFileURL(path.resolve(here, p)).href);
    const script = `
      import path from 'node:path';
      import os from 'node:os';
      import { mkdtempSync, rmSync } from 'node:fs';
      import { buildApp } from ${mod('../../src/app.ts')};
      import { createDb } from ${mod('../../src/db/database.ts')};
      import { migrate } from ${mod('../../src/db/migrate.ts')};
      import { testConfig } from ${mod('../helpers/build-app.ts')};
      import { createFactories } from ${mod('../helpers/factories.ts')};
      const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-log-'));
      const config = testConfig({ database: { dialect: 'sqlite', file: path.join(folder, 'db.sqlite') },
        dataRoot: path.join(folder, 'documents'), stateDir: path.join(folder, 'state'), logLevel: 'info' });
      const handle = createDb(config);
      await migrate(handle, config);
      const app = await buildApp(config, { db: handle });
      app.get('/api/probe-file.php', { config: { auth: 'token-or-query' } }, async (r) => ({ user: r.user }));
      app.get('/api/probe.php', async (r) => ({ user: r.user }));
      await app.ready();
      const make = createFactories(handle, config, app);
      const user = await make.user({ rights: ['read'] });
      const token = await make.token(user);
      const q = encodeURIComponent(token);
      const codes = [];
      codes.push((await app.inject({ method: 'GET', url: '/api/probe-file.php?jwt=' + q + '&x=1', headers: { authorization: 'Bearer ' + token } })).statusCode);
      codes.push((await app.inject({ method: 'GET', url: '/api/probe.php', headers: { 'x-authorization': token } })).statusCode);
      codes.push((await app.inject({ method: 'GET', url: '/api/unknown.php?jwt=' + q })).statusCode);
      await app.close();
      await handle.destroy();
      rmSync(folder, { recursive: true, force: true });
      process.stderr.write('RESULT ' + JSON.stringify({ token, password: user.password, codes }) + '\\n');
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: path.resolve(here, '../..'),
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, LOG_LEVEL: 'info' },
    });
    const line = child.stderr.split('\n').find((l) => l.startsWith('RESULT '));
    assert.ok(line, `child failed (${child.status}):\n${child.stderr}`);
    const { token, password, codes } = JSON.parse(line.slice('RESULT '.length)) as { token: string; password: string; codes: number[] };
    assert.deepEqual(codes, [200, 200, 404]);
    const logged = child.stdout;
    assert.match(logged, /incoming request/);
    assert.match(logged, /jwt=\[redacted\]&x=1/, 'the url is logged with the jwt redacted');
    const signature = token.split('.')[2]!;
    assert.equal(logged.includes(signature), false, 'the token is in the log');
    assert.equal(logged.includes(password), false, 'the password is in the log');
  });
});

// ---- Where the database matters -------------------------------------------------------------

for (const dialect of testDialects()) {
  describe(`database failure behind an authenticated route [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, {}, { routes: registerProbes });
    });
    after(async () => ctx?.close());

    test('the database gone → 503 SERVICE_UNAVAILABLE in the error shape, no driver text', async () => {
      const user = await ctx.make.user({ rights: ['read'] });
      const token = await ctx.make.token(user);
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: '/api/probe.php', headers: { authorization: `Bearer ${token}` } })).statusCode,
        200,
      );
      await ctx.handle.destroy();
      for (const res of [
        await ctx.app.inject({ method: 'GET', url: '/api/probe.php', headers: { authorization: `Bearer ${token}` } }),
        await ctx.app.inject({ method: 'POST', url: '/api/auth.php', payload: { login: user.login, password: user.password } }),
      ]) {
        assertError(res, 503, 'SERVICE_UNAVAILABLE');
        assert.doesNotMatch(res.body, /destroy|driver|sqlite|mysql|postgres|ECONN|select|from/i);
      }
      // Requests that need no database still answer.
      assertError(await ctx.app.inject({ method: 'GET', url: '/api/probe.php' }), 401, 'AUTH_TOKEN_MISSING');
      assertError(await ctx.app.inject({ method: 'GET', url: '/api/nothing' }), 404, 'ROUTE_NOT_FOUND');
    });
  });
}
