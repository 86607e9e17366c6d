/**
 * What each final report billed (docs/dolibarr-writes.md, A draft invoice), on every database:
 * - `bericht_material.fk_bericht`: the final report that settled the line (the one that printed it
 *   when parts left the van), as `bericht_time.fk_bericht` already says for the time on site; null
 *   while no final report took it, and for lines settled before this column (their report is not
 *   known: a draft made later from such a report bills its time only);
 * - `bericht.fk_fichinter` and `bericht.fk_facture`: the intervention and the customer invoice the
 *   report's time and parts went on (the drafts the service made or completed at finalize; the
 *   invoice also the one the office made from the report's tab); null while they are on none.
 *   The final reports of orders from before the column: the intervention and the draft invoice the
 *   service made from the report (their `ref_ext`), the invoice else 0: billed, if at all, before
 *   anyone could tell, so the tab never offers to bill them again. Indexed for the tabs of an
 *   invoice and an intervention, which list the reports that went on them.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { schemaTools } from './helpers.js';

export function reportInvoice(dialect: Dialect, prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const tables = await db.introspection.getTables();
      const columns = (name: string) => new Set(tables.find((t) => t.name === `${prefix}${name}`)?.columns.map((c) => c.name) ?? []);
      if (!columns('bericht_material').has('fk_bericht'))
        await db.schema.alterTable('bericht_material').addColumn('fk_bericht', 'integer').execute();
      for (const column of ['fk_fichinter', 'fk_facture'])
        if (!columns('bericht').has(column)) await db.schema.alterTable('bericht').addColumn(column, 'integer').execute();
      // The tab and the badge of an invoice or an intervention find the reports that went on it.
      const { index } = schemaTools(db, dialect, prefix);
      await index('idx_bericht_facture', 'bericht', ['fk_facture']);
      await index('idx_bericht_fichinter', 'bericht', ['fk_fichinter']);
      await index('idx_bericht_material_bericht', 'bericht_material', ['fk_bericht']);

      // The reports from before: what the service made from each (its ref_ext), the invoice else 0.
      // Run whole each time, even after a run cut short after its DDL: nothing serves meanwhile.
      const madeFrom = async (table: 'facture' | 'fichinter', column: 'fk_facture' | 'fk_fichinter') => {
        // A database without Dolibarr's invoices or interventions (or their ref_ext) has none the service made.
        if (!columns(table).has('ref_ext')) return;
        const made = await db
          .selectFrom(table)
          .select(['rowid', 'entity', 'ref_ext'])
          .where('ref_ext', 'like', 'fieldreport:%')
          .orderBy('rowid')
          .execute();
        for (const row of made)
          await db
            .updateTable('bericht')
            .set({ [column]: row.rowid })
            .where('ref', '=', String(row.ref_ext).slice('fieldreport:'.length))
            .where('entity', '=', row.entity)
            .where('status', '=', 1)
            .where('element_type', '=', 'commande')
            .where(column, 'is', null)
            .execute();
      };
      await madeFrom('facture', 'fk_facture');
      await madeFrom('fichinter', 'fk_fichinter');
      await db
        .updateTable('bericht')
        .set({ fk_facture: 0 })
        .where('status', '=', 1)
        .where('element_type', '=', 'commande')
        .where('fk_facture', 'is', null)
        .execute();
    },
  };
}
