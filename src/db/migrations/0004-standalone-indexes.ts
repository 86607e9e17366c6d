/**
 * Indexes on the Dolibarr tables this service created itself (the standalone default); on a real
 * Dolibarr database this changes nothing: its tables are Dolibarr's to define.
 * - "Newest first" lists: orders by date_commande, invoices by datef, proposals by datep, each with
 *   rowid, so a page of 50 reads 50 index entries instead of sorting every row (on PostgreSQL in the
 *   lists' order, DESC NULLS LAST).
 * - Who is named on an object: each fk_user_* column the visibility rule compares, as Dolibarr
 *   indexes author, validator and closer; with all of them indexed, the OR over them is answered
 *   from the indexes instead of a scan of every row.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { schemaTools, isStandalone } from './helpers.js';

const DATE_COLUMNS = [
  ['commande', 'date_commande'],
  ['facture', 'datef'],
  ['propal', 'datep'],
] as const;

const USER_COLUMNS = {
  commande: ['fk_user_author', 'fk_user_valid', 'fk_user_modif', 'fk_user_cloture'],
  facture: ['fk_user_author', 'fk_user_valid', 'fk_user_modif', 'fk_user_closing'],
  propal: ['fk_user_author', 'fk_user_valid', 'fk_user_modif', 'fk_user_cloture', 'fk_user_signature'],
} as const;

export function standaloneIndexes(dialect: Dialect, prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (!(await isStandalone(db))) return;
      const { index } = schemaTools(db, dialect, prefix);
      for (const [table, column] of DATE_COLUMNS) {
        if (dialect === 'postgres') {
          await sql`create index if not exists ${sql.id(`${prefix}idx_${table}_${column}_newest`)} on ${sql.table(table)} (${sql.id(column)} desc nulls last, rowid desc)`.execute(
            db,
          );
        } else {
          await index(`idx_${table}_${column}_newest`, table, [column, 'rowid']);
        }
        for (const userColumn of USER_COLUMNS[table]) await index(`idx_${table}_${userColumn}`, table, [userColumn]);
      }
    },
  };
}
