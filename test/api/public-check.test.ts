/**
 * The public check of an uploaded PDF (POST /public/verify_signature.php) against clients that
 * misbehave, over real sockets: connections cut mid-headers, mid-body, while waiting and while
 * their file is checked, many times over, leave every slot free (the next check answers); an upload
 * that stops sending gets 408 after the upload idle time; uploads that trickle hold no check
 * worker; a file made to cost the check as much as possible is answered (judged, or refused as too
 * costly once past the worker's budget) while the rest of the API answers meanwhile. A photo upload
 * that stops sending is given up after the same idle time.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CHECK_RECEIVING, CHECK_UPLOADS_PER_ADDRESS, publicCheckLoad } from '../../src/modules/seal/public-check.routes.js';
import { adversarialPdf } from '../helpers/adversarial-pdf.js';
import { createTestContext, testConfig, type TestContext } from '../helpers/build-app.js';
import { multipart } from '../helpers/multipart.js';
import { listenLocal, openRaw, rawRequest, requestBytes, type RawConnection, type RawResponse } from '../helpers/raw-http.js';

const URL_PATH = '/public/verify_signature.php';
/** A PDF this service did not seal: a quick check with a known answer. */
const PLAIN_PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request head and body of an upload of `data` from the address `from` (X-Forwarded-For; the service trusts the proxy here). */
function upload(data: Buffer, from: string): { head: Buffer; body: Buffer } {
  const form = multipart([{ name: 'file', filename: 'bericht.pdf', type: 'application/pdf', data }]);
  const head = requestBytes('POST', URL_PATH, {
    'content-type': form.contentType,
    'content-length': form.payload.length,
    'x-forwarded-for': from,
  });
  return { head, body: form.payload };
}

/** One whole upload over its own connection, and the answer. */
async function check(port: number, data: Buffer, from: string, waitMs = 15_000): Promise<RawResponse> {
  const { head, body } = upload(data, from);
  return rawRequest(port, Buffer.concat([head, body]), waitMs);
}

/** Waits until no check worker is busy and one is loaded (a check's budget covers no worker's start). */
async function workersIdle(ctx: TestContext): Promise<void> {
  for (;;) {
    const workers = ctx.app.pdfSeal.checkWorkers();
    if (workers.busy === 0 && workers.idle > 0) return;
    ctx.app.pdfSeal.warmCheck();
    await sleep(20);
  }
}

/** Waits (a while) for the public checks to hold nothing, then asserts they hold nothing. */
async function assertNothingHeld(ctx: TestContext, what: string): Promise<void> {
  const empty = {
    receiving: { running: 0, waiting: 0 },
    checks: { running: 0, waiting: 0 },
    uploadAddresses: 0,
    codeCheckAddresses: 0,
    codeChecks: { running: 0, waiting: 0 },
  };
  const now = () => {
    const { filesHashed: _hashed, ...load } = publicCheckLoad(ctx.app.pdfSeal)!;
    return load;
  };
  for (let i = 0; i < 200 && JSON.stringify(now()) !== JSON.stringify(empty); i++) await sleep(25);
  assert.deepEqual(now(), empty, what);
}

function assertJudged(res: RawResponse, verdict: string, what: string): void {
  assert.equal(res.status, 200, `${what}: ${res.status} ${res.body.slice(0, 500)}`);
  assert.match(res.body, new RegExp(`data-verdict="${verdict}"`), what);
}

