/**
 * Time limits on receiving a request, over real sockets with short limits: a JSON body or headers
 * sent a byte at a time get 408 REQUEST_TIMEOUT and a closed connection while others are served;
 * a multipart upload is not bound by the body limit, only by the whole-request limit.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { errorCatalogue } from '../../src/errors.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { multipart } from '../helpers/multipart.js';
import { listenLocal, openRaw, rawRequest, requestBytes, type RawResponse } from '../helpers/raw-http.js';

function assertTimedOut(res: RawResponse, what: string): void {
  assert.equal(res.status, 408, `${what}: expected 408, got ${res.status} ${res.body}`);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, what);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  assert.equal(body.code, 'REQUEST_TIMEOUT', what);
  assert.equal(body.error, 'Die Anfrage kam nicht rechtzeitig vollständig an');
  assert.ok(res.closed, `${what}: the connection stays open`);
}

describe('request time limits [sqlite]', () => {
  let ctx: TestContext;
  let port: number;
  before(async () => {
    ctx = await createTestContext('sqlite', { timeouts: { headersSeconds: 1, bodySeconds: 1, requestSeconds: 4, uploadIdleSeconds: 60 } });
    port = await listenLocal(ctx.app);
  });
  after(async () => ctx?.close());

  test('a JSON body sent a byte every 200 ms → 408 REQUEST_TIMEOUT after the body limit, connection closed; others are served meanwhile', async () => {
    const body = JSON.stringify({ login: 'langsam', password: 'x'.repeat(40) });
    const conn = await openRaw(port);
    const started = Date.now();
    conn.write(
      requestBytes('POST', '/api/auth.php', {
        'content-type': 'application/json',
        'content-length': body.length,
        connection: 'keep-alive',
      }),
    );
    conn.trickle(body, 200);
    const health = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    assert.equal(health.statusCode, 200);
    const other = await rawRequest(port, requestBytes('GET', '/api/health', {}));
    assert.equal(other.status, 200, 'a second client is served while the first trickles');
    const res = await conn.response(6000);
    const took = Date.now() - started;
    assertTimedOut(res, 'trickled JSON');
    assert.ok(took >= 900 && took < 3500, `answered after ${took} ms, expected about the 1 s body limit`);
  });

  test('a body that arrives within the limit is answered as usual', async () => {
    const body = JSON.stringify({ login: 'zeitig', password: 'x' });
    const conn = await openRaw(port);
    conn.write(requestBytes('POST', '/api/auth.php', { 'content-type': 'application/json', 'content-length': body.length }));
    conn.trickle(body, 10);
    const res = await conn.response(3000);
    assert.equal(res.status, 401, res.body);
    assert.equal(JSON.parse(res.body).code, 'AUTH_LOGIN_FAILED');
  });

  test('headers sent a byte every 100 ms → cut off with 408 REQUEST_TIMEOUT after the headers limit', async () => {
    const conn = await openRaw(port);
    const started = Date.now();
    conn.trickle(`GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`, 100);
    const res = await conn.response(6000);
    const took = Date.now() - started;
    assertTimedOut(res, 'trickled headers');
    assert.ok(took < 3500, `cut off after ${took} ms, expected about the 1 s headers limit`);
  });

  test("headers over Node's size limit → 431 HEADERS_TOO_LARGE in the error shape, connection closed", async () => {
    const res = await rawRequest(port, requestBytes('GET', '/api/health', { 'x-big': 'a'.repeat(20_000) }));
    assert.equal(res.status, 431, res.body);
    assert.equal(JSON.parse(res.body).code, 'HEADERS_TOO_LARGE');
    assert.ok(res.closed);
  });

  test('the OpenAPI document names the limits and lists every error code of the catalogue', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { info: { description: string } };
    for (const name of ['HEADERS_TIMEOUT_SECONDS', 'BODY_TIMEOUT_SECONDS', 'REQUEST_TIMEOUT_SECONDS'])
      assert.ok(doc.info.description.includes(name), name);
    for (const code of Object.keys(errorCatalogue)) assert.ok(doc.info.description.includes(`\`${code}\``), code);
  });

  test('a multipart upload slower than the body limit is not cut by it, only by the whole-request limit', async () => {
    const user = await ctx.make.user({ rights: ['read', 'write'] });
    const token = await ctx.make.token(user);
    const order = await ctx.make.order({ author: user.id });
    const { payload, contentType } = multipart([{ filename: 'notiz.txt', data: 'kein Foto, nur Text' }]);
    const url = `/api/orders.php?action=upload_photo&id=${order.id}`;
    const head = requestBytes('POST', url, {
      authorization: `Bearer ${token}`,
      'content-type': contentType,
      'content-length': payload.length,
    });

    // The last 10 bytes over 2 s: beyond the 1 s body limit, within the 4 s request limit.
    const slow = await openRaw(port);
    slow.write(Buffer.concat([head, payload.subarray(0, payload.length - 10)]));
    slow.trickle(payload.subarray(payload.length - 10), 200);
    const res = await slow.response(6000);
    assert.equal(res.status, 415, `a complete (if slow) upload is judged by its bytes: ${res.status} ${res.body}`);

    // Never finished: Node's request limit ends it.
    const stuck = await openRaw(port);
    const started = Date.now();
    stuck.write(Buffer.concat([head, payload.subarray(0, 20)]));
    const cut = await stuck.response(9000);
    const took = Date.now() - started;
    assert.ok(cut.closed, 'the connection is closed');
    assert.ok(took >= 3500 && took < 8000, `closed after ${took} ms, expected about the 4 s request limit`);
    assert.ok(cut.status === 0 || cut.status === 408 || cut.status === 400, `${cut.status} ${cut.body}`);
  });
});

describe('a client that hangs up mid-body [sqlite]', () => {
  test('is no server error: nothing at error level in the log, and the service keeps serving', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _e, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const ctx = await createTestContext('sqlite', {}, { logger: { level: 'info', stream } });
    try {
      const port = await listenLocal(ctx.app);
      const sent = [
        requestBytes('POST', '/api/auth.php', { 'content-type': 'application/json', 'content-length': 100 }, '{"login":"x",'),
        requestBytes(
          'POST',
          '/api/upload_token.php',
          { authorization: 'Bearer x', 'content-type': 'application/json', 'content-length': 100 },
          '{',
        ),
      ];
      for (const bytes of sent) {
        const conn = await openRaw(port);
        conn.write(bytes);
        await new Promise((resolve) => setTimeout(resolve, 100));
        conn.socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal((await rawRequest(port, requestBytes('GET', '/api/health', {}))).status, 200);
      const errors = lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
      assert.deepEqual(errors, []);
    } finally {
      await ctx.close();
    }
  });
});
