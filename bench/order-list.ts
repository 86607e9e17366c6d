/**
 * The order list under load (GET /api/orders.php?limit=50), beside its floor, on SQLite, MariaDB/
 * MySQL or PostgreSQL: measureOrderList() seeds a fresh database, starts the built service
 * (`fieldreport serve`, as bench/common.ts starts it) and, for an administrator (all orders) and a
 * technician (the orders naming them and those given to them by contact or agenda event), loads it and the floor (bench/floor.ts: bare Fastify and
 * the same driver serving the same SQL with the same values from the same database, with a pool as
 * large as the service's) with autocannon in turns of a few seconds, so that other work on the
 * machine weighs on both alike. It returns both figures, the service's share
 * of the floor's requests per second and the ratio of their p99 latencies, and removes what it
 * made (processes, folder, database). Used by `npm run bench` (bench/run.ts) and by any check of
 * the ratios.
 *
 * Databases:
 * - sqlite: a new file in a temporary folder, the service's standalone schema (its own indexes);
 * - mysql, postgres: a new database (CREATE DATABASE with a unique name, dropped afterwards) on the
 *   server of BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306) or BENCH_PG_URL (default
 *   postgres://postgres@127.0.0.1:5432), holding Dolibarr's tables as Dolibarr 22 indexes them:
 *   its keys of llx_commande (ref+entity, fk_soc, the fk_user_* columns, fk_statut) and llx_societe
 *   (nom), and not the order-date index the standalone schema adds. MariaDB's database is made
 *   with Dolibarr's character set (utf8, utf8_unicode_ci). A server that cannot be reached is a
 *   SkippedDialect error naming why.
 *
 * Every answer other than 2xx is counted (non2xx), and the first few are kept with their status and
 * error code (`failures`), so a figure never hides what went wrong.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { KEPT_PAGES, createListTotals } from '../src/db/list-total.js';
import { createElementAccess, namedUserColumns } from '../src/modules/access/element-access.js';
import { ORDER_ALIAS, createOrderRepository } from '../src/modules/orders/orders.repository.js';
import { INSTANCE_ID, ROOT, freePort, login, startServer, stopProcess, waitForServer } from './common.js';
import { seed } from './seed.js';

export type BenchDialect = 'sqlite' | 'mysql' | 'postgres';

export interface LoadFigures {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon's errors). */
  errors: number;
  /** The first few answers other than 2xx: status and the error code of the body (or its start). */
  failures: string[];
}

/**
 * How the clients ask:
 * - 'same page': the first page, again and again, as phones poll their list; while the database
 *   does not change, the service answers it from memory (db/list-total.ts) on SQLite and
 *   PostgreSQL, the floor reads it every time;
 * - 'pages in turn': the offsets 0 to PAGES_IN_TURN - 1, one after the other (each the next
 *   request of any client), more pages than the service keeps, so that every page is read from
 *   the database, by the service as by the floor: the cost of the list's own path.
 */
export type ListPattern = 'same page' | 'pages in turn';

/** Distinct pages of the 'pages in turn' pattern: four times KEPT_PAGES, so that none is still kept when its turn comes again. */
export const PAGES_IN_TURN = 4 * KEPT_PAGES;

export interface OrderListMeasurement {
  dialect: BenchDialect;
  pattern: ListPattern;
  /** Which checkout was measured: 'this checkout', or the folder given as `root`. */
  checkout: string;
  user: 'admin' | 'technician';
  service: LoadFigures;
  floor: LoadFigures;
  /** 100 × the service's requests per second / the floor's. */
  share_percent: number;
  /** The service's p99 / the floor's. */
  p99_ratio: number;
}

export interface OrderListOptions {
  dialect: BenchDialect;
  /** Seconds measured per run. @default 15 */
  durationS?: number;
  /** Concurrent clients. @default 50 */
  connections?: number;
  /** Unmeasured seconds before each run. @default 3 */
  warmupS?: number;
  /** Orders seeded. @default 10000 */
  orders?: number;
  /** The service's --workers. @default 1 */
  workers?: number;
  /** Progress lines. @default nothing */
  log?: (line: string) => void;
  /** The checkout whose built service is measured (its dist/). @default this one */
  root?: string;
  /** How the figures name the checkout. @default 'this checkout', or the root's folder name */
  label?: string;
  /** The ways of asking measured, each for both users. @default both */
  patterns?: readonly ListPattern[];
  /**
   * Also the technician's day (GET /api/agenda.php, his appointments of the next 7 days), under
   * the same load after the lists, given to this callback with his list's figures of the same run.
   */
  onDay?: (m: DayMeasurement) => void;
}