describe('public PDF check against clients that misbehave [sqlite]', () => {
  let ctx: TestContext;
  let port: number;
  before(async () => {
    ctx = await createTestContext('sqlite', {
      trustProxy: true,
      timeouts: { headersSeconds: 30, bodySeconds: 30, requestSeconds: 3600, uploadIdleSeconds: 1 },
    });
    port = await listenLocal(ctx.app);
  });
  after(async () => ctx?.close());

  test('connections cut at every stage, many times over, give every slot back: the next check answers', async () => {
    // A file that keeps a worker busy for a while (several gaps, each hashing the whole file).
    const costly = adversarialPdf({ entries: 8, hexBytes: 512 * 1024 });
    let address = 0;
    const from = () => `10.3.${Math.floor(address / 250)}.${(address++ % 250) + 1}`;
    for (let round = 0; round < 4; round++) {
      const open: RawConnection[] = [];
      // Mid-headers.
      for (let i = 0; i < 4; i++) {
        const conn = await openRaw(port);
        conn.write(upload(PLAIN_PDF, from()).head.subarray(0, 40));
        open.push(conn);
      }
      // Mid-body: more than there are slots to receive in, some from one address beyond its limit.
      for (let i = 0; i < CHECK_RECEIVING + 4; i++) {
        const conn = await openRaw(port);
        const { head, body } = upload(costly, i % 3 === 0 ? '10.9.9.9' : from());
        conn.write(Buffer.concat([head, body.subarray(0, body.length >> 1)]));
        open.push(conn);
      }
      await sleep(100);
      for (const conn of open.splice(0)) conn.socket.destroy();
      // While waiting for a worker and while being checked: whole uploads, cut at once and a little later.
      for (let i = 0; i < 12; i++) {
        const conn = await openRaw(port);
        const { head, body } = upload(costly, i % 4 === 0 ? '10.9.9.8' : from());
        conn.write(Buffer.concat([head, body]));
        open.push(conn);
      }
      await sleep(round * 40);
      for (const conn of open.splice(0)) conn.socket.destroy();
      // Right after the headers, before the handler could run.
      for (let i = 0; i < 4; i++) {
        const conn = await openRaw(port);
        conn.write(upload(PLAIN_PDF, from()).head);
        conn.socket.destroy();
      }
      // The checks of cut connections run to their end (or their budget); a stopped worker is loaded again.
      await workersIdle(ctx);
      // Nothing is held any more: no body received or waiting, no check running or waiting, no address counted
      // (10.9.9.9 and 10.9.9.8 come back every round, beyond their limit).
      await assertNothingHeld(ctx, `round ${round}`);
      assertJudged(await check(port, PLAIN_PDF, from()), 'not_ours', `round ${round}: a check after the cut connections`);
    }
    // Every slot to receive in is free again: as many uploads as there are slots are taken at once (each
    // from its own address), and one more is refused while they are held.
    await sleep(300);
    const held: RawConnection[] = [];
    for (let i = 0; i < CHECK_RECEIVING; i++) {
      const conn = await openRaw(port);
      const { head, body } = upload(PLAIN_PDF, `10.8.0.${i + 1}`);
      conn.write(Buffer.concat([head, body.subarray(0, 20)]));
      held.push(conn);
    }
    await sleep(200);
    const refused = await check(port, PLAIN_PDF, '10.8.1.1');
    assert.equal(refused.status, 503, `one upload more than the slots: ${refused.status} ${refused.body.slice(0, 300)}`);
    assert.match(refused.body, /zu viele Prüfungen gleichzeitig/);
    for (const conn of held) conn.socket.destroy();
    await sleep(200);
    await assertNothingHeld(ctx, 'after the held uploads were cut');
    assertJudged(await check(port, PLAIN_PDF, '10.8.1.2'), 'not_ours', 'a check after the held uploads were cut');
  });

  test('an upload that stops sending is answered 408 after the idle time, the connection closed, its slot free', async () => {
    const conn = await openRaw(port);
    const { head, body } = upload(PLAIN_PDF, '10.4.0.1');
    conn.write(Buffer.concat([head, body.subarray(0, body.length - 10)]));
    const res = await conn.response(8000);
    assert.equal(res.status, 408, `${res.status} ${res.body.slice(0, 300)}`);
    assert.match(res.headers['content-type'] ?? '', /^text\/html/);
    assert.match(res.body, /keine Daten an/);
    assert.ok(res.closed, 'the connection is closed');
    // Headers only, nothing of the body.
    const silent = await openRaw(port);
    silent.write(upload(PLAIN_PDF, '10.4.0.1').head);
    const none = await silent.response(8000);
    assert.equal(none.status, 408, `${none.status} ${none.body.slice(0, 300)}`);
    assertJudged(await check(port, PLAIN_PDF, '10.4.0.1'), 'not_ours', 'the same address afterwards');
  });

  test('a photo upload that stops sending is given up after the same idle time (UPLOAD_IDLE_SECONDS)', async () => {
    const user = await ctx.make.user({ rights: ['read', 'write'] });
    const order = await ctx.make.order({ author: user.id });
    const form = multipart([{ name: 'file', filename: 'foto.jpg', type: 'image/jpeg', data: Buffer.alloc(4096, 0xff) }]);
    const conn = await openRaw(port);
    conn.write(
      requestBytes('POST', `/api/orders.php?id=${order.id}&action=upload_photo`, {
        authorization: `Bearer ${await ctx.make.token(user)}`,
        'content-type': form.contentType,
        'content-length': form.payload.length,
      }),
    );
    conn.write(form.payload.subarray(0, form.payload.length - 100));
    const res = await conn.response(8000);
    assert.equal(res.status, 400, `${res.status} ${res.body.slice(0, 300)}`);
    assert.equal(JSON.parse(res.body).code, 'UPLOAD_MISSING');
    assert.match(JSON.parse(res.body).error, /keine Daten mehr empfangen/);
  });

  test('uploads that trickle (a byte every 300 ms, never idle) hold no check worker: a whole upload is checked meanwhile', async () => {
    const trickling: RawConnection[] = [];
    for (let i = 0; i < 3; i++) {
      const conn = await openRaw(port);
      const { head, body } = upload(PLAIN_PDF, `10.5.0.${i + 1}`);
      conn.write(Buffer.concat([head, body.subarray(0, 10)]));
      conn.trickle(body.subarray(10), 300);
      trickling.push(conn);
    }
    await sleep(200);
    try {
      for (let i = 0; i < 3; i++)
        assertJudged(await check(port, PLAIN_PDF, `10.5.1.${i + 1}`, 5000), 'not_ours', `check ${i} beside the trickling uploads`);
    } finally {
      for (const conn of trickling) conn.socket.destroy();
    }
  });

  test(`one address has at most ${CHECK_UPLOADS_PER_ADDRESS} uploads in flight: beyond, 429 with words; another address is served`, async () => {
    const held: RawConnection[] = [];
    for (let i = 0; i < CHECK_UPLOADS_PER_ADDRESS; i++) {
      const conn = await openRaw(port);
      const { head, body } = upload(PLAIN_PDF, '10.6.0.1');
      conn.write(Buffer.concat([head, body.subarray(0, 20)]));
      held.push(conn);
    }
    await sleep(200);
    try {
      const refused = await check(port, PLAIN_PDF, '10.6.0.1');
      assert.equal(refused.status, 429, refused.body.slice(0, 300));
      assert.equal(refused.headers['retry-after'], '5');
      assert.match(refused.body, /Von Ihrer Adresse laufen gerade zu viele Prüfungen gleichzeitig/);
      assertJudged(await check(port, PLAIN_PDF, '10.6.0.2'), 'not_ours', 'another address');
    } finally {
      for (const conn of held) conn.socket.destroy();
    }
    await sleep(200);
    assertJudged(await check(port, PLAIN_PDF, '10.6.0.1'), 'not_ours', 'the address once its uploads ended');
  });

  test('20 adversarial uploads from one address are each answered (judged, or refused in words), and the API answers meanwhile', async () => {
    const file = adversarialPdf();
    const answers: Array<Promise<RawResponse>> = [];
    for (let i = 0; i < 20; i++) answers.push(check(port, file, '10.7.0.1', 60_000));
    let pending = answers.length;
    for (const a of answers) void a.then(() => pending--);
    let healthDuring = 0;
    while (pending > 0) {
      const health = await rawRequest(port, requestBytes('GET', '/api/health', {}));
      assert.equal(health.status, 200, health.body);
      if (pending > 0) healthDuring++;
    }
    const results = await Promise.all(answers);
    const judged = results.filter((r) => r.status === 200);
    for (const r of judged) assert.match(r.body, /data-verdict="not_ours"/);
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.ok([422, 429, 503].includes(r.status), `${r.status} ${r.body.slice(0, 300)}`);
      assert.match(r.body, /data-verdict="too_costly"|zu viele Prüfungen/);
    }
    assert.ok(healthDuring >= 1, 'the API answered while the checks ran');
  });
});

