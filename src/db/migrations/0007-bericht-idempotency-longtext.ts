/**
 * Room for large answers of idempotent writes. A report's detail (the answer to creating a report
 * from a template, or to reordering its pages) holds every page with its note: up to
 * MAX_REPORT_PAGES pages of 10000 characters each. MariaDB/MySQL's `text` ends at 65535 bytes, so
 * such an answer could not be stored with the change it answers for, and the change would be
 * refused. `longtext` takes any answer there; PostgreSQL's and SQLite's `text` have no such limit.
 * (One statement must still fit the server's max_allowed_packet, 16 MB by default on MariaDB: far
 * beyond a report anyone writes by hand.)
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';

export function berichtIdempotencyLongtext(dialect: Dialect) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect !== 'mysql') return;
      // MODIFY keeps the table's character set (utf8mb4) and leaves the column nullable; running it twice does no harm.
      await db.schema.alterTable('bericht_idempotency').modifyColumn('response', sql`longtext`).execute();
    },
  };
}
