/**
 * Which pages db/list-total.ts answers from memory: a page asked for again while the database has
 * not changed, once it was asked for before among the last KEPT_PAGES pages read; not a page read
 * once, as when a list is paged through. On a real SQLite file (its data version).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql, type CompiledQuery } from 'kysely';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { KEPT_PAGES, createListTotals, type CountQuery, type ListTotals } from '../../src/db/list-total.js';

describe('pages kept in memory (list-total)', () => {
  let dir: string;
  let handle: DbHandle;
  let totals: ListTotals;
  let count: CountQuery;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-list-total-'));
    handle = createDb({ database: { dialect: 'sqlite', file: path.join(dir, 'db.sqlite') }, dbPrefix: 'llx_' }, { poolSize: 1 });
    await sql`create table t (n integer)`.execute(handle.db);
    await sql`insert into t (n) values (1), (2), (3)`.execute(handle.db);
    totals = createListTotals(handle);
    count = sql<{ n: unknown }>`select count(*) as n from t`.compile(handle.db);
  });
  after(async () => {
    await handle?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Page `offset` of limit 1; how many times its rows were read from the database so far is counted in `reads`. */
  const reads = new Map<number, number>();
  async function page(offset: number) {
    const query = sql`select n from t order by n limit 1 offset ${offset}`.compile(handle.db) as CompiledQuery;
    return totals.page(
      async (on) => {
        reads.set(offset, (reads.get(offset) ?? 0) + 1);
        return (await on.executeQuery<{ n: number }>(query)).rows;
      },
      count,
      { limit: 1, offset, query },
    );
  }

  test('a page asked for again is read twice, then answered from memory until the database changes', async () => {
    for (let i = 0; i < 5; i++) assert.deepEqual(await page(0), { rows: [{ n: 1 }], total: 3 });
    assert.equal(reads.get(0), 2, 'read on the first and second asking, kept from then on');
    await sql`insert into t (n) values (0)`.execute(handle.db);
    assert.deepEqual(await page(0), { rows: [{ n: 0 }], total: 4 }, 'a change is seen at once');
    assert.deepEqual(await page(0), { rows: [{ n: 0 }], total: 4 });
    assert.equal(reads.get(0), 3, 'a page kept before is kept again under the new version at its first reading');
  });

  test('a page read once is not kept, and one asked for again after KEPT_PAGES others is read again', async () => {
    const last = 10 + KEPT_PAGES;
    for (let offset = 10; offset <= last; offset++) await page(offset);
    await page(last);
    assert.equal(reads.get(last), 2, 'among the last KEPT_PAGES pages read: read again, and kept');
    await page(last);
    assert.equal(reads.get(last), 2, 'answered from memory');
    await page(10);
    assert.equal(reads.get(10), 2, 'KEPT_PAGES pages were read after it: forgotten, read again');
    await page(10);
    assert.equal(reads.get(10), 3, 'remembered since its last reading: read once more, then kept');
    await page(10);
    assert.equal(reads.get(10), 3);
  });
});
