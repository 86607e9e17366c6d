/**
 * A report's pages (contract endpoints 11-13): add, update, delete, reorder. Only a draft's pages
 * change (a final report's are fixed: 409), only by someone who sees the report, and a template's
 * only by a template manager. Every change runs in a transaction that locks the report row, so a
 * finalize at the same moment sees the pages either before or after, never half-changed.
 *
 * Add, update and reorder take an Idempotency-Key (common/idempotency.ts; the app sends them from
 * its offline queue): the answer is read and stored in the change's own transaction, so a repeat
 * finds the change and its answer together or neither. The key is claimed once the report (or
 * page) is found visible and before its state is checked, so a repeat after the report was
 * finalized still gets its first answer.
 *
 * One file, longer than most: the four changes share the lock, the idempotency claim, the checks of
 * a page's layout and images, and the answer they store.
 */
import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from '../../adapters/image.js';
import type { Config } from '../../config.js';
import type { Db, DbHandle } from '../../db/database.js';
import { toDbDateTime } from '../../db/dialect.js';
import type { ElementType } from '../../dolibarr/documents.js';
import { AppError } from '../../errors.js';
import type { AuthUser } from '../auth/auth.service.js';
import type { ElementAccess } from '../access/element-access.js';
import type { PrintQueue } from '../../adapters/print-image.js';
import type { RunRegistry } from '../../adapters/runs.js';
import { idempotent, type IdempotentClaim } from '../common/idempotency.js';
import { REPORT_ALIAS, type PageRow, type ReportRepository, type ReportRow } from '../reports/reports.repository.js';
import {
  MAX_REPORT_PAGES,
  type AddPageBody,
  type CheckAllBody,
  type CheckBody,
  type PageResponse,
  type ReportDetail,
  type UpdatePageBody,
} from '../reports/reports.schemas.js';
import { MAX_AHEAD_SECONDS, MAX_BACK_SECONDS } from '../times/times.schemas.js';
import { allRemainingOk, answerItem, defineItems, highestId, nameAnswerIn, readItems, writeItems, type StoredItem } from './checklist.js';
import { hasAdminRight } from '../reports/reports.service.js';
import { pageEvidenceOf, toPageResponse, withPageSignatures } from '../reports/reports.mappers.js';
import {
  isInWorkArea,
  prepareAhead,
  printCacheDir,
  removeWithThumbnails,
  reportFolder,
  resolveSource,
  sourcePathOf,
  WORK_AREA_DIR,
} from '../reports/work-area.js';

/** Image formats a page can show (what the PDF renderer decodes through sharp). */
const PAGE_IMAGE_FORMATS = new Set(['jpeg', 'png', 'webp']);

export interface PageServiceDeps {
  handle: DbHandle;
  repo: ReportRepository;
  access: ElementAccess;
  config: Config;
  runs: Pick<RunRegistry, 'state'>;
  printQueue: Pick<PrintQueue, 'add'>;
  /** The report when the caller sees it, else REPORT_NOT_FOUND (the reports service's); `conn` may be a transaction. */
  visibleReport(user: AuthUser, id: number, conn?: Db): Promise<ReportRow>;
  detail(user: AuthUser, row: ReportRow, conn?: Db): Promise<ReportDetail>;
}

