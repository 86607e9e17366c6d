/**
 * Signatures: one row per signature page, with the unguessable code of its public verification
 * link. The proof itself (metadata, hash, seal) is the JSON file beside the signature image; this
 * row only finds it.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools } from './helpers.js';

export function berichtSignature(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);
      await table('bericht_signature')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('fk_bericht', 'integer', (c) => c.notNull())
        .addColumn('fk_page', 'integer', (c) => c.notNull())
        // 22 characters of base64url: 128 random bits.
        .addColumn('verify_code', 'varchar(64)', (c) => c.notNull())
        .addColumn('metadata_path', 'varchar(512)', (c) => c.notNull())
        .addColumn('signer_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('datec', ty.datetime, (c) => c.notNull())
        .execute();
      await index('uk_bericht_signature_code', 'bericht_signature', ['verify_code'], true);
      await index('uk_bericht_signature_page', 'bericht_signature', ['fk_page'], true);
      await index('idx_bericht_signature_bericht', 'bericht_signature', ['fk_bericht']);
    },
  };
}
