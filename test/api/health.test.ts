import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
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

    if (dialect === 'postgres') {
      test('a database that refuses writes (default_transaction_read_only): health 503 DATABASE_READ_ONLY, a write too', async () => {
        const name = (ctx.config.database as { database: string }).database;
        const user = await ctx.make.user({ rights: ['read', 'write'] });
        const order = await ctx.make.order({ author: user.id });
        const token = await ctx.make.token(user);
        await sql.raw(`alter database "${name}" set default_transaction_read_only = on`).execute(ctx.handle.db);
        // New connections get the setting; this app opens its own.
        const app = await buildApp(ctx.config, { logger: false });
        try {
          const health = await app.inject({ method: 'GET', url: '/api/health' });
          assert.equal(health.statusCode, 503);
          assert.equal(health.json().code, 'DATABASE_READ_ONLY');
          assert.deepEqual(health.json().details, { database: 'read_only' });
          const res = await app.inject({
            method: 'POST',
            url: '/api/materials.php',
            headers: { authorization: `Bearer ${token}` },
            payload: { element_type: 'commande', fk_element: order.id, label: 'Dichtung', qty: 1 },
          });
          assert.equal(res.statusCode, 503, res.body);
          assert.equal(res.json().code, 'DATABASE_READ_ONLY');
        } finally {
          await app.close();
          // Pool connections opened meanwhile are read-only themselves: one that says otherwise undoes it.
          await ctx.handle.db.connection().execute(async (c) => {
            await sql`set default_transaction_read_only = off`.execute(c);
            await sql.raw(`alter database "${name}" set default_transaction_read_only = off`).execute(c);
          });
        }
      });
    }

    test('answers 503 in the error shape when the database is gone', async () => {
      await ctx.handle.destroy();
      const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'SERVICE_UNAVAILABLE');
      assert.equal(typeof res.json().error, 'string');
    });
  });
}
