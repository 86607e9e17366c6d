/**
 * Interventions (Dolibarr's module Interventions, `fichinter`) as parents of reports, photos,
 * material lines and times: on the Dolibarr tables this service created itself (the standalone
 * default) the table `llx_fichinter` with Dolibarr 22's columns and keys
 * (install/mysql/tables/llx_fichinter.sql, .key.sql) and the intervention's contact types
 * (install/mysql/data/llx_c_type_contact.sql). A real Dolibarr database is left alone: its
 * installer created the same table and rows.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools, isStandalone } from './helpers.js';

/** Dolibarr's contact types of an intervention, with the row ids its older data files gave them. */
export const FICHINTER_CONTACT_TYPES = [
  { rowid: 120, source: 'internal', code: 'INTERREPFOLL', libelle: "Responsable suivi de l'intervention" },
  { rowid: 121, source: 'internal', code: 'INTERVENING', libelle: 'Intervenant' },
  { rowid: 122, source: 'external', code: 'BILLING', libelle: 'Contact client facturation intervention' },
  { rowid: 123, source: 'external', code: 'CUSTOMER', libelle: "Contact client suivi de l'intervention" },
] as const;

export function standaloneFichinter(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (!(await isStandalone(db))) return;
      const { table, index } = schemaTools(db, dialect, prefix, 'database');
      await table('fichinter')
        .addColumn('fk_soc', 'integer', (c) => c.notNull())
        .addColumn('fk_projet', 'integer', (c) => c.defaultTo(0))
        .addColumn('fk_contrat', 'integer', (c) => c.defaultTo(0))
        .addColumn('ref', 'varchar(30)', (c) => c.notNull())
        .addColumn('ref_ext', 'varchar(255)')
        .addColumn('ref_client', 'varchar(255)')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('tms', ty.datetime)
        .addColumn('datec', ty.datetime)
        .addColumn('date_valid', ty.datetime)
        .addColumn('datei', ty.date)
        .addColumn('fk_user_author', 'integer')
        .addColumn('fk_user_modif', 'integer')
        .addColumn('fk_user_valid', 'integer')
        .addColumn('fk_statut', ty.smallint, (c) => c.defaultTo(0))
        .addColumn('dateo', ty.date)
        .addColumn('datee', ty.date)
        .addColumn('datet', ty.date)
        .addColumn('duree', 'real')
        .addColumn('description', ty.text)
        .addColumn('signed_status', ty.smallint)
        .addColumn('online_sign_ip', 'varchar(48)')
        .addColumn('online_sign_name', 'varchar(64)')
        .addColumn('note_private', ty.text)
        .addColumn('note_public', ty.text)
        .addColumn('model_pdf', 'varchar(255)')
        .addColumn('last_main_doc', 'varchar(255)')
        .addColumn('import_key', 'varchar(14)')
        .addColumn('extraparams', 'varchar(255)')
        .execute();
      await index('uk_fichinter_ref', 'fichinter', ['ref', 'entity'], true);
      await index('idx_fichinter_fk_soc', 'fichinter', ['fk_soc']);
      // Who is named on it, as migration 0004 indexes the other objects' fk_user_* columns.
      for (const column of ['fk_user_author', 'fk_user_valid', 'fk_user_modif'])
        await index(`idx_fichinter_${column}`, 'fichinter', [column]);
      await index('idx_fichinter_dateo', 'fichinter', ['dateo']);

      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      for (const type of FICHINTER_CONTACT_TYPES) {
        const known = await db
          .selectFrom('c_type_contact')
          .select('rowid')
          .where('element', '=', 'fichinter')
          .where('source', '=', type.source)
          .where('code', '=', type.code)
          .executeTakeFirst();
        if (!known)
          await db
            .insertInto('c_type_contact')
            .values({ ...type, element: 'fichinter', module: null, active: 1, position: 0 })
            .execute();
      }
    },
  };
}
