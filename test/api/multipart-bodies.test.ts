/**
 * Multipart bodies that cannot be read (cut off before the closing boundary, no boundary in the
 * Content-Type, a boundary that never occurs in the body) are the client's fault: 400 in the error
 * shape on every route that takes one, never a 500. Sent over a real socket, as a phone on a bad
 * line sends them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { listenLocal, rawRequest, requestBytes, type RawResponse } from '../helpers/raw-http.js';

const PNG_START = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

/** A signature form up to the middle of its PNG: no closing boundary follows. */
function cutForm(boundary: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="signer_name"\r\n\r\nErika Muster\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="sig.png"\r\nContent-Type: image/png\r\n\r\n`),
    PNG_START,
  ]);
}
const completeForm = (boundary: string) => Buffer.concat([cutForm(boundary), Buffer.from(`\r\n--${boundary}--\r\n`)]);

function assertBadMultipart(res: RawResponse, what: string): void {
  assert.equal(res.status, 400, `${what}: expected 400, got ${res.status} ${res.body}`);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, what);
  const body = JSON.parse(res.body) as { error: string; code: string };
  assert.equal(body.code, 'UPLOAD_MISSING', what);
  assert.ok(body.error.length > 0);
}

describe('unreadable multipart bodies [sqlite]', () => {
  let ctx: TestContext;
  let port: number;
  let token: string;
  let urls: Record<string, string>;
  before(async () => {
    ctx = await createTestContext('sqlite');
    const user = await ctx.make.user({ rights: ['read', 'write', 'delete'] });
    token = await ctx.make.token(user);
    const order = await ctx.make.order({ author: user.id });
    const report = await ctx.make.report({ creator: user.id, element: order.id });
    urls = {
      signature: `/api/pages.php?action=signature&bericht_id=${report.id}`,
      upload_photo: `/api/orders.php?action=upload_photo&id=${order.id}`,
      voice: `/api/voice.php?id=${order.id}`,
    };
    port = await listenLocal(ctx.app);
  });
  after(async () => ctx?.close());

  const send = (url: string, contentType: string, body: Buffer) =>
    rawRequest(port, requestBytes('POST', url, { authorization: `Bearer ${token}`, 'content-type': contentType }, body));

  test('a body cut off before its closing boundary → 400 UPLOAD_MISSING', async () => {
    for (const [name, url] of Object.entries(urls)) {
      assertBadMultipart(await send(url, 'multipart/form-data; boundary=CUT', cutForm('CUT')), `${name}, cut off`);
    }
  });

  test('multipart/form-data without a boundary → 400 UPLOAD_MISSING', async () => {
    for (const [name, url] of Object.entries(urls)) {
      assertBadMultipart(await send(url, 'multipart/form-data', completeForm('XYZ')), `${name}, no boundary`);
      assertBadMultipart(await send(url, 'multipart/form-data; boundary=', completeForm('XYZ')), `${name}, empty boundary`);
    }
  });

  test('a boundary that does not occur in the body → 400 UPLOAD_MISSING', async () => {
    for (const [name, url] of Object.entries(urls)) {
      assertBadMultipart(await send(url, 'multipart/form-data; boundary=NOTHERE', completeForm('XYZ')), `${name}, wrong boundary`);
    }
  });

  test('the service keeps serving after them', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    assert.equal(res.statusCode, 200);
  });
});
