/**
 * The visit as an intervention (docs/dolibarr-writes.md): on the Dolibarr tables this service
 * created itself (the standalone default), Dolibarr 22's intervention lines `llx_fichinterdet`
 * (install/mysql/tables/llx_fichinterdet.sql with its key) and what enabling the module
 * Interventions writes (`MAIN_MODULE_FICHEINTER`, the PDF model `FICHEINTER_ADDON_PDF` 'soleil').
 * A real Dolibarr database is left alone: its installer made the table, its office the settings.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools, isStandalone } from './helpers.js';

export function interventionLines(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (!(await isStandalone(db))) return;
      const { table, index } = schemaTools(db, dialect, prefix, 'database');
      await table('fichinterdet')
        .addColumn('fk_fichinter', 'integer')
        .addColumn('fk_parent_line', 'integer')
        .addColumn('date', ty.datetime)
        .addColumn('description', ty.text)
        .addColumn('duree', 'integer')
        .addColumn('rang', 'integer', (c) => c.defaultTo(0))
        .addColumn('extraparams', 'varchar(255)')
        .execute();
      await index('idx_fichinterdet_fk_fichinter', 'fichinterdet', ['fk_fichinter']);
      const known = new Set(
        (await db.selectFrom('const').select('name').where('name', 'in', ['MAIN_MODULE_FICHEINTER', 'FICHEINTER_ADDON_PDF']).execute()).map(
          (r) => r.name as string,
        ),
      );
      for (const [name, value] of [
        ['MAIN_MODULE_FICHEINTER', '1'],
        ['FICHEINTER_ADDON_PDF', 'soleil'],
      ] as const)
        if (!known.has(name)) await db.insertInto('const').values({ name, entity: 0, value, type: 'chaine', visible: 0 }).execute();
    },
  };
}