export function createPageService(deps: PageServiceDeps) {
  const { handle, repo, access, config, runs, printQueue, visibleReport } = deps;
  const { db } = handle;
  /** Runs `work` under the caller's Idempotency-Key `key` for `scope` (none: just runs it). */
  const underKey = async <T>(
    user: AuthUser,
    key: string | undefined,
    scope: string,
    work: (claim: IdempotentClaim | undefined) => Promise<T>,
  ) => withPageSignatures(repo, db, await idempotent({ db, runs }, { entity: config.entity, userId: user.id, key, scope }, work));

  /** The page `pageId` as answered, with its images' evidence; read in `conn` (the change's transaction). */
  async function pageAnswer(conn: Db, pageId: number): Promise<PageResponse> {
    const row = (await repo.getPage(conn, pageId))!;
    return toPageResponse(row, undefined, await pageEvidenceOf(conn, config.entity, [row]));
  }

  /** The page and its report, when the caller sees the report; one answer for "missing" and "not yours". */
  async function visiblePage(user: AuthUser, pageId: number): Promise<{ page: PageRow; report: ReportRow }> {
    const page = await repo.getPage(db, pageId);
    const report = page && (await repo.getById(db, page.fk_bericht, access.reportVisible(user, REPORT_ALIAS)));
    if (!page || !report) throw new AppError('PAGE_NOT_FOUND');
    return { page, report };
  }

  /** The report of the first page of `order`, for a reorder that names no report. */
  async function reportOfFirstPage(user: AuthUser, order: number[]): Promise<number> {
    const first = order.length > 0 ? await repo.getPage(db, order[0]!) : undefined;
    // A page of a report the caller does not see answers as a missing one (no existence leak).
    const seen = first && (await repo.getById(db, first.fk_bericht, access.reportVisible(user, REPORT_ALIAS)));
    if (!first || !seen)
      throw new AppError('PAGE_ORDER_MISMATCH', { message: 'bericht_id erforderlich (oder eine bekannte Seite in order)' });
    return first.fk_bericht;
  }

  function checkChangeable(report: { status: number; is_template: number }, user: AuthUser): void {
    if (report.is_template === 1 && !hasAdminRight(user)) {
      throw new AppError('AUTH_RIGHT_MISSING', { message: 'Vorlagen verwalten nur Administratoren', details: { right: 'admin' } });
    }
    if (report.status !== 0) throw new AppError('REPORT_FINAL');
  }

  /** Locks the report for the transaction and checks again that its pages may change. */
  async function lockChangeable(trx: Db, reportId: number, user: AuthUser): Promise<void> {
    const locked = await repo.lockById(trx, reportId);
    if (!locked) throw new AppError('REPORT_NOT_FOUND');
    checkChangeable(locked, user);
  }

  /**
   * `source_path` of a photo the client names: a file of the report's parent object (its
   * attachments; the caller must see that object, not only the report it created), or for a
   * template, of the template's own work area. The file must exist and be an image the PDF can show.
   */
  async function sourceOf(user: AuthUser, report: ReportRow, name: string): Promise<string> {
    if (name.includes('/') || name.includes('\\'))
      throw new AppError('FILE_PATH_INVALID', { message: 'source nennt eine Datei der Anhänge, ohne Ordner' });
    let relPath: string;
    if (report.is_template === 1) {
      relPath = `${WORK_AREA_DIR}/${reportFolder(config.dataRoot, config.entity, report.ref).name}/${name}`;
    } else {
      const type = report.element_type as ElementType | null;
      const parent = type && report.fk_element !== null ? await access.getById(type, report.fk_element, user) : undefined;
      if (!type || !parent)
        throw new AppError('FILE_NOT_FOUND', { message: 'Die Anhänge des Objekts dieses Berichts sind nicht (mehr) erreichbar' });
      relPath = sourcePathOf(type, parent.ref, name, config.dataRoot, config.entity);
    }
    const file = await resolveSource(config.dataRoot, config.entity, relPath);
    let format: string | undefined;
    try {
      format = (await sharp(file, { limitInputPixels: MAX_INPUT_PIXELS }).metadata()).format;
    } catch {
      throw new AppError('IMAGE_INVALID', { details: { source: name } });
    }
    if (!format || !PAGE_IMAGE_FORMATS.has(format)) {
      throw new AppError('UPLOAD_TYPE_UNSUPPORTED', {
        message: 'Dieses Bild kann nicht in einen Bericht übernommen werden (nur JPEG, PNG, WebP)',
        details: { source: name, format: format ?? null },
      });
    }
    return relPath;
  }

  /**
   * How many pages (from the start) a signature covers: every page before the last signature
   * page. Those pages can no longer change, move or go (409 PAGE_SIGNED); signature pages
   * themselves never change or go.
   */
  function signedCount(pages: PageRow[]): number {
    let last = -1;
    pages.forEach((p, index) => {
      if (p.layout === 'signature') last = index;
    });
    return last;
  }

  function checkNotSigned(pages: PageRow[], pageId: number): void {
    const index = pages.findIndex((p) => p.rowid === pageId);
    if (index >= 0 && index < signedCount(pages)) throw new AppError('PAGE_SIGNED', { details: { page_order: index + 1 } });
  }

  /** Of `paths`, those in the reports' work area that no page shows (within the transaction). */
  async function unusedWorkAreaFiles(trx: Db, paths: Array<string | null>): Promise<string[]> {
    const files: string[] = [];
    for (const relPath of new Set(paths)) {
      if (relPath && isInWorkArea(relPath) && (await repo.countPagesShowing(trx, relPath)) === 0) files.push(relPath);
    }
    return files;
  }

  /** Removes files (after the commit, so a failed transaction never loses one); returns those removed. */
  async function removeFiles(relPaths: string[]): Promise<string[]> {
    const removed: string[] = [];
    for (const relPath of relPaths) {
      try {
        await removeWithThumbnails(
          await resolveSource(config.dataRoot, config.entity, relPath),
          printCacheDir(config.dataRoot, config.entity),
        );
        removed.push(relPath);
      } catch {
        // already gone, or a path that leaves the documents folder: nothing to delete
      }
    }
    return removed;
  }

  /** A checklist page has items and no image (neither source nor source_2); other pages have no items. */
  function checkChecklist(layout: string, hasItems: boolean, source: string | null, source2: string | null): void {
    if (layout !== 'checklist' && hasItems) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'Prüfpunkte gibt es nur auf einer Prüflisten-Seite (layout checklist)',
        details: [{ field: 'body.checklist', message: 'only for layout checklist' }],
      });
    }
    if (layout === 'checklist' && (source || source2)) {
      const field = source ? 'body.source' : 'body.source_2';
      throw new AppError('VALIDATION_FAILED', {
        message: 'Eine Prüflisten-Seite zeigt kein Bild',
        details: [{ field, message: 'not for layout checklist' }],
      });
    }
  }

  /** The phone's `checked_at` when plausible (the limits of a tap of time on site: MAX_AHEAD_SECONDS ahead, MAX_BACK_SECONDS back), else the service's now. */
  function answerTime(checkedAt: number | undefined): number {
    const now = Math.floor(Date.now() / 1000);
    return checkedAt !== undefined && checkedAt <= now + MAX_AHEAD_SECONDS && checkedAt >= now - MAX_BACK_SECONDS ? checkedAt : now;
  }

  /**
   * Changes a checklist page's items with `change` (run on the items as they are inside the
   * transaction, with the report locked): the page must be a checklist of a draft report (not a
   * template: its answers are the visit's) and not covered by a signature. `prepare` (photos to
   * check) runs after the key is claimed and those checks, before the transaction.
   */
  async function changeItems(
    user: AuthUser,
    pageId: number,
    key: string | undefined,
    scope: string,
    change: (items: StoredItem[]) => StoredItem[] | Promise<StoredItem[]>,
    prepare?: (report: ReportRow) => Promise<void>,
  ): Promise<PageResponse> {
    const { page, report } = await visiblePage(user, pageId);
    return underKey(user, key, `${scope}:${pageId}`, async (claim) => {
      checkChangeable(report, user);
      if (page.layout !== 'checklist')
        throw new AppError('VALIDATION_FAILED', {
          message: 'Diese Seite ist keine Prüfliste',
          details: [{ field: 'query.id', message: 'not a checklist page' }],
        });
      if (report.is_template === 1)
        throw new AppError('CONFLICT', { message: 'Eine Vorlage wird nicht ausgefüllt; das geschieht im Bericht, der aus ihr entsteht' });
      await prepare?.(report);
      return db.transaction().execute(async (trx) => {
        await lockChangeable(trx, page.fk_bericht, user);
        checkNotSigned(await repo.pages(trx, page.fk_bericht), pageId);
        const current = await repo.getPage(trx, pageId);
        if (!current) throw new AppError('PAGE_NOT_FOUND');
        await repo.updatePage(trx, pageId, {
          checklist: writeItems(await change(readItems(current.checklist)), highestId(current.checklist)),
          fk_user_modif: user.id,
        });
        await repo.updateReport(trx, page.fk_bericht, { fk_user_modif: user.id });
        const changed = await pageAnswer(trx, pageId);
        await claim?.complete(200, changed, trx);
        return changed;
      });
    });
  }

  function checkLayout(layout: string, source: string | null, source2: string | null, title: string | null): void {
    if (layout === 'title_only' && !title) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'Eine Titelseite braucht einen Titel',
        details: [{ field: 'body.title', message: 'required for a title-only page' }],
      });
    }
    if (layout === 'photo' && !source) throw new AppError('PAGE_SOURCE_REQUIRED', { message: 'Eine Fotoseite braucht ein Bild (source)' });
    if (layout === 'before_after' && (!source || !source2))
      throw new AppError('PAGE_SOURCE_REQUIRED', { message: 'Eine Vorher/Nachher-Seite braucht zwei Bilder (source und source_2)' });
  }

  return {
    /** Appends a page; with `key`, a repeat answers the page the key added first (scope `page:add:<report>`). */
    async add(user: AuthUser, reportId: number, body: AddPageBody, key?: string): Promise<PageResponse> {
      const report = await visibleReport(user, reportId);
      return underKey(user, key, `page:add:${reportId}`, async (claim) => {
        checkChangeable(report, user);
        const layout: string = body.layout ?? (body.source ? 'photo' : 'title_only');
        const source = body.source === undefined ? null : await sourceOf(user, report, body.source);
        const source2 = body.source_2 === undefined ? null : await sourceOf(user, report, body.source_2);
        checkLayout(layout, source, source2, body.title ?? null);
        checkChecklist(layout, body.checklist !== undefined, source, source2);
        const checklist = layout === 'checklist' ? writeItems(defineItems([], body.checklist ?? [])) : null;
        return db
          .transaction()
          .execute(async (trx) => {
            await lockChangeable(trx, reportId, user);
            const pages = await repo.pages(trx, reportId);
            if (pages.length >= MAX_REPORT_PAGES) throw new AppError('REPORT_TOO_MANY_PAGES', { details: { max: MAX_REPORT_PAGES } });
            const now = toDbDateTime();
            const pageId = await repo.insertPage(trx, {
              fk_bericht: reportId,
              page_order: pages.length + 1,
              title: body.title ?? null,
              note: body.note ?? null,
              rotation: body.rotation ?? 0,
              layout,
              source_path: source,
              source_path_2: source2,
              checklist,
              fk_user_creat: user.id,
              datec: now,
              tms: now,
            });
            await repo.updateReport(trx, reportId, { fk_user_modif: user.id });
            const page = await pageAnswer(trx, pageId);
            await claim?.complete(201, page, trx);
            return page;
          })
          .then((page) => {
            prepareAhead(printQueue, config, report, { layout, rotation: body.rotation ?? 0, source_path: source, source_path_2: source2 });
            return page;
          });
      });
    },

    /** Changes a page; with `key`, a repeat answers as the first request did (scope `page:update:<page>`). */
    async update(user: AuthUser, pageId: number, body: UpdatePageBody, key?: string): Promise<PageResponse> {
      const { page, report } = await visiblePage(user, pageId);
      return underKey(user, key, `page:update:${pageId}`, async (claim) => {
        checkChangeable(report, user);
        if (page.layout === 'signature')
          throw new AppError('PAGE_SIGNED', { message: 'Eine Unterschriftsseite kann nicht geändert werden' });
        const source = body.source === undefined ? page.source_path : await sourceOf(user, report, body.source);
        const source2 = body.source_2 === undefined ? page.source_path_2 : await sourceOf(user, report, body.source_2);
        const layout = body.layout ?? page.layout;
        checkLayout(layout, source, source2, body.title === undefined ? page.title : body.title);
        if ((layout === 'checklist') !== (page.layout === 'checklist')) {
          throw new AppError('VALIDATION_FAILED', {
            message: 'Eine Prüfliste bleibt eine Prüfliste, eine andere Seite wird keine',
            details: [{ field: 'body.layout', message: 'cannot change to or from checklist' }],
          });
        }
        checkChecklist(layout, body.checklist !== undefined, source, source2);
        const { unused, changed } = await db.transaction().execute(async (trx) => {
          await lockChangeable(trx, page.fk_bericht, user);
          checkNotSigned(await repo.pages(trx, page.fk_bericht), pageId);
          // The items as they are now (another answer may have come in since the page was read).
          const before = (await repo.getPage(trx, pageId))?.checklist;
          const items = body.checklist === undefined ? undefined : defineItems(readItems(before), body.checklist, highestId(before));
          await repo.updatePage(trx, pageId, {
            ...(items ? { checklist: writeItems(items, highestId(before)) } : {}),
            ...(body.title !== undefined ? { title: body.title } : {}),
            ...(body.note !== undefined ? { note: body.note } : {}),
            ...(body.rotation !== undefined ? { rotation: body.rotation } : {}),
            layout,
            source_path: source,
            source_path_2: source2,
            fk_user_modif: user.id,
          });
          await repo.updateReport(trx, page.fk_bericht, { fk_user_modif: user.id });
          const changed = await pageAnswer(trx, pageId);
          await claim?.complete(200, changed, trx);
          // An image of the work area that this page showed and no page shows any more goes.
          return {
            changed,
            unused: await unusedWorkAreaFiles(
              trx,
              [page.source_path, page.source_path_2].filter((p) => p !== source && p !== source2),
            ),
          };
        });
        await removeFiles(unused);
        prepareAhead(printQueue, config, report, {
          layout,
          rotation: body.rotation ?? page.rotation,
          source_path: source,
          source_path_2: source2,
        });
        return changed;
      });
    },

    /**
     * Records one answer on a checklist item (state, value, note, photos); with `key`, a repeat
     * answers as the first request did (scope `page:check:<page>`). Photos are files of the report's
     * parent object, checked as a page's image is.
     */
    async check(user: AuthUser, pageId: number, body: CheckBody, key?: string): Promise<PageResponse> {
      const at = answerTime(body.checked_at);
      // Checked under the key: a repeat gets its first answer even when a photo is gone since.
      let photos: string[] | undefined;
      const checkPhotos = async (report: ReportRow) => {
        photos =
          body.photos === undefined ? undefined : [...new Set(await Promise.all(body.photos.map((name) => sourceOf(user, report, name))))];
      };
      return changeItems(
        user,
        pageId,
        key,
        'page:check',
        (items) =>
          answerItem(
            items,
            { item: body.item, state: body.state, value: body.value, note: body.note, photos, checked_at: at, ok_reason: body.ok_reason },
            user.id,
            at,
          ),
        checkPhotos,
      );
    },

    /**
     * A refused answer body (`error`, from the schema) naming the item it was for, when the caller
     * sees the checklist page and it has that item; else `error` as it is (nothing of a page the
     * caller does not see is told).
     */
    async nameAnswerRefusal(user: AuthUser, pageId: number, error: unknown, body: unknown): Promise<unknown> {
      const item = (body as { item?: unknown } | null | undefined)?.item;
      if (typeof item !== 'number') return error;
      const seen = await visiblePage(user, pageId).catch(() => undefined);
      if (!seen || seen.page.layout !== 'checklist') return error;
      return nameAnswerIn(error, readItems(seen.page.checklist), item);
    },

    /** "Alle übrigen OK" (see checklist.ts, allRemainingOk); with `key` as check (scope `page:check_all:<page>`). */
    async checkAll(user: AuthUser, pageId: number, body: CheckAllBody, key?: string): Promise<PageResponse> {
      const at = answerTime(body.checked_at);
      return changeItems(user, pageId, key, 'page:check_all', (items) => allRemainingOk(items, user.id, at).items);
    },

    /**
     * Removes the page and closes the gap in page_order. Its images go too when they lie in the
     * reports' work area and no other page shows them; attachments of orders, invoices and
     * proposals are never deleted here. Files are removed after the commit, so a failed
     * transaction never loses one.
     */
    async remove(user: AuthUser, pageId: number): Promise<{ id: number; fk_bericht: number; deleted: true; files_deleted: string[] }> {
      const { page, report } = await visiblePage(user, pageId);
      checkChangeable(report, user);
      const reportId = page.fk_bericht;
      const candidates = await db.transaction().execute(async (trx) => {
        await lockChangeable(trx, reportId, user);
        const current = await repo.getPage(trx, pageId);
        if (!current) throw new AppError('PAGE_NOT_FOUND');
        checkNotSigned(await repo.pages(trx, reportId), pageId);
        // A signature is evidence: it is never removed. A report to be signed anew gets a new version (without it).
        if (current.layout === 'signature')
          throw new AppError('PAGE_SIGNED', {
            message: 'Eine Unterschrift wird nicht entfernt; für einen neuen Stand eine neue Version anlegen',
          });
        await repo.deletePage(trx, pageId);
        const rest = await repo.pages(trx, reportId);
        for (const [index, p] of rest.entries()) if (p.page_order !== index + 1) await repo.setPageOrder(trx, p.rowid, index + 1);
        await repo.updateReport(trx, reportId, { fk_user_modif: user.id });
        return unusedWorkAreaFiles(trx, [current.source_path, current.source_path_2]);
      });
      return { id: pageId, fk_bericht: reportId, deleted: true, files_deleted: await removeFiles(candidates) };
    },

    /**
     * Sets page_order from `order`, which must name every page of the report exactly once; with
     * `key`, a repeat answers as the first request did (scope `page:reorder:<report>`).
     */
    async reorder(user: AuthUser, givenReportId: number | undefined, order: number[], key?: string): Promise<ReportDetail> {
      const reportId = givenReportId ?? (await reportOfFirstPage(user, order));
      const report = await visibleReport(user, reportId);
      return underKey(user, key, `page:reorder:${reportId}`, async (claim) => {
        checkChangeable(report, user);
        return db.transaction().execute(async (trx) => {
          await lockChangeable(trx, reportId, user);
          const pages = await repo.pages(trx, reportId);
          const ids = new Set(pages.map((p) => p.rowid));
          const duplicates = order.filter((id, i) => order.indexOf(id) !== i);
          const unknown = order.filter((id) => !ids.has(id));
          const missing = [...ids].filter((id) => !order.includes(id));
          if (duplicates.length || unknown.length || missing.length) {
            throw new AppError('PAGE_ORDER_MISMATCH', { details: { duplicates: [...new Set(duplicates)], unknown, missing } });
          }
          const signed = signedCount(pages);
          if (pages.slice(0, signed + 1).some((p, index) => p.rowid !== order[index])) {
            throw new AppError('PAGE_SIGNED', {
              message: 'Seiten vor einer Unterschrift und die Unterschrift selbst bleiben an ihrem Platz',
              details: { fixed: signed + 1 },
            });
          }
          for (const [index, id] of order.entries()) await repo.setPageOrder(trx, id, index + 1);
          await repo.updateReport(trx, reportId, { fk_user_modif: user.id });
          const answer = await deps.detail(user, await visibleReport(user, reportId, trx), trx);
          await claim?.complete(200, answer, trx);
          return answer;
        });
      });
    },
  };
}

export type PageService = ReturnType<typeof createPageService>;
