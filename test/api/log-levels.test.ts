/**
 * Logs as an operator reads them: a refusal the API foresees (4xx) is one info line, a 5xx the
 * service foresees (speech-to-text not configured) one warn line (and one naming the settings at
 * fault), all without a stack; only a
 * failure nobody foresaw is an error with its stack.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../helpers/build-app.js';

interface LogLine {
  level: number;
  msg: string;
  code?: string;
  err?: { stack?: string };
  [key: string]: unknown;
}

describe('log levels [sqlite]', () => {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  let ctx: TestContext;
  let headers: Record<string, string>;
  before(async () => {
    ctx = await createTestContext(
      'sqlite',
      {},
      {
        logger: { level: 'info', stream },
        routes: (app) =>
          app.get('/api/probe-fault', { config: { auth: 'public' } }, async () => {
            throw new Error('nobody foresaw this');
          }),
      },
    );
    const user = await ctx.make.user({ rights: ['read', 'write'] });
    headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
  });
  after(async () => ctx?.close());

  const linesOf = (code: string) => lines.filter((l) => l.code === code);

  test('a 404 and a 400 are info lines without a stack', async () => {
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/orders.php?id=999999', headers })).statusCode, 404);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/orders.php?id=abc', headers })).statusCode, 400);
    for (const code of ['ORDER_NOT_FOUND', 'VALIDATION_FAILED']) {
      const [line, ...more] = linesOf(code);
      assert.ok(line && more.length === 0, `one line for ${code}`);
      assert.equal(line.level, 30);
      assert.doesNotMatch(JSON.stringify(line), /"stack"/);
    }
  });

  test('503 TRANSCRIBE_NOT_CONFIGURED is one warn line without a stack', async () => {
    const user = await ctx.make.user({ rights: ['read', 'write'] });
    const order = await ctx.make.order({ author: user.id });
    const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
    await mkdir(dir.dir, { recursive: true });
    await copyFile(new URL('../fixtures/uploads/voice.webm', import.meta.url), path.join(dir.dir, 'Notiz.webm'));
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/transcribe.php',
      headers: { authorization: `Bearer ${await ctx.make.token(user)}` },
      payload: { relpath: `${dir.name}/Notiz.webm` },
    });
    assert.equal(res.statusCode, 503, res.body);
    const [line, ...more] = linesOf('TRANSCRIBE_NOT_CONFIGURED');
    assert.ok(line && more.length === 0);
    assert.equal(line.level, 40);
    assert.doesNotMatch(JSON.stringify(line), /"stack"/);
    // Which setting is missing goes to the operator's log (the answer names none).
    const setting = lines.find((l) => l.msg.startsWith('speech-to-text is not set up'));
    assert.ok(setting, 'a warn line naming the setting');
    assert.equal(setting.level, 40);
    assert.match(setting.msg, /BERICHT_TRANSCRIBE_URL missing/);
    assert.doesNotMatch(JSON.stringify(setting), /"stack"/);
  });

  test('a failure nobody foresaw is an error with its stack', async () => {
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/probe-fault' })).statusCode, 500);
    const line = lines.find((l) => l.level === 50 && l.msg === 'unexpected error');
    assert.ok(line, 'an error line');
    assert.match(String(line.err?.stack), /nobody foresaw this/);
  });
});
