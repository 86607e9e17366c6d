/**
 * `migrate`: idempotent and safe on every start, also with several processes at once (Kysely's
 * migrator holds a lock row while it works). Afterwards the module's rights are registered in
 * `rights_def` for the served entity when they are missing, as a module's activation would.
 */
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Config } from '../config.js';
import { RIGHT_DEFINITIONS, RIGHTS_MODULE } from '../dolibarr/rights.js';
import type { Db, DbHandle } from './database.js';
import { isUniqueViolation } from './dialect.js';
import { dolibarrCore } from './migrations/0001-dolibarr-core.js';
import { isStandalone } from './migrations/helpers.js';
import { berichtModule } from './migrations/0002-bericht-module.js';
import { berichtIdempotency } from './migrations/0003-bericht-idempotency.js';
import { standaloneIndexes } from './migrations/0004-standalone-indexes.js';
import { berichtSignature } from './migrations/0005-bericht-signature.js';
import { berichtFileIntent } from './migrations/0006-bericht-file-intent.js';
import { berichtIdempotencyLongtext } from './migrations/0007-bericht-idempotency-longtext.js';
import { berichtNewest } from './migrations/0008-bericht-newest.js';
import { berichtSignatureDeviceTime } from './migrations/0009-bericht-signature-device-time.js';
import { berichtPhotosPerSheet } from './migrations/0010-bericht-photos-per-sheet.js';
import { standaloneSocieteLang } from './migrations/0011-standalone-societe-lang.js';
import { berichtChecklistTime } from './migrations/0012-bericht-checklist-time.js';
import { berichtMail } from './migrations/0013-bericht-mail.js';
import { berichtPhotoEvidence } from './migrations/0014-bericht-photo-evidence.js';
import { berichtSeal } from './migrations/0015-bericht-seal.js';
import { berichtPageUsers } from './migrations/0016-bericht-page-users.js';
import { berichtSessions } from './migrations/0017-bericht-sessions.js';
import { berichtPagePrompt } from './migrations/0018-bericht-page-prompt.js';
import { standaloneAssignedWork } from './migrations/0019-standalone-assigned-work.js';
import { standaloneFichinter } from './migrations/0020-standalone-fichinter.js';
import { catalogue } from './migrations/0021-catalogue.js';
import { stockMovements } from './migrations/0022-stock-movements.js';
import { interventionLines } from './migrations/0023-intervention-lines.js';
import { invoiceLines } from './migrations/0024-invoice-lines.js';
import { reportInvoice } from './migrations/0025-report-invoice.js';
import { reportOwnMaterial } from './migrations/0026-report-own-material.js';

export interface MigrateReport {
  applied: string[];
  rightsAdded: string[];
  standalone: boolean;
}

function provider(handle: DbHandle): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '0001-dolibarr-core': dolibarrCore(handle.dialect, handle.prefix),
        '0002-bericht-module': berichtModule(handle.dialect, handle.prefix),
        '0003-bericht-idempotency': berichtIdempotency(handle.dialect, handle.prefix),
        '0004-standalone-indexes': standaloneIndexes(handle.dialect, handle.prefix),
        '0005-bericht-signature': berichtSignature(handle.dialect, handle.prefix),
        '0006-bericht-file-intent': berichtFileIntent(handle.dialect, handle.prefix),
        '0007-bericht-idempotency-longtext': berichtIdempotencyLongtext(handle.dialect),
        '0008-bericht-newest': berichtNewest(handle.dialect, handle.prefix),
        '0009-bericht-signature-device-time': berichtSignatureDeviceTime(handle.dialect, handle.prefix),
        '0010-bericht-photos-per-sheet': berichtPhotosPerSheet(handle.dialect, handle.prefix),
        '0011-standalone-societe-lang': standaloneSocieteLang(handle.prefix),
        '0012-bericht-checklist-time': berichtChecklistTime(handle.dialect, handle.prefix),
        '0013-bericht-mail': berichtMail(handle.dialect, handle.prefix),
        '0014-bericht-photo-evidence': berichtPhotoEvidence(handle.dialect, handle.prefix),
        '0015-bericht-seal': berichtSeal(handle.dialect, handle.prefix),
        '0016-bericht-page-users': berichtPageUsers(handle.dialect, handle.prefix),
        '0017-bericht-sessions': berichtSessions(handle.dialect, handle.prefix),
        '0018-bericht-page-prompt': berichtPagePrompt(handle.dialect, handle.prefix),
        '0019-standalone-assigned-work': standaloneAssignedWork(handle.dialect, handle.prefix),
        '0020-standalone-fichinter': standaloneFichinter(handle.dialect, handle.prefix),
        '0021-catalogue': catalogue(handle.dialect, handle.prefix),
        '0022-stock-movements': stockMovements(handle.dialect, handle.prefix),
        '0023-intervention-lines': interventionLines(handle.dialect, handle.prefix),
        '0024-invoice-lines': invoiceLines(handle.dialect, handle.prefix),
        '0025-report-invoice': reportInvoice(handle.dialect, handle.prefix),
        '0026-report-own-material': reportOwnMaterial(handle.prefix),
      };
    },
  };
}

