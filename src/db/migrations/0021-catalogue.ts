/**
 * The catalogue a technician takes parts from, and the van they come out of:
 * - on the Dolibarr tables this service created itself (the standalone default), Dolibarr 22's
 *   `llx_product` (products and services; install/mysql/tables/llx_product.sql with its keys),
 *   `llx_c_units` with Dolibarr's units (install/mysql/data/llx_c_units.sql), the warehouses
 *   `llx_entrepot`, the stock per warehouse `llx_product_stock`, the lots and serial numbers in
 *   stock `llx_product_batch`, and the user's default warehouse `llx_user.fk_warehouse` (his van).
 *   A real Dolibarr database is left alone: its installer made the same tables and rows;
 * - on every database, a material line's product (`bericht_material.fk_product`), its unit as
 *   Dolibarr's (`fk_unit`, llx_c_units) and its lot or serial number (`batch`); a line without a
 *   product is free text, as every line before this was.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools, isStandalone } from './helpers.js';

/** Dolibarr's units (llx_c_units.sql): code, sortorder, scale, label, short_label, unit_type. */
export const DOLIBARR_UNITS: ReadonlyArray<readonly [string, number, number, string, string, string]> = [
  ['T', 100, 3, 'WeightUnitton', 'T', 'weight'],
  ['KG', 110, 0, 'WeightUnitkg', 'kg', 'weight'],
  ['G', 120, -3, 'WeightUnitg', 'g', 'weight'],
  ['MG', 130, -6, 'WeightUnitmg', 'mg', 'weight'],
  ['OZ', 140, 98, 'WeightUnitounce', 'Oz', 'weight'],
  ['LB', 150, 99, 'WeightUnitpound', 'lb', 'weight'],
  ['M', 200, 0, 'SizeUnitm', 'm', 'size'],
  ['DM', 210, -1, 'SizeUnitdm', 'dm', 'size'],
  ['CM', 220, -2, 'SizeUnitcm', 'cm', 'size'],
  ['MM', 230, -3, 'SizeUnitmm', 'mm', 'size'],
  ['FT', 240, 98, 'SizeUnitfoot', 'ft', 'size'],
  ['IN', 250, 99, 'SizeUnitinch', 'in', 'size'],
  ['M2', 300, 0, 'SurfaceUnitm2', 'm2', 'surface'],
  ['DM2', 310, -2, 'SurfaceUnitdm2', 'dm2', 'surface'],
  ['CM2', 320, -4, 'SurfaceUnitcm2', 'cm2', 'surface'],
  ['MM2', 330, -6, 'SurfaceUnitmm2', 'mm2', 'surface'],
  ['FT2', 340, 98, 'SurfaceUnitfoot2', 'ft2', 'surface'],
  ['IN2', 350, 99, 'SurfaceUnitinch2', 'in2', 'surface'],
  ['M3', 400, 0, 'VolumeUnitm3', 'm3', 'volume'],
  ['DM3', 410, -3, 'VolumeUnitdm3', 'dm3', 'volume'],
  ['CM3', 420, -6, 'VolumeUnitcm3', 'cm3', 'volume'],
  ['MM3', 430, -9, 'VolumeUnitmm3', 'mm3', 'volume'],
  ['FT3', 440, 88, 'VolumeUnitfoot3', 'ft3', 'volume'],
  ['IN3', 450, 89, 'VolumeUnitinch3', 'in3', 'volume'],
  ['OZ3', 460, 97, 'VolumeUnitounce', 'Oz', 'volume'],
  ['L', 470, 98, 'VolumeUnitlitre', 'L', 'volume'],
  ['GAL', 480, 99, 'VolumeUnitgallon', 'gal', 'volume'],
  ['P', 500, 0, 'Piece', 'p', 'qty'],
  ['SET', 510, 0, 'Set', 'set', 'qty'],
  ['S', 600, 1, 'second', 's', 'time'],
  ['MI', 610, 60, 'minute', 'mn', 'time'],
  ['H', 620, 3600, 'hour', 'h', 'time'],
  ['D', 630, 86400, 'day', 'd', 'time'],
  ['W', 640, 604800, 'week', 'w', 'time'],
  ['MO', 650, 2629800, 'month', 'm', 'time'],
  ['Y', 660, 31557600, 'year', 'y', 'time'],
];

