/**
 * The PDF seal of each final report (`bericht_seal`, one row per sealed PDF): what a check of an
 * uploaded PDF looks the report up by, and the durable job that adds a document time stamp when
 * the time-stamp authority was not reachable at finalize.
 * - `digest`: SHA-256 of the bytes the seal covers (its message digest); `pdf_id` the first
 *   element of the trailer's /ID; `sealed_sha256` the whole file as sealed, `stamped_sha256` after
 *   the document time stamp; `cert_sha256` the certificate that sealed it.
 * - `timestamp`: `none` (no authority configured), `embedded` (PAdES B-T at finalize), `pending`
 *   (to be added; `attempts`, `next_attempt_at`, `lease_owner`/`lease_until`, `error` as for mails),
 *   `added` (document time stamp at `stamped_at`) or `failed` (the file changed meanwhile).
 * Times in UTC.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools } from './helpers.js';

export function berichtSeal(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);
      await table('bericht_seal')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('fk_bericht', 'integer', (c) => c.notNull())
        .addColumn('ref', 'varchar(128)', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('digest', 'varchar(64)', (c) => c.notNull())
        .addColumn('pdf_id', 'varchar(64)')
        .addColumn('sealed_sha256', 'varchar(64)', (c) => c.notNull())
        .addColumn('stamped_sha256', 'varchar(64)')
        .addColumn('cert_sha256', 'varchar(64)', (c) => c.notNull())
        .addColumn('timestamp', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', ty.datetime)
        .addColumn('lease_owner', 'varchar(64)')
        .addColumn('lease_until', ty.datetime)
        .addColumn('error', 'varchar(1000)')
        .addColumn('stamped_at', ty.datetime)
        .addColumn('datec', ty.datetime, (c) => c.notNull())
        .addColumn('tms', ty.datetime)
        .execute();
      await index('idx_bericht_seal_bericht', 'bericht_seal', ['fk_bericht']);
      await index('idx_bericht_seal_digest', 'bericht_seal', ['digest']);
      await index('idx_bericht_seal_sealed', 'bericht_seal', ['sealed_sha256']);
      await index('idx_bericht_seal_stamped', 'bericht_seal', ['stamped_sha256']);
      await index('idx_bericht_seal_pdf_id', 'bericht_seal', ['pdf_id']);
      await index('idx_bericht_seal_due', 'bericht_seal', ['timestamp', 'next_attempt_at']);
    },
  };
}
