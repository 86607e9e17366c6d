/**
 * What each final report billed (docs/dolibarr-writes.md, A draft invoice), on every database:
 * - `bericht_material.fk_bericht`: the final report that settled the line (the one that printed it
 *   when parts left the van), as `bericht_time.fk_bericht` already says for the time on site; null
 *   while no final report took it, and for lines settled before this column (their report is not
 *   known: a draft made later from such a report bills its time only);
 * - `bericht.fk_fichinter` and `bericht.fk_facture`: the intervention and the customer invoice the
 *   report's time and parts went on (the drafts the service made or completed at finalize; the
 *   invoice also the one the office made from the report's tab); null while they are on none.
 */
import type { Kysely } from 'kysely';

export function reportInvoice(prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const tables = await db.introspection.getTables();
      const columns = (name: string) => new Set(tables.find((t) => t.name === `${prefix}${name}`)?.columns.map((c) => c.name) ?? []);
      if (!columns('bericht_material').has('fk_bericht'))
        await db.schema.alterTable('bericht_material').addColumn('fk_bericht', 'integer').execute();
      for (const column of ['fk_fichinter', 'fk_facture'])
        if (!columns('bericht').has(column)) await db.schema.alterTable('bericht').addColumn(column, 'integer').execute();
    },
  };
}