describe('public PDF check: an upload has PDF_CHECK_RECEIVE_SECONDS to arrive in all [sqlite]', () => {
  let ctx: TestContext;
  let port: number;
  before(async () => {
    ctx = await createTestContext('sqlite', {
      trustProxy: true,
      timeouts: { headersSeconds: 30, bodySeconds: 30, requestSeconds: 3600, uploadIdleSeconds: 60 },
      seal: { ...testConfig().seal, checkReceiveSeconds: 1 },
    });
    port = await listenLocal(ctx.app);
  });
  after(async () => ctx?.close());

  test('an upload that trickles (never idle) past the time to arrive is answered 408 in words, the connection closed; the address is free again', async () => {
    const conn = await openRaw(port);
    const { head, body } = upload(PLAIN_PDF, '10.6.0.1');
    conn.write(Buffer.concat([head, body.subarray(0, 10)]));
    conn.trickle(body.subarray(10), 150);
    const res = await conn.response(10_000);
    assert.equal(res.status, 408, `${res.status} ${res.body.slice(0, 300)}`);
    assert.match(res.body, /zu lange gedauert/);
    assert.ok(res.closed, 'the connection is closed');
    conn.socket.destroy();
    assertJudged(await check(port, PLAIN_PDF, '10.6.0.1'), 'not_ours', 'the same address afterwards');
  });

  test('bytes after the file part (junk after the last boundary, trickling) are not waited for: the file is judged, the connection closed', async () => {
    const form = multipart([{ name: 'file', filename: 'bericht.pdf', type: 'application/pdf', data: PLAIN_PDF }]);
    const junk = Buffer.alloc(4096, 0x41);
    const conn = await openRaw(port);
    conn.write(
      requestBytes('POST', URL_PATH, {
        'content-type': form.contentType,
        'content-length': form.payload.length + junk.length,
        'x-forwarded-for': '10.6.0.2',
      }),
    );
    conn.write(form.payload);
    conn.trickle(junk, 150);
    const res = await conn.response(10_000);
    assertJudged(res, 'not_ours', 'the file, with junk still arriving after it');
    assert.ok(res.closed, 'the connection is closed');
    conn.socket.destroy();
  });
});

