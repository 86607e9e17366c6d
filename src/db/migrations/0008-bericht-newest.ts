/**
 * The reports list (newest first, by datec then rowid) of one entity, reports or templates: an
 * index in that order, so a page of 50 reads its 50 rows and checks who may see them, instead of
 * gathering every visible report and sorting them (measured by `npm run bench`: 417 µs to 31 µs for
 * a page of a technician's 2,000 reports on SQLite). On PostgreSQL in the list's order, DESC NULLS
 * LAST. The module's own table, on a real Dolibarr too.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { schemaTools } from './helpers.js';

export function berichtNewest(dialect: Dialect, prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') {
        await sql`create index if not exists ${sql.id(`${prefix}idx_bericht_newest`)} on ${sql.table('bericht')} (entity, is_template, datec desc nulls last, rowid desc)`.execute(
          db,
        );
        return;
      }
      await schemaTools(db, dialect, prefix).index('idx_bericht_newest', 'bericht', ['entity', 'is_template', 'datec', 'rowid']);
    },
  };
}
