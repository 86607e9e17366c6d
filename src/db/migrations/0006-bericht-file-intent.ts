/**
 * Crash safety for files and their `ecm_files` rows. A file that becomes visible under a real name
 * and its index row are two steps that no transaction spans; an intent row, written before the
 * first of them and removed after the last, names the file and the run (process) at work. When
 * that run died in between, the next start or the daily clean-up finds the intent and makes file
 * and row agree: both kept when both are there, both removed otherwise.
 *
 * Idempotency claims get the run too: a retry after a crash recognises a claim whose run is dead
 * and finishes or frees it at once, instead of answering "in progress" for an hour.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools } from './helpers.js';

export function berichtFileIntent(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);
      await table('bericht_file_intent')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        // The run id of the process at work (12 hex digits).
        .addColumn('run_id', 'varchar(32)', (c) => c.notNull())
        // As in ecm_files: the folder relative to the documents root, and the file's name.
        .addColumn('filepath', 'varchar(255)', (c) => c.notNull())
        .addColumn('filename', 'varchar(255)', (c) => c.notNull())
        .addColumn('datec', ty.datetime, (c) => c.notNull())
        .execute();
      await index('idx_bericht_file_intent_run', 'bericht_file_intent', ['run_id']);
      // Only when missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const tables = await db.introspection.getTables();
      const idempotency = tables.find((t) => t.name === `${prefix}bericht_idempotency`);
      if (!idempotency?.columns.some((c) => c.name === 'run_id')) {
        await db.schema.alterTable('bericht_idempotency').addColumn('run_id', 'varchar(32)').execute();
      }
    },
  };
}
