/**
 * A fresh database per test file on each dialect: SQLite always (a file in a temporary folder),
 * MariaDB/MySQL when TEST_MYSQL_URL is set, PostgreSQL when TEST_PG_URL is set. DIALECTS
 * (e.g. DIALECTS=sqlite,postgres) narrows the run. A dialect whose variable is unset is skipped
 * with a printed reason, never counted as passed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { DatabaseConfig, Dialect } from '../../src/config.js';

export interface TestDatabase {
  dialect: Dialect;
  config: DatabaseConfig;
  drop(): Promise<void>;
}

const URL_VARIABLES: Record<Exclude<Dialect, 'sqlite'>, string> = { mysql: 'TEST_MYSQL_URL', postgres: 'TEST_PG_URL' };
const reported = new Set<string>();

/** The dialects to run against in this process. */
export function testDialects(): Dialect[] {
  const wanted = (process.env.DIALECTS ?? 'sqlite,mysql,postgres').split(',').map((d) => d.trim());
  const out: Dialect[] = [];
  for (const dialect of ['sqlite', 'mysql', 'postgres'] as const) {
    if (!wanted.includes(dialect)) continue;
    if (dialect !== 'sqlite' && !process.env[URL_VARIABLES[dialect]]) {
      if (!reported.has(dialect)) {
        reported.add(dialect);
        console.log(`# ${dialect} tests skipped: ${URL_VARIABLES[dialect]} is not set (.ci/run sets it)`);
      }
      continue;
    }
    out.push(dialect);
  }
  return out;
}

/** Named after the URL's database (which .ci/run makes fresh), so leftovers are found by prefix. */
function uniqueName(base: string): string {
  const prefix = /^[A-Za-z0-9_]{1,30}$/.test(base) ? base : 'fr_test';
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-db-'));
    return {
      dialect,
      config: { dialect, file: path.join(dir, 'test.sqlite') },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const url = new URL(process.env[URL_VARIABLES[dialect]]!);
  const urlDatabase = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const name = uniqueName(urlDatabase);
  const base = {
    host: url.hostname,
    port: Number(url.port) || (dialect === 'mysql' ? 3306 : 5432),
    user: decodeURIComponent(url.username) || (dialect === 'mysql' ? 'root' : 'postgres'),
    password: decodeURIComponent(url.password),
  };
  if (dialect === 'mysql') {
    const conn = await mysql.createConnection(base);
    // The character set of the URL's database (.ci/run makes it as Dolibarr's installer does: utf8).
    const [rows] = await conn.query(
      'SELECT default_character_set_name AS cs, default_collation_name AS co FROM information_schema.schemata WHERE schema_name = ?',
      [urlDatabase],
    );
    const found = (rows as Array<{ cs: string; co: string }>)[0];
    const charset = found ? `CHARACTER SET ${found.cs} COLLATE ${found.co}` : 'CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci';
    await conn.query(`CREATE DATABASE \`${name}\` ${charset}`);
    await conn.end();
    return {
      dialect,
      config: { dialect, ...base, database: name },
      drop: async () => {
        const c = await mysql.createConnection(base);
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await c.end();
      },
    };
  }
  const adminDb = urlDatabase || 'postgres';
  const client = new pg.Client({ ...base, database: adminDb });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  return {
    dialect,
    config: { dialect, ...base, database: name },
    drop: async () => {
      const c = new pg.Client({ ...base, database: adminDb });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}
