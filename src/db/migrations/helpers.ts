/**
 * What both migrations need: tables with Dolibarr's `rowid` key and options, and indexes created
 * only when missing. `CREATE INDEX IF NOT EXISTS` is MariaDB's, not MySQL's, so on mysql the
 * index list is asked first.
 */
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { tableOptions } from '../dialect.js';
import { STANDALONE_MARKER } from './0001-dolibarr-core.js';

/** Whether a table exists, by its full (prefixed) name. */
export async function tableExists(db: Kysely<any>, name: string): Promise<boolean> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: false });
  return tables.some((t) => t.name === name);
}

export function idColumn<T extends string>(
  builder: CreateTableBuilder<T, never>,
  dialect: Dialect,
  name = 'rowid',
): CreateTableBuilder<T, any> {
  if (dialect === 'postgres') return builder.addColumn(name, 'serial', (c) => c.primaryKey());
  return builder.addColumn(name, 'integer', (c) => c.primaryKey().autoIncrement());
}

/** @param charset 'database' for Dolibarr's own tables (see tableOptions) */
export function schemaTools(db: Kysely<any>, dialect: Dialect, prefix: string, charset: 'utf8mb4' | 'database' = 'utf8mb4') {
  const opts = tableOptions(dialect, charset);
  const withOptions = <T extends string>(b: CreateTableBuilder<T, any>) => (opts ? b.modifyEnd(opts) : b);

  async function indexExists(table: string, name: string): Promise<boolean> {
    const rows = await sql<{ n: number }>`select count(*) as n from information_schema.statistics
      where table_schema = database() and table_name = ${prefix + table} and index_name = ${name}`.execute(db);
    return Number(rows.rows[0]?.n ?? 0) > 0;
  }

  return {
    /** A table with Dolibarr's autoincrement `rowid`. */
    table: (name: string) => withOptions(idColumn(db.schema.createTable(name).ifNotExists(), dialect)),
    /** A table without `rowid`. */
    plain: (name: string) => withOptions(db.schema.createTable(name).ifNotExists()),
    async index(name: string, table: string, columns: string[], unique = false): Promise<void> {
      const full = `${prefix}${name}`;
      if (dialect === 'mysql' && (await indexExists(table, full))) return;
      let b = db.schema.createIndex(full).on(table).columns(columns);
      if (dialect !== 'mysql') b = b.ifNotExists();
      await (unique ? b.unique() : b).execute();
    },
  };
}

/** The database is the service's own standalone one (migration 0001 marked it), not a Dolibarr's. */
export async function isStandalone(db: Kysely<any>): Promise<boolean> {
  const row = await db.selectFrom('const').select('value').where('name', '=', STANDALONE_MARKER).where('entity', '=', 0).executeTakeFirst();
  return row?.value === '1';
}
