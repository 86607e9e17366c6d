/**
 * What a security review expects of the service's answers: every HTML page (the public signature
 * check, the QR upload page, the API docs) refuses to be framed (X-Frame-Options, CSP
 * frame-ancestors), sends no referrer and is never sniffed; every other answer is never sniffed;
 * the PDF keeps its own frame-ancestors for the client's origin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { denyFraming } from '../../src/plugins/security-headers.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';

function assertHtmlHeaders(res: LightMyRequestResponse, what: string): void {
  assert.match(String(res.headers['content-type']), /^text\/html/, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  assert.equal(res.headers['x-frame-options'], 'DENY', what);
  const csp = String(res.headers['content-security-policy'] ?? '');
  assert.match(csp, /(^|;\s*)frame-ancestors 'none'(;|$)/, `${what}: ${csp}`);
  assert.equal(csp.match(/frame-ancestors/g)?.length, 1, `${what}: one frame-ancestors in ${csp}`);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(res.headers['referrer-policy'], 'no-referrer', what);
}

describe('security headers [sqlite]', () => {
  let ctx: TestContext;
  let headers: Record<string, string>;
  let orderId: number;
  before(async () => {
    ctx = await createTestContext('sqlite', { corsOrigins: ['https://app.example.com'] });
    const user = await ctx.make.user({ rights: ['read', 'write', 'delete'] });
    headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
    orderId = (await ctx.make.order({ author: user.id })).id;
  });
  after(async () => ctx?.close());

  test('the public signature check (unknown code, malformed code) is an HTML page with the headers, its own CSP kept', async () => {
    for (const code of ['AAAAAAAAAAAAAAAAAAAAAAAA', 'kurz', '<script>']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/public/verify_signature.php?code=${encodeURIComponent(code)}` });
      assert.equal(res.statusCode, 404);
      assertHtmlHeaders(res, `verify ${code}`);
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    }
  });

  test('the QR upload page (valid, unknown link) has the headers and keeps its nonce CSP', async () => {
    const made = await ctx.app.inject({ method: 'POST', url: '/api/upload_token.php', headers, payload: { fk_element: orderId } });
    assert.equal(made.statusCode, 201, made.body);
    const page = await ctx.app.inject({
      method: 'GET',
      url: new URL(made.json().upload_url).pathname + new URL(made.json().upload_url).search,
    });
    assert.equal(page.statusCode, 200, page.body);
    assertHtmlHeaders(page, 'upload page');
    const nonce = /nonce="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(nonce);
    assert.match(String(page.headers['content-security-policy']), new RegExp(`script-src 'nonce-${nonce.replace(/[+/]/g, '\\$&')}'`));
    const unknown = await ctx.app.inject({ method: 'GET', url: '/public/upload.php?token=unbekannt' });
    assert.equal(unknown.statusCode, 404);
    assertHtmlHeaders(unknown, 'upload page, unknown link');
  });

  test("the API docs and every HTML page they lead to have the headers (the docs' frame-ancestors 'self' gives way)", async () => {
    let url = '/api/docs';
    let res = await ctx.app.inject({ method: 'GET', url });
    for (let hops = 0; hops < 2 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      url = new URL(String(res.headers.location), `http://localhost${url}`).pathname;
      res = await ctx.app.inject({ method: 'GET', url });
    }
    assert.equal(res.statusCode, 200);
    assertHtmlHeaders(res, url);
    assertHtmlHeaders(await ctx.app.inject({ method: 'GET', url: '/api/docs/' }), '/api/docs/');
  });

  test('JSON answers (success and error) are never sniffed and carry no frame headers', async () => {
    for (const [url, h] of [
      ['/api/health', {}],
      ['/api/orders.php', headers],
      ['/api/orders.php', {}],
      ['/api/nothing', {}],
    ] as const) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: h });
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['x-frame-options'], undefined, url);
    }
  });

  test("the PDF stays frameable by the client's origin and is never sniffed", async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/reports.php?action=create',
      headers,
      payload: { fk_element: orderId, title: 'Im Rahmen' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as number;
    assert.equal(
      (
        await ctx.app.inject({
          method: 'POST',
          url: `/api/pages.php?action=add&bericht_id=${id}`,
          headers,
          payload: { title: 'Nur Titel' },
        })
      ).statusCode,
      201,
    );
    const pdf = await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${id}&preview=1`, headers });
    assert.equal(pdf.statusCode, 200, pdf.body.slice(0, 200));
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.headers['content-security-policy'], "frame-ancestors 'self' https://app.example.com");
    assert.equal(pdf.headers['x-frame-options'], undefined);
    assert.equal(pdf.headers['x-content-type-options'], 'nosniff');
  });

  test("denyFraming adds frame-ancestors 'none' to a policy, or replaces the one it has", () => {
    assert.equal(denyFraming(undefined), "frame-ancestors 'none'");
    assert.equal(
      denyFraming("default-src 'none'; style-src 'unsafe-inline'"),
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    assert.equal(
      denyFraming("default-src 'self'; frame-ancestors 'self'; img-src data:;"),
      "default-src 'self'; img-src data:; frame-ancestors 'none'",
    );
  });
});
