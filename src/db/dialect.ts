/**
 * The few places where SQLite, MariaDB/MySQL and PostgreSQL differ, kept in one file:
 * column types for the tables we create, constraint errors, and the date-time text form.
 *
 * Date-times: Dolibarr keeps `datetime` (MySQL) / `timestamp` (PostgreSQL) columns without a
 * zone. We configure every driver to hand them over as text ('YYYY-MM-DD HH:MM:SS', see
 * database.ts), read and write them as UTC, and convert to Unix seconds for the API in one place.
 */
import {
  sql,
  type ColumnDataType,
  type Expression,
  type InsertQueryBuilder,
  type InsertResult,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import type { Dialect } from '../config.js';

type DataType = ColumnDataType | Expression<unknown>;

export interface ColumnTypes {
  /** Dolibarr's `datetime`. */
  datetime: DataType;
  /** Dolibarr's `date`. */
  date: DataType;
  /** Dolibarr's `tinyint`/`smallint` flags. */
  smallint: DataType;
  /** Dolibarr's `double(24,8)` amounts. */
  amount: DataType;
  /** Dolibarr's `double` quantities. */
  double: DataType;
  text: DataType;
}

export function columnTypes(dialect: Dialect): ColumnTypes {
  switch (dialect) {
    case 'mysql':
      return {
        datetime: 'datetime',
        date: 'date',
        smallint: 'smallint',
        amount: sql`double(24,8)`,
        double: 'double precision',
        text: 'text',
      };
    case 'postgres':
      return {
        datetime: 'timestamp',
        date: 'date',
        smallint: 'smallint',
        amount: 'double precision',
        double: 'double precision',
        text: 'text',
      };
    case 'sqlite':
      return { datetime: 'text', date: 'text', smallint: 'integer', amount: 'real', double: 'real', text: 'text' };
  }
}

/**
 * Table options on MariaDB/MySQL: InnoDB. The module's own tables are utf8mb4 (a phone's text may
 * hold emoji); Dolibarr's tables, made only for the standalone default, take the database's
 * character set, as Dolibarr's installer makes them (`utf8` there: charset.ts fits text to it).
 */
export function tableOptions(dialect: Dialect, charset: 'utf8mb4' | 'database' = 'utf8mb4'): RawBuilder<unknown> | undefined {
  if (dialect !== 'mysql') return undefined;
  return charset === 'utf8mb4' ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci` : sql`ENGINE=InnoDB`;
}

/**
 * A read that locks its rows until the transaction ends (`FOR UPDATE`), on MariaDB/MySQL and
 * PostgreSQL; a locking read also sees what committed after the transaction's snapshot (MariaDB's
 * REPEATABLE READ). SQLite has no row locks: its write transaction holds the whole database.
 */
export function forUpdate<Q extends { forUpdate(): Q }>(dialect: Dialect, query: Q): Q {
  return dialect === 'sqlite' ? query : query.forUpdate();
}

/**
 * ORDER BY `column` descending, NULLs last on every dialect, in a form an index on the column can
 * serve: MariaDB/MySQL and SQLite already put NULLs last when descending; PostgreSQL needs it said.
 * (A `CASE WHEN … IS NULL` key would force a sort of every row.)
 */
export function descNullsLast(dialect: Dialect, column: string): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`${sql.ref(column)} desc nulls last` : sql`${sql.ref(column)} desc`;
}

/**
 * A case-insensitive "contains `text`" over any of `columns`, the same on every dialect: `%`, `_`
 * and `!` in the text match literally ('!' is the escape: a backslash in an ESCAPE literal is read
 * differently by MySQL and PostgreSQL), and lower() on both sides because PostgreSQL's LIKE does
 * not fold case and SQLite's folds ASCII only.
 */
export function anyContains(columns: readonly string[], text: string): RawBuilder<SqlBool> {
  const pattern = `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
  const matches = columns.map((c) => sql`lower(${sql.ref(c)}) like lower(${pattern}) escape '!'`);
  return sql<SqlBool>`(${sql.join(matches, sql` or `)})`;
}

/** True for a unique or primary-key violation, whichever driver raised it. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  return (
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e.code === 'ER_DUP_ENTRY' ||
    e.errno === 1062 ||
    e.code === '23505'
  );
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR', // MariaDB/MySQL
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08006', // PostgreSQL
  'SQLITE_CANTOPEN',
]);

/** True when the database could not be reached or is overloaded: a 503, not a bug. */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  // Kysely after destroy(), and pools that were closed.
  return (
    typeof e.message === 'string' &&
    /driver has already been destroyed|pool is closed|Pool is closed|Cannot use a pool after calling end/i.test(e.message)
  );
}

