/**
 * SQLite for a server: better-sqlite3 is synchronous, so SQLite's own busy wait (busy_timeout)
 * would stop the whole event loop while another process holds the write lock: every request,
 * reads and the health check included, would wait. Here:
 * - two connections to the file (WAL): reads run on one and never wait for a writer; writes and
 *   transactions run on the other, one at a time (a mutex, as Kysely's own driver has);
 * - busy_timeout is 0: a statement that finds the file locked fails at once with SQLITE_BUSY and
 *   is tried again after a timer (5 ms, doubling to 100 ms), so the event loop stays free, until
 *   BUSY_DEADLINE_MS have passed; then the SQLITE_BUSY error goes on (the API answers 503
 *   DATABASE_BUSY with Retry-After). A statement that failed with SQLITE_BUSY did nothing, so
 *   running it again is safe.
 * - transactions begin IMMEDIATE: the write lock is taken at the start, so a transaction never
 *   fails halfway for want of it.
 * An in-memory database is one connection: a second would be another, empty database.
 */
import type SQLite from 'better-sqlite3';
import {
  type CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteDialect,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { BoundedMap } from '../bounded-map.js';

/** How long a statement waits for another process's write lock. @default 5000 ms */
export const BUSY_DEADLINE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SQLITE_BUSY or SQLITE_LOCKED, with their extended codes: another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Runs `fn` (synchronous SQLite work) until it does not fail with SQLITE_BUSY, or the deadline. */
async function withBusyRetry<T>(fn: () => T, deadlineMs: number): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      return fn();
    } catch (error) {
      if (!isBusy(error) || Date.now() + wait > deadline) throw error;
    }
    await sleep(wait);
  }
}

/** Prepared statements kept per connection, by their SQL text. @default 256 */
export const STATEMENT_CACHE_SIZE = 256;

const statements = new WeakMap<SQLite.Database, BoundedMap<string, SQLite.Statement>>();

/**
 * `sql` prepared on `db`, once: preparing costs as much as running a short query, and the service
 * sends the same few statements over and over. SQLite prepares a kept statement again by itself
 * when the schema changes. Statements run to their end at once (all/run), never left open, so
 * one statement serves every caller.
 */
function prepared(db: SQLite.Database, sql: string): SQLite.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new BoundedMap(STATEMENT_CACHE_SIZE)));
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

function run(db: SQLite.Database, query: CompiledQuery, statement?: SQLite.Statement): QueryResult<unknown> {
  const stmt = statement ?? prepared(db, query.sql);
  const parameters = query.parameters as unknown[];
  if (stmt.reader) return { rows: stmt.all(parameters) };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return {
    numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
    insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
    rows: [],
  };
}

class Mutex {
  #tail: Promise<void> = Promise.resolve();
  /** Resolves, in call order, with the function that releases the lock. */
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const ready = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

class Session implements DatabaseConnection {
  /** The writer's release function while this session holds a transaction. */
  release: (() => void) | undefined;
  constructor(private readonly driver: TwoConnectionSqliteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { reader, writer, deadlineMs } = this.driver;
    if (this.release) return withBusyRetry(() => run(writer, query), deadlineMs) as Promise<QueryResult<R>>;
    if (reader !== writer) {
      const stmt = prepared(reader, query.sql);
      if (stmt.readonly) return withBusyRetry(() => run(reader, query, stmt), deadlineMs) as Promise<QueryResult<R>>;
    }
    const release = await this.driver.writeLock.lock();
    try {
      return (await withBusyRetry(() => run(writer, query), deadlineMs)) as QueryResult<R>;
    } finally {
      release();
    }
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('Sqlite driver only supports streaming of select queries');
    // Whole result at once: an open iterator would hold the connection across awaits.
    const result = await this.executeQuery<R>(query);
    for (const row of result.rows) yield { rows: [row] };
  }
}

export class TwoConnectionSqliteDriver implements Driver {
  readonly writeLock = new Mutex();

  constructor(
    readonly writer: SQLite.Database,
    readonly reader: SQLite.Database,
    readonly deadlineMs: number = BUSY_DEADLINE_MS,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Session(this);
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const session = connection as Session;
    const release = await this.writeLock.lock();
    try {
      await withBusyRetry(() => prepared(this.writer, 'begin immediate').run(), this.deadlineMs);
    } catch (error) {
      release();
      throw error;
    }
    session.release = release;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as Session, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as Session, 'rollback');
  }

  async #end(session: Session, command: 'commit' | 'rollback'): Promise<void> {
    try {
      await withBusyRetry(() => prepared(this.writer, command).run(), this.deadlineMs);
    } finally {
      // A commit that failed leaves the transaction open; it is rolled back so the writer is usable again.
      if (this.writer.inTransaction) {
        try {
          prepared(this.writer, 'rollback').run();
        } catch {
          // nothing more to undo
        }
      }
      const release = session.release;
      session.release = undefined;
      release?.();
    }
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    if (this.reader !== this.writer) this.reader.close();
    this.writer.close();
  }
}

/**
 * SQLite's DDL is transactional, which Kysely's adapter does not claim; claiming it makes the
 * migrator run in one transaction, and that is what serialises two processes migrating one file
 * (Kysely's migration lock is a no-op on SQLite).
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class TwoConnectionSqliteDialect extends SqliteDialect {
  #dataVersion: SQLite.Statement | undefined;
  #closedReads = 0;

  constructor(
    private readonly writer: SQLite.Database,
    private readonly reader: SQLite.Database,
    private readonly deadlineMs: number = BUSY_DEADLINE_MS,
  ) {
    super({ database: writer });
  }
  override createDriver(): Driver {
    return new TwoConnectionSqliteDriver(this.writer, this.reader, this.deadlineMs);
  }

  /**
   * SQLite's data_version on the reading connection: it changes with every commit of another
   * connection, another process's or our own writing one (not with the reading connection's own,
   * which matters for an in-memory database: one connection; see database.ts). About a microsecond.
   */
  dataVersion(): number {
    // A closed database keeps nothing valid: a value never given before, so nothing kept matches
    // and the query that follows fails as any query on a closed database does.
    if (!this.reader.open) return -++this.#closedReads;
    this.#dataVersion ??= this.reader.prepare('pragma data_version').pluck();
    return this.#dataVersion.get() as number;
  }
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  /**
   * Takes and at once gives back the write lock, with one write rolled back, without waiting:
   * 'busy' when another process
   * holds it, 'read_only' when the file (or its folder, its disk) refuses writes. While one of our
   * own transactions holds the lock, writes are plainly taken.
   */
  probeWrites(): 'ok' | 'busy' | 'read_only' {
    if (this.writer.inTransaction) return 'ok';
    try {
      this.writer.prepare('begin immediate').run();
      try {
        // A file opened read-only still begins a transaction; rewriting the header's user
        // version (to its own value, rolled back) is the smallest real write.
        const version = this.writer.pragma('user_version', { simple: true }) as number;
        this.writer.pragma(`user_version = ${Number(version) | 0}`);
      } finally {
        this.writer.prepare('rollback').run();
      }
      return 'ok';
    } catch (error) {
      if (isBusy(error)) return 'busy';
      const code = String((error as { code?: unknown }).code);
      if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_IOERR')) return 'read_only';
      throw error;
    }
  }
}
