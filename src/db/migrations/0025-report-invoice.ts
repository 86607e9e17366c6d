/**
 * What each final report billed (docs/dolibarr-writes.md, A draft invoice), on every database:
 * - `bericht_material.fk_bericht`: the final report that settled the line (the one that printed it
 *   when parts left the van), as `bericht_time.fk_bericht` already says for the time on site; null
 *   while no final report took it, and for lines settled before this column (their report is not
 *   known: a draft made later from such a report bills its time only);
 * - `bericht.fk_fichinter` and `bericht.fk_facture`: the intervention and the customer invoice the
 *   report's time and parts went on (the drafts the service made or completed at finalize; the
 *   invoice also the one the office made from the report's tab); null while they are on none.
 *   The final reports of orders from before the column: the draft invoice the service made from the
 *   report (its `ref_ext`), else 0: billed, if at all, before anyone could tell, so the tab never
 *   offers to bill them again.
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
      const fresh = !columns('bericht').has('fk_facture');
      for (const column of ['fk_fichinter', 'fk_facture'])
        if (!columns('bericht').has(column)) await db.schema.alterTable('bericht').addColumn(column, 'integer').execute();
      if (!fresh) return;
      // A database without Dolibarr's invoices (or their ref_ext) has none the service made.
      const made = !columns('facture').has('ref_ext')
        ? []
        : await db
            .selectFrom('facture')
            .select(['rowid', 'entity', 'ref_ext'])
            .where('ref_ext', 'like', 'fieldreport:%')
            .orderBy('rowid')
            .execute();
      for (const invoice of made)
        await db
          .updateTable('bericht')
          .set({ fk_facture: invoice.rowid })
          .where('ref', '=', String(invoice.ref_ext).slice('fieldreport:'.length))
          .where('entity', '=', invoice.entity)
          .where('status', '=', 1)
          .where('element_type', '=', 'commande')
          .where('fk_facture', 'is', null)
          .execute();
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
