/**
 * The built web app at /app/ (APP_DIR): redirects to it, its files with the right types and cache
 * headers, its HTML with the app's Content-Security-Policy and the preload links of what it loads
 * first (read again after a new build), 404 in the API's error shape for what
 * is not a file (folders, dotfiles, paths out of the folder, also as the raw bytes a client may
 * send), and 503 APP_NOT_BUILT while the app is not built, with the API working meanwhile.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { APP_CONTENT_SECURITY_POLICY, IMMUTABLE_CACHE, appPathSegments, appPreloadLinks } from '../../src/plugins/web-app.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { listenLocal, rawRequest, requestBytes } from '../helpers/raw-http.js';

const INDEX =
  '<!doctype html><html><head><link rel="manifest" href="/app/manifest.webmanifest"><script type="module" src="/app/assets/index-abc123.js"></script></head><body><div id="app"></div></body></html>';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const SECRET = 'geheim: nicht ausliefern';
const BIG_JS = `export const rows = [${Array.from({ length: 400 }, (_, i) => `"Zeile ${i}"`).join(',')}];\n`;

/** A small fake of what Vite builds into dist/app, in `folder`/app, with a secret beside it. */
function fakeBuild(folder: string): string {
  const dir = path.join(folder, 'app');
  const files: Record<string, string | Buffer> = {
    'index.html': INDEX,
    'sw.js': "self.addEventListener('fetch', () => {});",
    'registerSW.js': "navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' });",
    'manifest.webmanifest': JSON.stringify({ name: 'Berichte', start_url: '/app/', scope: '/app/' }),
    'icons/icon-192.png': PNG,
    'icons/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'assets/index-abc123.js': 'console.log("app");',
    'assets/index-def456.css': 'body{margin:0}',
    'assets/inter-789.woff2': Buffer.from('wOF2'),
    'assets/strings-0a1b.json': '{"hallo":"Welt"}',
    '.env': SECRET,
    'assets/.hidden.js': SECRET,
  };
  for (const [name, data] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), data);
  }
  // Precompressed copies of one script, as the build leaves them (web/vite.config.ts).
  writeFileSync(path.join(dir, 'assets/big-0c0c.js'), BIG_JS);
  writeFileSync(path.join(dir, 'assets/big-0c0c.js.br'), brotliCompressSync(BIG_JS));
  writeFileSync(path.join(dir, 'assets/big-0c0c.js.gz'), gzipSync(BIG_JS));
  writeFileSync(path.join(folder, 'secret.txt'), SECRET);
  return dir;
}

/** The directives of a policy, each once, in a set. */
const directives = (policy: string) =>
  policy
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean);

