/**
 * Dolibarr's own tables that the service reads, with Dolibarr's names, columns and meanings
 * (install/mysql/tables/*.sql), created only on a database without Dolibarr: the standalone
 * default. On a Dolibarr database (its `user` table exists) this migration changes nothing.
 * It also records what Dolibarr's installer records: the password hash settings and a marker that
 * these tables are ours, so `demo` may fill them.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes, toDbDateTime } from '../dialect.js';
import { schemaTools, tableExists } from './helpers.js';

export const STANDALONE_MARKER = 'BERICHT_STANDALONE';

export function dolibarrCore(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);

  return {
    async up(db: Kysely<any>): Promise<void> {
      if (await tableExists(db, `${prefix}user`)) return; // a Dolibarr database: leave it alone

      const { table, plain, index } = schemaTools(db, dialect, prefix, 'database');
      const unique = (name: string, on: string, columns: string[]) => index(name, on, columns, true);

      await table('user')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('ref_employee', 'varchar(50)')
        .addColumn('ref_ext', 'varchar(50)')
        .addColumn('admin', ty.smallint, (c) => c.defaultTo(0))
        .addColumn('employee', ty.smallint, (c) => c.defaultTo(1))
        .addColumn('fk_establishment', 'integer', (c) => c.defaultTo(0))
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .addColumn('fk_user_creat', 'integer')
        .addColumn('fk_user_modif', 'integer')
        .addColumn('login', 'varchar(50)', (c) => c.notNull())
        .addColumn('pass_encoding', 'varchar(24)')
        .addColumn('pass', 'varchar(128)')
        .addColumn('pass_crypted', 'varchar(128)')
        .addColumn('pass_temp', 'varchar(128)')
        .addColumn('api_key', 'varchar(128)')
        .addColumn('gender', 'varchar(10)')
        .addColumn('civility', 'varchar(6)')
        .addColumn('lastname', 'varchar(50)')
        .addColumn('firstname', 'varchar(50)')
        .addColumn('address', 'varchar(255)')
        .addColumn('zip', 'varchar(25)')
        .addColumn('town', 'varchar(50)')
        .addColumn('job', 'varchar(128)')
        .addColumn('office_phone', 'varchar(20)')
        .addColumn('user_mobile', 'varchar(20)')
        .addColumn('email', 'varchar(255)')
        .addColumn('signature', ty.text)
        .addColumn('fk_soc', 'integer')
        .addColumn('fk_socpeople', 'integer')
        .addColumn('fk_member', 'integer')
        .addColumn('fk_user', 'integer')
        .addColumn('note_public', ty.text)
        .addColumn('note_private', ty.text)
        .addColumn('datelastlogin', ty.datetime)
        .addColumn('datepreviouslogin', ty.datetime)
        .addColumn('datelastpassvalidation', ty.datetime)
        .addColumn('datestartvalidity', ty.datetime)
        .addColumn('dateendvalidity', ty.datetime)
        .addColumn('flagdelsessionsbefore', ty.datetime)
        .addColumn('iplastlogin', 'varchar(250)')
        .addColumn('ippreviouslogin', 'varchar(250)')
        .addColumn('statut', ty.smallint, (c) => c.defaultTo(1))
        .addColumn('photo', 'varchar(255)')
        .addColumn('lang', 'varchar(6)')
        .addColumn('import_key', 'varchar(14)')
        .execute();
      await unique('uk_user_login', 'user', ['login', 'entity']);

      await table('usergroup')
        .addColumn('nom', 'varchar(180)', (c) => c.notNull())
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .addColumn('note', ty.text)
        .addColumn('model_pdf', 'varchar(255)')
        .execute();
      await unique('uk_usergroup_name', 'usergroup', ['nom', 'entity']);

      await plain('rights_def')
        .addColumn('id', 'integer', (c) => c.notNull())
        .addColumn('libelle', 'varchar(255)')
        .addColumn('module', 'varchar(64)')
        .addColumn('module_origin', 'varchar(64)')
        .addColumn('module_position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('family_position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('perms', 'varchar(50)')
        .addColumn('subperms', 'varchar(50)')
        .addColumn('type', 'varchar(1)')
        .addColumn('bydefault', ty.smallint, (c) => c.defaultTo(0))
        .addColumn('enabled', ty.text)
        .addPrimaryKeyConstraint(`${prefix}rights_def_pk`, ['id', 'entity'])
        .execute();

      for (const [name, owner] of [
        ['user_rights', 'fk_user'],
        ['usergroup_rights', 'fk_usergroup'],
      ] as const) {
        await table(name)
          .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn(owner, 'integer', (c) => c.notNull())
          .addColumn('fk_id', 'integer', (c) => c.notNull())
          .execute();
        await unique(`uk_${name}`, name, ['entity', owner, 'fk_id']);
      }

      await table('usergroup_user')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('fk_user', 'integer', (c) => c.notNull())
        .addColumn('fk_usergroup', 'integer', (c) => c.notNull())
        .execute();
      await unique('uk_usergroup_user', 'usergroup_user', ['entity', 'fk_user', 'fk_usergroup']);

      await table('const')
        .addColumn('name', 'varchar(180)', (c) => c.notNull())
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('value', ty.text, (c) => c.notNull())
        .addColumn('type', 'varchar(64)', (c) => c.defaultTo('string'))
        .addColumn('visible', ty.smallint, (c) => c.notNull().defaultTo(1))
        .addColumn('note', ty.text)
        .addColumn('tms', ty.datetime)
        .execute();
      await unique('uk_const', 'const', ['name', 'entity']);

      await table('societe')
        .addColumn('nom', 'varchar(128)')
        .addColumn('name_alias', 'varchar(128)')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('ref_ext', 'varchar(255)')
        .addColumn('statut', ty.smallint, (c) => c.defaultTo(0))
        .addColumn('parent', 'integer')
        .addColumn('status', ty.smallint, (c) => c.defaultTo(1))
        .addColumn('code_client', 'varchar(24)')
        .addColumn('code_fournisseur', 'varchar(24)')
        .addColumn('code_compta', 'varchar(24)')
        .addColumn('code_compta_fournisseur', 'varchar(24)')
        .addColumn('address', 'varchar(255)')
        .addColumn('zip', 'varchar(25)')
        .addColumn('town', 'varchar(50)')
        .addColumn('fk_departement', 'integer', (c) => c.defaultTo(0))
        .addColumn('fk_pays', 'integer', (c) => c.defaultTo(0))
        .addColumn('phone', 'varchar(20)')
        .addColumn('phone_mobile', 'varchar(20)')
        .addColumn('fax', 'varchar(20)')
        .addColumn('url', 'varchar(255)')
        .addColumn('email', 'varchar(128)')
        .addColumn('fk_stcomm', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('note_private', ty.text)
        .addColumn('note_public', ty.text)
        .addColumn('siren', 'varchar(128)')
        .addColumn('siret', 'varchar(128)')
        .addColumn('ape', 'varchar(128)')
        .addColumn('idprof4', 'varchar(128)')
        .addColumn('tva_intra', 'varchar(20)')
        .addColumn('client', ty.smallint, (c) => c.defaultTo(0))
        .addColumn('fournisseur', ty.smallint, (c) => c.defaultTo(0))
        .addColumn('logo', 'varchar(255)')
        .addColumn('model_pdf', 'varchar(255)')
        .addColumn('last_main_doc', 'varchar(255)')
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .addColumn('fk_user_creat', 'integer')
        .addColumn('fk_user_modif', 'integer')
        .addColumn('import_key', 'varchar(14)')
        .execute();
      await unique('uk_societe_code_client', 'societe', ['code_client', 'entity']);
      await index('idx_societe_nom', 'societe', ['nom']);

      // Orders, invoices and proposals share most columns; each gets its own as in Dolibarr.
      const commercial = (name: 'commande' | 'facture' | 'propal') =>
        table(name)
          .addColumn('ref', 'varchar(30)', (c) => c.notNull())
          .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('ref_ext', 'varchar(255)')
          .addColumn('ref_client', 'varchar(255)')
          .addColumn('fk_soc', 'integer', (c) => c.notNull())
          .addColumn('fk_projet', 'integer')
          .addColumn('fk_statut', ty.smallint, (c) => c.notNull().defaultTo(0))
          .addColumn('fk_user_author', 'integer')
          .addColumn('fk_user_modif', 'integer')
          .addColumn('fk_user_valid', 'integer')
          .addColumn('total_ht', ty.amount, (c) => c.defaultTo(0))
          .addColumn('total_tva', ty.amount, (c) => c.defaultTo(0))
          .addColumn('localtax1', ty.amount, (c) => c.defaultTo(0))
          .addColumn('localtax2', ty.amount, (c) => c.defaultTo(0))
          .addColumn('total_ttc', ty.amount, (c) => c.defaultTo(0))
          .addColumn('fk_cond_reglement', 'integer')
          .addColumn('fk_mode_reglement', 'integer')
          .addColumn('fk_account', 'integer')
          .addColumn('fk_currency', 'varchar(3)')
          .addColumn('multicurrency_code', 'varchar(3)')
          .addColumn('note_private', ty.text)
          .addColumn('note_public', ty.text)
          .addColumn('model_pdf', 'varchar(255)')
          .addColumn('last_main_doc', 'varchar(255)')
          .addColumn('import_key', 'varchar(14)')
          .addColumn('extraparams', 'varchar(255)')
          .addColumn('tms', ty.datetime);

      await commercial('commande')
        .addColumn('date_creation', ty.datetime)
        .addColumn('date_valid', ty.datetime)
        .addColumn('date_cloture', ty.datetime)
        .addColumn('date_commande', ty.date)
        .addColumn('date_livraison', ty.datetime)
        .addColumn('fk_user_cloture', 'integer')
        .addColumn('facture', ty.smallint, (c) => c.defaultTo(0))
        .addColumn('signed_status', ty.smallint)
        .execute();
      await commercial('facture')
        .addColumn('type', ty.smallint, (c) => c.notNull().defaultTo(0))
        .addColumn('ref_int', 'varchar(255)')
        .addColumn('datec', ty.datetime)
        .addColumn('datef', ty.date)
        .addColumn('date_valid', ty.datetime)
        .addColumn('date_closing', ty.datetime)
        .addColumn('date_lim_reglement', ty.date)
        .addColumn('paye', ty.smallint, (c) => c.notNull().defaultTo(0))
        .addColumn('close_code', 'varchar(16)')
        .addColumn('close_note', 'varchar(128)')
        .addColumn('fk_facture_source', 'integer')
        .addColumn('fk_user_closing', 'integer')
        .addColumn('revenuestamp', ty.amount, (c) => c.defaultTo(0))
        .execute();
      await commercial('propal')
        .addColumn('ref_int', 'varchar(255)')
        .addColumn('datec', ty.datetime)
        .addColumn('datep', ty.date)
        .addColumn('fin_validite', ty.datetime)
        .addColumn('date_valid', ty.datetime)
        .addColumn('date_cloture', ty.datetime)
        .addColumn('date_signature', ty.datetime)
        .addColumn('date_livraison', ty.date)
        .addColumn('fk_user_cloture', 'integer')
        .addColumn('fk_user_signature', 'integer')
        .addColumn('online_sign_ip', 'varchar(48)')
        .addColumn('online_sign_name', 'varchar(64)')
        .execute();
      for (const name of ['commande', 'facture', 'propal']) {
        await unique(`uk_${name}_ref`, name, ['ref', 'entity']);
        await index(`idx_${name}_fk_soc`, name, ['fk_soc']);
      }

      await table('ecm_files')
        .addColumn('ref', 'varchar(128)')
        .addColumn('label', 'varchar(128)', (c) => c.notNull())
        .addColumn('share', 'varchar(128)')
        .addColumn('share_pass', 'varchar(32)')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('filepath', 'varchar(255)', (c) => c.notNull())
        .addColumn('filename', 'varchar(255)', (c) => c.notNull())
        .addColumn('src_object_type', 'varchar(64)')
        .addColumn('src_object_id', 'integer')
        .addColumn('fullpath_orig', 'varchar(750)')
        .addColumn('description', ty.text)
        .addColumn('keywords', 'varchar(750)')
        .addColumn('cover', ty.text)
        .addColumn('position', 'integer')
        .addColumn('gen_or_uploaded', 'varchar(12)')
        .addColumn('extraparams', 'varchar(255)')
        .addColumn('date_c', ty.datetime)
        .addColumn('tms', ty.datetime)
        .addColumn('fk_user_c', 'integer')
        .addColumn('fk_user_m', 'integer')
        .addColumn('note_private', ty.text)
        .addColumn('note_public', ty.text)
        .addColumn('acl', ty.text)
        .execute();
      await unique('uk_ecm_files', 'ecm_files', ['filepath', 'filename', 'entity']);
      await index('idx_ecm_files_label', 'ecm_files', ['label']);

      await table('element_element')
        .addColumn('fk_source', 'integer', (c) => c.notNull())
        .addColumn('sourcetype', 'varchar(64)', (c) => c.notNull())
        .addColumn('fk_target', 'integer', (c) => c.notNull())
        .addColumn('targettype', 'varchar(64)', (c) => c.notNull())
        .addColumn('relationtype', 'varchar(64)')
        .execute();
      await unique('uk_element_element', 'element_element', ['fk_source', 'sourcetype', 'fk_target', 'targettype']);

      // What Dolibarr's installer writes (entity 0): hashing with password_hash, an install salt.
      const installedAt = toDbDateTime().replace(/\D/g, '').slice(0, 14);
      await db
        .insertInto('const')
        .values([
          { name: 'MAIN_SECURITY_HASH_ALGO', entity: 0, value: 'password_hash', type: 'chaine', visible: 0 },
          { name: 'MAIN_SECURITY_SALT', entity: 0, value: installedAt, type: 'chaine', visible: 0 },
          { name: 'DATABASE_PWD_ENCRYPTED', entity: 0, value: '1', type: 'chaine', visible: 0 },
          {
            name: STANDALONE_MARKER,
            entity: 0,
            value: '1',
            type: 'chaine',
            visible: 0,
            note: 'Dolibarr tables created by fieldreport (standalone)',
          },
        ])
        .execute();
    },
  };
}
