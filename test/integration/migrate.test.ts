/**
 * migrate() on every dialect: a new standalone database, repeated and concurrent runs, another
 * table prefix, and a database that already is Dolibarr's (whose tables must stay as they are).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import bcrypt from 'bcrypt';
import { sql, type CreateIndexNode, type KyselyPlugin } from 'kysely';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { insertId, toDbDateTime } from '../../src/db/dialect.js';
import { isStandalone, migrate } from '../../src/db/migrate.js';
import { RIGHT_DEFINITIONS, RIGHTS_MODULE } from '../../src/dolibarr/rights.js';
import { testConfig } from '../helpers/build-app.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/databases.js';
import { DOLIBARR_USER_ABSENT_COLUMNS, DOLIBARR_USER_REQUIRED_COLUMNS, makeDolibarrTables } from '../helpers/dolibarr-schema.js';
import { migrateInProcesses } from '../helpers/migrate-process.js';
import { registerProbes } from '../helpers/probes.js';

const DOLIBARR_TABLES = [
  'user',
  'usergroup',
  'rights_def',
  'user_rights',
  'usergroup_rights',
  'usergroup_user',
  'const',
  'societe',
  'commande',
  'facture',
  'propal',
  'ecm_files',
  'element_element',
];
const MODULE_TABLES = [
  'bericht',
  'bericht_page',
  'bericht_material',
  'bericht_upload_token',
  'bericht_time',
  'bericht_mail',
  'bericht_seal',
];
const MIGRATIONS = [
  '0001-dolibarr-core',
  '0002-bericht-module',
  '0003-bericht-idempotency',
  '0004-standalone-indexes',
  '0005-bericht-signature',
  '0006-bericht-file-intent',
  '0007-bericht-idempotency-longtext',
  '0008-bericht-newest',
  '0009-bericht-signature-device-time',
  '0010-bericht-photos-per-sheet',
  '0011-standalone-societe-lang',
  '0012-bericht-checklist-time',
  '0013-bericht-mail',
  '0014-bericht-photo-evidence',
  '0015-bericht-seal',
  '0016-bericht-page-users',
  '0017-bericht-sessions',
  '0018-bericht-page-prompt',
  '0019-standalone-assigned-work',
  '0020-standalone-fichinter',
  '0021-catalogue',
  '0022-stock-movements',
  '0023-intervention-lines',
  '0024-invoice-lines',
  '0025-report-invoice',
  '0026-report-own-material',
];

async function tableNames(handle: DbHandle): Promise<string[]> {
  return (await handle.db.introspection.getTables()).map((t) => t.name).sort();
}

async function columnNames(handle: DbHandle, table: string): Promise<string[]> {
  const found = (await handle.db.introspection.getTables()).find((t) => t.name === table);
  assert.ok(found, `table ${table} exists`);
  return found.columns.map((c) => c.name).sort();
}

async function countRows(handle: DbHandle, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(handle.db);
  return Number(rows[0]!.n);
}

async function moduleRights(handle: DbHandle, entity?: number) {
  let query = handle.db
    .selectFrom('rights_def')
    .select(['id', 'entity', 'module', 'perms', 'subperms', 'type', 'libelle'])
    .where('module', '=', RIGHTS_MODULE);
  if (entity !== undefined) query = query.where('entity', '=', entity);
  return (await query.orderBy('id').execute()).map((r) => ({ ...r, id: Number(r.id), entity: Number(r.entity) }));
}

/** MariaDB/MySQL: every index of the prefix's tables, as 'table.index(col,col)', sorted. */
async function mysqlIndexes(handle: DbHandle, prefix = 'llx_'): Promise<string[]> {
  const { rows } = await sql<{ t: string; i: string; cols: string }>`
    select table_name as t, index_name as i, group_concat(column_name order by seq_in_index separator ',') as cols
    from information_schema.statistics
    where table_schema = database() and table_name like ${`${prefix.replace(/_/g, '\\_')}%`}
    group by table_name, index_name`.execute(handle.db);
  return rows.map((r) => `${r.t}.${r.i}(${r.cols})`).sort();
}

async function constValue(handle: DbHandle, name: string): Promise<string | undefined> {
  const row = await handle.db.selectFrom('const').select('value').where('name', '=', name).where('entity', '=', 0).executeTakeFirst();
  return row?.value;
}

