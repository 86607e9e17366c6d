/**
 * Parts out of the van (docs/dolibarr-writes.md):
 * - on every database, a material line's part in it (`bericht_material.fk_stock_mouvement`): the
 *   stock movement that took the line out of the van, 0 when the line was settled without one (a
 *   service, free text, no van, a Dolibarr rule that takes it itself), null while not yet settled;
 *   the lines of an object that already has a final report are settled with 0 (printed before);
 * - on the Dolibarr tables this service created itself (the standalone default), Dolibarr 22's
 *   stock movements `llx_stock_mouvement`, its lots `llx_product_lot` and its kits
 *   `llx_product_association` (install/mysql/tables/*.sql with their keys), and the modules a
 *   Dolibarr with a van's stock has on (`MAIN_MODULE_STOCK`, `MAIN_MODULE_PRODUCTBATCH`). A real
 *   Dolibarr database is left alone: its installer made the same tables, its office the modules.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools, isStandalone } from './helpers.js';

export function stockMovements(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const tables = await db.introspection.getTables();
      const material = new Set(tables.find((t) => t.name === `${prefix}bericht_material`)?.columns.map((c) => c.name) ?? []);
      if (!material.has('fk_stock_mouvement'))
        await db.schema.alterTable('bericht_material').addColumn('fk_stock_mouvement', 'integer').execute();
      // The lines of an object a report was already finalized on count as settled: they were printed
      // (and may have been billed) before parts left the van; only what no final report showed yet
      // leaves it with the next one.
      await db
        .updateTable('bericht_material')
        .set({ fk_stock_mouvement: 0 })
        .where('fk_stock_mouvement', 'is', null)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('bericht as b')
              .select('b.rowid')
              .whereRef('b.entity', '=', 'bericht_material.entity')
              .whereRef('b.element_type', '=', 'bericht_material.element_type')
              .whereRef('b.fk_element', '=', 'bericht_material.fk_element')
              .where('b.status', '=', 1),
          ),
        )
        .execute();

      if (!(await isStandalone(db))) return;
      const { table, index } = schemaTools(db, dialect, prefix, 'database');
      await table('stock_mouvement')
        .addColumn('tms', ty.datetime)
        .addColumn('datem', ty.datetime)
        .addColumn('fk_product', 'integer', (c) => c.notNull())
        .addColumn('batch', 'varchar(128)')
        .addColumn('eatby', ty.date)
        .addColumn('sellby', ty.date)
        .addColumn('fk_entrepot', 'integer', (c) => c.notNull())
        .addColumn('value', 'real')
        .addColumn('price', ty.amount, (c) => c.defaultTo(0))
        .addColumn('type_mouvement', ty.smallint)
        .addColumn('fk_user_author', 'integer')
        .addColumn('label', 'varchar(255)')
        .addColumn('inventorycode', 'varchar(128)')
        .addColumn('fk_project', 'integer')
        .addColumn('fk_origin', 'integer')
        .addColumn('origintype', 'varchar(64)')
        .addColumn('model_pdf', 'varchar(255)')
        .addColumn('fk_projet', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await index('idx_stock_mouvement_fk_product', 'stock_mouvement', ['fk_product']);
      await index('idx_stock_mouvement_fk_entrepot', 'stock_mouvement', ['fk_entrepot']);

      await table('product_lot')
        .addColumn('entity', 'integer', (c) => c.defaultTo(1))
        .addColumn('fk_product', 'integer', (c) => c.notNull())
        .addColumn('batch', 'varchar(128)')
        .addColumn('note_public', ty.text)
        .addColumn('note_private', ty.text)
        .addColumn('eatby', ty.date)
        .addColumn('sellby', ty.date)
        .addColumn('eol_date', ty.datetime)
        .addColumn('manufacturing_date', ty.datetime)
        .addColumn('scrapping_date', ty.datetime)
        .addColumn('qc_frequency', 'integer')
        .addColumn('lifetime', 'integer')
        .addColumn('barcode', 'varchar(180)')
        .addColumn('fk_barcode_type', 'integer')
        .addColumn('model_pdf', 'varchar(255)')
        .addColumn('last_main_doc', 'varchar(255)')
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .addColumn('fk_user_creat', 'integer')
        .addColumn('fk_user_modif', 'integer')
        .addColumn('import_key', 'integer')
        .execute();
      await index('uk_product_lot', 'product_lot', ['fk_product', 'batch'], true);

      await table('product_association')
        .addColumn('fk_product_pere', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('fk_product_fils', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('qty', ty.double)
        .addColumn('incdec', 'integer', (c) => c.defaultTo(1))
        .addColumn('rang', 'integer', (c) => c.defaultTo(0))
        .addColumn('import_key', 'varchar(14)')
        .execute();
      await index('uk_product_association', 'product_association', ['fk_product_pere', 'fk_product_fils'], true);
      await index('idx_product_association_fils', 'product_association', ['fk_product_fils']);

      // The modules of a Dolibarr that keeps a van's stock with lots, as enabling them in its setup leaves them (for every entity here).
      const on = new Set(
        (await db.selectFrom('const').select('name').where('name', 'in', ['MAIN_MODULE_STOCK', 'MAIN_MODULE_PRODUCTBATCH']).execute()).map(
          (r) => r.name as string,
        ),
      );
      for (const name of ['MAIN_MODULE_STOCK', 'MAIN_MODULE_PRODUCTBATCH'])
        if (!on.has(name)) await db.insertInto('const').values({ name, entity: 0, value: '1', type: 'chaine', visible: 0 }).execute();
    },
  };
}
