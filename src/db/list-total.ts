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
 * The page itself is kept the same way when its query is given (`page.query`): a list that phones
 * ask for again and again while nothing is written is read once per change of the database, and
 * answered from memory in between (at most KEPT_PAGES pages). A page's rows are kept only when it
 * was asked for before, among the last KEPT_PAGES pages read: a page read once (a list paged
 * through, a phone's copy being filled) is not kept, so its rows die young instead of being carried
 * into the old generation of the heap and collected there (under 50 clients paging through the
 * orders, keeping every page cost a tenth of the list's throughput). On MariaDB/MySQL a page is read every time.
 * Not for use inside a transaction: the count runs on the handle's own connections.
 */
import { sql, type CompiledQuery } from 'kysely';
import { BoundedMap } from '../bounded-map.js';
import type { Db, DbHandle } from './database.js';

/** Counts kept on SQLite, by their SQL and values; the oldest goes first. @default 512 */
export const KEPT_COUNTS = 512;
/**
 * Pages kept (SQLite and PostgreSQL), by their SQL and values; the oldest goes first. A page of 50
 * orders is about 25 kB in memory, so these hold at most a few MB.
 * @default 128
 */
export const KEPT_PAGES = 128;

/** A compiled `select count(*) as n …`. */
export type CountQuery = CompiledQuery<{ n: unknown }>;

export interface ListTotals {
  /**
   * @param rows the page's query, run on `on` (the connection the version was read on, or the
   * handle's pool): a page that ran on another connection while one is held for it could wait
   * for the pool forever.
   * @param page.version the handle's dataVersion() as read for this request before any of its
   * queries (the authenticate plugin's `request.dataVersion`); read here when not given.
   * @param page.query the page's own query, when `rows` runs just that: given, the rows are kept
   * under the version too, and a page asked for again under the same version is not read again.
   * The rows kept are shared by every answer made from them, so the caller must not change them.
   */
  page<R>(
    rows: (on: Pick<Db, 'executeQuery'>) => Promise<R[]>,
    count: CountQuery,
    page: { limit: number; offset: number; version?: string; query?: CompiledQuery },
  ): Promise<{ rows: R[]; total: number }>;
}

export function createListTotals(handle: Pick<DbHandle, 'db' | 'dataVersion' | 'dialect'>): ListTotals {
  const { db, dataVersion, dialect } = handle;
  const kept = new BoundedMap<string, { version: string; total: number }>(KEPT_COUNTS);
  const keptPages = new BoundedMap<string, { version: string; rows: unknown[]; total: number }>(KEPT_PAGES);
  /** Pages read and not kept, the last KEPT_PAGES of them: one read again is kept. */
  const readOnce = new BoundedMap<string, true>(KEPT_PAGES);
  const run = async (count: CountQuery) => Number((await db.executeQuery(count)).rows[0]?.n ?? 0);
  const keyOf = (query: CompiledQuery) =>
    `${query.sql}\u0000${JSON.stringify(query.parameters, (_name, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value))}`;
  const snapshot = async (on: Db) => (await sql<{ s: string }>`select txid_current_snapshot()::text as s`.execute(on)).rows[0]!.s;

  return {
    async page<R>(
      rows: (on: Pick<Db, 'executeQuery'>) => Promise<R[]>,
      count: CountQuery,
      { limit, offset, version: given, query }: { limit: number; offset: number; version?: string; query?: CompiledQuery },
    ) {
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
      const pageKey = query && keyOf(query);
      /** The page kept under `version`, if any. */
      const keptPage = (version: string) => {
        const known = pageKey === undefined ? undefined : keptPages.get(pageKey);
        return known?.version === version ? { rows: known.rows as R[], total: known.total } : undefined;
      };
      const keep = (version: string, found: R[], total: number) => {
        if (pageKey === undefined) return { rows: found, total };
        if (keptPages.has(pageKey) || readOnce.delete(pageKey)) keptPages.set(pageKey, { version, rows: found, total });
        else readOnce.set(pageKey, true);
        return { rows: found, total };
      };
      if (dialect === 'postgres') {
        // Asked before the page and the count, on the page's own connection (a second one would wait
        // for the pool behind other pages): a count or page kept under a snapshot may be newer than it, never older.
        const [known, found, version] = await db.connection().execute(async (on) => {
          const taken = await snapshot(on);
          const page = keptPage(taken);
          return [page, page ? [] : await rows(on), taken] as const;
        });
        return known ?? keep(version, found, await totalOf(found.length, version));
      }
      if (!dataVersion) {
        const [found, total] = await Promise.all([rows(db), run(count)]);
        return { rows: found, total };
      }
      // Read before the queries: a count or page kept under it may be newer than it, never older.
      const version = given ?? dataVersion();
      const known = keptPage(version);
      if (known) return known;
      const found = await rows(db);
      return keep(version, found, await totalOf(found.length, version));
    },
  };
}
