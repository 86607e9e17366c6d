/**
 * Maintenance visits: checklists and time on site.
 * - `bericht_page.checklist`: the items of a page of layout `checklist`, as JSON (an array; see
 *   modules/pages/checklist.ts for its form), null on every other page. The items are page
 *   content: they are copied with the page (templates, versions) and covered by a signature's hash
 *   with it. `longtext` on MariaDB/MySQL, whose `text` ends at 64 KB (200 items with notes of 2000
 *   characters would not fit); PostgreSQL's and SQLite's `text` have no such limit.
 * - `bericht_time`: time on site, one row per interval (arrival, departure) of a technician at an
 *   order, invoice or proposal. `fk_bericht` is the final report that took the interval (set when it
 *   is finalized), null before. `corrections` keeps every correction by hand (JSON: when, by whom,
 *   why, and the times before it); `arrival_tapped`/`departure_tapped` the times as first recorded.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools } from './helpers.js';

export function berichtChecklistTime(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  const long = dialect === 'mysql' ? sql`longtext` : ty.text;
  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);
      // Only when missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const page = (await db.introspection.getTables()).find((t) => t.name === `${prefix}bericht_page`);
      if (!page?.columns.some((c) => c.name === 'checklist'))
        await db.schema.alterTable('bericht_page').addColumn('checklist', long).execute();

      await table('bericht_time')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('element_type', 'varchar(32)', (c) => c.notNull())
        .addColumn('fk_element', 'integer', (c) => c.notNull())
        .addColumn('fk_user', 'integer', (c) => c.notNull())
        .addColumn('fk_bericht', 'integer')
        .addColumn('arrival', ty.datetime, (c) => c.notNull())
        .addColumn('departure', ty.datetime)
        .addColumn('arrival_tapped', ty.datetime)
        .addColumn('departure_tapped', ty.datetime)
        .addColumn('corrections', long)
        .addColumn('fk_user_modif', 'integer')
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .execute();
      await index('idx_bericht_time_element', 'bericht_time', ['element_type', 'fk_element']);
      await index('idx_bericht_time_user', 'bericht_time', ['fk_user', 'departure']);
    },
  };
}