/** The technician's day under load, beside his order list of the same run (there is no floor of its own). */
export interface DayMeasurement {
  dialect: BenchDialect;
  checkout: string;
  /** Appointments in one answer. */
  appointments: number;
  /** Of the technician's orders, those given to him by contact and by agenda event. */
  assigned: { byContact: number; byAgenda: number };
  service: LoadFigures;
  /** The technician's order list, the first page again and again, in the same run (if measured). */
  list?: LoadFigures;
  /** 100 × the day's requests per second / the list's. */
  share_of_list_percent?: number;
}

/** The targets each figure is printed against. */
export const ORDER_LIST_TARGETS = { minSharePercent: 90, maxP99Ratio: 1.2, maxNon2xx: 0 } as const;

/** The service's pool (createDb's default), which each floor gets too. */
const POOL_SIZE = 10;
const PAGE = 50;

/** The dialect cannot be measured here (its server is not reachable); `message` says why. */
export class SkippedDialect extends Error {}

export function serverUrl(dialect: 'mysql' | 'postgres'): string {
  return dialect === 'mysql'
    ? (process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306')
    : (process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
}

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

async function adminQuery(dialect: 'mysql' | 'postgres', statement: string): Promise<void> {
  const url = serverUrl(dialect);
  if (dialect === 'mysql') {
    const u = new URL(url);
    const pool = createPool({
      host: u.hostname,
      port: Number(u.port || 3306),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      connectionLimit: 1,
      connectTimeout: 5000,
    });
    try {
      await new Promise<void>((resolve, reject) => pool.query(statement, (error) => (error ? reject(error) : resolve())));
    } finally {
      await new Promise<void>((resolve) => pool.end(() => resolve()));
    }
  } else {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  }
}

/** A fresh database for `dialect`: its URL and how to remove it. */
async function freshDatabase(dialect: BenchDialect, work: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') return { url: `sqlite:${path.join(work, 'bench.sqlite')}`, drop: async () => undefined };
  const name = `fieldreport_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  try {
    await adminQuery(
      dialect,
      dialect === 'mysql' ? `create database ${name} character set utf8 collate utf8_unicode_ci` : `create database ${name}`,
    );
  } catch (error) {
    throw new SkippedDialect(
      `${dialect === 'mysql' ? 'MariaDB/MySQL' : 'PostgreSQL'} at ${serverUrl(dialect).replace(/:[^:@/]*@/, ':***@')} not reachable or refused CREATE DATABASE (${(error as Error).message || String(error)})`,
    );
  }
  return { url: withDatabase(serverUrl(dialect), name), drop: () => adminQuery(dialect, `drop database ${name}`) };
}

/**
 * Dolibarr's indexes on the tables the order list reads, as Dolibarr 22 creates them
 * (install/mysql/tables/llx_commande.key.sql, llx_societe.key.sql); the order-date index that
 * only the standalone schema has is dropped. An index the seeded schema already has under
 * Dolibarr's name is kept.
 */
async function asDolibarrIndexes(url: string): Promise<void> {
  const config = loadConfig({ DATABASE_URL: url, INSTANCE_UNIQUE_ID: INSTANCE_ID });
  const handle = createDb(config, { poolSize: 1 });
  try {
    const { db, dialect, prefix } = handle;
    const tables = await db.introspection.getTables();
    const columnsOf = (table: string) => new Set(tables.find((t) => t.name === `${prefix}${table}`)?.columns.map((c) => c.name) ?? []);
    const existing = async (table: string): Promise<Set<string>> => {
      const rows =
        dialect === 'mysql'
          ? (
              await sql<{
                name: string;
              }>`select distinct index_name as name from information_schema.statistics where table_schema = database() and table_name = ${`${prefix}${table}`}`.execute(
                db,
              )
            ).rows
          : (
              await sql<{
                name: string;
              }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = ${`${prefix}${table}`}`.execute(
                db,
              )
            ).rows;
      return new Set(rows.map((r) => r.name));
    };
    const dropIndex = async (table: string, name: string) => {
      if (!(await existing(table)).has(name)) return;
      if (dialect === 'mysql') await sql`drop index ${sql.id(name)} on ${sql.table(table)}`.execute(db);
      else await sql`drop index ${sql.id(name)}`.execute(db);
    };
    const createIndex = async (table: string, name: string, columns: string[], unique = false) => {
      if (!columns.every((c) => columnsOf(table).has(c))) return;
      const have = await existing(table);
      // The standalone schema names its indexes with the table prefix in front (llx_idx_…), Dolibarr without.
      if (have.has(name) || have.has(`${prefix}${name}`)) return;
      await sql`create ${sql.raw(unique ? 'unique ' : '')}index ${sql.id(name)} on ${sql.table(table)} (${sql.join(columns.map((c) => sql.id(c)))})`.execute(
        db,
      );
    };
    await dropIndex('commande', `${prefix}idx_commande_date_commande_newest`);
    await createIndex('commande', 'uk_commande_ref', ['ref', 'entity'], true);
    for (const column of ['fk_soc', 'fk_user_author', 'fk_user_modif', 'fk_user_valid', 'fk_user_cloture', 'fk_projet', 'fk_statut']) {
      await createIndex('commande', `idx_commande_${column}`, [column]);
    }
    await createIndex('societe', 'idx_societe_nom', ['nom']);
    if (dialect === 'postgres') await sql`analyze`.execute(db);
    else await sql`analyze table ${sql.table('commande')}, ${sql.table('societe')}`.execute(db);
  } finally {
    await handle.destroy();
  }
}

