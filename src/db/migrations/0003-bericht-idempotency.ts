/**
 * Idempotency keys: a client that repeats a request with the same `Idempotency-Key` (a phone that
 * lost its connection) gets the first answer back instead of a second effect.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools } from './helpers.js';

export function berichtIdempotency(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);
      await table('bericht_idempotency')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('fk_user', 'integer', (c) => c.notNull())
        // The key's SHA-256 in hex (64 characters), exact on every collation.
        .addColumn('idem_key', 'varchar(128)', (c) => c.notNull())
        // The operation, e.g. 'upload_photo:12' (route and order id).
        .addColumn('scope', 'varchar(128)', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('response', ty.text)
        .addColumn('datec', ty.datetime, (c) => c.notNull())
        .execute();
      await index('uk_bericht_idempotency', 'bericht_idempotency', ['fk_user', 'idem_key'], true);
      await index('idx_bericht_idempotency_datec', 'bericht_idempotency', ['datec']);
    },
  };
}
