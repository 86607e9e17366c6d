/**
 * createDb(config): one Kysely instance for SQLite (better-sqlite3), MariaDB/MySQL (mysql2) or
 * PostgreSQL (pg), with Dolibarr's table prefix applied to the logical table names.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, sql, type Dialect as KyselyDialect } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import type { Config, DatabaseConfig, Dialect } from '../config.js';
import { TABLE_NAMES, type Database } from './tables.js';
import { TablePrefixPlugin } from './table-prefix-plugin.js';
import { TwoConnectionSqliteDialect, isBusy } from './sqlite-driver.js';
import { CountingDialect } from './write-counter.js';

export type Db = Kysely<Database>;

/** Whether the database takes writes now: 'busy' when another process holds SQLite's write lock. */
export type WriteState = 'ok' | 'busy' | 'read_only';

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  prefix: string;
  /** A cheap check whether writes would be taken, without waiting for a lock (the health check). */
  probeWrites(): Promise<WriteState>;
  /** The writes this process has sent so far (write-counter.ts): it changes with each of them, and when the handle is closed. */
  writes(): number;
  /**
   * SQLite only: a value that changes whenever the database may have changed, whoever changed it
   * (SQLite's data_version with this process's own writes; also after a rollback, a failed
   * statement or the handle's closing), read in about a microsecond, so that a result may be kept
   * while it holds. Read it before the query whose result is kept. Undefined on MariaDB/MySQL and
   * PostgreSQL, which offer nothing as cheap.
   */
  dataVersion: (() => string) | undefined;
  destroy(): Promise<void>;
}

// PostgreSQL type ids whose text form we keep (date-times, see dialect.ts) or turn into numbers.
const PG_TIMESTAMP = 1114;
const PG_TIMESTAMPTZ = 1184;
const PG_DATE = 1082;
const PG_INT8 = 20;
const PG_NUMERIC = 1700;

function pgTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === PG_TIMESTAMP || oid === PG_DATE) return (v: string) => v;
      if (oid === PG_TIMESTAMPTZ) return (v: string) => new Date(v).toISOString().slice(0, 19).replace('T', ' ');
      if (oid === PG_INT8 || oid === PG_NUMERIC) return (v: string) => Number(v);
      return pg.types.getTypeParser(oid, format);
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/** What a lost connection reports; it must never be an unhandled 'error' event (that ends the process). */
export type ConnectionErrorListener = (error: Error) => void;

const logConnectionError: ConnectionErrorListener = (error) => {
  process.stderr.write(
    `fieldreport: database connection lost (${(error as { code?: string }).code ?? error.message}); it is replaced on next use\n`,
  );
};

/** The Kysely dialect, and what to undo when the handle is destroyed. */
function makeDialect(
  database: DatabaseConfig,
  poolSize: number,
  onError: ConnectionErrorListener,
): { dialect: KyselyDialect; cleanup?: () => void; probeWrites?: () => WriteState; dataVersion?: () => number } {
  switch (database.dialect) {
    case 'sqlite': {
      const memory = database.file === ':memory:';
      if (!memory) mkdirSync(path.dirname(path.resolve(database.file)), { recursive: true });
      const open = () => {
        const conn = new SQLite(database.file);
        // No busy wait inside SQLite: it would block the event loop (sqlite-driver.ts waits on timers).
        conn.pragma('busy_timeout = 0');
        return conn;
      };
      const writer = open();
      // WAL can only be switched on with the lock free: at start, another process may hold it.
      for (let tries = 0; ; tries++) {
        try {
          writer.pragma('journal_mode = WAL');
          break;
        } catch (error) {
          if (tries >= 500 || !isBusy(error)) throw error;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        }
      }
      writer.pragma('synchronous = NORMAL');
      const reader = memory ? writer : open();
      // Planner statistics, as SQLite advises for long-lived connections: gathered at open where
      // missing or stale, refreshed hourly. Without them a list filtered by user and sorted by date
      // may sort every row instead of walking the date index.
      const optimize = (conn: SQLite.Database) => {
        try {
          if (conn.open) conn.pragma('optimize = 0x10002');
        } catch {
          // the file is locked or read-only: next time
        }
      };
      optimize(writer);
      const timer = setInterval(() => optimize(writer), 3600_000);
      timer.unref();
      const dialect = new TwoConnectionSqliteDialect(writer, reader);
      return {
        dialect,
        cleanup: () => clearInterval(timer),
        probeWrites: () => dialect.probeWrites(),
        dataVersion: () => dialect.dataVersion(),
      };
    }
    case 'mysql': {
      const pool = createPool({
        host: database.host,
        port: database.port,
        user: database.user,
        password: database.password,
        database: database.database,
        charset: 'utf8mb4',
        timezone: 'Z',
        dateStrings: true,
        connectionLimit: poolSize,
        // Keep the pool healthy across long idle periods.
        enableKeepAlive: true,
      });
      // A connection the server closes (restart, kill) is dropped by the pool; its error is reported, not thrown.
      pool.on('connection', (connection) => connection.on('error', onError));
      return { dialect: new MysqlDialect({ pool }) };
    }
    case 'postgres': {
      const pool = new pg.Pool({
        host: database.host,
        port: database.port,
        user: database.user,
        password: database.password,
        database: database.database,
        max: poolSize,
        types: pgTypes(),
      });
      // Idle clients' errors reach the pool; a client already let go reports on itself. Both are
      // reported, never thrown: an unhandled 'error' event would end the process.
      pool.on('error', onError);
      pool.on('connect', (client) => client.on('error', onError));
      return { dialect: new PostgresDialect({ pool }) };
    }
  }
}

export function createDb(
  config: Pick<Config, 'database' | 'dbPrefix'>,
  options: { poolSize?: number; onConnectionError?: ConnectionErrorListener } = {},
): DbHandle {
  const { dialect, cleanup, probeWrites, dataVersion } = makeDialect(
    config.database,
    options.poolSize ?? 10,
    options.onConnectionError ?? logConnectionError,
  );
  const counting = new CountingDialect(dialect);
  const { counted } = counting;
  const db = new Kysely<Database>({ dialect: counting, plugins: [new TablePrefixPlugin(config.dbPrefix, TABLE_NAMES)] });
  return {
    db,
    dialect: config.database.dialect,
    prefix: config.dbPrefix,
    writes: () => counted.writes,
    // Our own writes count too: with one connection (in memory) data_version does not see them.
    dataVersion: dataVersion && (() => `${dataVersion()}.${counted.writes}`),
    async probeWrites() {
      if (probeWrites) return probeWrites();
      // A PostgreSQL standby, or default_transaction_read_only; MariaDB/MySQL's read_only spares
      // privileged users, so there only a refused write tells (503 DATABASE_READ_ONLY).
      if (config.database.dialect !== 'postgres') return 'ok';
      const { rows } = await sql<{ ro: string }>`select current_setting('transaction_read_only') as ro`.execute(db);
      return rows[0]?.ro === 'on' ? 'read_only' : 'ok';
    },
    destroy: async () => {
      // Nothing kept of the database's answers holds once it is closed.
      counted.writes++;
      cleanup?.();
      await db.destroy();
    },
  };
}

/** A cheap round trip, for the health endpoint. */
export async function pingDb(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
