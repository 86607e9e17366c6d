/**
 * A database server that kills the service's idle connection (a restart, an administrator, a
 * dropped database) must not end the process: the loss is reported and the next query gets a
 * new connection. Without an error listener a pool's or client's 'error' event is thrown.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { testConfig } from '../helpers/build-app.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/databases.js';

for (const dialect of testDialects().filter((d) => d !== 'sqlite')) {
  describe(`a lost connection [${dialect}]`, () => {
    let database: TestDatabase;
    let handle: DbHandle;
    let admin: DbHandle;
    const reported: Error[] = [];

    before(async () => {
      database = await createTestDatabase(dialect);
      const config = testConfig({ database: database.config });
      handle = createDb(config, { poolSize: 1, onConnectionError: (e) => reported.push(e) });
      admin = createDb(config, { poolSize: 1 });
    });
    after(async () => {
      await handle?.destroy();
      await admin?.destroy();
      await database?.drop();
    });

    test('an idle connection killed by the server is reported, not thrown; the next query works', async () => {
      const idOf =
        dialect === 'mysql' ? sql<{ id: number }>`select connection_id() as id` : sql<{ id: number }>`select pg_backend_pid() as id`;
      const before = Number((await idOf.execute(handle.db)).rows[0]!.id);
      // The pool keeps that one connection idle; kill it from another connection.
      if (dialect === 'mysql') await sql`kill ${sql.raw(String(before))}`.execute(admin.db);
      else await sql`select pg_terminate_backend(${before})`.execute(admin.db);

      const deadline = Date.now() + 5000;
      while (reported.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(reported.length > 0, 'the loss was reported to the listener');

      // The dead connection may fail one query (mysql2 hands it out before noticing); then a new one serves.
      let after: number | undefined;
      for (let i = 0; i < 3 && after === undefined; i++) {
        try {
          after = Number((await idOf.execute(handle.db)).rows[0]!.id);
        } catch {
          // the pool drops the dead connection and makes a new one
        }
      }
      assert.ok(after !== undefined, 'a query succeeds after the loss');
      assert.notEqual(after, before, 'on a new connection');
    });
  });
}
