import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;

for (const dialect of testDialects()) {
  describe(`health [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    test('answers 200 when the database answers, without a token', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'ok', database: 'ok', writes: 'ok', version: VERSION });
    });

    test('answers 503 in the error shape when the database is gone', async () => {
      await ctx.handle.destroy();
      const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'SERVICE_UNAVAILABLE');
      assert.equal(typeof res.json().error, 'string');
    });
  });
}