/** A report row as one from before a migration: its object, its status, made at `now`. */
function oldReport(ref: string, elementType: string, fkElement: number, status: number, now: string) {
  return {
    ref,
    entity: 1,
    title: 'Alt',
    format: 'A4',
    orientation: 'portrait',
    element_type: elementType,
    fk_element: fkElement,
    status,
    fk_user_creat: 1,
    datec: now,
    tms: now,
  };
}
for (const dialect of testDialects()) {
  describe(`migrate on a new database [${dialect}]`, () => {
    let database: TestDatabase;
    let config: Config;
    let handle: DbHandle;
    let first: Awaited<ReturnType<typeof migrate>>;

    before(async () => {
      database = await createTestDatabase(dialect);
      config = testConfig({ database: database.config });
      handle = createDb(config, { poolSize: 2 });
      first = await migrate(handle, config);
    });
    after(async () => {
      await handle?.destroy();
      await database?.drop();
    });

    test('reports both migrations applied, four rights added, standalone', () => {
      assert.deepEqual(first.applied, MIGRATIONS);
      assert.deepEqual(first.rightsAdded, ['read', 'write', 'delete', 'admin']);
      assert.equal(first.standalone, true);
    });

    test("creates Dolibarr's tables and the module's tables with the llx_ prefix", async () => {
      const names = await tableNames(handle);
      for (const t of [...DOLIBARR_TABLES, ...MODULE_TABLES]) assert.ok(names.includes(`llx_${t}`), `llx_${t} in ${names.join(', ')}`);
      assert.deepEqual(
        names.filter((n) => !n.startsWith('llx_')),
        [],
        'every table carries the prefix',
      );
    });

    test("llx_user has Dolibarr's columns", async () => {
      const columns = await columnNames(handle, 'llx_user');
      for (const c of [
        'rowid',
        'entity',
        'login',
        'pass',
        'pass_crypted',
        'pass_temp',
        'api_key',
        'admin',
        'statut',
        'lastname',
        'firstname',
        'email',
        'fk_soc',
        'datestartvalidity',
        'dateendvalidity',
        'flagdelsessionsbefore',
      ]) {
        assert.ok(columns.includes(c), `llx_user.${c}`);
      }
    });

    test("registers the module's four rights for config.entity", async () => {
      const rights = await moduleRights(handle);
      assert.deepEqual(
        rights.map((r) => ({ id: r.id, entity: r.entity, module: r.module, perms: r.perms, subperms: r.subperms, type: r.type })),
        // As DolibarrModules::insert_permissions writes them: '' for module_origin and subperms, '1' for enabled.
        RIGHT_DEFINITIONS.map((d) => ({ id: d.id, entity: config.entity, module: 'bericht', perms: d.right, subperms: '', type: d.type })),
      );
      const written = await handle.db
        .selectFrom('rights_def')
        .select(['module_origin', 'enabled'])
        .where('module', '=', RIGHTS_MODULE)
        .execute();
      assert.deepEqual(
        written,
        RIGHT_DEFINITIONS.map(() => ({ module_origin: '', enabled: '1' })),
      );
      assert.ok(rights.every((r) => typeof r.libelle === 'string' && r.libelle.length > 0));
    });

    test('rights an earlier version registered with NULLs are written as Dolibarr writes them', async () => {
      await handle.db
        .updateTable('rights_def')
        .set({ subperms: null, module_origin: null, enabled: null })
        .where('module', '=', RIGHTS_MODULE)
        .execute();
      await migrate(handle, config);
      const rows = await handle.db
        .selectFrom('rights_def')
        .select(['subperms', 'module_origin', 'enabled'])
        .where('module', '=', RIGHTS_MODULE)
        .execute();
      assert.deepEqual(
        rows,
        RIGHT_DEFINITIONS.map(() => ({ subperms: '', module_origin: '', enabled: '1' })),
      );
      assert.equal((await moduleRights(handle)).length, RIGHT_DEFINITIONS.length, 'no right added twice');
    });

    test('marks the database standalone and writes the password hash settings', async () => {
      assert.equal(await isStandalone(handle.db), true);
      assert.equal(await constValue(handle, 'MAIN_SECURITY_HASH_ALGO'), 'password_hash');
      assert.match((await constValue(handle, 'MAIN_SECURITY_SALT')) ?? '', /^\d{14}$/);
      assert.equal(await constValue(handle, 'BERICHT_STANDALONE'), '1');
    });

    test('a second and a third run apply nothing and add no rows', async () => {
      const tables = await tableNames(handle);
      const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await countRows(handle, t)] as const)));
      const before = await counts();
      const salt = await constValue(handle, 'MAIN_SECURITY_SALT');
      for (let run = 2; run <= 3; run++) {
        const report = await migrate(handle, config);
        assert.deepEqual(report.applied, [], `run ${run}`);
        assert.deepEqual(report.rightsAdded, [], `run ${run}`);
        assert.equal(report.standalone, true);
      }
      assert.deepEqual(await tableNames(handle), tables);
      assert.deepEqual(await counts(), before);
      assert.equal((await moduleRights(handle)).length, 4);
      assert.equal(await constValue(handle, 'MAIN_SECURITY_SALT'), salt, 'the salt is written once and kept');
    });

    test('0009 gives bericht_signature the device-time columns, nullable: a row written without them reads nulls; run again it adds nothing', async () => {
      const columns = await columnNames(handle, 'llx_bericht_signature');
      for (const c of ['signed_at_device', 'signed_at_device_zone', 'device_time_plausible'])
        assert.ok(columns.includes(c), `llx_bericht_signature.${c}`);
      await handle.db
        .insertInto('bericht_signature')
        .values({
          entity: 1,
          fk_bericht: 1,
          fk_page: 999001,
          verify_code: 'migrate-0009-check',
          metadata_path: 'bericht/x/y.json',
          signer_name: 'Alt',
          datec: toDbDateTime(),
        })
        .execute();
      const row = await handle.db
        .selectFrom('bericht_signature')
        .select(['signed_at_device', 'signed_at_device_zone', 'device_time_plausible'])
        .where('verify_code', '=', 'migrate-0009-check')
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { signed_at_device: null, signed_at_device_zone: null, device_time_plausible: null });
      // A run cut short is repeated: the migration adds only what is missing (the migrator runs the later ones again too).
      await sql`delete from llx_bericht_migration where name >= '0009-bericht-signature-device-time'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, [
        '0009-bericht-signature-device-time',
        '0010-bericht-photos-per-sheet',
        '0011-standalone-societe-lang',
        '0012-bericht-checklist-time',
        '0013-bericht-mail',
        '0014-bericht-photo-evidence',
        '0015-bericht-seal',
        '0016-bericht-page-users',
        '0017-bericht-sessions',
        '0018-bericht-page-prompt',
        '0019-standalone-assigned-work',
        '0020-standalone-fichinter',
        '0021-catalogue',
        '0022-stock-movements',
        '0023-intervention-lines',
        '0024-invoice-lines',
        '0025-report-invoice',
        '0026-report-own-material',
      ]);
      assert.deepEqual(await columnNames(handle, 'llx_bericht_signature'), columns);
      await handle.db.deleteFrom('bericht_signature').where('verify_code', '=', 'migrate-0009-check').execute();
    });

    test('0010 gives bericht photos_per_sheet, not null, default 4: a row written before it and one written without it read 4; run again it adds nothing', async () => {
      const columns = await columnNames(handle, 'llx_bericht');
      assert.ok(columns.includes('photos_per_sheet'), 'llx_bericht.photos_per_sheet');
      const now = toDbDateTime();
      const row = (ref: string) => ({
        ref,
        entity: 1,
        title: 'Alt',
        format: 'A4',
        orientation: 'portrait',
        fk_user_creat: 1,
        datec: now,
        tms: now,
      });
      // A report from before the column: the column taken away again (as 0009 left the table), the row written, 0010 run.
      await handle.db.schema.alterTable('bericht').dropColumn('photos_per_sheet').execute();
      await handle.db.insertInto('bericht').values(row('BR0001-9001')).execute();
      await sql`delete from llx_bericht_migration where name >= '0010-bericht-photos-per-sheet'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, [
        '0010-bericht-photos-per-sheet',
        '0011-standalone-societe-lang',
        '0012-bericht-checklist-time',
        '0013-bericht-mail',
        '0014-bericht-photo-evidence',
        '0015-bericht-seal',
        '0016-bericht-page-users',
        '0017-bericht-sessions',
        '0018-bericht-page-prompt',
        '0019-standalone-assigned-work',
        '0020-standalone-fichinter',
        '0021-catalogue',
        '0022-stock-movements',
        '0023-intervention-lines',
        '0024-invoice-lines',
        '0025-report-invoice',
        '0026-report-own-material',
      ]);
      assert.deepEqual(await columnNames(handle, 'llx_bericht'), columns);
      await handle.db.insertInto('bericht').values(row('BR0001-9002')).execute();
      const read = await handle.db
        .selectFrom('bericht')
        .select(['ref', 'photos_per_sheet'])
        .where('ref', 'in', ['BR0001-9001', 'BR0001-9002'])
        .orderBy('ref')
        .execute();
      assert.deepEqual(
        read.map((r) => ({ ...r, photos_per_sheet: Number(r.photos_per_sheet) })),
        [
          { ref: 'BR0001-9001', photos_per_sheet: 4 },
          { ref: 'BR0001-9002', photos_per_sheet: 4 },
        ],
      );
      await assert.rejects(
        handle.db
          .updateTable('bericht')
          .set({ photos_per_sheet: null as never })
          .where('ref', '=', 'BR0001-9002')
          .execute(),
        'the column is not null',
      );
      // A run cut short is repeated: the migration adds only what is missing.
      await sql`delete from llx_bericht_migration where name >= '0010-bericht-photos-per-sheet'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, [
        '0010-bericht-photos-per-sheet',
        '0011-standalone-societe-lang',
        '0012-bericht-checklist-time',
        '0013-bericht-mail',
        '0014-bericht-photo-evidence',
        '0015-bericht-seal',
        '0016-bericht-page-users',
        '0017-bericht-sessions',
        '0018-bericht-page-prompt',
        '0019-standalone-assigned-work',
        '0020-standalone-fichinter',
        '0021-catalogue',
        '0022-stock-movements',
        '0023-intervention-lines',
        '0024-invoice-lines',
        '0025-report-invoice',
        '0026-report-own-material',
      ]);
      assert.deepEqual(await columnNames(handle, 'llx_bericht'), columns);
      await handle.db.deleteFrom('bericht').where('ref', 'in', ['BR0001-9001', 'BR0001-9002']).execute();
    });

    test('0014 makes bericht_photo_evidence: one row per file (a second row for the same file is refused); run again it adds nothing', async () => {
      const columns = await columnNames(handle, 'llx_bericht_photo_evidence');
      assert.deepEqual(
        columns,
        [
          'datec',
          'device_lat_e7',
          'device_lon_e7',
          'device_taken_at',
          'entity',
          'exif_lat_e7',
          'exif_lon_e7',
          'exif_offset',
          'exif_taken_at',
          'filename',
          'filepath',
          'fk_user',
          'rowid',
          'sha256',
          'size',
        ].sort(),
      );
      const row = {
        entity: 1,
        filepath: 'commande/CO-MIGRATE',
        filename: 'a.jpg',
        sha256: 'a'.repeat(64),
        size: 5_000_000_000,
        datec: toDbDateTime(),
        device_lat_e7: -900000000,
        device_lon_e7: 1800000000,
      };
      await handle.db.insertInto('bericht_photo_evidence').values(row).execute();
      const read = await handle.db
        .selectFrom('bericht_photo_evidence')
        .selectAll()
        .where('filepath', '=', 'commande/CO-MIGRATE')
        .executeTakeFirstOrThrow();
      // Sizes beyond 32 bits and the extreme coordinates in 1e-7 degrees read back exactly.
      assert.deepEqual(
        [Number(read.size), Number(read.device_lat_e7), Number(read.device_lon_e7), read.exif_taken_at, read.device_taken_at],
        [5_000_000_000, -900000000, 1800000000, null, null],
      );
      await assert.rejects(handle.db.insertInto('bericht_photo_evidence').values(row).execute(), 'one row per file');
      await sql`delete from llx_bericht_migration where name >= '0014-bericht-photo-evidence'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, [
        '0014-bericht-photo-evidence',
        '0015-bericht-seal',
        '0016-bericht-page-users',
        '0017-bericht-sessions',
        '0018-bericht-page-prompt',
        '0019-standalone-assigned-work',
        '0020-standalone-fichinter',
        '0021-catalogue',
        '0022-stock-movements',
        '0023-intervention-lines',
        '0024-invoice-lines',
        '0025-report-invoice',
        '0026-report-own-material',
      ]);
      assert.deepEqual(await columnNames(handle, 'llx_bericht_photo_evidence'), columns);
      await handle.db.deleteFrom('bericht_photo_evidence').where('filepath', '=', 'commande/CO-MIGRATE').execute();
    });

    test('0016 gives bericht_page fk_user_creat and fk_user_modif, nullable: a page written without them reads nulls; run again it adds nothing', async () => {
      const columns = await columnNames(handle, 'llx_bericht_page');
      for (const c of ['fk_user_creat', 'fk_user_modif']) assert.ok(columns.includes(c), `llx_bericht_page.${c}`);
      const now = toDbDateTime();
      await handle.db
        .insertInto('bericht_page')
        .values({
          fk_bericht: 999014,
          page_order: 1,
          title: 'Alt',
          note: null,
          layout: 'title_only',
          source_path: null,
          source_path_2: null,
          datec: now,
          tms: now,
        })
        .execute();
      const row = await handle.db
        .selectFrom('bericht_page')
        .select(['fk_user_creat', 'fk_user_modif'])
        .where('fk_bericht', '=', 999014)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { fk_user_creat: null, fk_user_modif: null });
      // A run cut short is repeated: the migration adds only what is missing.
      await handle.db.schema.alterTable('bericht_page').dropColumn('fk_user_modif').execute();
      await sql`delete from llx_bericht_migration where name >= '0016-bericht-page-users'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, [
        '0016-bericht-page-users',
        '0017-bericht-sessions',
        '0018-bericht-page-prompt',
        '0019-standalone-assigned-work',
        '0020-standalone-fichinter',
        '0021-catalogue',
        '0022-stock-movements',
        '0023-intervention-lines',
        '0024-invoice-lines',
        '0025-report-invoice',
        '0026-report-own-material',
      ]);
      assert.deepEqual(await columnNames(handle, 'llx_bericht_page'), columns);
      await handle.db.deleteFrom('bericht_page').where('fk_bericht', '=', 999014).execute();
    });

    test('0018 gives bericht_page a nullable prompt: a page written without it reads null; run again it adds nothing', async () => {
      const columns = await columnNames(handle, 'llx_bericht_page');
      assert.ok(columns.includes('prompt'), 'llx_bericht_page.prompt');
      const now = toDbDateTime();
      await handle.db
        .insertInto('bericht_page')
        .values({
          fk_bericht: 999018,
          page_order: 1,
          title: 'Alt',
          note: null,
          layout: 'title_only',
          source_path: null,
          source_path_2: null,
          datec: now,
          tms: now,
        })
        .execute();
      const row = await handle.db.selectFrom('bericht_page').select(['prompt']).where('fk_bericht', '=', 999018).executeTakeFirstOrThrow();
      assert.deepEqual(row, { prompt: null });
      await handle.db.schema.alterTable('bericht_page').dropColumn('prompt').execute();
      await sql`delete from llx_bericht_migration where name >= '0018-bericht-page-prompt'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, [
        '0018-bericht-page-prompt',
        '0019-standalone-assigned-work',
        '0020-standalone-fichinter',
        '0021-catalogue',
        '0022-stock-movements',
        '0023-intervention-lines',
        '0024-invoice-lines',
        '0025-report-invoice',
        '0026-report-own-material',
      ]);
      assert.deepEqual(await columnNames(handle, 'llx_bericht_page'), columns);
      await handle.db.deleteFrom('bericht_page').where('fk_bericht', '=', 999018).execute();
    });

    test('0022 counts the material lines of an object with a final report as settled, and leaves the others to the next finalize; run again it adds nothing', async () => {
      const columns = await columnNames(handle, 'llx_bericht_material');
      assert.ok(columns.includes('fk_stock_mouvement'), 'llx_bericht_material.fk_stock_mouvement');
      const now = toDbDateTime();
      // Lines from before the column: the column taken away again (as 0021 left the table), the rows written, 0022 run.
      await handle.db.schema.alterTable('bericht_material').dropColumn('fk_stock_mouvement').execute();
      const report = (ref: string, order: number, status: number) => oldReport(ref, 'commande', order, status, now);
      await handle.db
        .insertInto('bericht')
        .values([report('BR0001-9221', 999221, 1), report('BR0001-9222', 999222, 0)])
        .execute();
      const line = (order: number) => ({
        entity: 1,
        element_type: 'commande',
        fk_element: order,
        label: 'Dichtung',
        qty: 1,
        fk_user_creat: 1,
        datec: now,
      });
      await handle.db
        .insertInto('bericht_material')
        .values([line(999221), line(999222)])
        .execute();
      await sql`delete from llx_bericht_migration where name >= '0022-stock-movements'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, [
        '0022-stock-movements',
        '0023-intervention-lines',
        '0024-invoice-lines',
        '0025-report-invoice',
        '0026-report-own-material',
      ]);
      assert.deepEqual(await columnNames(handle, 'llx_bericht_material'), columns);
      const read = await handle.db
        .selectFrom('bericht_material')
        .select(['fk_element', 'fk_stock_mouvement'])
        .where('fk_element', 'in', [999221, 999222])
        .orderBy('fk_element')
        .execute();
      // Printed by a final report before parts left the van: settled; on an order without one: the next finalize's.
      assert.deepEqual(
        read.map((r) => [Number(r.fk_element), r.fk_stock_mouvement === null ? null : Number(r.fk_stock_mouvement)]),
        [
          [999221, 0],
          [999222, null],
        ],
      );
      await handle.db.deleteFrom('bericht_material').where('fk_element', 'in', [999221, 999222]).execute();
      await handle.db.deleteFrom('bericht').where('ref', 'in', ['BR0001-9221', 'BR0001-9222']).execute();
    });

    test("0025 marks the final reports of orders from before it as billed (by the service's draft, else 0), so that the tab never bills them again", async () => {
      const now = toDbDateTime();
      // The columns taken away again with their indexes (SQLite drops no indexed column), as before 0025.
      for (const [name, table] of [
        ['idx_bericht_facture', 'bericht'],
        ['idx_bericht_fichinter', 'bericht'],
        ['idx_bericht_material_bericht', 'bericht_material'],
      ] as const)
        await (dialect === 'mysql'
          ? handle.db.schema.dropIndex(`llx_${name}`).on(table)
          : handle.db.schema.dropIndex(`llx_${name}`)
        ).execute();
      for (const column of ['fk_fichinter', 'fk_facture']) await handle.db.schema.alterTable('bericht').dropColumn(column).execute();
      await handle.db.schema.alterTable('bericht_material').dropColumn('fk_bericht').execute();
      const report = (ref: string, element: string, status: number) => oldReport(ref, element, 999251, status, now);
      await handle.db
        .insertInto('bericht')
        .values([
          report('BR0001-9251', 'commande', 1),
          report('BR0001-9252', 'commande', 1),
          report('BR0001-9253', 'commande', 0),
          report('BR0001-9254', 'fichinter', 1),
        ])
        .execute();
      const invoice = await insertId(
        handle.dialect,
        handle.db
          .insertInto('facture')
          .values({ ref: '(PROV)', entity: 1, ref_ext: 'fieldreport:BR0001-9251', fk_soc: 1, datec: now } as never),
      );
      const intervention = await insertId(
        handle.dialect,
        handle.db
          .insertInto('fichinter')
          .values({ ref: '(PROV)', entity: 1, ref_ext: 'fieldreport:BR0001-9251', fk_soc: 1, datec: now } as never),
      );
      await sql`delete from llx_bericht_migration where name >= '0025-report-invoice'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, ['0025-report-invoice', '0026-report-own-material']);
      const read = await handle.db
        .selectFrom('bericht')
        .select(['ref', 'fk_facture', 'fk_fichinter'])
        .where('ref', 'like', 'BR0001-925%')
        .orderBy('ref')
        .execute();
      assert.deepEqual(
        read.map((r) => [
          r.ref,
          r.fk_facture === null ? null : Number(r.fk_facture),
          r.fk_fichinter === null ? null : Number(r.fk_fichinter),
        ]),
        [
          ['BR0001-9251', invoice, intervention],
          ['BR0001-9252', 0, null],
          ['BR0001-9253', null, null],
          ['BR0001-9254', null, null],
        ],
      );
      // Run again, as after a run cut short after its DDL (MariaDB's and SQLite's are not undone): the
      // backfill is done whole, what it did stays.
      await sql`delete from llx_bericht_migration where name >= '0025-report-invoice'`.execute(handle.db);
      await handle.db.updateTable('bericht').set({ fk_facture: null }).where('ref', '=', 'BR0001-9252').execute();
      assert.deepEqual((await migrate(handle, config)).applied, ['0025-report-invoice', '0026-report-own-material']);
      const again = await handle.db
        .selectFrom('bericht')
        .select(['ref', 'fk_facture'])
        .where('ref', 'like', 'BR0001-925%')
        .orderBy('ref')
        .execute();
      assert.deepEqual(
        again.map((r) => [r.ref, r.fk_facture === null ? null : Number(r.fk_facture)]),
        [
          ['BR0001-9251', invoice],
          ['BR0001-9252', 0],
          ['BR0001-9253', null],
          ['BR0001-9254', null],
        ],
      );
      await handle.db.deleteFrom('facture').where('rowid', '=', invoice).execute();
      await handle.db.deleteFrom('fichinter').where('rowid', '=', intervention).execute();
      await handle.db.deleteFrom('bericht').where('ref', 'like', 'BR0001-925%').execute();
    });

    test('0026 keeps every material line on the reports finalized before it (they printed them all), and only there', async () => {
      const now = toDbDateTime();
      await handle.db.schema.alterTable('bericht').dropColumn('all_material').execute();
      const report = (ref: string, status: number) => oldReport(ref, 'commande', 999261, status, now);
      await handle.db
        .insertInto('bericht')
        .values([report('BR0001-9261', 1), report('BR0001-9262', 0)])
        .execute();
      const read = async () =>
        (
          await handle.db.selectFrom('bericht').select(['ref', 'all_material']).where('ref', 'like', 'BR0001-926%').orderBy('ref').execute()
        ).map((r) => [r.ref, Number(r.all_material)]);
      await sql`delete from llx_bericht_migration where name = '0026-report-own-material'`.execute(handle.db);
      assert.deepEqual((await migrate(handle, config)).applied, ['0026-report-own-material']);
      assert.deepEqual(await read(), [
        ['BR0001-9261', 1],
        ['BR0001-9262', 0],
      ]);
      // Run again, as after a run cut short after its DDL: the column stays, the marks are made whole.
      await sql`delete from llx_bericht_migration where name = '0026-report-own-material'`.execute(handle.db);
      await handle.db.updateTable('bericht').set({ all_material: 0 }).where('ref', '=', 'BR0001-9261').execute();
      assert.deepEqual((await migrate(handle, config)).applied, ['0026-report-own-material']);
      assert.deepEqual(await read(), [
        ['BR0001-9261', 1],
        ['BR0001-9262', 0],
      ]);
      await handle.db.deleteFrom('bericht').where('ref', 'like', 'BR0001-926%').execute();
    });

    test('another entity gets its own four rights; the first keeps its own', async () => {
      const report = await migrate(handle, { entity: 2 });
      assert.deepEqual(report.rightsAdded, ['read', 'write', 'delete', 'admin']);
      assert.deepEqual(report.applied, []);
      const second = await moduleRights(handle, 2);
      assert.deepEqual(
        second.map((r) => r.perms),
        ['read', 'write', 'delete', 'admin'],
      );
      assert.equal((await moduleRights(handle, 1)).length, 4);
      assert.deepEqual((await migrate(handle, { entity: 2 })).rightsAdded, []);
    });
  });

  describe(`migrate run concurrently [${dialect}]`, () => {
    let database: TestDatabase;
    let config: Config;
    const handles: DbHandle[] = [];

    before(async () => {
      database = await createTestDatabase(dialect);
      config = testConfig({ database: database.config });
    });
    after(async () => {
      for (const h of handles) await h.destroy();
      await database?.drop();
    });

    test('two processes migrating one new database at once both succeed; exactly 4 rights', async () => {
      const a = createDb(config, { poolSize: 2 });
      const b = createDb(config, { poolSize: 2 });
      handles.push(a, b);
      // SQLite: two real processes (its driver waits for locks synchronously, so two handles in
      // one process would only block each other); the servers: two connections pools at once.
      const reports = await (dialect === 'sqlite' ? migrateInProcesses(config, 2) : Promise.all([migrate(a, config), migrate(b, config)]));
      assert.deepEqual(reports.flatMap((r) => r.applied).sort(), MIGRATIONS, 'each migration applied exactly once');
      assert.deepEqual(reports.flatMap((r) => r.rightsAdded).sort(), ['admin', 'delete', 'read', 'write'], 'each right added exactly once');
      assert.equal((await moduleRights(a)).length, 4);
      assert.equal(await countRows(a, 'llx_rights_def'), 4);
      for (const name of ['MAIN_SECURITY_HASH_ALGO', 'MAIN_SECURITY_SALT', 'DATABASE_PWD_ENCRYPTED', 'BERICHT_STANDALONE']) {
        const rows = await a.db.selectFrom('const').select('rowid').where('name', '=', name).execute();
        assert.equal(rows.length, 1, name);
      }
      assert.equal(await isStandalone(b.db), true);
    });

    test('rights registered concurrently on a migrated database stay at 4', async () => {
      const c = createDb(config, { poolSize: 2 });
      handles.push(c);
      await c.db.deleteFrom('rights_def').where('module', '=', RIGHTS_MODULE).execute();
      const [x, y] = await (dialect === 'sqlite'
        ? migrateInProcesses(config, 2)
        : Promise.all([migrate(handles[0]!, config), migrate(c, config)]));
      assert.ok(x && y);
      assert.deepEqual([...x.rightsAdded, ...y.rightsAdded].sort(), ['admin', 'delete', 'read', 'write']);
      assert.equal((await moduleRights(c)).length, 4);
    });
  });

  describe(`migrate with DB_PREFIX doli_ [${dialect}]`, () => {
    let database: TestDatabase;
    let handle: DbHandle;

    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(async () => {
      await handle?.destroy();
      await database?.drop();
    });

    test('creates doli_* tables only, and works through them', async () => {
      const config = testConfig({ database: database.config, dbPrefix: 'doli_' });
      handle = createDb(config, { poolSize: 2 });
      const report = await migrate(handle, config);
      assert.deepEqual(report.applied, MIGRATIONS);
      assert.equal(report.standalone, true);
      const names = await tableNames(handle);
      for (const t of [...DOLIBARR_TABLES, ...MODULE_TABLES]) assert.ok(names.includes(`doli_${t}`), `doli_${t}`);
      assert.deepEqual(
        names.filter((n) => !n.startsWith('doli_')),
        [],
      );
      assert.equal(await countRows(handle, 'doli_rights_def'), 4);
      assert.equal(await isStandalone(handle.db), true);
      assert.deepEqual((await migrate(handle, config)).applied, []);
    });
  });

  describe(`migrate on a Dolibarr database [${dialect}]`, () => {
    let database: TestDatabase;
    let config: Config;
    let handle: DbHandle;
    let before_: { tables: string[]; user: string[]; rightsDef: string[]; const: string[] };
    let report: Awaited<ReturnType<typeof migrate>>;

    before(async () => {
      database = await createTestDatabase(dialect);
      config = testConfig({ database: database.config });
      handle = createDb(config, { poolSize: 2 });
      await makeDolibarrTables(handle);
      before_ = {
        tables: await tableNames(handle),
        user: await columnNames(handle, 'llx_user'),
        rightsDef: await columnNames(handle, 'llx_rights_def'),
        const: await columnNames(handle, 'llx_const'),
      };
      report = await migrate(handle, config);
    });
    after(async () => {
      await handle?.destroy();
      await database?.drop();
    });

    test("does not create or alter Dolibarr's tables", async () => {
      assert.deepEqual(await columnNames(handle, 'llx_user'), before_.user);
      assert.ok(before_.user.includes('extra_col'));
      assert.deepEqual(await columnNames(handle, 'llx_rights_def'), before_.rightsDef);
      assert.deepEqual(await columnNames(handle, 'llx_const'), before_.const);
      const names = await tableNames(handle);
      for (const t of [
        'commande',
        'facture',
        'propal',
        'societe',
        'ecm_files',
        'element_element',
        'actioncomm',
        'actioncomm_resources',
        'c_actioncomm',
        'socpeople',
        'element_contact',
        'c_type_contact',
      ]) {
        assert.ok(!names.includes(`llx_${t}`), `llx_${t} must not be created`);
      }
      const added = names.filter((n) => !before_.tables.includes(n));
      assert.deepEqual(
        added.filter((n) => !n.startsWith('llx_bericht_migration')).sort(),
        [
          'llx_bericht',
          'llx_bericht_file_intent',
          'llx_bericht_idempotency',
          'llx_bericht_login_failure',
          'llx_bericht_login_known',
          'llx_bericht_mail',
          'llx_bericht_material',
          'llx_bericht_page',
          'llx_bericht_photo_evidence',
          'llx_bericht_seal',
          'llx_bericht_signature',
          'llx_bericht_time',
          'llx_bericht_token_revoked',
          'llx_bericht_token_void',
          'llx_bericht_upload_token',
        ],
        'only module tables (and the migrator’s own) are new',
      );
    });

    test("leaves Dolibarr's rows as they were", async () => {
      const user = await sql<{ login: string; extra_col: string }>`select login, extra_col from llx_user`.execute(handle.db);
      assert.deepEqual(user.rows, [{ login: 'doliadmin', extra_col: 'keep me' }]);
      const consts = await handle.db.selectFrom('const').select(['name', 'value']).execute();
      assert.deepEqual(consts, [{ name: 'MAIN_VERSION_LAST_INSTALL', value: '18.0.4' }], 'no salt, no hash algo, no standalone marker');
      const other = await handle.db
        .selectFrom('rights_def')
        .select(['id', 'module', 'perms'])
        .where('module', '!=', RIGHTS_MODULE)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        other.map((r) => ({ ...r, id: Number(r.id) })),
        [
          { id: 11, module: 'facture', perms: 'lire' },
          { id: 43610001, module: 'othermodule', perms: 'read' },
        ],
      );
    });

    test('creates the module tables', async () => {
      const names = await tableNames(handle);
      for (const t of MODULE_TABLES) assert.ok(names.includes(`llx_${t}`), `llx_${t}`);
      assert.deepEqual(report.applied, MIGRATIONS);
    });

    test('registers the four rights without clashing with the occupied id 43610001', async () => {
      assert.deepEqual(report.rightsAdded, ['read', 'write', 'delete', 'admin']);
      const rights = await moduleRights(handle, config.entity);
      assert.deepEqual(rights.map((r) => r.perms).sort(), ['admin', 'delete', 'read', 'write']);
      const ids = rights.map((r) => r.id);
      assert.equal(new Set(ids).size, 4, 'distinct ids');
      assert.ok(!ids.includes(43610001), 'the other module keeps its id');
      assert.ok(!ids.includes(11));
      const all = await handle.db.selectFrom('rights_def').select(['id', 'entity']).execute();
      assert.equal(new Set(all.map((r) => `${r.id}/${r.entity}`)).size, all.length, 'no (id, entity) twice');
      assert.equal(all.length, 6);
    });

    test('is not standalone', async () => {
      assert.equal(report.standalone, false);
      assert.equal(await isStandalone(handle.db), false);
    });

    test('a second run changes nothing', async () => {
      const again = await migrate(handle, config);
      assert.deepEqual(again.applied, []);
      assert.deepEqual(again.rightsAdded, []);
      assert.equal(again.standalone, false);
      assert.equal(await countRows(handle, 'llx_rights_def'), 6);
      assert.deepEqual(await columnNames(handle, 'llx_user'), before_.user);
    });
  });

  describe(`migrate on a Dolibarr database that already has some bericht rights [${dialect}]`, () => {
    let database: TestDatabase;
    let handle: DbHandle;

    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(async () => {
      await handle?.destroy();
      await database?.drop();
    });

    test('only the missing rights are added; the present one keeps its id', async () => {
      const config = testConfig({ database: database.config });
      handle = createDb(config, { poolSize: 2 });
      await makeDolibarrTables(handle);
      await sql`INSERT INTO llx_rights_def (id, entity, libelle, module, module_position, family_position, perms, subperms, type, bydefault)
        VALUES (99, 1, 'Berichte lesen', 'bericht', 500, 0, 'read', '', 'r', 0)`.execute(handle.db);
      const report = await migrate(handle, config);
      assert.deepEqual(report.rightsAdded, ['write', 'delete', 'admin']);
      const rights = await moduleRights(handle, 1);
      assert.equal(rights.length, 4);
      assert.equal(rights.find((r) => r.perms === 'read')!.id, 99);
    });
  });

  describe(`login on a migrated Dolibarr database without the optional user columns [${dialect}]`, () => {
    let database: TestDatabase;
    let config: Config;
    let handle: DbHandle;

    before(async () => {
      database = await createTestDatabase(dialect);
      config = testConfig({ database: database.config });
      handle = createDb(config, { poolSize: 2 });
      await makeDolibarrTables(handle);
    });
    after(async () => {
      await handle?.destroy();
      await database?.drop();
    });

    test("llx_user is an older Dolibarr's: no validity dates, no flagdelsessionsbefore, every column always read", async () => {
      const columns = await columnNames(handle, 'llx_user');
      for (const c of DOLIBARR_USER_ABSENT_COLUMNS) assert.ok(!columns.includes(c), `llx_user.${c} must be absent`);
      for (const c of DOLIBARR_USER_REQUIRED_COLUMNS) assert.ok(columns.includes(c), `llx_user.${c} must be present`);
    });

    test('after migrate, a user with a $2y$ hash and the read right logs in, and its token authenticates', async () => {
      const report = await migrate(handle, config);
      assert.equal(report.standalone, false);
      assert.deepEqual(
        await columnNames(handle, 'llx_user').then((c) => DOLIBARR_USER_ABSENT_COLUMNS.filter((x) => c.includes(x))),
        [],
        'migrate adds no column',
      );

      const password = 'Dolibarr-Passwort-1';
      const hash = `$2y$${(await bcrypt.hash(password, 10)).slice(4)}`; // PHP's prefix; Node writes $2b$
      assert.match(hash, /^\$2y\$10\$/);
      const userId = await insertId(
        dialect,
        handle.db.insertInto('user').values({
          entity: 1,
          login: 'monteur',
          pass_crypted: hash,
          admin: 0,
          statut: 1,
          firstname: 'Max',
          lastname: 'Monteur',
          datec: toDbDateTime(),
        }),
      );
      const read = await handle.db
        .selectFrom('rights_def')
        .select('id')
        .where('module', '=', 'bericht')
        .where('perms', '=', 'read')
        .where('entity', '=', config.entity)
        .executeTakeFirstOrThrow();
      await handle.db
        .insertInto('user_rights')
        .values({ entity: config.entity, fk_user: userId, fk_id: Number(read.id) })
        .execute();

      const app = await buildApp(config, { db: handle, logger: false });
      try {
        registerProbes(app);
        const res = await app.inject({ method: 'POST', url: '/api/auth.php', payload: { login: 'monteur', password } });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.deepEqual(body.perms, { read: true, write: false, delete: false, admin: false });
        assert.deepEqual(body.user, { id: userId, login: 'monteur', name: 'Max Monteur', admin: false });

        const probe = await app.inject({ method: 'GET', url: '/api/probe.php', headers: { authorization: `Bearer ${body.token}` } });
        assert.equal(probe.statusCode, 200, probe.body);
        assert.equal(probe.json().user.id, userId);
        assert.equal(probe.json().user.login, 'monteur');

        assert.equal(
          (await app.inject({ method: 'POST', url: '/api/auth.php', payload: { login: 'monteur', password: 'falsch' } })).statusCode,
          401,
        );
      } finally {
        await app.close();
      }
    });
  });

  if (dialect === 'mysql') {
    describe(`migrate creates no duplicate indexes on MariaDB/MySQL [${dialect}]`, () => {
      let database: TestDatabase;
      let config: Config;
      let handle: DbHandle;

      before(async () => {
        database = await createTestDatabase(dialect);
        config = testConfig({ database: database.config });
        handle = createDb(config, { poolSize: 2 });
      });
      after(async () => {
        await handle?.destroy();
        await database?.drop();
      });

      /** No two indexes of one table over the same columns, and no index name twice. */
      function assertNoDuplicates(indexes: string[]): void {
        const byColumns = new Map<string, string>();
        for (const entry of indexes) {
          const [, table, name, cols] = /^([^.]+)\.([^(]+)\((.*)\)$/.exec(entry)!;
          const key = `${table}(${cols})`;
          assert.ok(!byColumns.has(key) || name === 'PRIMARY', `${entry} duplicates ${byColumns.get(key)}`);
          byColumns.set(key, entry);
        }
        assert.equal(new Set(indexes).size, indexes.length);
      }

      test("migrate sends no CREATE INDEX IF NOT EXISTS (MariaDB's syntax, which MySQL rejects)", async () => {
        // Every statement migrate sends goes past this plugin; the CREATE INDEX ones are kept.
        const createIndexes: CreateIndexNode[] = [];
        const recorder: KyselyPlugin = {
          transformQuery: ({ node }) => {
            if (node.kind === 'CreateIndexNode') createIndexes.push(node);
            return node;
          },
          transformResult: async ({ result }) => result,
        };
        await migrate({ ...handle, db: handle.db.withPlugin(recorder) }, config);
        assert.ok(createIndexes.length >= 10, `${createIndexes.length} CREATE INDEX statements seen`);
        const withIfNotExists = createIndexes.filter((n) => n.ifNotExists).map((n) => n.name.name);
        assert.deepEqual(withIfNotExists, [], 'CREATE INDEX IF NOT EXISTS is a syntax error on MySQL');
      });

      test('migrate twice, and the module migration run again, leave exactly the indexes of the first run', async () => {
        await migrate(handle, config);
        const first = await mysqlIndexes(handle);
        assert.ok(
          first.some((i) => i.startsWith('llx_bericht_login_failure.llx_idx_bericht_login_failure_at(')),
          first.join('\n'),
        );
        assertNoDuplicates(first);

        assert.deepEqual((await migrate(handle, config)).applied, []);
        assert.deepEqual(await mysqlIndexes(handle), first, 'a second run');

        // Make the migrator run 0002 once more over its own tables: its indexes exist already.
        // (The migrations after it too: the migrator runs them in order.)
        await sql`delete from llx_bericht_migration where name >= '0002-bericht-module'`.execute(handle.db);
        assert.deepEqual((await migrate(handle, config)).applied, [
          '0002-bericht-module',
          '0003-bericht-idempotency',
          '0004-standalone-indexes',
          '0005-bericht-signature',
          '0006-bericht-file-intent',
          '0007-bericht-idempotency-longtext',
          '0008-bericht-newest',
          '0009-bericht-signature-device-time',
          '0010-bericht-photos-per-sheet',
          '0011-standalone-societe-lang',
          '0012-bericht-checklist-time',
          '0013-bericht-mail',
          '0014-bericht-photo-evidence',
          '0015-bericht-seal',
          '0016-bericht-page-users',
          '0017-bericht-sessions',
          '0018-bericht-page-prompt',
          '0019-standalone-assigned-work',
          '0020-standalone-fichinter',
          '0021-catalogue',
          '0022-stock-movements',
          '0023-intervention-lines',
          '0024-invoice-lines',
          '0025-report-invoice',
          '0026-report-own-material',
        ]);
        const again = await mysqlIndexes(handle);
        assert.deepEqual(again, first, 'the module migration run again');
        assertNoDuplicates(again);
      });
    });
  }
}
