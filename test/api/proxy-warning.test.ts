/**
 * Forwarded requests while TRUST_PROXY is off: the service warns once, naming the setting, at the
 * first one (all users behind a proxy would share one login limit); with TRUST_PROXY set, or
 * without forwarding headers, it says nothing.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import type { Config } from '../../src/config.js';
import { createTestContext } from '../helpers/build-app.js';

/** The app's warn lines (parsed) for `send`, run against an app with `trustProxy`. */
async function warningsFor(
  trustProxy: Config['trustProxy'],
  send: (inject: (headers: Record<string, string>) => Promise<unknown>) => Promise<void>,
) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const ctx = await createTestContext('sqlite', { trustProxy }, { logger: { level: 'warn', stream } });
  try {
    await send((headers) => ctx.app.inject({ method: 'GET', url: '/api/health', headers }));
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth.php',
      headers: { 'x-forwarded-for': '203.0.113.9' },
      payload: { login: 'x', password: 'y' },
    });
  } finally {
    await ctx.close();
  }
  return lines.filter((l) => /TRUST_PROXY/.test(String(l.msg)));
}

describe('forwarded requests without TRUST_PROXY [sqlite]', () => {
  test('the first request with X-Forwarded-For logs one warning naming TRUST_PROXY; later ones, of any header, none', async () => {
    const warnings = await warningsFor(false, async (get) => {
      await get({});
      await get({ 'x-forwarded-for': '203.0.113.7, 10.0.0.2' });
      await get({ 'x-forwarded-for': '203.0.113.8' });
      await get({ forwarded: 'for=203.0.113.9;proto=https' });
      await get({ 'x-real-ip': '203.0.113.10' });
    });
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]!.level, 40, 'a warn line');
    assert.equal(warnings[0]!.header, 'x-forwarded-for');
    assert.match(String(warnings[0]!.msg), /LOGIN_MAX_FAILURES_PER_ADDRESS/);
  });

  test('Forwarded and X-Real-IP are noticed too', async () => {
    for (const header of ['forwarded', 'x-real-ip']) {
      const warnings = await warningsFor(false, async (get) => {
        await get({ [header]: header === 'forwarded' ? 'for=198.51.100.1' : '198.51.100.1' });
      });
      // The login after `send` carries X-Forwarded-For: still one line in all.
      assert.equal(warnings.length, 1, header);
      assert.equal(warnings[0]!.header, header);
    }
  });

  test('no forwarding headers: no warning', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _e, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const ctx = await createTestContext('sqlite', {}, { logger: { level: 'warn', stream } });
    try {
      for (let i = 0; i < 3; i++) await ctx.app.inject({ method: 'GET', url: '/api/health' });
    } finally {
      await ctx.close();
    }
    assert.equal(lines.filter((l) => l.includes('TRUST_PROXY')).length, 0);
  });

  test('with TRUST_PROXY set (true, a hop count, an address) forwarded requests log nothing', async () => {
    for (const trustProxy of [true, 1, '127.0.0.1'] as const) {
      const warnings = await warningsFor(trustProxy, async (get) => {
        await get({ 'x-forwarded-for': '203.0.113.7' });
        await get({ forwarded: 'for=203.0.113.9' });
      });
      assert.equal(warnings.length, 0, `${trustProxy}: ${JSON.stringify(warnings)}`);
    }
  });
});