export async function migrate(handle: DbHandle, config: Pick<Config, 'entity'>): Promise<MigrateReport> {
  const migrator = new Migrator({
    db: handle.db,
    provider: provider(handle),
    // Full names: the prefix plugin only rewrites the logical names of `Database`.
    migrationTableName: `${handle.prefix}bericht_migration`,
    migrationLockTableName: `${handle.prefix}bericht_migration_lock`,
  });
  // Up to date: nothing to lock or write (a database that takes no writes still starts, and
  // answers reads; writes are refused with 503 DATABASE_READ_ONLY).
  const pending = (await migrator.getMigrations().catch(() => undefined))?.some((m) => m.executedAt === undefined) ?? true;
  const { error, results } = pending ? await migrator.migrateToLatest() : { error: undefined, results: [] };
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const what = failed ? `Migration ${failed}` : 'Migration';
    throw new Error(`${what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const rightsAdded = await ensureModuleRights(handle.db, config.entity, handle.prefix);
  return {
    applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
    rightsAdded,
    standalone: await isStandalone(handle.db),
  };
}

/**
 * Registers the module's rights for `entity` where they are missing. Returns the rights added.
 * Another process may register at the same moment: after a conflict the rows are read again, and
 * a right still missing gets another id, a few times over.
 */
export async function ensureModuleRights(db: Db, entity: number, prefix: string): Promise<string[]> {
  const added: string[] = [];
  // As DolibarrModules::insert_permissions writes them: module_origin '', subperms '', enabled '1'.
  // module_origin and enabled are missing in older Dolibarr versions: written only where they exist.
  const tables = await db.introspection.getTables();
  const columns = new Set(tables.find((t) => t.name === `${prefix}rights_def`)?.columns.map((c) => c.name) ?? []);
  const optional = {
    ...(columns.has('module_origin') ? { module_origin: '' } : {}),
    ...(columns.has('enabled') ? { enabled: '1' } : {}),
  };
  for (const def of RIGHT_DEFINITIONS) {
    for (let attempt = 0; ; attempt++) {
      const existing = await db
        .selectFrom('rights_def')
        .select(['id', 'module', 'perms', 'subperms'])
        .where('entity', '=', entity)
        .execute();
      const present = existing.some(
        (r) => r.module === RIGHTS_MODULE && r.perms === def.right && (r.subperms === null || r.subperms === ''),
      );
      if (present) break;
      // Our id taken by another module's right: the next free one above every id, rather than clash.
      const usedIds = new Set(existing.map((r) => r.id));
      const id = usedIds.has(def.id) ? Math.max(...usedIds) + 1 : def.id;
      try {
        await db
          .insertInto('rights_def')
          .values({
            id,
            entity,
            libelle: def.label,
            module: RIGHTS_MODULE,
            module_position: 500,
            family_position: 0,
            perms: def.right,
            subperms: '',
            type: def.type,
            bydefault: 0,
            ...optional,
          })
          .execute();
        added.push(def.right);
        break;
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 4) throw error;
      }
    }
  }
  // Rows registered by earlier versions have NULL there: written as Dolibarr writes them (read
  // first, so a database that takes no writes still starts when nothing is to be done).
  const ours = await db.selectFrom('rights_def').selectAll().where('entity', '=', entity).where('module', '=', RIGHTS_MODULE).execute();
  const fix = {
    ...(ours.some((r) => r.subperms === null) ? { subperms: '' } : {}),
    ...('module_origin' in optional && ours.some((r) => r.module_origin === null) ? { module_origin: '' } : {}),
    ...('enabled' in optional && ours.some((r) => r.enabled === null) ? { enabled: '1' } : {}),
  };
  for (const [column, value] of Object.entries(fix) as Array<['subperms' | 'module_origin' | 'enabled', string]>) {
    await db
      .updateTable('rights_def')
      .set({ [column]: value })
      .where('entity', '=', entity)
      .where('module', '=', RIGHTS_MODULE)
      .where(column, 'is', null)
      .execute();
  }
  return added;
}

/** True when the Dolibarr tables were created by this service (no real Dolibarr behind them). */
export { isStandalone };
