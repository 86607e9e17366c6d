/**
 * The third party's document language (`llx_societe.default_lang`, varchar(6) as Dolibarr defines
 * it: de_DE, en_US …) on the Dolibarr tables this service created itself (the standalone default);
 * a real Dolibarr database has the column already and is left alone. The fixed texts of a report's
 * PDF follow it.
 */
import type { Kysely } from 'kysely';
import { isStandalone } from './helpers.js';

export function standaloneSocieteLang(prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (!(await isStandalone(db))) return;
      // Only when missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const table = (await db.introspection.getTables()).find((t) => t.name === `${prefix}societe`);
      if (table?.columns.some((c) => c.name === 'default_lang')) return;
      await db.schema.alterTable('societe').addColumn('default_lang', 'varchar(6)').execute();
    },
  };
}
