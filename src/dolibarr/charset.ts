/**
 * Text into Dolibarr's own tables must fit their columns' character set. Dolibarr's installer
 * creates MariaDB/MySQL databases as `utf8` (utf8mb3: at most 3 bytes a character, so no emoji),
 * older ones even `latin1`; the database refuses a value that does not fit (strict mode), which
 * would make a phone's `Zähler 😀 Foto.jpg` a 500. The character set of each column is read from
 * the database once (information_schema), never assumed; what does not fit is replaced: U+FFFD
 * for a character beyond 3 bytes in utf8mb3, '?' for one outside latin1 in latin1. Text is also
 * cut to the column's length in characters. The module's own tables are created utf8mb4 and take
 * anything. PostgreSQL (UTF8) and SQLite take anything too.
 */
import { sql } from 'kysely';
import type { Dialect } from '../config.js';
import type { Db } from '../db/database.js';

interface ColumnInfo {
  charset: string | null;
  maxLength: number | null;
}

/** table (without prefix) → column → info; per database handle, read once. */
const cache = new WeakMap<Db, Promise<Map<string, ColumnInfo>>>();

async function readColumns(db: Db, prefix: string, tables: readonly string[]): Promise<Map<string, ColumnInfo>> {
  const rows = await sql<{ table_name: string; column_name: string; charset: string | null; max_length: number | null }>`
    select table_name as table_name, column_name as column_name, character_set_name as charset, character_maximum_length as max_length
    from information_schema.columns
    where table_schema = database() and table_name in (${sql.join(tables.map((t) => prefix + t))})`.execute(db);
  const map = new Map<string, ColumnInfo>();
  for (const row of rows.rows) {
    const table = String(row.table_name).slice(prefix.length);
    map.set(`${table}.${row.column_name}`, {
      charset: row.charset ? String(row.charset).toLowerCase() : null,
      maxLength: row.max_length === null ? null : row.max_length,
    });
  }
  return map;
}

/** `text` made to fit a column of character set `charset` and `maxLength` characters. */
export function fitText(text: string, charset: string | null, maxLength: number | null): string {
  let out = text;
  if (charset === 'utf8' || charset === 'utf8mb3') out = out.replace(/[\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
  else if (charset === 'latin1') out = out.replace(/[^\u0000-\u00FF]/gu, '?');
  else if (charset === 'ascii') out = out.replace(/[^\u0000-\u007F]/gu, '?');
  if (maxLength !== null && [...out].length > maxLength) out = [...out].slice(0, maxLength).join('');
  return out;
}

export interface ColumnFitter {
  /** `text` as column `table.column` can hold it. */
  fit(table: string, column: string, text: string): Promise<string>;
}

/** The Dolibarr tables the service writes text into. */
const WRITTEN_TABLES = ['ecm_files', 'actioncomm', 'stock_mouvement', 'fichinter', 'fichinterdet', 'facturedet'] as const;

export function createColumnFitter(db: Db, dialect: Dialect, prefix: string): ColumnFitter {
  if (dialect !== 'mysql') return { fit: async (_table, _column, text) => text };
  return {
    async fit(table, column, text) {
      let columns = cache.get(db);
      if (!columns) {
        columns = readColumns(db, prefix, WRITTEN_TABLES);
        cache.set(db, columns);
        columns.catch(() => cache.delete(db)); // asked again next time
      }
      const info = (await columns).get(`${table}.${column}`);
      return info ? fitText(text, info.charset, info.maxLength) : text;
    },
  };
}
