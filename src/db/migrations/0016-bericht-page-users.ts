/**
 * Who added and who last changed a page: `bericht_page.fk_user_creat` and `fk_user_modif`, as
 * Dolibarr's own tables name them. Both nullable: pages made before this migration stay without
 * (the final PDF's evidence sheet says "not recorded" for them), and a signature page names its
 * people in its signature's metadata instead. Recorded from now on by adding, changing and
 * answering a page, and by copying pages into a new report or version.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';

export function berichtPageUsers(_dialect: Dialect, prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const page = (await db.introspection.getTables()).find((t) => t.name === `${prefix}bericht_page`);
      for (const column of ['fk_user_creat', 'fk_user_modif']) {
        if (!page?.columns.some((c) => c.name === column))
          await db.schema.alterTable('bericht_page').addColumn(column, 'integer').execute();
      }
    },
  };
}
