/**
 * Changing a report after it was made: for now its PDF's page layout (`photos_per_sheet`). Only a
 * draft changes (a final report's PDF is made: 409 REPORT_FINAL), only by someone who sees it, and
 * a template only by a template manager, as its pages (modules/pages). The change runs in a
 * transaction that locks the report row, so a finalize at the same moment renders either the old
 * or the new layout, and the PDF it writes matches the report's row.
 *
 * An Idempotency-Key (the app sends the change from its offline queue) is claimed once the report
 * is found visible and before its state is checked, so a repeat after the report was finalized
 * still gets its first answer; the answer is stored in the change's own transaction.
 */
import type { DbHandle, Db } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { RunRegistry } from '../../adapters/runs.js';
import type { Config } from '../../config.js';
import type { AuthUser } from '../auth/auth.service.js';
import { idempotent } from '../common/idempotency.js';
import type { ReportRepository, ReportRow } from './reports.repository.js';
import type { ReportDetail, UpdateReportBody } from './reports.schemas.js';
import { withPageSignatures } from './reports.mappers.js';
import { hasAdminRight } from './reports.service.js';

export interface ReportSettingsServiceDeps {
  handle: DbHandle;
  repo: ReportRepository;
  config: Pick<Config, 'entity'>;
  runs: Pick<RunRegistry, 'state'>;
  /** The report when the caller sees it, else REPORT_NOT_FOUND (the reports service's); `conn` may be a transaction. */
  visibleReport(user: AuthUser, id: number, conn?: Db): Promise<ReportRow>;
  detail(user: AuthUser, row: ReportRow, conn?: Db): Promise<ReportDetail>;
}

/** A template changes only for a template manager; a final report not at all. */
function checkChangeable(report: { status: number; is_template: number }, user: AuthUser): void {
  if (report.is_template === 1 && !hasAdminRight(user)) {
    throw new AppError('AUTH_RIGHT_MISSING', { message: 'Vorlagen verwalten nur Administratoren', details: { right: 'admin' } });
  }
  if (report.status !== 0) throw new AppError('REPORT_FINAL');
}

export function createReportSettingsService(deps: ReportSettingsServiceDeps) {
  const { handle, repo, config, runs, visibleReport, detail } = deps;
  const { db } = handle;

  return {
    /** Sets what `body` names; with `key`, a repeat answers as the first request did (scope `report:update:<id>`). */
    async update(user: AuthUser, id: number, body: UpdateReportBody, key?: string): Promise<ReportDetail> {
      const report = await visibleReport(user, id);
      const answer = await idempotent(
        { db, runs },
        { entity: config.entity, userId: user.id, key, scope: `report:update:${id}` },
        async (claim) => {
          checkChangeable(report, user);
          return db.transaction().execute(async (trx) => {
            const locked = await repo.lockById(trx, id);
            if (!locked) throw new AppError('REPORT_NOT_FOUND');
            checkChangeable(locked, user);
            await repo.updateReport(trx, id, { photos_per_sheet: body.photos_per_sheet, fk_user_modif: user.id });
            const changed = await detail(user, await visibleReport(user, id, trx), trx);
            await claim?.complete(200, changed, trx);
            return changed;
          });
        },
      );
      return withPageSignatures(repo, db, answer);
    },
  };
}

export type ReportSettingsService = ReturnType<typeof createReportSettingsService>;
