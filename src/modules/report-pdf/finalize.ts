/**
 * Finalizing a report (contract endpoint 8, action finalize; docs/api-contract.md, States) is all or
 * nothing: the PDF is rendered under a temporary name in the report's work area and sealed, then in
 * one transaction the status turns final (only if still draft and the pages and the time on site
 * printed are still the report's), the report takes its intervals, the seal is recorded, the
 * `ecm_files` rows are added, Dolibarr's agenda gets its event, and the files are renamed into
 * place. Any failure leaves a draft and no file; a process killed meanwhile leaves intents that the
 * next start resolves (recovery.ts).
 */
import { copyFile, mkdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { hashFile } from '../../adapters/file-store.js';
import { tempName } from '../../adapters/runs.js';
import type { Config } from '../../config.js';
import type { DbHandle } from '../../db/database.js';
import { recordAgendaEvent } from '../../dolibarr/agenda.js';
import { createColumnFitter } from '../../dolibarr/charset.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { type ElementType, objectFolder } from '../../dolibarr/documents.js';
import { ecmFileRef } from '../../dolibarr/ecm.js';
import { createEcmFilesRepository } from '../../dolibarr/ecm-files.repository.js';
import { AppError } from '../../errors.js';
import type { AuthUser } from '../auth/auth.service.js';
import { beginIntent, endIntent } from '../maintenance/file-intents.js';
import type { ReportRepository, ReportRow, PageRow } from '../reports/reports.repository.js';
import type { ReportDetail } from '../reports/reports.schemas.js';
import { reportFolder, WORK_AREA_DIR } from '../reports/work-area.js';
import type { PdfSeal } from '../seal/pdf-seal.js';
import type { TimeService } from '../times/times.service.js';
import { INTERVENTION_SETTINGS, type VisitIntervention } from '../office-records/visit-intervention.js';
import { INVOICE_SETTINGS, type VisitInvoice } from '../office-records/visit-invoice.js';
import { type VanStock, vanStockNote } from '../stock/van-stock.js';
import type { PdfInputs, VisitShown } from './pdf-inputs.js';
import type { EvidenceRender } from './sheets.js';

/**
 * Renders the PDF of `report` into `file` (created new; removed again on failure): `strict` makes a
 * missing or unreadable image an error; `made` describes the PDF for the evidence sheet.
 */
export type RenderToFile = (
  report: ReportRow,
  pages: PageRow[],
  visit: VisitShown,
  user: AuthUser,
  file: string,
  strict: boolean,
  made: EvidenceRender,
) => Promise<void>;

export interface FinalizeDeps {
  handle: DbHandle;
  repo: ReportRepository;
  config: Config;
  consts: ConstRepository;
  inputs: Pick<PdfInputs, 'parentOf' | 'intervalsOf' | 'visitOf' | 'missingSources'>;
  /** The render slots of the process (report-pdf.service.ts). */
  limit: <T>(work: () => Promise<T>) => Promise<T>;
  renderToFile: RenderToFile;
  visibleReport(user: AuthUser, id: number): Promise<ReportRow>;
  detail(user: AuthUser, row: ReportRow): Promise<ReportDetail>;
  /** Time on site: what the report takes when finalized. */
  times: Pick<TimeService, 'scopeFor' | 'lock' | 'take'>;
  /** The PDF seal every final report gets (PAdES), and its record. */
  seal: Pick<PdfSeal, 'seal' | 'record' | 'queue'>;
  /** The visit's parts out of the vans (stock/van-stock.ts). */
  vanStock: Pick<VanStock, 'settings' | 'settle'>;
  /** The visit as a Dolibarr intervention (office-records/visit-intervention.ts). */
  visitIntervention: Pick<VisitIntervention, 'record'>;
  /** The visit's draft invoice (office-records/visit-invoice.ts). */
  visitInvoice: Pick<VisitInvoice, 'record'>;
}

export function createFinalize(deps: FinalizeDeps) {
  const { handle, repo, config, consts } = deps;
  const { dataRoot, entity } = config;
  /** Text into Dolibarr's agenda fitted to its columns' character set (charset.ts). */
  const agendaFitter = createColumnFitter(handle.db, handle.dialect, handle.prefix);

  /**
   * `from.ip`: where the request came from, kept with Dolibarr's event; `from.missing`: why it is
   * finalized with what is still missing, printed in the PDF (pdf-inputs.ts, incompleteOf).
   */
  return async function finalize(
    user: AuthUser,
    id: number,
    from: { ip?: string; missing?: ReadonlyArray<{ what: string; reason: string }> } = {},
  ): Promise<ReportDetail> {
    const report = await deps.visibleReport(user, id);
    if (report.is_template === 1) throw new AppError('CONFLICT', { message: 'Eine Vorlage wird nicht abgeschlossen' });
    if (report.status !== 0) throw new AppError('REPORT_FINAL');
    const pages = await repo.pages(handle.db, id);
    if (pages.length === 0) throw new AppError('REPORT_EMPTY');
    const missing = await deps.inputs.missingSources(pages);
    if (missing.length > 0) throw new AppError('REPORT_SOURCE_MISSING', { details: { missing } });

    const folder = reportFolder(dataRoot, entity, report.ref);
    const filename = `${folder.name}.pdf`;
    const target = path.join(folder.dir, filename);
    const madeFolder = await mkdir(folder.dir, { recursive: true });
    const temp = path.join(folder.dir, tempName(filename));
    // A copy in the object's own documents (commande/<ref>/<report ref>.pdf), where Dolibarr's
    // screens, its "send by e-mail" and its merge tools find it.
    const parent = await deps.inputs.parentOf(report);
    const copy = parent && report.element_type ? objectFolder(dataRoot, entity, report.element_type as ElementType, parent.ref) : undefined;
    const copyTarget = copy && path.join(copy.dir, filename);
    const copyTemp = copy && path.join(copy.dir, tempName(filename));
    const written: string[] = [];
    const intents: Array<[string, string]> = [];
    let placed = false;
    let sealedTimestamp: string | undefined;
    const scope = await deps.times.scopeFor(user, report);
    const stockSettings = await deps.vanStock.settings();
    const interventionSettings = await consts.getMany(INTERVENTION_SETTINGS);
    const invoiceSettings = await consts.getMany(INVOICE_SETTINGS);
    /** The PDF among the documents of the intervention the visit made or completed, when not the report's object. */
    let interventionCopy: { temp: string; target: string; where: string } | undefined;
    // What the PDF prints of the visit: the time on site it takes, and the material lines that settle
    // with it (those not yet settled; lines an earlier version settled stay as they were).
    const visit = await deps.inputs.visitOf(report, scope);
    const intervals = visit.intervals;
    const printedMaterials = visit.materials.filter((m) => !m.settled).map((m) => m.id);
    try {
      // The finalization as the evidence sheet prints it: now, by the caller, from where the request came.
      const made: EvidenceRender = {
        at: Math.floor(Date.now() / 1000),
        ip: from.ip ?? null,
        file: filename,
        preview: false,
        missing: from.missing ?? [],
      };
      await deps.limit(() => deps.renderToFile(report, pages, visit, user, temp, true, made));
      written.push(temp);
      // Sealed before anything else sees it: every copy of the final PDF carries the seal.
      const company = (await consts.getMany(['MAIN_INFO_SOCIETE_NOM'])).get('MAIN_INFO_SOCIETE_NOM') ?? '';
      const sealed = await deps.seal.seal(temp, report, { company });
      sealedTimestamp = sealed.timestamp;
      if (copy && copyTemp) {
        await mkdir(copy.dir, { recursive: true });
        await copyFile(temp, copyTemp);
        written.push(copyTemp);
      }
      const md5 = await hashFile(temp, 'md5');
      const salt = (await consts.getMany(['MAIN_SECURITY_SALT'])).get('MAIN_SECURITY_SALT') ?? '';
      // Committed before the PDFs get their names: a kill between the renames and the commit below
      // leaves PDFs without rows, which the intents let the next start remove (recovery.ts).
      for (const where of [folder.filepath, ...(copy ? [copy.filepath] : [])]) {
        await beginIntent(handle.db, entity, where, filename);
        intents.push([where, filename]);
      }
      await handle.db.transaction().execute(async (trx) => {
        const locked = await repo.lockById(trx, id);
        if (!locked) throw new AppError('REPORT_NOT_FOUND');
        if (locked.status !== 0) throw new AppError('REPORT_FINAL');
        // The time on site locked before anything is read: on MariaDB the first plain read fixes the
        // transaction's snapshot, which must come after a correction that was still at work.
        await deps.times.lock(trx, report);
        // The pages rendered must still be the report's pages: a change meanwhile means render again.
        const now = await repo.pages(trx, id);
        if (JSON.stringify(now) !== JSON.stringify(pages))
          throw new AppError('CONFLICT', { message: 'Der Bericht wurde während des Abschließens geändert; bitte erneut abschließen' });
        // Likewise the time on site printed: the report takes exactly those intervals, unchanged
        // (another report of the order finalized meanwhile took them: render again).
        const taking = intervals.filter((i) => i.fk_bericht === null).map((i) => i.id);
        if (
          JSON.stringify(await deps.inputs.intervalsOf(scope, trx)) !== JSON.stringify(intervals) ||
          (await deps.times.take(trx, id, taking)) !== taking.length
        ) {
          throw new AppError('CONFLICT', {
            message: 'Die Zeit vor Ort wurde während des Abschließens geändert; bitte erneut abschließen',
          });
        }
        const relPath = `${WORK_AREA_DIR}/${folder.name}/${filename}`;
        await repo.updateReport(trx, id, { status: 1, final_pdf_path: relPath, fk_user_modif: user.id }, { status: 0 });
        const ecm = createEcmFilesRepository(trx, { dialect: handle.dialect, timeZone: config.timeZone });
        // As Dolibarr indexes a document it generates: '' as the original name, 'generated'.
        const index = async (filepath: string, srcObjectType: string, srcObjectId: number) => {
          await ecm.remove(entity, filepath, filename);
          await ecm.create({
            ref: ecmFileRef(salt, filepath, filename),
            label: md5,
            entity,
            filepath,
            filename,
            srcObjectType,
            srcObjectId,
            fullpathOrig: '',
            fkUserC: user.id,
            genOrUploaded: 'generated',
          });
        };
        // The parts out of the vans, exactly once: the lines settled here are never settled again.
        const stock =
          report.element_type && report.fk_element !== null
            ? await deps.vanStock.settle(
                trx,
                stockSettings,
                { id, ref: report.ref, element_type: report.element_type, fk_element: Number(report.fk_element) },
                user.id,
                printedMaterials,
              )
            : undefined;
        // The visit as an intervention: its time, its parts, its signature, and the PDF among its documents.
        const office =
          stock && report.element_type && report.fk_element !== null
            ? await deps.visitIntervention.record(trx, interventionSettings, {
                report: { ref: report.ref, title: report.title, element_type: report.element_type, fk_element: Number(report.fk_element) },
                userId: user.id,
                intervals: intervals.filter((i) => taking.includes(i.id)),
                lines: stock.lines,
                signed: pages.some((p) => p.layout === 'signature'),
              })
            : undefined;
        // The draft invoice of the visit, for the clerk to check and validate in Dolibarr.
        const bill =
          stock && report.element_type && report.fk_element !== null
            ? await deps.visitInvoice.record(trx, invoiceSettings, {
                report: { ref: report.ref, element_type: report.element_type, fk_element: Number(report.fk_element) },
                userId: user.id,
                intervals: intervals.filter((i) => taking.includes(i.id)),
                lines: stock.lines,
                intervention: office?.intervention ?? null,
              })
            : undefined;
        // The report says which intervention and invoice its time and parts went on (the module's tab shows them).
        if (office?.intervention || bill?.invoice)
          await trx
            .updateTable('bericht')
            .set({ fk_fichinter: office?.intervention?.id ?? null, fk_facture: bill?.invoice?.id ?? null })
            .where('rowid', '=', id)
            .execute();
        await deps.seal.record(trx, report, sealed);
        await index(folder.filepath, 'bericht', id);
        if (copy && report.element_type) await index(copy.filepath, report.element_type, Number(report.fk_element));
        if (office?.intervention && report.element_type !== 'fichinter') {
          // Its intent commits with its row, and the file gets its name after the commit: a process
          // killed in between leaves an intent whose row the next start removes (recovery.ts).
          const theirs = objectFolder(dataRoot, entity, 'fichinter', office.intervention.ref);
          await mkdir(theirs.dir, { recursive: true });
          interventionCopy = {
            temp: path.join(theirs.dir, tempName(filename)),
            target: path.join(theirs.dir, filename),
            where: theirs.filepath,
          };
          await copyFile(temp, interventionCopy.temp);
          written.push(interventionCopy.temp);
          await beginIntent(trx, entity, theirs.filepath, filename);
          await index(theirs.filepath, 'fichinter', office.intervention.id);
        }
        if (report.element_type && report.fk_element !== null) {
          await recordAgendaEvent(trx, handle.dialect, agendaFitter, {
            entity,
            trigger: 'BERICHT_VALIDATE',
            label: `Bericht ${report.ref} abgeschlossen`,
            note: [
              `Bericht ${report.ref} „${report.title}“ abgeschlossen`,
              `Seiten: ${pages.length}`,
              `PDF: ${filename}`,
              ...(stock ? vanStockNote(stock) : []),
              ...(office?.note ?? []),
              ...(bill?.note ?? []),
            ].join('\n'),
            socId: parent?.fk_soc ?? null,
            elementType: report.element_type,
            elementId: report.fk_element,
            userId: user.id,
            ip: from.ip ?? null,
            timeZone: config.timeZone,
          });
        }
        await rename(temp, target);
        if (copyTemp && copyTarget) await rename(copyTemp, copyTarget);
        placed = true;
      });
    } catch (error) {
      await Promise.all(
        (placed ? [target, ...(copyTarget ? [copyTarget] : []), ...(interventionCopy ? [interventionCopy.temp] : [])] : written).map(
          (file) => rm(file, { force: true }),
        ),
      );
      for (const [where, name] of intents) await endIntent(handle.db, entity, where, name).catch(() => undefined);
      if (madeFolder) await rmdir(folder.dir).catch(() => undefined); // only when still empty
      if (interventionCopy) await rmdir(path.dirname(interventionCopy.target)).catch(() => undefined);
      throw error;
    }
    for (const [where, name] of intents) await endIntent(handle.db, entity, where, name).catch(() => undefined);
    if (interventionCopy) {
      const { temp: from, target: to, where } = interventionCopy;
      // A rename that fails leaves the intent: the next start removes the row of the missing copy.
      await rename(from, to).then(
        () => endIntent(handle.db, entity, where, filename).catch(() => undefined),
        () => undefined,
      );
    }
    if (sealedTimestamp === 'pending') deps.seal.queue.kick();
    return deps.detail(user, await deps.visibleReport(user, id));
  };
}
