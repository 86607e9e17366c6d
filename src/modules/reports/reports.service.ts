/**
 * Reports as the caller may see them (docs/architecture.md, Visibility): list, detail with pages and version
 * links, create (also from a template), new version, delete, and templates. Finalizing and the
 * PDF are in modules/report-pdf, pages in modules/pages.
 *
 * A report and its pages are written in one transaction together with the files copied into its
 * work area; a failure removes the copied files, so nothing half-made stays behind. The answer (the
 * new report's detail) is read in that transaction too, and with an Idempotency-Key stored in it
 * (common/idempotency.ts): a repeat finds the report and its answer together or neither.
 *
 * What a crash can still leave: images copied into the new work area (a template's, or those of
 * the report a new version is made of) reach their names before the transaction commits. A
 * process killed in between leaves them in a `bericht/<ref>/` folder that no report owns, with no
 * row and, for a create with a key, no answer: the dead run's claim is freed, the repeat makes the
 * report once, under the next ref (a folder that is there is never reused), and the folder stays
 * until someone removes it.
 *
 * One file, longer than most: create, create from a template, new version and delete share the
 * report's insert (insertReport), its locks and its visibility rules.
 */
import { toDolibarrDateTime } from '../../dolibarr/time.js';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { forgetPrintImage, type PrintQueue } from '../../adapters/print-image.js';
import type { Selectable } from 'kysely';
import type { Config } from '../../config.js';
import type { Db, DbHandle } from '../../db/database.js';
import { fromDbDateTime, isUniqueViolation, toDbDateTime } from '../../db/dialect.js';
import type { BerichtTable } from '../../db/tables.js';
import { objectFolder, type ElementType } from '../../dolibarr/documents.js';
import { AppError } from '../../errors.js';
import { reportStatus } from '../common/common.schemas.js';
import type { AuthUser } from '../auth/auth.service.js';
import { notFoundCode, type ElementAccess } from '../access/element-access.js';
import { idempotent } from '../common/idempotency.js';
import type { RunRegistry } from '../../adapters/runs.js';
import { createEcmFilesRepository } from '../../dolibarr/ecm-files.repository.js';
import { deleteEvidence } from '../photo-evidence/photo-evidence.repository.js';
import { copyEvidence } from '../photo-evidence/photo-evidence.repository.js';
import type { ListTotals } from '../../db/list-total.js';
import { REPORT_ALIAS, type PageRow, type ReportRepository, type ReportRow } from './reports.repository.js';
import type { CreateReportBody, CreateTemplateBody, ReportDetail } from './reports.schemas.js';
import { DEFAULT_PHOTOS_PER_SHEET, photosPerSheetOf } from './photos-per-sheet.js';
import { clearedItems, highestId, readItems, writeItems } from '../pages/checklist.js';
import { copyIntoFolder, isInWorkArea, prepareAhead, printCacheDir, reportFolder, resolveSource, WORK_AREA_DIR } from './work-area.js';
import { keptCopiesOf, resolveKept } from './kept-copies.js';
import { toPageResponse, pageEvidenceOf, signatureFactsOf, withPageSignatures, toReportItem, toTemplateItem } from './reports.mappers.js';

/** Tries at most this many refs when others take them at the same moment. */
const REF_ATTEMPTS = 10;
/** Longest version chain walked for the version links. */
const MAX_VERSIONS = 500;

export interface ReportServiceDeps {
  handle: DbHandle;
  repo: ReportRepository;
  access: ElementAccess;
  config: Config;
  runs: Pick<RunRegistry, 'state'>;
  printQueue: Pick<PrintQueue, 'add'>;
  /** Pages of lists with their totals (list-total.ts). */
  totals: ListTotals;
  /** Cover-sheet templates a report may name. */
  odtTemplateNames(): Promise<string[]>;
}

/**
 * The admin right of docs/architecture.md: Dolibarr's admin flag or the module's admin right. Template
 * management and deleting a final report need it.
 */
export function hasAdminRight(user: AuthUser): boolean {
  return user.admin || user.perms.admin;
}

/** `BR<yy><mm>-` of the current month where Dolibarr is (TIME_ZONE), as its numbering modules build refs. */
export function refPrefix(now = new Date(), timeZone = 'UTC'): string {
  const local = toDolibarrDateTime(now, timeZone);
  return `BR${local.slice(2, 4)}${local.slice(5, 7)}-`;
}