/**
 * The SQL and values of the first page of the order list as the service sends them for `user`,
 * and which of the values is the offset (found by compiling the second page too).
 */
export async function listQuery(
  databaseUrl: string,
  user: { id: number; admin: boolean },
): Promise<{ sql: string; parameters: readonly unknown[]; offsetAt: number }> {
  // The service gets this process's environment (bench/common.ts): its ASSIGNED_* settings shape the query too.
  const assignedEnv = Object.fromEntries(
    (['ASSIGNED_CONTACT_TYPES', 'ASSIGNED_BY_AGENDA'] as const).flatMap((name) =>
      process.env[name] === undefined ? [] : [[name, process.env[name]!]],
    ),
  );
  const config = loadConfig({ DATABASE_URL: databaseUrl, INSTANCE_UNIQUE_ID: INSTANCE_ID, ...assignedEnv });
  const handle = createDb(config, { poolSize: 1 });
  try {
    const access = createElementAccess(handle.db, {
      entity: config.entity,
      userColumns: namedUserColumns(await handle.db.introspection.getTables(), config.dbPrefix),
      assigned: { contactCodes: config.assignedContactCodes, agenda: config.assignedByAgenda },
    });
    const orders = createOrderRepository(handle, { access, totals: createListTotals(handle) });
    const page = (offset: number) =>
      orders.listQuery({ visible: access.visible('commande', { ...user, fkSoc: null }, ORDER_ALIAS), limit: PAGE, offset }).compile();
    const [first, second] = [page(0), page(7)];
    const offsetAt = second.parameters.findIndex((value, i) => value !== first.parameters[i]);
    if (offsetAt < 0 || first.sql !== second.sql) throw new Error("the order list's offset is not one of its values");
    return { sql: first.sql, parameters: first.parameters, offsetAt };
  } finally {
    await handle.destroy();
  }
}

async function startFloor(
  dialect: BenchDialect,
  database: string,
  query: { sql: string; parameters: readonly unknown[]; offsetAt: number },
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/floor.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      FLOOR_DIALECT: dialect,
      FLOOR_DATABASE: database,
      FLOOR_SQL: query.sql,
      FLOOR_PARAMETERS: JSON.stringify(query.parameters),
      FLOOR_OFFSET_AT: String(query.offsetAt),
      FLOOR_POOL: String(POOL_SIZE),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return waitForServer(child, port, '/api/orders.php');
}

/** Figures being gathered over several slices of load. */
class Tally {
  latencies: number[] = [];
  responses = 0;
  seconds = 0;
  non2xx = 0;
  errors = 0;
  failures: string[] = [];

  figures(): LoadFigures {
    const sorted = Float64Array.from(this.latencies).sort();
    const at = (q: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!) : 0);
    return {
      requests_per_s: this.seconds > 0 ? Math.round(this.responses / this.seconds) : 0,
      p50_ms: at(0.5),
      p99_ms: at(0.99),
      non2xx: this.non2xx,
      errors: this.errors,
      failures: this.failures,
    };
  }
}

/** The offsets of the 'pages in turn' pattern, shared by all clients: each request takes the next. */
let nextOffset = 0;