describe('public PDF check past its budget [sqlite]', () => {
  let ctx: TestContext;
  let port: number;
  let keyDir: string;
  before(async () => {
    keyDir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-seal-'));
    ctx = await createTestContext('sqlite', { seal: { ...testConfig().seal, keyFile: path.join(keyDir, 'seal.pem'), checkBudgetMs: 10 } });
    port = await listenLocal(ctx.app);
  });
  after(async () => {
    await ctx?.close();
    await rm(keyDir, { recursive: true, force: true });
  });

  /** Shows the form (which loads a check worker) and waits until a worker is loaded. */
  async function workerLoaded(): Promise<void> {
    assert.equal((await rawRequest(port, requestBytes('GET', '/public/verify_signature.php', {}))).status, 200);
    while (ctx.app.pdfSeal.checkWorkers().idle === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  test('a file whose check runs past the budget is refused as too costly, in words; the API answers meanwhile; the next check is made', async () => {
    // The budget counts from the file's arrival and covers no worker's start: one is loaded first.
    // With 10 ms, the few ms between a file's arrival and a free worker can be half of it on a
    // loaded machine: that file is refused as busy (503) and sent again.
    let res;
    for (let attempt = 0; attempt < 20; attempt++) {
      await workerLoaded();
      res = await check(port, adversarialPdf(), '127.0.0.1', 30_000);
      assert.ok(res.status === 422 || res.status === 503, res.body.slice(0, 500));
      if (res.status === 422) break;
    }
    assert.equal(res!.status, 422, res!.body.slice(0, 500));
    assert.match(res!.body, /data-verdict="too_costly"/);
    assert.match(res!.body, /mehr Rechenzeit oder Speicher/);
    assert.equal((await rawRequest(port, requestBytes('GET', '/api/health', {}))).status, 200);
    // A trivial file still fits even a tiny budget once a worker is loaded (or is refused the same way).
    await workerLoaded();
    const next = await check(port, PLAIN_PDF, '127.0.0.1', 30_000);
    // (With 10 ms, the few ms between its arrival and a free worker can already be half of it: busy, 503.)
    assert.ok(next.status === 200 || next.status === 422 || next.status === 503, next.body.slice(0, 300));
  });
});
