/**
 * A page of a list with the list's total, as every list endpoint answers (`{ items, total }`).
 * The total is a count of every matching row, which on a large table costs more than the page
 * itself. So:
 * - on SQLite, where the page tells the total (it is not full, and not past the end), the page
 *   gives it; otherwise a count is kept while the database does not change (DbHandle.dataVersion:
 *   any commit, by any process, ends it), so a list asked for again and again, as phones do, is
 *   counted once;
 * - on PostgreSQL the same, with the database's snapshot (txid_current_snapshot(): the running
 *   transactions and the next transaction id) for the version: asked just before the page, it
 *   is the same text only while no transaction has begun writing or ended, so an unchanged
 *   snapshot sees the same rows, and a count kept under it holds (one round trip instead of a
 *   count of every matching row);
 * - on MariaDB/MySQL, which offer no such cheap check, the page and the count run side by side on
 *   two connections, every time.
 * Not for use inside a transaction: the count runs on the handle's own connections.
 */
import { sql, type CompiledQuery } from 'kysely';
import { BoundedMap } from '../bounded-map.js';
import type { Db, DbHandle } from './database.js';

/** Counts kept on SQLite, by their SQL and values; the oldest goes first. @default 512 */
export const KEPT_COUNTS = 512;

/** A compiled `select count(*) as n …`. */
export type CountQuery = CompiledQuery<{ n: unknown }>;

export interface ListTotals {
  /**
   * @param rows the page's query, run on `on` (the connection the version was read on, or the
   * handle's pool): a page that ran on another connection while one is held for it could wait
   * for the pool forever.
   * @param page.version the handle's dataVersion() as read for this request before any of its
   * queries (the authenticate plugin's `request.dataVersion`); read here when not given.
   */
  page<R>(rows: (on: Pick<Db, 'executeQuery'>) => Promise<R[]>, count: CountQuery, page: { limit: number; offset: number; version?: string }): Promise<{ rows: R[]; total: number }>;
}

export function createListTotals(handle: Pick<DbHandle, 'db' | 'dataVersion' | 'dialect'>): ListTotals {
  const { db, dataVersion, dialect } = handle;
  const kept = new BoundedMap<string, { version: string; total: number }>(KEPT_COUNTS);
  const run = async (count: CountQuery) => Number((await db.executeQuery(count)).rows[0]?.n ?? 0);
  const keyOf = (count: CountQuery) => `${count.sql}\u0000${JSON.stringify(count.parameters, (_name, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value))}`;
  const snapshot = async (on: Db) => (await sql<{ s: string }>`select txid_current_snapshot()::text as s`.execute(on)).rows[0]!.s;

  return {
    async page(rows, count, { limit, offset, version: given }) {
      /** The total: told by a page that is not full (and not past the end), else kept under `version`, else counted and kept. */
      const totalOf = async (found: number, version: string): Promise<number> => {
        if (found < limit && (found > 0 || offset === 0)) return offset + found;
        const key = keyOf(count);
        const known = kept.get(key);
        if (known?.version === version) return known.total;
        const total = await run(count);
        kept.set(key, { version, total });
        return total;
      };
      if (dialect === 'postgres') {
        // Asked before the page and the count, on the page's own connection (a second one would wait
        // for the pool behind other pages): a count kept under a snapshot may be newer than it, never older.
        const [found, version] = await db.connection().execute(async (on) => {
          const taken = await snapshot(on);
          return [await rows(on), taken] as const;
        });
        return { rows: found, total: await totalOf(found.length, version) };
      }
      if (!dataVersion) {
        const [found, total] = await Promise.all([rows(db), run(count)]);
        return { rows: found, total };
      }
      // Read before the queries: a count kept under it may be newer than it, never older.
      const version = given ?? dataVersion();
      const found = await rows(db);
      return { rows: found, total: await totalOf(found.length, version) };
    },
  };
}