/** `seconds` of load on `url` (`?limit=…` of the list) by `connections` clients, asking as `pattern` says; measured into `tally` when given. */
async function load(
  url: string,
  token: string | undefined,
  connections: number,
  seconds: number,
  pattern: ListPattern,
  tally?: Tally,
): Promise<void> {
  const started = performance.now();
  const { pathname, search } = new URL(url);
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(pattern === 'pages in turn'
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => {
                const offset = nextOffset;
                nextOffset = (nextOffset + 1) % PAGES_IN_TURN;
                return { ...request, path: `${pathname}${search}&offset=${offset}` };
              },
            },
          ],
        }
      : {}),
    setupClient(client) {
      if (!tally) return;
      let status = 0;
      let body = '';
      // autocannon passes the parser's view of the answer, with its status (its types say headers only).
      client.on('headers', (headers) => {
        status = (headers as unknown as { statusCode: number }).statusCode;
        body = '';
      });
      client.on('body', (chunk: Buffer) => {
        if (status >= 200 && status < 300) return;
        body += chunk.toString('utf8');
        if (tally.failures.length < 5) tally.failures.push(`${status} ${/"code":"([A-Z_]+)"/.exec(body)?.[1] ?? body.slice(0, 120)}`);
      });
      client.on('response', (code: number, _bytes: number, responseTime: number) => {
        tally.latencies.push(responseTime);
        tally.responses++;
        if (code < 200 || code >= 300) tally.non2xx++;
      });
    },
  });
  if (!tally) return;
  tally.seconds += (performance.now() - started) / 1000;
  tally.errors += result.errors;
}

/** Seconds of each slice: the service and its floor take turns, so that a machine busy with other work weighs on both alike. */
const SLICE_S = 3;

/**
 * The service and the floor under the same load, in turns of SLICE_S seconds (service, floor,
 * floor, service, …) until each had `durationS`, each after `warmupS` unmeasured.
 */
async function loadInTurns(
  service: { url: string; token: string },
  floorUrl: string,
  options: { connections: number; durationS: number; warmupS: number; pattern: ListPattern },
) {
  const { connections, durationS, warmupS, pattern } = options;
  // Unmeasured first: what a server does once (compiling its code, filling its caches) is no steady-state figure.
  if (warmupS > 0) {
    await load(service.url, service.token, connections, warmupS, pattern);
    await load(floorUrl, undefined, connections, warmupS, pattern);
  }
  const slices = Math.max(1, Math.round(durationS / SLICE_S));
  const tallies = { service: new Tally(), floor: new Tally() };
  for (let i = 0; i < slices; i++) {
    const seconds = durationS / slices;
    const turns = [
      () => load(service.url, service.token, connections, seconds, pattern, tallies.service),
      () => load(floorUrl, undefined, connections, seconds, pattern, tallies.floor),
    ];
    for (const turn of i % 2 === 0 ? turns : turns.reverse()) await turn();
  }
  return { service: tallies.service.figures(), floor: tallies.floor.figures() };
}

/** The order list for both users on `dialect`, asked in each of `patterns`, beside the floor; cleans up after itself. */
export async function measureOrderList(options: OrderListOptions): Promise<OrderListMeasurement[]> {
  const {
    dialect,
    durationS = 15,
    connections = 50,
    warmupS = 3,
    orders = 10_000,
    workers = 1,
    patterns = ['same page', 'pages in turn'],
  } = options;
  const log = options.log ?? (() => undefined);
  const work = mkdtempSync(path.join(os.tmpdir(), `fieldreport-bench-${dialect}-`));
  let server: ChildProcess | undefined;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  try {
    database = await freshDatabase(dialect, work);
    const dataRoot = path.join(work, 'documents');
    log(`${dialect}: seeding ${orders} orders …`);
    const seeded = await seed(database.url, dataRoot, orders);
    if (dialect !== 'sqlite') await asDolibarrIndexes(database.url);
    const floorDatabase = dialect === 'sqlite' ? database.url.slice('sqlite:'.length) : database.url;
    const users = [
      { user: 'admin' as const, id: seeded.adminId, admin: true, login: seeded.adminLogin },
      { user: 'technician' as const, id: seeded.techId, admin: false, login: seeded.techLogin },
    ];
    const queries = await Promise.all(users.map((u) => listQuery(database!.url, u)));
    const started = await startServer(
      { DATABASE_URL: database.url, DATA_ROOT: dataRoot, STATE_DIR: work, WORKERS: String(workers) },
      options.root,
    );
    server = started.child;
    const results: OrderListMeasurement[] = [];
    for (const [i, u] of users.entries())
      for (const pattern of patterns) {
        const token = await login(started.base, u.login);
        const url = `/api/orders.php?limit=${PAGE}`;
        log(
          `${dialect}: ${u.user}, ${pattern}, ${connections} connections, the service and its floor in turns of ${SLICE_S} s, ${durationS} s each …`,
        );
        const floor = await startFloor(dialect, floorDatabase, queries[i]!);
        let figures: { service: LoadFigures; floor: LoadFigures };
        try {
          figures = await loadInTurns({ url: `${started.base}${url}`, token }, `${floor.base}${url}`, {
            connections,
            durationS,
            warmupS,
            pattern,
          });
        } finally {
          await stopProcess(floor.child);
        }
        const { service, floor: floorFigures } = figures;
        results.push({
          dialect,
          pattern,
          checkout: options.label ?? (options.root && path.resolve(options.root) !== ROOT ? path.basename(options.root) : 'this checkout'),
          user: u.user,
          service,
          floor: floorFigures,
          share_percent:
            floorFigures.requests_per_s > 0 ? Math.round((1000 * service.requests_per_s) / floorFigures.requests_per_s) / 10 : 0,
          p99_ratio: floorFigures.p99_ms > 0 ? Math.round((100 * service.p99_ms) / floorFigures.p99_ms) / 100 : Infinity,
        });
      }
    if (options.onDay) {
      const tech = users[1]!;
      const token = await login(started.base, tech.login);
      const url = `${started.base}/api/agenda.php`;
      const answer = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as { items: unknown[] };
      log(`${dialect}: technician's day (${answer.items.length} appointments), ${connections} connections, ${durationS} s …`);
      if (warmupS > 0) await load(url, token, connections, warmupS, 'same page');
      const tally = new Tally();
      await load(url, token, connections, durationS, 'same page', tally);
      const service = tally.figures();
      const list = results.find((r) => r.user === 'technician' && r.pattern === 'same page')?.service;
      options.onDay({
        dialect,
        checkout: results[0]?.checkout ?? 'this checkout',
        appointments: answer.items.length,
        assigned: seeded.techAssigned,
        service,
        ...(list
          ? {
              list,
              share_of_list_percent: list.requests_per_s > 0 ? Math.round((1000 * service.requests_per_s) / list.requests_per_s) / 10 : 0,
            }
          : {}),
      });
    }
    return results;
  } finally {
    await stopProcess(server);
    rmSync(work, { recursive: true, force: true });
    await database?.drop().catch((error: unknown) => log(`${dialect}: could not drop the benchmark database: ${(error as Error).message}`));
  }
}

