/**
 * Closing drains (drain.ts), over real sockets: a request in flight on a keep-alive connection
 * when the app closes is answered in full with `Connection: close`, and the close ends right after
 * it, not after the keep-alive time (72 s). A new connection is refused meanwhile.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { listenLocal, openRaw, requestBytes } from '../helpers/raw-http.js';

describe('closing drains [sqlite]', () => {
  let ctx: TestContext;
  let port: number;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const inFlight = new Promise<void>((resolve) => (arrived = resolve));

  before(async () => {
    ctx = await createTestContext(
      'sqlite',
      {},
      {
        routes: (app) =>
          app.get('/api/probe-slow.php', { schema: { hide: true }, config: { auth: 'public' } }, async () => {
            arrived();
            await gate;
            return { done: true };
          }),
      },
    );
    port = await listenLocal(ctx.app);
  });
  after(async () => ctx?.close());

  test('a request in flight on a keep-alive connection is answered in full, with Connection: close; the close then ends', async () => {
    const conn = await openRaw(port);
    conn.write(requestBytes('GET', '/api/probe-slow.php', { connection: 'keep-alive' }));
    await inFlight;

    let closedAt = 0;
    const closing = ctx.app.close().then(() => (closedAt = Date.now()));
    // Once closing, the port takes no new connection (the listening socket closes a moment after close() is called).
    const connectRefused = () =>
      new Promise<boolean>((resolve) => {
        const probe = net.connect(port, '127.0.0.1');
        probe.once('connect', () => (probe.destroy(), resolve(false)));
        probe.once('error', () => resolve(true));
      });
    const deadline = Date.now() + 5000;
    while (!(await connectRefused())) {
      assert.ok(Date.now() < deadline, 'a new connection is refused while closing');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(closedAt, 0, 'the close waits for the request in flight');

    const answeredAt = Date.now();
    release();
    const res = await conn.response(10_000);
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { done: true });
    assert.equal(res.headers.connection, 'close');
    assert.ok(res.closed, 'the server ended the connection after the answer');
    await closing;
    // Without Connection: close the idle connection would hold the close for Fastify's keep-alive time (72 s).
    assert.ok(closedAt - answeredAt < 10_000, `closed ${closedAt - answeredAt} ms after the answer`);
  });
});
