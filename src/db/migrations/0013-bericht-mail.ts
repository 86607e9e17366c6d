/**
 * Delivery: a report sent by e-mail, and what Dolibarr needs to see it.
 * - `bericht_mail` (always): one row per mail to send, a durable job. `state` is `queued`,
 *   `sending` (a process holds it until `lease_until`), `sent` (with the server's `message_id`)
 *   or `failed` (with `error_code` and the reason in words). `attempts` and `next_attempt_at` drive
 *   the retries; `expires_at` ends them. `fk_actioncomm` is the event recorded in Dolibarr's
 *   agenda once it is sent; `ip` the address the send came from (Dolibarr keeps it with the event).
 *   Times in UTC, as in every module table.
 * - On the Dolibarr tables this service created itself (the standalone default), the subset of
 *   Dolibarr's that a real Dolibarr has and delivery reads or writes, with Dolibarr's names and
 *   columns (install/mysql/tables/*.sql of Dolibarr 22): contacts (`socpeople`), an object's
 *   contacts (`element_contact`, `c_type_contact` with the customer rows of orders, invoices and
 *   proposals), and the agenda (`actioncomm`, `actioncomm_resources`, `c_actioncomm` with the
 *   system rows Dolibarr's installer writes). A real Dolibarr database is left alone.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes, tableOptions } from '../dialect.js';
import { idColumn, schemaTools, isStandalone } from './helpers.js';

/** The contact types of customer objects, as Dolibarr's installer writes them (llx_c_type_contact.sql). */
export const CONTACT_TYPES = [
  { rowid: 100, element: 'commande', source: 'external', code: 'CUSTOMER', libelle: 'Customer contact' },
  { rowid: 101, element: 'commande', source: 'external', code: 'BILLING', libelle: 'Customer invoice contact' },
  { rowid: 102, element: 'commande', source: 'external', code: 'SHIPPING', libelle: 'Customer shipping contact' },
  { rowid: 60, element: 'facture', source: 'external', code: 'BILLING', libelle: 'Customer invoice contact' },
  { rowid: 61, element: 'facture', source: 'external', code: 'SHIPPING', libelle: 'Customer shipping contact' },
  { rowid: 62, element: 'facture', source: 'external', code: 'SERVICE', libelle: 'Customer contact for services' },
  { rowid: 40, element: 'propal', source: 'external', code: 'BILLING', libelle: 'Customer invoice contact' },
  { rowid: 41, element: 'propal', source: 'external', code: 'CUSTOMER', libelle: 'Customer contact' },
  { rowid: 42, element: 'propal', source: 'external', code: 'SHIPPING', libelle: 'Customer contact for delivery' },
] as const;

/** The event types Dolibarr's installer writes (llx_c_actioncomm.sql), those the agenda needs here. */
const ACTION_TYPES = [
  { id: 1, code: 'AC_TEL', libelle: 'Phone call', type: 'system', active: 1, position: 2 },
  { id: 4, code: 'AC_EMAIL', libelle: 'Send Email', type: 'system', active: 0, position: 4 },
  { id: 5, code: 'AC_RDV', libelle: 'Rendez-vous', type: 'system', active: 1, position: 1 },
  { id: 11, code: 'AC_INT', libelle: 'Intervention on site', type: 'system', active: 1, position: 4 },
  { id: 40, code: 'AC_OTH_AUTO', libelle: 'Other (automatically inserted events)', type: 'systemauto', active: 1, position: 20 },
  { id: 50, code: 'AC_OTH', libelle: 'Other (manually inserted events)', type: 'system', active: 1, position: 5 },
];

