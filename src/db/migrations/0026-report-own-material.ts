/**
 * A report lists the material lines of its own visit (docs/features.md, Out of the van): those it
 * or an earlier version of it settled (`bericht_material.fk_bericht`), for a draft also those no
 * report settled yet. Reports finalized before this listed every line of their object, and their
 * PDFs and signatures' sign-offs show them so: `bericht.all_material` 1 keeps that for them (and
 * for new versions made of them), so the check of such a signature compares with what was signed.
 * 0 for every other report.
 */
import type { Kysely } from 'kysely';

export function reportOwnMaterial(prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const tables = await db.introspection.getTables();
      const columns = new Set(tables.find((t) => t.name === `${prefix}bericht`)?.columns.map((c) => c.name) ?? []);
      if (!columns.has('all_material'))
        await db.schema
          .alterTable('bericht')
          .addColumn('all_material', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      // Run whole each time, even after a run cut short after its DDL: nothing serves meanwhile.
      await db.updateTable('bericht').set({ all_material: 1 }).where('status', '=', 1).execute();
    },
  };
}
