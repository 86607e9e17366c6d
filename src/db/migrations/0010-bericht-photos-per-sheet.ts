/**
 * How many photo pages a report's PDF puts on one printed sheet: 1 (one page a sheet, as before),
 * 2 or 4 (compact). `photos_per_sheet` on `bericht`, not null, default 4: existing reports and
 * templates get 4, as does every report made without a choice. The allowed values are checked by
 * the API (modules/reports/photos-per-sheet.ts), not by the database: a CHECK constraint would differ per dialect
 * and MariaDB before 10.2 ignores it.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';

export function berichtPhotosPerSheet(_dialect: Dialect, prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only when missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const table = (await db.introspection.getTables()).find((t) => t.name === `${prefix}bericht`);
      if (table?.columns.some((c) => c.name === 'photos_per_sheet')) return;
      // NOT NULL with a default fills the rows there (SQLite, MariaDB and PostgreSQL alike).
      await db.schema
        .alterTable('bericht')
        .addColumn('photos_per_sheet', 'integer', (c) => c.notNull().defaultTo(4))
        .execute();
    },
  };
}