export function catalogue(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const tables = await db.introspection.getTables();
      const columnsOf = (name: string) => new Set(tables.find((t) => t.name === `${prefix}${name}`)?.columns.map((c) => c.name) ?? []);
      const material = columnsOf('bericht_material');
      for (const [column, type] of [
        ['fk_product', 'integer'],
        ['fk_unit', 'integer'],
        ['batch', 'varchar(128)'],
      ] as const)
        if (!material.has(column)) await db.schema.alterTable('bericht_material').addColumn(column, type).execute();

      if (!(await isStandalone(db))) return;
      const { table, index } = schemaTools(db, dialect, prefix, 'database');
      if (!columnsOf('user').has('fk_warehouse')) await db.schema.alterTable('user').addColumn('fk_warehouse', 'integer').execute();

      await table('c_units')
        .addColumn('code', 'varchar(3)')
        .addColumn('sortorder', ty.smallint)
        .addColumn('scale', 'integer')
        .addColumn('label', 'varchar(128)')
        .addColumn('short_label', 'varchar(5)')
        .addColumn('unit_type', 'varchar(10)')
        .addColumn('active', ty.smallint, (c) => c.notNull().defaultTo(1))
        .execute();
      await index('uk_c_units_code', 'c_units', ['code'], true);
      const known = new Set((await db.selectFrom('c_units').select('code').execute()).map((r) => r.code as string));
      for (const [code, sortorder, scale, label, short_label, unit_type] of DOLIBARR_UNITS)
        if (!known.has(code))
          await db.insertInto('c_units').values({ code, sortorder, scale, label, short_label, unit_type, active: 1 }).execute();

      await table('product')
        .addColumn('ref', 'varchar(128)', (c) => c.notNull())
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('ref_ext', 'varchar(128)')
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .addColumn('fk_parent', 'integer', (c) => c.defaultTo(0))
        .addColumn('label', 'varchar(255)', (c) => c.notNull())
        .addColumn('description', ty.text)
        .addColumn('note_public', ty.text)
        .addColumn('note', ty.text)
        .addColumn('price', ty.amount, (c) => c.defaultTo(0))
        .addColumn('price_ttc', ty.amount, (c) => c.defaultTo(0))
        .addColumn('price_min', ty.amount, (c) => c.defaultTo(0))
        .addColumn('price_min_ttc', ty.amount, (c) => c.defaultTo(0))
        .addColumn('price_base_type', 'varchar(3)', (c) => c.defaultTo('HT'))
        .addColumn('price_label', 'varchar(255)')
        .addColumn('cost_price', ty.amount)
        .addColumn('default_vat_code', 'varchar(10)')
        .addColumn('tva_tx', ty.double)
        .addColumn('recuperableonly', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('localtax1_tx', ty.double, (c) => c.defaultTo(0))
        .addColumn('localtax1_type', 'varchar(10)', (c) => c.notNull().defaultTo('0'))
        .addColumn('localtax2_tx', ty.double, (c) => c.defaultTo(0))
        .addColumn('localtax2_type', 'varchar(10)', (c) => c.notNull().defaultTo('0'))
        .addColumn('fk_user_author', 'integer')
        .addColumn('fk_user_modif', 'integer')
        .addColumn('tosell', ty.smallint, (c) => c.defaultTo(1))
        .addColumn('tobuy', ty.smallint, (c) => c.defaultTo(1))
        .addColumn('tobatch', ty.smallint, (c) => c.notNull().defaultTo(0))
        .addColumn('sell_or_eat_by_mandatory', ty.smallint, (c) => c.notNull().defaultTo(0))
        .addColumn('fk_product_type', 'integer', (c) => c.defaultTo(0))
        .addColumn('duration', 'varchar(6)')
        .addColumn('seuil_stock_alerte', 'real')
        .addColumn('barcode', 'varchar(180)')
        .addColumn('fk_barcode_type', 'integer')
        .addColumn('stockable_product', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('stock', 'real')
        .addColumn('pmp', ty.amount, (c) => c.notNull().defaultTo(0))
        .addColumn('fk_default_warehouse', 'integer')
        .addColumn('finished', ty.smallint)
        .addColumn('import_key', 'varchar(14)')
        .addColumn('desiredstock', 'real', (c) => c.defaultTo(0))
        .addColumn('fk_unit', 'integer')
        .addColumn('mandatory_period', ty.smallint, (c) => c.defaultTo(0))
        .addColumn('last_main_doc', 'varchar(255)')
        .execute();
      await index('uk_product_ref', 'product', ['ref', 'entity'], true);
      await index('idx_product_label', 'product', ['label']);
      await index('idx_product_barcode', 'product', ['barcode']);
      await index('uk_product_barcode', 'product', ['barcode', 'fk_barcode_type', 'entity'], true);
      await index('idx_product_entity_fk_product_type', 'product', ['entity', 'fk_product_type']);

      await table('entrepot')
        .addColumn('ref', 'varchar(255)', (c) => c.notNull())
        .addColumn('datec', ty.datetime)
        .addColumn('tms', ty.datetime)
        .addColumn('entity', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('fk_project', 'integer')
        .addColumn('description', ty.text)
        .addColumn('lieu', 'varchar(64)')
        .addColumn('address', 'varchar(255)')
        .addColumn('zip', 'varchar(10)')
        .addColumn('town', 'varchar(50)')
        .addColumn('fk_departement', 'integer')
        .addColumn('fk_pays', 'integer', (c) => c.defaultTo(0))
        .addColumn('phone', 'varchar(30)')
        .addColumn('fax', 'varchar(30)')
        .addColumn('barcode', 'varchar(180)')
        .addColumn('fk_barcode_type', 'integer')
        .addColumn('warehouse_usage', 'integer', (c) => c.defaultTo(1))
        .addColumn('statut', ty.smallint, (c) => c.defaultTo(1))
        .addColumn('fk_user_author', 'integer')
        .addColumn('model_pdf', 'varchar(255)')
        .addColumn('import_key', 'varchar(14)')
        .addColumn('fk_parent', 'integer', (c) => c.defaultTo(0))
        .execute();
      await index('uk_entrepot_label', 'entrepot', ['ref', 'entity'], true);

      await table('product_stock')
        .addColumn('tms', ty.datetime)
        .addColumn('fk_product', 'integer', (c) => c.notNull())
        .addColumn('fk_entrepot', 'integer', (c) => c.notNull())
        .addColumn('reel', 'real')
        .addColumn('import_key', 'varchar(14)')
        .execute();
      await index('idx_product_stock_fk_product', 'product_stock', ['fk_product']);
      await index('idx_product_stock_fk_entrepot', 'product_stock', ['fk_entrepot']);
      await index('uk_product_stock', 'product_stock', ['fk_product', 'fk_entrepot'], true);

      await table('product_batch')
        .addColumn('tms', ty.datetime)
        .addColumn('fk_product_stock', 'integer', (c) => c.notNull())
        .addColumn('eatby', ty.datetime)
        .addColumn('sellby', ty.datetime)
        .addColumn('batch', 'varchar(128)', (c) => c.notNull())
        .addColumn('qty', ty.double, (c) => c.notNull().defaultTo(0))
        .addColumn('import_key', 'varchar(14)')
        .execute();
      await index('idx_fk_product_stock', 'product_batch', ['fk_product_stock']);
      await index('idx_batch', 'product_batch', ['batch']);
      await index('uk_product_batch', 'product_batch', ['fk_product_stock', 'batch'], true);
    },
  };
}
