/**
 * The module's own tables (docs/architecture.md): reports, their pages, material lines, upload tokens, and
 * the failed-login counter. Field names are the contract's.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools } from './helpers.js';

export function berichtModule(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);

  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);

      await table('bericht')
        .addColumn('ref', 'varchar(30)', (c) => c.notNull())
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('element_type', 'varchar(32)')
        .addColumn('fk_element', 'integer')
        .addColumn('title', 'varchar(255)', (c) => c.notNull())
        .addColumn('format', 'varchar(8)', (c) => c.notNull().defaultTo('A4'))
        .addColumn('orientation', 'varchar(16)', (c) => c.notNull().defaultTo('portrait'))
        .addColumn('odt_template', 'varchar(255)')
        .addColumn('status', ty.smallint, (c) => c.notNull().defaultTo(0))
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('fk_bericht_parent', 'integer')
        .addColumn('is_template', ty.smallint, (c) => c.notNull().defaultTo(0))
        .addColumn('template_label', 'varchar(255)')
        .addColumn('final_pdf_path', 'varchar(512)')
        .addColumn('fk_user_creat', 'integer', (c) => c.notNull())
        .addColumn('fk_user_modif', 'integer')
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .execute();
      await index('uk_bericht_ref', 'bericht', ['ref', 'entity'], true);
      await index('idx_bericht_element', 'bericht', ['element_type', 'fk_element']);
      await index('idx_bericht_user', 'bericht', ['fk_user_creat']);

      await table('bericht_page')
        .addColumn('fk_bericht', 'integer', (c) => c.notNull())
        .addColumn('page_order', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('title', 'varchar(255)')
        .addColumn('note', ty.text)
        .addColumn('rotation', ty.smallint, (c) => c.notNull().defaultTo(0))
        .addColumn('layout', 'varchar(32)', (c) => c.notNull().defaultTo('photo'))
        .addColumn('source_path', 'varchar(512)')
        .addColumn('source_path_2', 'varchar(512)')
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .execute();
      await index('idx_bericht_page_order', 'bericht_page', ['fk_bericht', 'page_order']);

      await table('bericht_material')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('element_type', 'varchar(32)', (c) => c.notNull())
        .addColumn('fk_element', 'integer', (c) => c.notNull())
        .addColumn('label', 'varchar(255)', (c) => c.notNull())
        .addColumn('qty', ty.double, (c) => c.notNull().defaultTo(1))
        .addColumn('unit', 'varchar(32)')
        .addColumn('note', ty.text)
        .addColumn('fk_user_creat', 'integer', (c) => c.notNull())
        .addColumn('datec', ty.datetime)
        .execute();
      await index('idx_bericht_material_element', 'bericht_material', ['element_type', 'fk_element']);

      await table('bericht_upload_token')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('token', 'varchar(64)', (c) => c.notNull())
        .addColumn('element_type', 'varchar(32)', (c) => c.notNull())
        .addColumn('fk_element', 'integer', (c) => c.notNull())
        .addColumn('fk_user_creat', 'integer', (c) => c.notNull())
        .addColumn('datec', ty.datetime)
        .addColumn('date_expiry', ty.datetime, (c) => c.notNull())
        .execute();
      await index('uk_bericht_upload_token', 'bericht_upload_token', ['token'], true);
      await index('idx_bericht_upload_token_expiry', 'bericht_upload_token', ['date_expiry']);

      await table('bericht_login_failure')
        .addColumn('login', 'varchar(128)', (c) => c.notNull())
        .addColumn('address', 'varchar(64)', (c) => c.notNull())
        .addColumn('at', 'integer', (c) => c.notNull())
        .execute();
      await index('idx_bericht_login_failure_login', 'bericht_login_failure', ['login', 'at']);
      await index('idx_bericht_login_failure_address', 'bericht_login_failure', ['address', 'at']);
      await index('idx_bericht_login_failure_at', 'bericht_login_failure', ['at']);
    },
  };
}
