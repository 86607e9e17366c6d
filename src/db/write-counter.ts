/**
 * Counts the writes this process sends to its database, whatever the dialect: a statement that is
 * not a SELECT, and every commit and rollback. What keeps a database answer in memory (the
 * logged-in user, a list's total) compares the count before and after, so a change this process
 * makes ends what it kept at once. Changes made elsewhere are not seen here (see
 * DbHandle.dataVersion for SQLite, and the time limits of the caches for the others).
 */
import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/** A raw statement is counted as a write unless it plainly reads (`select …`, `with …`). */
const READS = /^\s*(select|with)\b/i;

export function isRead(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  return kind === 'SelectQueryNode' || (kind === 'RawNode' && READS.test(query.sql));
}

class CountingConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly counted: { writes: number },
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (isRead(query)) return this.inner.executeQuery<R>(query);
    try {
      return await this.inner.executeQuery<R>(query);
    } finally {
      // Counted after the statement, failed ones too: what a failed statement did is unknown.
      this.counted.writes++;
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } finally {
      if (!isRead(query)) this.counted.writes++;
    }
  }
}

const inner = (connection: DatabaseConnection) => (connection as CountingConnection).inner;

class CountingDriver implements Driver {
  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];

  constructor(
    private readonly driver: Driver,
    private readonly counted: { writes: number },
  ) {
    // Kysely offers savepoints only where the driver has them.
    const { savepoint, rollbackToSavepoint, releaseSavepoint } = driver;
    if (savepoint) this.savepoint = (c, name, compile) => savepoint.call(driver, inner(c), name, compile);
    if (rollbackToSavepoint)
      this.rollbackToSavepoint = (c, name, compile) => this.#ending(rollbackToSavepoint.call(driver, inner(c), name, compile));
    if (releaseSavepoint) this.releaseSavepoint = (c, name, compile) => releaseSavepoint.call(driver, inner(c), name, compile);
  }

  init(): Promise<void> {
    return this.driver.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new CountingConnection(await this.driver.acquireConnection(), this.counted);
  }
  beginTransaction(c: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.driver.beginTransaction(inner(c), settings);
  }
  commitTransaction(c: DatabaseConnection): Promise<void> {
    return this.#ending(this.driver.commitTransaction(inner(c)));
  }
  rollbackTransaction(c: DatabaseConnection): Promise<void> {
    return this.#ending(this.driver.rollbackTransaction(inner(c)));
  }
  releaseConnection(c: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(inner(c));
  }
  destroy(): Promise<void> {
    return this.driver.destroy();
  }

  /** What another connection read while a transaction was open may have changed when it ends. */
  async #ending(done: Promise<void>): Promise<void> {
    try {
      await done;
    } finally {
      this.counted.writes++;
    }
  }
}

/** `dialect` with its writes counted in `writes`. */
export class CountingDialect implements Dialect {
  readonly counted = { writes: 0 };
  constructor(private readonly dialect: Dialect) {}
  createDriver(): Driver {
    return new CountingDriver(this.dialect.createDriver(), this.counted);
  }
  createQueryCompiler(): QueryCompiler {
    return this.dialect.createQueryCompiler();
  }
  createAdapter(): DialectAdapter {
    return this.dialect.createAdapter();
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return this.dialect.createIntrospector(db);
  }
}