export type DatabaseFault = 'busy' | 'read_only' | 'full';

const SQLITE_FAULTS: Readonly<Record<string, DatabaseFault>> = {
  SQLITE_BUSY: 'busy',
  SQLITE_LOCKED: 'busy',
  SQLITE_READONLY: 'read_only',
  SQLITE_FULL: 'full',
};
const MYSQL_FAULTS: Readonly<Record<number, DatabaseFault>> = {
  1205: 'busy',
  1213: 'busy', // lock wait timeout, deadlock
  1290: 'read_only',
  1836: 'read_only',
  1792: 'read_only', // --read-only, read-only mode, read-only transaction
  1021: 'full',
  1114: 'full', // disk full, table full
};
const PG_FAULTS: Readonly<Record<string, DatabaseFault>> = {
  '55P03': 'busy',
  '40P01': 'busy',
  '40001': 'busy', // lock not available, deadlock, serialization
  '25006': 'read_only', // read-only transaction (a standby, default_transaction_read_only)
  '53100': 'full', // disk full
};

/**
 * A database refusing for a reason of its own (not the request's): locked by another process, a
 * read-only file or server, a full disk. SQLite's extended codes (SQLITE_READONLY_DBMOVED,
 * SQLITE_BUSY_SNAPSHOT, …) count as their primary code.
 */
export function databaseFault(error: unknown): DatabaseFault | undefined {
  const e = error as { code?: unknown; errno?: unknown } | null;
  if (!e || typeof e !== 'object') return undefined;
  if (typeof e.code === 'string' && e.code.startsWith('SQLITE_')) {
    const primary = /^SQLITE_[A-Z]+/.exec(e.code)?.[0] ?? e.code;
    return SQLITE_FAULTS[primary];
  }
  if (typeof e.errno === 'number' && typeof e.code === 'string' && e.code.startsWith('ER_')) return MYSQL_FAULTS[e.errno];
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return PG_FAULTS[e.code];
  return undefined;
}

/** 'YYYY-MM-DD HH:MM:SS' in UTC, the form every dialect accepts for a date-time column. */
export function toDbDateTime(date: Date | number = new Date()): string {
  const d = typeof date === 'number' ? new Date(date * 1000) : date;
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** Unix seconds from a date-time column, or null for NULL, '' and MySQL's zero date. */
export function fromDbDateTime(value: string | Date | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return Math.floor(value.getTime() / 1000);
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value);
  if (!m || m[1] === '0000') return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/**
 * The new row's id of a single-row insert. PostgreSQL only reports it through RETURNING, which
 * MariaDB/MySQL lack; SQLite and MySQL report it as insertId.
 */
export async function insertId(
  dialect: Dialect,
  query: InsertQueryBuilder<any, any, InsertResult>,
  /** The table's key: `rowid`, or `id` for the few Dolibarr tables keyed so (llx_actioncomm). */
  key: 'rowid' | 'id' = 'rowid',
): Promise<number> {
  if (dialect === 'postgres') {
    const row = (await query.returning(key).executeTakeFirstOrThrow()) as Record<string, number | string>;
    return Number(row[key]);
  }
  const result = await query.executeTakeFirstOrThrow();
  if (result.insertId === undefined) throw new Error('insert reported no id');
  return Number(result.insertId);
}