export function berichtMail(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  const long = dialect === 'mysql' ? sql`mediumtext` : ty.text;
  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);
      await table('bericht_mail')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('fk_bericht', 'integer', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('mail_to', ty.text, (c) => c.notNull())
        .addColumn('mail_cc', ty.text)
        .addColumn('mail_bcc', ty.text)
        .addColumn('subject', 'varchar(255)', (c) => c.notNull())
        .addColumn('body', long, (c) => c.notNull())
        .addColumn('lang', 'varchar(6)')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', ty.datetime, (c) => c.notNull())
        .addColumn('expires_at', ty.datetime, (c) => c.notNull())
        .addColumn('lease_owner', 'varchar(64)')
        .addColumn('lease_until', ty.datetime)
        .addColumn('message_id', 'varchar(255)')
        .addColumn('server_response', 'varchar(1000)')
        .addColumn('error_code', 'varchar(40)')
        .addColumn('error', 'varchar(1000)')
        .addColumn('fk_actioncomm', 'integer')
        .addColumn('fk_user_author', 'integer', (c) => c.notNull())
        .addColumn('ip', 'varchar(250)')
        .addColumn('datec', ty.datetime, (c) => c.notNull())
        .addColumn('date_sent', ty.datetime)
        .addColumn('tms', ty.datetime)
        .execute();
      await index('idx_bericht_mail_bericht', 'bericht_mail', ['fk_bericht']);
      await index('idx_bericht_mail_due', 'bericht_mail', ['state', 'next_attempt_at']);

      if (!(await isStandalone(db))) return;
      const dolibarr = schemaTools(db, dialect, prefix, 'database');

      await dolibarr
        .table('socpeople')
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .addColumn('fk_soc', 'integer')
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('civility', 'varchar(6)')
        .addColumn('lastname', 'varchar(50)')
        .addColumn('firstname', 'varchar(50)')
        .addColumn('poste', 'varchar(255)')
        .addColumn('email', 'varchar(255)')
        .addColumn('phone', 'varchar(30)')
        .addColumn('phone_mobile', 'varchar(30)')
        .addColumn('default_lang', 'varchar(6)')
        .addColumn('statut', ty.smallint, (c) => c.notNull().defaultTo(1))
        .addColumn('fk_user_creat', 'integer')
        .execute();
      await dolibarr.index('idx_socpeople_fk_soc', 'socpeople', ['fk_soc']);

      await dolibarr
        .table('c_type_contact')
        .addColumn('element', 'varchar(64)', (c) => c.notNull())
        .addColumn('source', 'varchar(8)', (c) => c.notNull().defaultTo('external'))
        .addColumn('code', 'varchar(32)', (c) => c.notNull())
        .addColumn('libelle', 'varchar(128)', (c) => c.notNull())
        .addColumn('active', ty.smallint, (c) => c.notNull().defaultTo(1))
        .addColumn('module', 'varchar(32)')
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await dolibarr.index('uk_c_type_contact_id', 'c_type_contact', ['element', 'source', 'code'], true);

      await dolibarr
        .table('element_contact')
        .addColumn('datecreate', ty.datetime)
        .addColumn('statut', ty.smallint, (c) => c.defaultTo(5))
        .addColumn('element_id', 'integer', (c) => c.notNull())
        .addColumn('fk_c_type_contact', 'integer', (c) => c.notNull())
        .addColumn('fk_socpeople', 'integer', (c) => c.notNull())
        .execute();
      await dolibarr.index('idx_element_contact_idx1', 'element_contact', ['element_id', 'fk_c_type_contact', 'fk_socpeople'], true);

      // Dolibarr's own key is `id`, not `rowid`.
      const opts = tableOptions(dialect, 'database');
      const withOpts = <T extends { modifyEnd(s: any): T }>(b: T) => (opts ? b.modifyEnd(opts) : b);
      await withOpts(
        idColumn(db.schema.createTable('actioncomm').ifNotExists(), dialect, 'id')
          .addColumn('ref', 'varchar(30)', (c) => c.notNull())
          .addColumn('ref_ext', 'varchar(255)')
          .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('datep', ty.datetime)
          .addColumn('datep2', ty.datetime)
          .addColumn('fk_action', 'integer')
          .addColumn('code', 'varchar(50)')
          .addColumn('datec', ty.datetime)
          .addColumn('tms', ty.datetime)
          .addColumn('fk_user_author', 'integer')
          .addColumn('fk_user_mod', 'integer')
          .addColumn('fk_project', 'integer')
          .addColumn('fk_soc', 'integer')
          .addColumn('fk_contact', 'integer')
          .addColumn('fk_parent', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('fk_user_action', 'integer')
          .addColumn('transparency', 'integer')
          .addColumn('priority', ty.smallint)
          .addColumn('visibility', 'varchar(12)', (c) => c.defaultTo('default'))
          .addColumn('fulldayevent', ty.smallint, (c) => c.notNull().defaultTo(0))
          .addColumn('percent', ty.smallint, (c) => c.notNull().defaultTo(0))
          .addColumn('location', 'varchar(128)')
          .addColumn('durationp', 'real')
          .addColumn('label', 'varchar(255)', (c) => c.notNull())
          .addColumn('note', long)
          .addColumn('email_subject', 'varchar(255)')
          .addColumn('email_msgid', 'varchar(255)')
          .addColumn('email_from', 'varchar(255)')
          .addColumn('email_sender', 'varchar(255)')
          .addColumn('email_to', 'varchar(255)')
          .addColumn('email_tocc', 'varchar(255)')
          .addColumn('email_tobcc', 'varchar(255)')
          .addColumn('errors_to', 'varchar(255)')
          .addColumn('reply_to', 'varchar(255)')
          .addColumn('status', ty.smallint, (c) => c.notNull().defaultTo(0))
          .addColumn('fk_element', 'integer')
          .addColumn('elementtype', 'varchar(255)')
          .addColumn('ip', 'varchar(250)')
          .addColumn('import_key', 'varchar(14)')
          .addColumn('extraparams', 'varchar(255)'),
      ).execute();
      await dolibarr.index('idx_actioncomm_fk_element', 'actioncomm', ['fk_element']);
      await dolibarr.index('idx_actioncomm_fk_soc', 'actioncomm', ['fk_soc']);

      await dolibarr
        .table('actioncomm_resources')
        .addColumn('fk_actioncomm', 'integer', (c) => c.notNull())
        .addColumn('element_type', 'varchar(50)', (c) => c.notNull())
        .addColumn('fk_element', 'integer', (c) => c.notNull())
        .addColumn('answer_status', 'varchar(50)')
        .addColumn('mandatory', ty.smallint)
        .addColumn('transparency', ty.smallint, (c) => c.defaultTo(1))
        .execute();
      await dolibarr.index('uk_actioncomm_resources', 'actioncomm_resources', ['fk_actioncomm', 'element_type', 'fk_element'], true);

      await withOpts(
        db.schema
          .createTable('c_actioncomm')
          .ifNotExists()
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('code', 'varchar(50)', (c) => c.notNull())
          .addColumn('type', 'varchar(50)', (c) => c.notNull().defaultTo('system'))
          .addColumn('libelle', 'varchar(128)', (c) => c.notNull())
          .addColumn('module', 'varchar(50)')
          .addColumn('active', ty.smallint, (c) => c.notNull().defaultTo(1))
          .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0)),
      ).execute();

      // Only when missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      if (!(await db.selectFrom('c_actioncomm').select('id').executeTakeFirst()))
        await db.insertInto('c_actioncomm').values(ACTION_TYPES).execute();
      if (!(await db.selectFrom('c_type_contact').select('rowid').executeTakeFirst())) {
        await db
          .insertInto('c_type_contact')
          .values(CONTACT_TYPES.map((t) => ({ ...t, active: 1, position: 10 })))
          .execute();
      }
    },
  };
}
