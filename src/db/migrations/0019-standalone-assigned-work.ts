/**
 * Work the office gives a user the Dolibarr way (docs/architecture.md, Visibility): on the
 * Dolibarr tables this service created itself (the standalone default), the internal contact types
 * and the indexes a real Dolibarr 22 has for it; a real Dolibarr database is left alone (its
 * installer wrote the same rows and keys, and the Dolibarr module adds TECHNICIAN there).
 * - `c_type_contact`: Dolibarr's internal types of orders, invoices and proposals (SALESREPFOLL,
 *   from install/mysql/data/llx_c_type_contact.sql) and the Dolibarr module's TECHNICIAN for
 *   orders, as its activation writes it (modBericht::init: module 'bericht', label 'Techniker');
 * - the keys Dolibarr reads them by (install/mysql/tables/*.key.sql): a user's contacts
 *   (`idx_element_contact_fk_socpeople`), the events a user owns (`idx_actioncomm_fk_user_action`)
 *   or attends (`idx_actioncomm_resources_fk_element`), and events by date (`idx_actioncomm_datep`).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { schemaTools, isStandalone } from './helpers.js';

/**
 * The internal contact types added, with Dolibarr's installer's labels and the row ids its older
 * data files gave them (as migration 0013 gives the customer types theirs); TECHNICIAN takes the
 * next id, as a module's insert does.
 */
export const INTERNAL_CONTACT_TYPES = [
  { rowid: 91, element: 'commande', source: 'internal', code: 'SALESREPFOLL', libelle: 'Responsable suivi de la commande', module: null },
  { rowid: 50, element: 'facture', source: 'internal', code: 'SALESREPFOLL', libelle: 'Responsable suivi du paiement', module: null },
  { rowid: 31, element: 'propal', source: 'internal', code: 'SALESREPFOLL', libelle: "Commercial à l'origine de la propale", module: null },
  { rowid: undefined, element: 'commande', source: 'internal', code: 'TECHNICIAN', libelle: 'Techniker', module: 'bericht' },
] as const;

export function standaloneAssignedWork(dialect: Dialect, prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (!(await isStandalone(db))) return;
      const dolibarr = schemaTools(db, dialect, prefix, 'database');
      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      for (const type of INTERNAL_CONTACT_TYPES) {
        const known = await db
          .selectFrom('c_type_contact')
          .select('rowid')
          .where('element', '=', type.element)
          .where('source', '=', type.source)
          .where('code', '=', type.code)
          .executeTakeFirst();
        if (known) continue;
        const { rowid, ...columns } = type;
        // PostgreSQL's sequence does not see the ids given; the module's own type takes the next free one.
        const next =
          rowid ??
          Number(
            (
              await db
                .selectFrom('c_type_contact')
                .select((eb) => eb.fn.max('rowid').as('n'))
                .executeTakeFirst()
            )?.n ?? 0,
          ) + 1;
        await db
          .insertInto('c_type_contact')
          .values({ rowid: next, ...columns, active: 1, position: 0 })
          .execute();
      }
      await dolibarr.index('idx_element_contact_fk_socpeople', 'element_contact', ['fk_socpeople']);
      await dolibarr.index('idx_actioncomm_fk_user_action', 'actioncomm', ['fk_user_action']);
      await dolibarr.index('idx_actioncomm_datep', 'actioncomm', ['datep']);
      await dolibarr.index('idx_actioncomm_resources_fk_element', 'actioncomm_resources', ['fk_element']);
    },
  };
}