describe('web app [sqlite]', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-app-'));
  const appDir = fakeBuild(folder);
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite', { appDir });
  });
  after(async () => {
    await ctx?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('a precompressed copy is sent when the browser accepts it: Brotli first, then gzip, else the file itself', async () => {
    const cases: [string | undefined, string | undefined][] = [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0.8', 'gzip'],
      ['identity', undefined],
      [undefined, undefined],
    ];
    for (const [accept, encoding] of cases) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/app/assets/big-0c0c.js',
        headers: accept ? { 'accept-encoding': accept } : {},
      });
      assert.equal(res.statusCode, 200, `${accept}: ${res.body}`);
      assert.equal(res.headers['content-encoding'], encoding, `${accept}`);
      assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(res.headers.vary, 'Accept-Encoding');
      assert.equal(res.headers['cache-control'], IMMUTABLE_CACHE);
      const body =
        encoding === 'br' ? brotliDecompressSync(res.rawPayload) : encoding === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload;
      assert.equal(body.toString('utf8'), BIG_JS, `${accept}: the same script`);
      assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
    }
    // A file without copies goes as it is, also to a browser that would take Brotli.
    const plain = await ctx.app.inject({ method: 'GET', url: '/app/assets/index-abc123.js', headers: { 'accept-encoding': 'br' } });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, 'console.log("app");');
    // Images are never sent as a compressed copy.
    const png = await ctx.app.inject({ method: 'GET', url: '/app/icons/icon-192.png', headers: { 'accept-encoding': 'br' } });
    assert.equal(png.headers['content-encoding'], undefined);
    assert.equal(png.headers.vary, undefined);
  });

  test('/ and /app lead to /app/ (302, the query kept), also for HEAD', async () => {
    for (const [method, url, location] of [
      ['GET', '/', '/app/'],
      ['HEAD', '/', '/app/'],
      ['GET', '/app', '/app/'],
      ['HEAD', '/app', '/app/'],
      ['GET', '/app?source=pwa', '/app/?source=pwa'],
    ] as const) {
      const res = await ctx.app.inject({ method, url });
      assert.equal(res.statusCode, 302, `${method} ${url}`);
      assert.equal(res.headers.location, location, `${method} ${url}`);
    }
  });

  test("/app/ is the app's index.html: HTML, revalidated, with ETag, Last-Modified and the app's policy", async () => {
    for (const url of ['/app/', '/app/index.html', '/app/?source=pwa']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.equal(res.body, INDEX);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.ok(res.headers.etag, 'an ETag');
      assert.ok(res.headers['last-modified'], 'a Last-Modified');
      // The app's policy, once each, security-headers.ts's frame-ancestors 'none' not doubled.
      const policy = String(res.headers['content-security-policy']);
      assert.deepEqual(new Set(directives(policy)), new Set(directives(APP_CONTENT_SECURITY_POLICY)), policy);
      assert.equal(directives(policy).length, directives(APP_CONTENT_SECURITY_POLICY).length, policy);
      assert.doesNotMatch(policy, /'unsafe-eval'|script-src[^;]*unsafe-inline/);
      assert.equal(res.headers['x-frame-options'], 'DENY');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      // What the HTML loads first, named for the browser before it reads the HTML.
      assert.equal(res.headers.link, '</app/assets/index-abc123.js>; rel=modulepreload', url);
    }
    const head = await ctx.app.inject({ method: 'HEAD', url: '/app/' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-type'], 'text/html; charset=utf-8');

    // A revalidation that finds the same file: 304, still no-cache.
    const first = await ctx.app.inject({ method: 'GET', url: '/app/' });
    const again = await ctx.app.inject({ method: 'GET', url: '/app/', headers: { 'if-none-match': String(first.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers['cache-control'], 'no-cache');
  });

  test('hashed files under assets/ are immutable for a year; every other file is revalidated; each has its type', async () => {
    const expected: Array<[string, string, string]> = [
      ['/app/assets/index-abc123.js', 'text/javascript; charset=utf-8', IMMUTABLE_CACHE],
      ['/app/assets/index-def456.css', 'text/css; charset=utf-8', IMMUTABLE_CACHE],
      ['/app/assets/inter-789.woff2', 'font/woff2', IMMUTABLE_CACHE],
      ['/app/assets/strings-0a1b.json', 'application/json; charset=utf-8', IMMUTABLE_CACHE],
      ['/app/sw.js', 'text/javascript; charset=utf-8', 'no-cache'],
      ['/app/registerSW.js', 'text/javascript; charset=utf-8', 'no-cache'],
      ['/app/manifest.webmanifest', 'application/manifest+json', 'no-cache'],
      ['/app/icons/icon-192.png', 'image/png', 'no-cache'],
      ['/app/icons/logo.svg', 'image/svg+xml', 'no-cache'],
    ];
    for (const [url, type, cache] of expected) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.equal(res.headers['content-type'], type, url);
      assert.equal(res.headers['cache-control'], cache, url);
      assert.ok(res.headers.etag && res.headers['last-modified'], url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['content-security-policy'], undefined, `${url}: only the HTML carries the policy`);
    }
    assert.deepEqual((await ctx.app.inject({ method: 'GET', url: '/app/icons/icon-192.png' })).rawPayload, PNG);
    assert.deepEqual((await ctx.app.inject({ method: 'GET', url: '/app/manifest.webmanifest' })).json(), {
      name: 'Berichte',
      start_url: '/app/',
      scope: '/app/',
    });
  });

  test('no token is needed, and none of it is in the OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/app')),
      [],
    );
  });

  test('what is not a file is 404 in the error shape: missing files, folders (no listing), dotfiles, other methods', async () => {
    for (const url of [
      '/app/missing.js',
      '/app/assets/index-000000.js',
      '/app/assets',
      '/app/assets/',
      '/app/icons/',
      '/app//sw.js',
      '/app/.env',
      '/app/assets/.hidden.js',
      '/app/%2eenv',
      '/app/settings/profile',
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assertError(res, 404, 'ROUTE_NOT_FOUND');
      assert.doesNotMatch(res.body, /geheim|index-abc123|icon-192/, url);
    }
    assertError(await ctx.app.inject({ method: 'POST', url: '/app/index.html', payload: {} }), 404, 'ROUTE_NOT_FOUND');
    assertError(await ctx.app.inject({ method: 'POST', url: '/', payload: {} }), 405, 'METHOD_NOT_ALLOWED');
  });

  test('paths out of the folder are 404, however they are encoded', async () => {
    const tries = [
      '/app/..%2fsecret.txt',
      '/app/..%2Fsecret.txt',
      '/app/%2e%2e%2fsecret.txt',
      '/app/assets/..%2f..%2fsecret.txt',
      '/app/..%5csecret.txt',
      '/app/%252e%252e/secret.txt',
      '/app/%2e%2e%2f%2e%2e%2fpackage.json',
      '/app/x%00.js',
      `/app/${encodeURIComponent(path.join(folder, 'secret.txt'))}`,
    ];
    for (const url of tries) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assertError(res, 404, 'ROUTE_NOT_FOUND');
      assert.doesNotMatch(res.body, /geheim/, url);
    }
    // What a client may put on the wire as it is (inject would normalise `..`).
    const port = await listenLocal(ctx.app);
    for (const url of [
      '/app/../secret.txt',
      '/app/assets/../../secret.txt',
      '/app/%2e%2e/secret.txt',
      '/app/../../package.json',
      '/app/..\\secret.txt',
    ]) {
      const res = await rawRequest(port, requestBytes('GET', url, {}));
      assert.ok(res.status === 404 || res.status === 400, `${url}: ${res.status} ${res.body}`);
      assert.doesNotMatch(res.body, /geheim|"version"/, url);
    }
  });

  test('the preload links of an HTML: module scripts and preloads, style sheets, with their crossorigin; nothing else', () => {
    const html = [
      '<link rel="icon" href="/app/icons/icon.svg" type="image/svg+xml" />',
      '<script async type="module" crossorigin src="/app/assets/index-1.js"></script>',
      '<link rel="modulepreload" crossorigin href="/app/assets/boot-2.js">',
      '<link rel=stylesheet href=/app/assets/main-3.css>',
      "<script type='module' src='/app/assets/x-4.js' crossorigin='use-credentials'></script>",
      '<script src="/app/assets/classic-5.js"></script>',
      '<link rel="manifest" href="/app/manifest.webmanifest">',
      '<link release="x" href="/app/assets/not-a-rel.css">',
      '<link rel="modulepreload" href="https://elsewhere.example/x.js">',
      '<link rel="modulepreload" href="/app/assets/a,b.js">',
    ].join('\n');
    assert.equal(
      appPreloadLinks(html),
      '</app/assets/index-1.js>; rel=modulepreload; crossorigin, </app/assets/boot-2.js>; rel=modulepreload; crossorigin, </app/assets/main-3.css>; rel=preload; as=style, </app/assets/x-4.js>; rel=modulepreload; crossorigin=use-credentials',
    );
    assert.equal(appPreloadLinks('<html><body>nothing</body></html>'), undefined);
  });

  test('a new build of the HTML: its preload links follow without a restart', async () => {
    const file = path.join(appDir, 'index.html');
    try {
      writeFileSync(file, INDEX.replace('index-abc123.js', 'index-0new0000.js'));
      const res = await ctx.app.inject({ method: 'GET', url: '/app/' });
      assert.equal(res.headers.link, '</app/assets/index-0new0000.js>; rel=modulepreload');
    } finally {
      writeFileSync(file, INDEX);
    }
  });

  test('the paths that may be served: plain segments only', () => {
    assert.deepEqual(appPathSegments(''), ['index.html']);
    assert.deepEqual(appPathSegments('assets/index-abc123.js'), ['assets', 'index-abc123.js']);
    for (const refused of ['..', '../x', 'a/../b', './x', '.env', 'a/.b', 'a//b', 'a/', '/a', 'a\\b', 'a\0b']) {
      assert.equal(appPathSegments(refused), undefined, refused);
    }
  });
});