/** What a new report is made of: its row and the pages it starts with (copied from another report). */
interface NewReport {
  fields: Omit<
    Selectable<BerichtTable>,
    | 'rowid'
    | 'ref'
    | 'entity'
    | 'datec'
    | 'tms'
    | 'status'
    | 'final_pdf_path'
    | 'fk_fichinter'
    | 'fk_facture'
    | 'all_material'
    | 'fk_user_modif'
    | 'fk_user_creat'
  >;
  pages: PageRow[];
  /** Copy pages' attachments (not only work-area files) into the new work area: templates own their images. */
  copyAttachments: boolean;
  /** Checklist pages start unanswered (a report from a template, a new template); a new version keeps the answers. */
  clearChecks: boolean;
  /** A report from a template: the template's notes are prompts (placeholders, never printed), the notes start empty. */
  notesAsPrompts?: boolean;
  /** A new version of this report: its row is locked and the version number counted in the same transaction. */
  versionOf?: number;
  /**
   * The copies the source's signatures kept of its images (kept-copies.ts): an attachment that is
   * gone since (deleted in Dolibarr) is taken from there into the new work area.
   */
  kept?: ReadonlyMap<string, readonly string[]>;
}

export function createReportService(deps: ReportServiceDeps) {
  const { handle, repo, access, config, runs, printQueue, totals } = deps;
  const { db } = handle;
  const { dataRoot, entity } = config;

  async function visibleReport(user: AuthUser, id: number, conn: Db = db): Promise<ReportRow> {
    const row = await repo.getById(conn, id, access.reportVisible(user, REPORT_ALIAS));
    if (!row) throw new AppError('REPORT_NOT_FOUND');
    return row;
  }

  async function visibleTemplate(user: AuthUser, id: number): Promise<ReportRow> {
    const row = await repo.getById(db, id, access.reportVisible(user, REPORT_ALIAS));
    if (!row || row.is_template !== 1) throw new AppError('TEMPLATE_NOT_FOUND');
    return row;
  }

  async function parentOf(user: AuthUser, type: ElementType, id: number) {
    const element = await access.getById(type, id, user);
    if (!element) throw new AppError(notFoundCode(type));
    return element;
  }

  async function checkOdtTemplate(name: string | null | undefined): Promise<void> {
    if (name === null || name === undefined) return;
    if (!(await deps.odtTemplateNames()).includes(name)) throw new AppError('ODT_TEMPLATE_NOT_FOUND', { details: { odt_template: name } });
  }

  /**
   * Every version linked to `id` through fk_bericht_parent, either way, by version number; with
   * `user`, only those the user may see.
   */
  async function versionsOf(id: number, conn: Db = db, user?: AuthUser) {
    const seen = new Map<number, Awaited<ReturnType<ReportRepository['linked']>>[number]>();
    const queued = new Set([id]);
    let frontier = [id];
    // Each round finds the frontier's own rows (and so their parents) and their children.
    while (frontier.length > 0 && seen.size < MAX_VERSIONS) {
      const rows = await repo.linked(conn, frontier);
      const next: number[] = [];
      const enqueue = (n: number) => {
        if (!queued.has(n)) {
          queued.add(n);
          next.push(n);
        }
      };
      for (const row of rows) {
        seen.set(row.rowid, row);
        enqueue(row.rowid);
        if (row.fk_bericht_parent !== null) enqueue(row.fk_bericht_parent);
      }
      frontier = next;
    }
    const visible = user ? new Set(await repo.visibleIds(conn, [...seen.keys()], access.reportVisible(user, REPORT_ALIAS))) : undefined;
    return [...seen.values()]
      .filter((r) => !visible || visible.has(r.rowid))
      .map((r) => ({
        id: r.rowid,
        ref: r.ref,
        version: r.version,
        status: reportStatus(r.status),
        datec: fromDbDateTime(r.datec),
      }))
      .sort((a, b) => a.version - b.version || a.id - b.id);
  }

  async function detail(user: AuthUser, row: ReportRow, conn: Db = db): Promise<ReportDetail> {
    // Whose settled material lines the report lists, for the app's sign-off to show what the PDF prints.
    const source = await repo.materialSource(conn, entity, row, await repo.lineage(conn, row.rowid));
    const pages = await repo.pages(conn, row.rowid);
    const signatures = await signatureFactsOf(repo, conn, pages);
    const evidence = await pageEvidenceOf(conn, entity, pages);
    return {
      ...toReportItem(row),
      pages: pages.map((p) => toPageResponse(p, signatures.get(p.rowid), evidence)),
      material_reports: source.reports,
      material_unknown: source.unknown,
      versions: await versionsOf(row.rowid, conn, user),
    };
  }

  /**
   * Inserts the report under the next free ref of the month with its pages, copying page files
   * into its work area inside the same transaction, and returns its detail, read in that
   * transaction and handed to `answered` there (to store it as an idempotent answer). Two requests
   * at once may pick the same number: the unique index refuses the second, which tries the next one.
   */
  async function insertReport(
    user: AuthUser,
    input: NewReport,
    answered?: (trx: Db, answer: ReportDetail) => Promise<void>,
  ): Promise<ReportDetail> {
    const prefix = refPrefix(new Date(), config.timeZone);
    let bump = 0;
    for (let attempt = 0; attempt < REF_ATTEMPTS; attempt++) {
      let createdFolder: string | undefined;
      const inserted: Array<Parameters<typeof prepareAhead>[3]> = [];
      try {
        const answer = await db.transaction().execute(async (trx) => {
          const number = (await repo.maxRefNumber(trx, entity, prefix)) + 1 + bump;
          const ref = `${prefix}${String(number).padStart(4, '0')}`;
          const folder = reportFolder(dataRoot, entity, ref);
          // A folder left by a report that is gone is not ours to fill or to remove: take the next number.
          if (await exists(folder.dir)) {
            bump++;
            throw new RetryRef();
          }
          const now = toDbDateTime();
          let version = input.fields.version;
          if (input.versionOf !== undefined) {
            // Two new versions at once: the second waits for the first here and counts it.
            await repo.lockById(trx, input.versionOf);
            version = Math.max(0, ...(await versionsOf(input.versionOf, trx)).map((v) => v.version)) + 1;
          }
          const id = await repo.insertReport(trx, {
            ...input.fields,
            version,
            ref,
            entity,
            status: 0,
            final_pdf_path: null,
            fk_user_creat: user.id,
            datec: now,
            tms: now,
          });
          let order = 0;
          // One image shown on several pages gets one name here, not name_2, name_3, …
          const copied = new Map<string, string>();
          for (const page of input.pages) {
            const copy = async (relPath: string | null): Promise<string | null> => {
              if (!relPath) return relPath;
              const fromKept = !(isInWorkArea(relPath) || input.copyAttachments);
              if (fromKept && !input.kept?.has(relPath)) return relPath;
              const known = copied.get(relPath);
              if (known) return known;
              let source: string;
              try {
                if (fromKept) {
                  // An attachment stays the attachment while it is there; gone, its kept copy comes along.
                  if (
                    await resolveSource(dataRoot, entity, relPath).then(
                      () => true,
                      () => false,
                    )
                  )
                    return relPath;
                  source = await resolveKept(dataRoot, entity, relPath, input.kept!);
                } else {
                  source = await resolveSource(dataRoot, entity, relPath);
                }
              } catch {
                return relPath; // a missing image stays named; finalizing reports it
              }
              createdFolder = folder.dir;
              // A kept copy is never changed in place: shared like a work-area file.
              const own = `${WORK_AREA_DIR}/${folder.name}/${await copyIntoFolder(source, folder.dir, fromKept || isInWorkArea(relPath))}`;
              // The same bytes under the report's own name: the photo's evidence goes with them.
              await copyEvidence(trx, entity, relPath, own);
              copied.set(relPath, own);
              return own;
            };
            const values = {
              fk_bericht: id,
              page_order: ++order,
              title: page.title,
              note: input.notesAsPrompts ? null : page.note,
              prompt: input.notesAsPrompts ? (page.note ?? page.prompt) : page.prompt,
              rotation: page.rotation,
              layout: page.layout,
              source_path: await copy(page.source_path),
              source_path_2: await copy(page.source_path_2),
              // A checklist starts unanswered in a report made from a template (and in a new template).
              checklist:
                page.layout !== 'checklist'
                  ? null
                  : writeItems(
                      input.clearChecks ? clearedItems(readItems(page.checklist)) : readItems(page.checklist),
                      highestId(page.checklist),
                    ),
              // Copied into this report now, by its maker.
              fk_user_creat: user.id,
              datec: now,
              tms: now,
            };
            await repo.insertPage(trx, values);
            inserted.push(values);
          }
          const answer = await detail(user, await visibleReport(user, id, trx), trx);
          await answered?.(trx, answer);
          return answer;
        });
        // A template's or an earlier version's pages, under this report's names: their copies ahead.
        for (const page of inserted) prepareAhead(printQueue, config, input.fields, page);
        return answer;
      } catch (error) {
        if (createdFolder) await rm(createdFolder, { recursive: true, force: true });
        if (error instanceof RetryRef || isUniqueViolation(error)) continue;
        throw error;
      }
    }
    throw new AppError('REPORT_REF_EXHAUSTED');
  }

  return {
    visibleReport,
    detail,

    async list(
      user: AuthUser,
      query: { q?: string; elementType?: ElementType; fkElement?: number; status?: 'draft' | 'final'; limit: number; offset: number },
    ) {
      const { rows, total } = await repo.list(
        db,
        totals,
        {
          visible: access.reportVisible(user, REPORT_ALIAS),
          templates: false,
          q: query.q?.trim() || undefined,
          elementType: query.elementType ?? (query.fkElement !== undefined ? 'commande' : undefined),
          fkElement: query.fkElement,
          status: query.status === undefined ? undefined : query.status === 'draft' ? 0 : 1,
        },
        query,
      );
      return { items: rows.map(toReportItem), total };
    },

    async get(user: AuthUser, id: number): Promise<ReportDetail> {
      return detail(user, await visibleReport(user, id));
    },

    /**
     * A new draft on a visible object, from a template's pages when `template_id` is given. With
     * `idempotency.key`, a repeat answers the report the key made first; the key belongs to the
     * route (`idempotency.route`, e.g. `report:create`) and the object.
     */
    async create(user: AuthUser, body: CreateReportBody, idempotency?: { key: string | undefined; route: string }): Promise<ReportDetail> {
      const type = body.element_type ?? 'commande';
      await parentOf(user, type, body.fk_element);
      const scope = `${idempotency?.route ?? 'report:create'}:${type}:${body.fk_element}`;
      const answer = await idempotent({ db, runs }, { entity, userId: user.id, key: idempotency?.key, scope }, async (claim) => {
        const template = body.template_id === undefined ? undefined : await visibleTemplate(user, body.template_id);
        const odt = body.odt_template !== undefined ? body.odt_template : (template?.odt_template ?? null);
        await checkOdtTemplate(odt);
        const title = body.title ?? template?.title;
        if (!title)
          throw new AppError('VALIDATION_FAILED', {
            message: 'title erforderlich',
            details: [{ field: 'body.title', message: 'required' }],
          });
        return insertReport(
          user,
          {
            fields: {
              element_type: type,
              fk_element: body.fk_element,
              title,
              format: body.format ?? template?.format ?? 'A4',
              orientation: body.orientation ?? template?.orientation ?? 'portrait',
              odt_template: odt,
              photos_per_sheet: body.photos_per_sheet ?? (template ? photosPerSheetOf(template) : DEFAULT_PHOTOS_PER_SHEET),
              version: 1,
              fk_bericht_parent: null,
              is_template: 0,
              template_label: null,
            },
            pages: template ? await repo.pages(db, template.rowid) : [],
            copyAttachments: false,
            clearChecks: true,
            notesAsPrompts: template !== undefined,
          },
          claim && ((trx, answer) => claim.complete(201, answer, trx)),
        );
      });
      return withPageSignatures(repo, db, answer);
    },

    /**
     * A new draft with the next version number, a copy of `id` with its pages (not its signature
     * pages: a signature covers the version it was given on); `id` stays as it is.
     */
    async newVersion(user: AuthUser, id: number): Promise<ReportDetail> {
      const source = await visibleReport(user, id);
      if (source.is_template === 1) throw new AppError('CONFLICT', { message: 'Von einer Vorlage gibt es keine Versionen' });
      const sourcePages = await repo.pages(db, id);
      return insertReport(user, {
        fields: {
          element_type: source.element_type,
          fk_element: source.fk_element,
          title: source.title,
          format: source.format,
          orientation: source.orientation,
          odt_template: source.odt_template,
          photos_per_sheet: photosPerSheetOf(source),
          version: source.version + 1, // counted again under the lock
          fk_bericht_parent: id,
          is_template: 0,
          template_label: null,
        },
        // A signature covers the version it was given on: the new version is signed anew.
        pages: sourcePages.filter((p) => p.layout !== 'signature'),
        kept: keptCopiesOf(sourcePages),
        copyAttachments: false,
        clearChecks: false,
        versionOf: id,
      });
    },

    /**
     * Deletes the report, its pages, its work-area folder (page images, the PDF) and their
     * `ecm_files` rows. A final report needs the admin right, a template the template right.
     * Newer versions then point at the deleted one's parent.
     */
    async remove(user: AuthUser, id: number): Promise<{ id: number; ref: string; deleted: true }> {
      const row = await visibleReport(user, id);
      if (row.is_template === 1 && !hasAdminRight(user))
        throw new AppError('AUTH_RIGHT_MISSING', { message: 'Vorlagen verwalten nur Administratoren', details: { right: 'admin' } });
      const folder = reportFolder(dataRoot, entity, row.ref);
      // The final PDF's copy in the object's documents (report-pdf/finalize.ts) goes too.
      const parent =
        row.final_pdf_path && row.element_type && row.fk_element !== null
          ? await repo.parentWithCustomer(db, row.element_type as ElementType, row.fk_element)
          : undefined;
      const copy = parent
        ? { folder: objectFolder(dataRoot, entity, row.element_type as ElementType, parent.ref), name: path.basename(row.final_pdf_path!) }
        : undefined;
      await db.transaction().execute(async (trx) => {
        const locked = await repo.lockById(trx, id);
        if (!locked) throw new AppError('REPORT_NOT_FOUND');
        if (locked.status !== 0 && !hasAdminRight(user)) {
          throw new AppError('AUTH_RIGHT_MISSING', {
            message: 'Einen abgeschlossenen Bericht dürfen nur Administratoren löschen',
            details: { right: 'admin' },
          });
        }
        // Images of this report's work area that pages of other reports show (data made elsewhere) stay.
        if ((await repo.foreignPagesIn(trx, id, `${WORK_AREA_DIR}/${folder.name}/`)) > 0) {
          throw new AppError('CONFLICT', {
            message: 'Seiten anderer Berichte zeigen Bilder dieses Berichts; er kann nicht gelöscht werden',
          });
        }
        await repo.relinkChildren(trx, id, locked.fk_bericht_parent === null ? null : locked.fk_bericht_parent);
        // The index rows of the report's files, and the evidence of its photos.
        const ecm = createEcmFilesRepository(trx);
        await ecm.remove(entity, folder.filepath);
        await deleteEvidence(trx, entity, folder.filepath);
        if (copy) await ecm.remove(entity, copy.folder.filepath, copy.name);
        await trx.deleteFrom('bericht_signature').where('fk_bericht', '=', id).execute();
        await repo.deleteReport(trx, id);
      });
      await forgetPrintImages(folder.dir, printCacheDir(dataRoot, entity));
      await rm(folder.dir, { recursive: true, force: true });
      if (copy) await rm(path.join(copy.folder.dir, copy.name), { force: true });
      return { id, ref: row.ref, deleted: true };
    },

    async listTemplates(user: AuthUser, query: { q?: string; limit: number; offset: number }) {
      const { rows, total } = await repo.list(
        db,
        totals,
        { visible: access.reportVisible(user, REPORT_ALIAS), templates: true, q: query.q?.trim() || undefined },
        query,
      );
      return { items: rows.map(toTemplateItem), total };
    },

    /** A template, empty or a copy of a report's pages with their images (templates own their images). */
    async createTemplate(user: AuthUser, body: CreateTemplateBody): Promise<ReportDetail> {
      if (!hasAdminRight(user))
        throw new AppError('AUTH_RIGHT_MISSING', { message: 'Vorlagen verwalten nur Administratoren', details: { right: 'admin' } });
      const source = body.from_report === undefined ? undefined : await visibleReport(user, body.from_report);
      const odt = body.odt_template !== undefined ? body.odt_template : (source?.odt_template ?? null);
      await checkOdtTemplate(odt);
      return insertReport(user, {
        fields: {
          element_type: null,
          fk_element: null,
          title: body.title ?? source?.title ?? body.template_label,
          format: body.format ?? source?.format ?? 'A4',
          orientation: body.orientation ?? source?.orientation ?? 'portrait',
          odt_template: odt,
          photos_per_sheet: body.photos_per_sheet ?? (source ? photosPerSheetOf(source) : DEFAULT_PHOTOS_PER_SHEET),
          version: 1,
          fk_bericht_parent: null,
          is_template: 1,
          template_label: body.template_label,
        },
        pages: source ? (await repo.pages(db, source.rowid)).filter((p) => p.layout !== 'signature') : [],
        copyAttachments: true,
        clearChecks: true,
      });
    },
  };
}

class RetryRef extends Error {}

/** Drops the print-size copies of the files directly in `dir` (a report's work area about to go). */
async function forgetPrintImages(dir: string, cache: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) await forgetPrintImage(path.join(dir, name), cache).catch(() => undefined);
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

export type ReportService = ReturnType<typeof createReportService>;
