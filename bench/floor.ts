/**
 * The floor of the order list's benchmark (bench/order-list.ts): the list's query served by
 * nothing but Fastify and the database driver, on the same database, as fast as this machine
 * serves it. The service's throughput is printed as a share of it, a figure that holds on a noisy
 * machine. No login, no rights, no total, no conversion of dates or amounts, no response schema:
 * one query with its values and JSON.stringify.
 * - SQLite: better-sqlite3, one prepared statement on the file (read-only);
 * - MariaDB/MySQL: a mysql2 pool of FLOOR_POOL connections with the service's settings, the query
 *   sent as Kysely sends it (`query` with its values);
 * - PostgreSQL: a pg pool of FLOOR_POOL clients, with the service's type parsers (date-times and
 *   dates as text, bigint and numeric as numbers), so the floor converts no more than the service.
 *
 * Started by bench/order-list.ts as `node --import tsx bench/floor.ts`, with FLOOR_DIALECT
 * (sqlite, mysql or postgres), FLOOR_DATABASE (the SQLite file, or the database URL), FLOOR_SQL,
 * FLOOR_PARAMETERS (JSON), FLOOR_OFFSET_AT (which value a request's `?offset=` replaces), FLOOR_POOL (default 10) and PORT; prints `listening` when ready.
 */
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { createPool } from 'mysql2';
import pg from 'pg';

const dialect = process.env.FLOOR_DIALECT ?? 'sqlite';
const database = process.env.FLOOR_DATABASE!;
const text = process.env.FLOOR_SQL!;
const parameters = JSON.parse(process.env.FLOOR_PARAMETERS!) as unknown[];
/** Which value is the offset; `?offset=` of a request replaces it, as the service takes it. */
const offsetAt = process.env.FLOOR_OFFSET_AT === undefined ? -1 : Number(process.env.FLOOR_OFFSET_AT);
const valuesFor = (query: unknown): unknown[] => {
  const offset = Number((query as { offset?: string }).offset);
  if (offsetAt < 0 || !Number.isInteger(offset) || offset < 0) return parameters;
  const values = parameters.slice();
  values[offsetAt] = offset;
  return values;
};
const poolSize = Number(process.env.FLOOR_POOL ?? 10);

const app = Fastify({ logger: false });
let close: () => Promise<void> = async () => undefined;
if (dialect === 'mysql') {
  const url = new URL(database);
  const pool = createPool({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    charset: 'utf8mb4',
    timezone: 'Z',
    dateStrings: true,
    connectionLimit: poolSize,
  });
  const rows = (values: unknown[]) =>
    new Promise((resolve, reject) => pool.query(text, values, (error, result) => (error ? reject(error) : resolve(result))));
  app.get('/api/orders.php', async (request) => ({ items: await rows(valuesFor(request.query)) }));
  close = () => new Promise((resolve) => pool.end(() => resolve()));
} else if (dialect === 'postgres') {
  const keep = (v: string) => v;
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === 1114 || oid === 1082) return keep;
      if (oid === 1184) return (v: string) => new Date(v).toISOString().slice(0, 19).replace('T', ' ');
      if (oid === 20 || oid === 1700) return (v: string) => Number(v);
      return pg.types.getTypeParser(oid, format);
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
  const pool = new pg.Pool({ connectionString: database, max: poolSize, types });
  app.get('/api/orders.php', async (request) => ({ items: (await pool.query(text, valuesFor(request.query))).rows }));
  close = () => pool.end();
} else {
  const statement = new SQLite(database, { readonly: true }).prepare(text);
  app.get('/api/orders.php', async (request) => ({ items: statement.all(valuesFor(request.query)) }));
}

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(close)
      .finally(() => process.exit(0)),
);
console.log('listening');