const mark = (met: boolean) => (met ? 'met' : 'MISSED');

/** One measurement as lines, each figure with its target. */
export function describeOrderList(m: OrderListMeasurement): string {
  const figures = (f: LoadFigures) =>
    `${f.requests_per_s} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms, non-2xx ${f.non2xx}${f.errors ? `, ${f.errors} errors` : ''}`;
  const t = ORDER_LIST_TARGETS;
  const lines = [
    `Order list on ${m.dialect}, ${m.user}, ${m.pattern === 'same page' ? 'the first page again and again' : `pages in turn (offsets 0-${PAGES_IN_TURN - 1})`}${m.checkout === 'this checkout' ? '' : ` (${m.checkout})`}:`,
    `  service: ${figures(m.service)}${m.service.failures.length ? ` (${m.service.failures.join('; ')})` : ''}`,
    `  floor:   ${figures(m.floor)}${m.floor.failures.length ? ` (${m.floor.failures.join('; ')})` : ''}`,
    `  share ${m.share_percent} % (target ≥ ${t.minSharePercent} %: ${mark(m.share_percent >= t.minSharePercent)}), ` +
      `p99 ratio ${m.p99_ratio} × (target ≤ ${t.maxP99Ratio} ×: ${mark(m.p99_ratio <= t.maxP99Ratio)}), ` +
      `non-2xx ${m.service.non2xx} (target ${t.maxNon2xx}: ${mark(m.service.non2xx <= t.maxNon2xx && m.service.errors === 0)})`,
  ];
  return lines.join('\n');
}

/** The technician's day as lines. */
export function describeDay(m: DayMeasurement): string {
  const f = m.service;
  return [
    `Heute (GET /api/agenda.php) on ${m.dialect}, technician with ${m.assigned.byContact + m.assigned.byAgenda} assignments (${m.assigned.byContact} by contact, ${m.assigned.byAgenda} by agenda event; ${m.appointments} appointments in the next 7 days)${m.checkout === 'this checkout' ? '' : ` (${m.checkout})`}:`,
    `  service: ${f.requests_per_s} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms, non-2xx ${f.non2xx}${f.errors ? `, ${f.errors} errors` : ''}${f.failures.length ? ` (${f.failures.join('; ')})` : ''}`,
    m.list
      ? `  ${m.share_of_list_percent} % of his order list's first page in the same run (${m.list.requests_per_s} req/s, p99 ${m.list.p99_ms} ms)`
      : '  (his order list was not measured in this run)',
  ].join('\n');
}
