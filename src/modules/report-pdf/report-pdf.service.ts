/**
 * The report's PDF (docs/api-contract.md, States; contract endpoints 8 and 17): a cover sheet, a
 * summary, one page per report page and the evidence sheet, read by pdf-inputs.ts and drawn by the
 * renderer (adapters/pdf.ts). A preview is rendered into a temporary file and streamed from it;
 * the final PDF is made by finalize.ts. At most MAX_RENDERS PDFs are rendered at once per process.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { collectWhenQuiet } from '../../adapters/heap.js';
import { renderReportPdf } from '../../adapters/pdf.js';
import { wordsFor } from '../../adapters/pdf/words.js';
import { tempDirPrefix } from '../../adapters/runs.js';
import { AppError } from '../../errors.js';
import type { AuthUser } from '../auth/auth.service.js';
import { createLimiter } from '../common/limiter.js';
import type { PageRow, ReportRow } from '../reports/reports.repository.js';
import { reportFolder, resolveSource } from '../reports/work-area.js';
import { createFinalize, type FinalizeDeps, type RenderToFile } from './finalize.js';
import { createPdfInputs, type PdfInputsDeps, type VisitShown } from './pdf-inputs.js';
import type { EvidenceRender } from './sheets.js';

/** The line on every sheet after a report's last signature page (preview and final PDF), in German. */
export const AFTER_SIGNATURE_NOTICE = wordsFor('de').notCovered;

/** PDFs rendered at once per process; more wait, and beyond MAX_WAITING get 503 PDF_BUSY. */
const MAX_RENDERS = 2;
const MAX_WAITING = 16;

export type ReportPdfDeps = PdfInputsDeps &
  Pick<FinalizeDeps, 'visibleReport' | 'detail' | 'seal' | 'vanStock' | 'visitIntervention' | 'visitInvoice'> & {
    times: PdfInputsDeps['times'] & FinalizeDeps['times'];
  };

export function createReportPdfService(deps: ReportPdfDeps) {
  const { handle, repo, config } = deps;
  const { dataRoot, entity } = config;
  const limit = createLimiter(MAX_RENDERS, MAX_WAITING, () => new AppError('PDF_BUSY', { headers: { 'retry-after': '5' } }));
  const inputs = createPdfInputs(deps);

  /**
   * Renders `report` into `out`, ending with the evidence sheet as `made` describes the PDF;
   * `strict` makes a missing or unreadable image an error. Answers the number of sheets.
   */
  async function render(
    report: ReportRow,
    pages: PageRow[],
    visit: VisitShown,
    user: AuthUser,
    out: NodeJS.WritableStream,
    strict: boolean,
    made: EvidenceRender,
  ): Promise<number> {
    const workDir = await mkdtemp(tempDirPrefix('pdf'));
    try {
      const input = await inputs.gather(report, pages, visit, user, workDir, strict, made);
      return (await renderReportPdf(input, out)).pageCount;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Renders into `file` (created new); on failure the stream is closed and the partial file removed. */
  const renderToFile: RenderToFile = async (report, pages, visit, user, file, strict, made) => {
    const out = createWriteStream(file, { flags: 'wx' });
    try {
      await render(report, pages, visit, user, out, strict, made);
    } catch (error) {
      out.destroy();
      await rm(file, { force: true });
      throw error;
    } finally {
      collectWhenQuiet();
    }
  };

  return {
    /**
     * A preview made now into a temporary file, then streamed from it: the render slot is free again
     * as soon as the PDF is made, however slowly the client reads. The file goes when the stream closes.
     * Images that are gone are drawn as placeholders.
     */
    async preview(user: AuthUser, id: number, from: { ip?: string } = {}): Promise<{ stream: Readable; filename: string }> {
      const report = await deps.visibleReport(user, id);
      const pages = await repo.pages(handle.db, id);
      const dir = await mkdtemp(tempDirPrefix('preview'));
      const file = path.join(dir, 'preview.pdf');
      try {
        const visit = await inputs.visitOf(report, await deps.times.scopeFor(user, report));
        const made: EvidenceRender = {
          at: Math.floor(Date.now() / 1000),
          ip: from.ip ?? null,
          file: `${reportFolder(dataRoot, entity, report.ref).name}.pdf`,
          preview: true,
        };
        await limit(() => renderToFile(report, pages, visit, user, file, false, made));
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
      const stream = createReadStream(file);
      stream.once('close', () => void rm(dir, { recursive: true, force: true }));
      return { stream, filename: `${report.ref}-Vorschau.pdf` };
    },

    /** The final PDF's real path; FILE_NOT_FOUND when the report is a draft or the file is gone. */
    async finalFile(user: AuthUser, id: number): Promise<{ path: string; filename: string } | undefined> {
      const report = await deps.visibleReport(user, id);
      if (report.status === 0 || !report.final_pdf_path) return undefined;
      return { path: await resolveSource(dataRoot, entity, report.final_pdf_path), filename: path.basename(report.final_pdf_path) };
    },

    /** `from.ip`: where the request came from, kept with Dolibarr's event. */
    finalize: createFinalize({ ...deps, inputs, limit, renderToFile }),
  };
}

export type ReportPdfService = ReturnType<typeof createReportPdfService>;