describe('web app not built [sqlite]', () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-app-'));
  const appDir = path.join(folder, 'app');
  const lines: Array<{ level: number; msg: string; appDir?: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite', { appDir }, { logger: { level: 'warn', stream } });
  });
  after(async () => {
    await ctx?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('one warning at start; /app/ and its files are 503 APP_NOT_BUILT; the API works', async () => {
    const warnings = lines.filter((l) => l.level === 40 && /web app is not built/.test(l.msg));
    assert.equal(warnings.length, 1, JSON.stringify(lines));
    assert.equal(warnings[0]!.appDir, appDir);
    for (const url of ['/app/', '/app/index.html', '/app/assets/index-abc123.js', '/app/.env']) {
      assertError(await ctx.app.inject({ method: 'GET', url }), 503, 'APP_NOT_BUILT', 'Die App ist nicht gebaut: npm run build ausführen');
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/' })).statusCode, 302);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/health' })).statusCode, 200);
    // A folder without index.html is not built either.
    mkdirSync(path.join(appDir, 'assets'), { recursive: true });
    writeFileSync(path.join(appDir, 'assets', 'index-abc123.js'), 'console.log(1);');
    assertError(await ctx.app.inject({ method: 'GET', url: '/app/' }), 503, 'APP_NOT_BUILT');
    assert.equal(lines.filter((l) => /web app is not built/.test(l.msg)).length, 1, 'warned once, not per request');
  });

  test('once the app is built, it is served without a restart', async () => {
    fakeBuild(folder);
    const res = await ctx.app.inject({ method: 'GET', url: '/app/' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, INDEX);
    assertError(await ctx.app.inject({ method: 'GET', url: '/app/missing.js' }), 404, 'ROUTE_NOT_FOUND');
  });
});
