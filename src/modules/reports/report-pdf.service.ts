/**
 * The report's PDF (docs/api-contract.md, States; contract endpoints 8 and 17): a cover sheet (the chosen ODT
 * template filled and converted by LibreOffice; a built-in one where LibreOffice is missing or
 * fails), then one page per report page. Photos are scaled to print size once and kept in
 * `bericht/temp/print/`, so a second render does not decode 12-megapixel originals again.
 *
 * Finalizing is all or nothing: the PDF is written under a temporary name in the report's work
 * area, then in one transaction the status turns final (only if still draft), the `ecm_files` row
 * is added and the file renamed into place. Any failure leaves a draft and no file.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { tempDirPrefix, tempName } from '../../adapters/runs.js';
import { beginIntent, endIntent } from '../maintenance/file-intents.js';
import type { LibreOffice } from '../../adapters/libreoffice.js';
import { fillOdtTemplate } from '../../adapters/odt.js';
import { readFile } from 'node:fs/promises';
import { readPhotoExif } from '../../adapters/exif.js';
import {
  LOGO_BOX,
  NOT_COVERED,
  pdfLanguageOf,
  renderReportPdf,
  type ChecklistLine,
  type EvidenceInput,
  type ImageBox,
  type PdfCover,
  type PdfImage,
  type PdfLanguage,
  type PdfPage,
  type SignatureFacts,
  type SummaryInput,
} from '../../adapters/pdf.js';
import { wordsFor, type PdfWords } from '../../adapters/pdf/words.js';
import type { PhotoCapture } from '../../adapters/pdf/model.js';
import { photoCapture } from './photo-capture.js';
import { sha256OfFile } from '../../adapters/file-digest.js';
import { collectWhenQuiet } from '../../adapters/heap.js';
import type { SignatureFactsRow } from './reports.repository.js';
import { pageEvidenceOf, signatureFactsOf } from './reports.service.js';
import { loadCoverPdf } from '../../adapters/pdf-import.js';
import { hashFile } from '../../adapters/file-store.js';
import { evidenceOf, imagesOf, userIdsOf, type SignatureRecord } from './evidence.js';
import { preparePrintImage } from '../../adapters/print-image.js';
import type { Config } from '../../config.js';
import type { DbHandle } from '../../db/database.js';
import { fromDbDateTime } from '../../db/dialect.js';
import { htmlToText } from '../../dolibarr/html.js';
import { fromDolibarrDateTime, localDate, localTime } from '../../dolibarr/time.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { objectFolder, resolveInside, type ElementType } from '../../dolibarr/documents.js';
import { recordAgendaEvent } from '../../dolibarr/agenda.js';
import { createColumnFitter } from '../../dolibarr/charset.js';
import { ecmFileRef, entityRoot } from '../../dolibarr/ecm.js';
import { AppError } from '../../errors.js';
import type { AuthUser } from '../auth/auth.service.js';
import { createUploadsRepository } from '../uploads/uploads.repository.js';
import { verifyUrl } from '../signatures/signatures.service.js';
import type { PdfSeal } from '../signatures/pdf-seal.service.js';
import { createLimiter } from '../common/limiter.js';
import type { PageRow, ReportRepository, ReportRow } from './reports.repository.js';
import type { ReportDetail } from './reports.schemas.js';
import { photosPerSheetOf } from './photos-per-sheet.js';
import type { TimeService } from '../times/times.service.js';
import type { TimeInterval } from '../times/times.schemas.js';
import { deviationOf, readItems } from './checklist.js';
import { pageImageBox, printCacheDir, reportFolder, resolveSource, WORK_AREA_DIR } from './work-area.js';
import { keptCopiesOf, resolveKept } from './kept-copies.js';

/** The kept copies of a report's signed images (kept-copies.ts): read when an image is gone. */
type KeptCopies = ReadonlyMap<string, readonly string[]>;

/** The line on every sheet after a report's last signature page (preview and final PDF), in German. */
export const AFTER_SIGNATURE_NOTICE = wordsFor('de').notCovered;

/** PDFs rendered at once per process; more wait, and beyond MAX_WAITING get 503 PDF_BUSY. */
const MAX_RENDERS = 2;
const MAX_WAITING = 16;
/** Photos prepared for print at once (libvips uses its own threads for each). */
const PREPARE_CONCURRENCY = 2;

const COMPANY_CONSTS = [
  'MAIN_INFO_SOCIETE_NOM',
  'MAIN_INFO_SOCIETE_ADDRESS',
  'MAIN_INFO_SOCIETE_ZIP',
  'MAIN_INFO_SOCIETE_TOWN',
  'MAIN_INFO_SOCIETE_MAIL',
  'MAIN_INFO_SOCIETE_TEL',
  'MAIN_INFO_SOCIETE_LOGO',
  'MAIN_INFO_TVAINTRA',
] as const;

/**
 * What the evidence sheet says of the PDF being made: when (Unix seconds), from which IP, under
 * which file name the final PDF is kept; `preview`: a preview, marked as such (its sheet is the one
 * the final PDF will have, so the preview's page count is the final PDF's).
 */
interface EvidenceRender {
  at: number;
  ip: string | null;
  file: string;
  preview: boolean;
}

export interface ReportPdfDeps {
  handle: DbHandle;
  repo: ReportRepository;
  config: Config;
  consts: ConstRepository;
  libreOffice: LibreOffice;
  /** The folders holding cover-sheet templates, searched in order. */
  odtTemplateDirs(): Promise<string[]>;
  visibleReport(user: AuthUser, id: number): Promise<ReportRow>;
  detail(user: AuthUser, row: ReportRow): Promise<ReportDetail>;
  /** Time on site: what a report shows, and what it takes when finalized. */
  times: Pick<TimeService, 'ofReport' | 'scopeFor' | 'lock' | 'take'>;
  /** The PDF seal every final report gets (PAdES), and its record. */
  seal: Pick<PdfSeal, 'seal' | 'record' | 'queue'>;
  logger: FastifyBaseLogger;
}

/** Runs `work` over `items` with at most `limit` at a time, keeping order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

/**
 * A moment for the PDF's reader in the company's time zone, the zone named: German
 * `24.11.2026 14:05 MEZ`, English `24 Nov 2026, 14:05 CET`; without the time, the date alone.
 */
export function formatWhen(unix: number, timeZone: string, language: PdfLanguage, withTime = true): string {
  const date = new Date(unix * 1000);
  if (language === 'de') return withTime ? localTime(date, timeZone) : localDate(date, timeZone);
  const options: Intl.DateTimeFormatOptions = withTime
    ? {
        timeZone,
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZoneName: 'short',
      }
    : { timeZone, day: 'numeric', month: 'short', year: 'numeric' };
  return new Intl.DateTimeFormat('en-GB', options).format(date);
}

/** A date of the cover's placeholders, as Dolibarr prints it for German users (`dd.mm.yyyy`); '' for none. */
function dateOrEmpty(unix: number | null, timeZone: string): string {
  return unix === null ? '' : formatWhen(unix, timeZone, 'de', false);
}

/** A photo's capture time as its camera wrote it (its local time; the offset named when known). */
export function createReportPdfService(deps: ReportPdfDeps) {
  const { handle, repo, config, consts, libreOffice, logger } = deps;
  const { dataRoot, entity } = config;
  const root = entityRoot(dataRoot, entity);
  const printCache = printCacheDir(dataRoot, entity);
  const limit = createLimiter(MAX_RENDERS, MAX_WAITING, () => new AppError('PDF_BUSY', { headers: { 'retry-after': '5' } }));

  /**
   * The print-size copy of a page image, or null when the file is gone (or unreadable, for a
   * preview). A signature sheet is drawn as it is: an opaque PNG made for print, whose bytes the
   * signature's proof covers.
   */
  /** Text into Dolibarr's agenda fitted to its columns' character set (charset.ts). */
  const agendaFitter = createColumnFitter(handle.db, handle.dialect, handle.prefix);

  async function printImage(relPath: string | null, strict: boolean, box: ImageBox | 'as-is', kept: KeptCopies): Promise<PdfImage | null> {
    if (!relPath) return null;
    try {
      const file = await resolveKept(dataRoot, entity, relPath, kept);
      if (box === 'as-is') return { path: file };
      return { path: (await preparePrintImage(file, printCache, box)).path };
    } catch (error) {
      if (strict) throw error;
      logger.warn({ source: relPath, err: error }, 'report page image missing or unreadable; drawn as a placeholder');
      return null;
    }
  }

  async function companyLogo(logoName: string | undefined): Promise<PdfImage | null> {
    if (!logoName) return null;
    try {
      const file = await resolveInside(path.join(root, 'mycompany', 'logos'), logoName);
      // Lettering wants more than a photo: 300 dpi.
      return { path: (await preparePrintImage(file, printCache, LOGO_BOX, 300)).path };
    } catch (error) {
      logger.warn({ logo: logoName, err: error }, 'company logo not usable; the PDF header goes without it');
      return null;
    }
  }

  /** The values of the cover sheet's {placeholders}, named as Dolibarr's ODT generators name them. */
  function parentOf(report: ReportRow) {
    return report.element_type && report.fk_element !== null
      ? repo.parentWithCustomer(handle.db, report.element_type as ElementType, Number(report.fk_element))
      : Promise.resolve(undefined);
  }
  type Parent = Awaited<ReturnType<typeof parentOf>>;

  function coverValues(
    report: ReportRow,
    pages: number,
    user: AuthUser,
    company: Map<string, string>,
    parent: Parent,
  ): Record<string, string> {
    const now = Math.floor(Date.now() / 1000);
    return {
      bericht_ref: report.ref,
      bericht_title: report.title,
      bericht_version: String(report.version),
      bericht_date: dateOrEmpty(fromDbDateTime(report.datec), config.timeZone),
      bericht_page_count: String(pages),
      object_ref: parent?.ref ?? '',
      object_ref_customer: parent?.ref_client ?? '',
      object_date: dateOrEmpty(fromDolibarrDateTime(parent?.date ?? null, config.timeZone), config.timeZone),
      object_note_public: parent?.note_public ?? '',
      company_name: parent?.nom ?? '',
      company_name_alias: parent?.name_alias ?? '',
      company_address: parent?.address ?? '',
      company_zip: parent?.zip ?? '',
      company_town: parent?.town ?? '',
      company_email: parent?.email ?? '',
      company_phone: parent?.phone ?? '',
      company_customercode: parent?.code_client ?? '',
      mycompany_name: company.get('MAIN_INFO_SOCIETE_NOM') ?? '',
      mycompany_address: company.get('MAIN_INFO_SOCIETE_ADDRESS') ?? '',
      mycompany_zip: company.get('MAIN_INFO_SOCIETE_ZIP') ?? '',
      mycompany_town: company.get('MAIN_INFO_SOCIETE_TOWN') ?? '',
      mycompany_email: company.get('MAIN_INFO_SOCIETE_MAIL') ?? '',
      mycompany_phone: company.get('MAIN_INFO_SOCIETE_TEL') ?? '',
      mycompany_vatnumber: company.get('MAIN_INFO_TVAINTRA') ?? '',
      myuser_fullname: user.name,
      current_date: formatWhen(now, config.timeZone, 'de', false),
      current_datehour: formatWhen(now, config.timeZone, 'de'),
    };
  }

  /**
   * The cover: the ODT template filled and converted in `workDir`; where that cannot be done, the
   * built-in cover, with a warning in the log, so the PDF is still made.
   */
  async function cover(
    report: ReportRow,
    values: Record<string, string>,
    workDir: string,
    language: PdfLanguage,
  ): Promise<PdfCover | null> {
    const words = wordsFor(language);
    const builtin: PdfCover = {
      kind: 'builtin',
      title: report.title,
      lines: [
        `${words.report} ${report.ref}${Number(report.version) > 1 ? ` (${words.version(Number(report.version))})` : ''}`,
        values.object_ref
          ? `${words.order} ${values.object_ref}${values.object_ref_customer ? ` (${words.customerOrder} ${values.object_ref_customer})` : ''}`
          : '',
        values.company_name ? `${words.customer}: ${values.company_name}` : '',
        [values.company_address, [values.company_zip, values.company_town].filter(Boolean).join(' ')].filter(Boolean).join(', '),
        words.made(formatWhen(Math.floor(Date.now() / 1000), config.timeZone, language, false), values.myuser_fullname ?? ''),
      ].filter(Boolean),
    };
    if (!report.odt_template) return null;
    let template: string | undefined;
    for (const dir of await deps.odtTemplateDirs()) {
      try {
        template = await resolveInside(dir, report.odt_template);
        break;
      } catch {
        // not in this folder
      }
    }
    if (!template) {
      logger.warn({ report: report.ref, odt_template: report.odt_template }, 'cover-sheet template not found; using the built-in cover');
      return builtin;
    }
    if (!(await libreOffice.available())) {
      logger.warn({ report: report.ref }, 'LibreOffice is not installed; using the built-in cover instead of the ODT template');
      return builtin;
    }
    try {
      const filled = path.join(workDir, `${path.basename(report.odt_template, '.odt')}.odt`);
      await fillOdtTemplate(template, values, filled);
      const converted = await libreOffice.convertToPdf(filled, workDir);
      await loadCoverPdf(converted); // a PDF that cannot be read here would fail the whole render
      return { kind: 'pdf', path: converted };
    } catch (error) {
      logger.warn({ report: report.ref, err: error }, 'cover sheet could not be made from the ODT template; using the built-in cover');
      return builtin;
    }
  }

  /**
   * The signature's facts as the sheet prints them, times in the company's zone with the zone
   * named; and its row and metadata as read, for the evidence sheet (each metadata file read once).
   */
  async function signatureFacts(
    pages: PageRow[],
    language: PdfLanguage,
  ): Promise<{ facts: Map<number, SignatureFacts>; records: Map<number, SignatureRecord> }> {
    const facts = new Map<number, SignatureFacts>();
    const records = new Map<number, SignatureRecord>();
    for (const [id, row] of await signatureFactsOf(repo, handle.db, pages)) {
      let metadata: Record<string, unknown> = {};
      try {
        const read: unknown = JSON.parse(await readFile(await resolveSource(dataRoot, entity, row.metadata_path), 'utf8'));
        if (read && typeof read === 'object' && !Array.isArray(read)) metadata = read as Record<string, unknown>;
      } catch {
        // Without its metadata file the sheet still shows who and when.
      }
      facts.set(id, toSignatureFacts(row, metadata as { hash?: string; page_count_at_signing?: number; verify_code?: string }, language));
      records.set(id, { row, metadata });
    }
    return { facts, records };
  }

  /**
   * The SHA-256 of every image file the pages name (each file once, however many pages show it;
   * a file unchanged since an earlier PDF is not read again: file-digest.ts), null for one that is gone.
   */
  async function imageDigests(pages: PageRow[], kept: KeptCopies): Promise<Map<string, string | null>> {
    const relPaths = [...new Set(imagesOf(pages).map((image) => image.relPath))];
    const digests = await mapLimited(relPaths, PREPARE_CONCURRENCY, async (relPath) => {
      try {
        return await sha256OfFile(await resolveKept(dataRoot, entity, relPath, kept));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (error instanceof AppError || code === 'ENOENT' || code === 'ENOTDIR') return null;
        throw error;
      }
    });
    return new Map(relPaths.map((relPath, i) => [relPath, digests[i]!]));
  }

  /** The evidence sheet's facts for the final PDF of `report`. */
  async function evidence(
    report: ReportRow,
    pages: PageRow[],
    records: Map<number, SignatureRecord>,
    digests: Map<string, string | null>,
    made: EvidenceRender,
    user: AuthUser,
    company: string | null,
    language: PdfLanguage,
  ): Promise<EvidenceInput> {
    const parentId = report.fk_bericht_parent === null ? null : Number(report.fk_bericht_parent);
    const [userNames, linked] = await Promise.all([
      repo.userNames(handle.db, userIdsOf(report, pages)),
      parentId === null ? Promise.resolve([]) : repo.linked(handle.db, [parentId]),
    ]);
    return evidenceOf({
      report,
      pages,
      signatures: records,
      userNames,
      versionOf: linked.find((r) => Number(r.rowid) === parentId)?.ref ?? null,
      finalized: { at: made.at, by: user.name, ip: made.ip },
      preview: made.preview,
      digests,
      file: made.file,
      company,
      checkPage: config.publicUrl ? `${config.publicUrl.replace(/\/+$/, '')}/public/verify_signature.php` : null,
      timeZone: config.timeZone,
      language,
    });
  }

  function toSignatureFacts(
    row: SignatureFactsRow,
    metadata: { hash?: string; page_count_at_signing?: number; verify_code?: string },
    language: PdfLanguage,
  ): SignatureFacts {
    const received = fromDbDateTime(row.datec);
    const device = fromDbDateTime(row.signed_at_device);
    const shown = (unix: number | null) => (unix === null ? null : formatWhen(unix, config.timeZone, language));
    return {
      signer: row.signer_name,
      receivedAt: shown(received) ?? '',
      signedAtDevice: device !== null && received !== null && Math.abs(device - received) > 60 ? shown(device) : null,
      devicePlausible:
        row.device_time_plausible === null || row.device_time_plausible === undefined ? null : Number(row.device_time_plausible) === 1,
      pagesCovered: typeof metadata.page_count_at_signing === 'number' ? metadata.page_count_at_signing : null,
      hash: typeof metadata.hash === 'string' ? metadata.hash : null,
      verifyUrl: config.publicUrl && metadata.verify_code ? verifyUrl(config.publicUrl, metadata.verify_code) : null,
    };
  }

  function pdfPage(
    page: PageRow,
    image: PdfImage | null,
    image2: PdfImage | null,
    facts: SignatureFacts | undefined,
    photoNumbers: Map<string, number>,
  ): PdfPage {
    const rotation = (Number(page.rotation) % 360) as 0 | 90 | 180 | 270;
    switch (page.layout) {
      case 'checklist':
        return { kind: 'checklist', title: page.title, note: page.note, items: checklistLines(page, photoNumbers) };
      case 'title_only':
        return { kind: 'title_only', title: page.title, note: page.note };
      case 'before_after':
        return { kind: 'before_after', title: page.title, note: page.note, rotation, before: image, after: image2 };
      case 'signature':
        return { kind: 'signature', title: page.title, note: page.note, image, facts: facts ?? null };
      default:
        return { kind: 'photo', title: page.title, note: page.note, rotation, image };
    }
  }

  /** A checklist page's items as printed; a photo by the number of the photo page showing it. */
  function checklistLines(page: PageRow, photoNumbers: Map<string, number>): ChecklistLine[] {
    return readItems(page.checklist).map((item, index) => ({
      position: index + 1,
      label: item.label,
      state: item.state,
      value: item.value,
      unit: item.unit,
      lower: item.lower,
      upper: item.upper,
      deviation: deviationOf(item),
      note: item.note,
      photos: item.photos.map((relPath) => ({ number: photoNumbers.get(relPath) ?? null, name: path.posix.basename(relPath) })),
    }));
  }

  /** The number each photo page's image has in the PDF (Foto 1, 2, …: photo pages counted in order), by its source path. */
  function numberPhotos(pages: PageRow[]): Map<string, number> {
    const numbers = new Map<string, number>();
    let count = 0;
    for (const page of pages) {
      if (page.layout !== 'photo') continue;
      count++;
      if (page.source_path && !numbers.has(page.source_path)) numbers.set(page.source_path, count);
    }
    return numbers;
  }

  /** Time on site as the summary prints it: dates and times in the company's zone. */
  function timeOnSite(intervals: TimeInterval[], language: PdfLanguage): SummaryInput['time'] {
    const closed = intervals.filter((i) => i.departure !== null);
    if (closed.length === 0) return null;
    const clock = (unix: number) => formatWhen(unix, config.timeZone, language).replace(/^.*?(\d{1,2}:\d{2}).*$/, '$1');
    const rows = closed.map((i) => {
      const last = i.corrections.at(-1);
      return {
        date: formatWhen(i.arrival, config.timeZone, language, false),
        who: i.user_name,
        from: clock(i.arrival),
        to: clock(i.departure!),
        seconds: i.seconds ?? 0,
        manual: i.manual && i.corrections.length === 1 ? (i.corrections[0]?.reason ?? null) : null,
        corrected: (!i.manual || i.corrections.length > 1) && last ? last.reason : null,
      };
    });
    return { rows, totalSeconds: rows.reduce((sum, r) => sum + r.seconds, 0) };
  }

  /** The intervals of time on site a report shows (`scope`: times.scopeFor the caller), read on `conn`. */
  async function intervalsOf(scope: ReportRow, conn = handle.db): Promise<TimeInterval[]> {
    return deps.times.ofReport(conn, scope, await repo.lineage(conn, Number(scope.rowid)));
  }

  /** Pages whose images are gone: finalizing refuses them rather than printing a placeholder. */
  async function missingSources(pages: PageRow[]): Promise<Array<{ page: number; source: string }>> {
    const missing: Array<{ page: number; source: string }> = [];
    const kept = keptCopiesOf(pages);
    for (const page of pages) {
      if (page.layout === 'title_only' || page.layout === 'checklist') continue;
      for (const relPath of [page.source_path, page.layout === 'before_after' ? page.source_path_2 : null]) {
        if (!relPath) continue;
        try {
          await resolveKept(dataRoot, entity, relPath, kept);
        } catch {
          missing.push({ page: Number(page.page_order), source: relPath });
        }
      }
    }
    return missing;
  }

  /** The summary sheet's facts, in the customer's language. */
  function summaryOf(
    report: ReportRow,
    values: Record<string, string>,
    parent: Parent,
    language: PdfLanguage,
    signatures: SignatureFacts[],
    materials: SummaryInput['materials'],
    intervals: TimeInterval[],
  ): SummaryInput {
    const words = wordsFor(language);
    const town = [values.company_zip, values.company_town].filter(Boolean).join(' ');
    const facts = [
      { label: words.order, value: values.object_ref },
      { label: words.customerOrder, value: values.object_ref_customer },
      { label: words.report, value: Number(report.version) > 1 ? `${report.ref}, ${words.version(Number(report.version))}` : report.ref },
      {
        label: words.date,
        value: formatWhen(fromDbDateTime(report.datec) ?? Math.floor(Date.now() / 1000), config.timeZone, language, false),
      },
      { label: words.technician, value: values.myuser_fullname },
    ].filter((f): f is { label: string; value: string } => Boolean(f.value));
    return {
      title: report.title,
      customer: parent?.nom
        ? {
            name: parent.nom,
            lines: [...(parent.address ?? '').split(/\r?\n/), town, parent.phone ?? ''].map((l) => l.trim()).filter(Boolean),
          }
        : null,
      facts,
      workDescription: htmlToText(parent?.note_public ?? '') || null,
      materials,
      // The moment of signing by the phone where it is plausible; the service's otherwise.
      signers: signatures.map((s) => ({
        name: s.signer,
        when: s.signedAtDevice && s.devicePlausible !== false ? s.signedAtDevice : s.receivedAt,
      })),
      time: timeOnSite(intervals, language),
    };
  }

  /**
   * When and where the images of photo and before/after pages were taken (photo-capture.ts): each
   * image's EXIF, and its evidence where that was recorded for the bytes the file holds now.
   */
  async function photoCaptures(
    pages: PageRow[],
    language: PdfLanguage,
    words: PdfWords,
    kept: KeptCopies,
  ): Promise<Array<readonly [PhotoCapture | null, PhotoCapture | null]>> {
    const evidence = await pageEvidenceOf(
      handle.db,
      entity,
      pages.filter((p) => p.layout === 'photo' || p.layout === 'before_after'),
    );
    const captureOf = async (relPath: string | null): Promise<PhotoCapture | null> => {
      if (!relPath) return null;
      const file = await resolveKept(dataRoot, entity, relPath, kept).catch(() => undefined);
      if (!file) return null;
      const recorded = evidence.get(relPath);
      const [camera, sha256] = await Promise.all([readPhotoExif(file), recorded ? sha256OfFile(file).catch(() => undefined) : undefined]);
      return photoCapture(camera, recorded && recorded.sha256 === sha256 ? recorded : undefined, language, words);
    };
    return mapLimited(pages, PREPARE_CONCURRENCY, async (page) =>
      page.layout === 'photo'
        ? ([await captureOf(page.source_path), null] as const)
        : page.layout === 'before_after'
          ? ([await captureOf(page.source_path), await captureOf(page.source_path_2)] as const)
          : ([null, null] as const),
    );
  }

  /**
   * Renders `report` into `out`, ending with the evidence sheet as `made` describes the PDF;
   * `strict` makes a missing or unreadable image an error.
   */
  async function render(
    report: ReportRow,
    pages: PageRow[],
    intervals: TimeInterval[],
    user: AuthUser,
    out: NodeJS.WritableStream,
    strict: boolean,
    made: EvidenceRender,
  ): Promise<number> {
    const workDir = await mkdtemp(tempDirPrefix('pdf'));
    try {
      const [company, parent] = await Promise.all([consts.getMany(COMPANY_CONSTS), parentOf(report)]);
      const values = coverValues(report, pages.length, user, company, parent);
      // The customer's language for the fixed texts, as Dolibarr's documents take it (German when unset).
      const language = pdfLanguageOf(parent?.default_lang);
      const words = wordsFor(language);
      const perSheet = photosPerSheetOf(report);
      // A signed image that is gone is printed from the copy kept when it was signed.
      const kept = keptCopiesOf(pages);
      // All three run to their end even when one fails, so nothing still writes into workDir
      // (the filled cover holds customer data) after it is removed below.
      const settled = await Promise.allSettled([
        cover(report, values, workDir, language),
        companyLogo(company.get('MAIN_INFO_SOCIETE_LOGO')),
        mapLimited(pages, PREPARE_CONCURRENCY, async (page) =>
          page.layout === 'title_only' || page.layout === 'checklist'
            ? ([null, null] as const)
            : ([
                await printImage(
                  page.source_path,
                  strict,
                  page.layout === 'signature' ? 'as-is' : pageImageBox(report, page, perSheet),
                  kept,
                ),
                page.layout === 'before_after'
                  ? await printImage(page.source_path_2, strict, pageImageBox(report, page, perSheet), kept)
                  : null,
              ] as const),
        ),
        imageDigests(pages, kept),
      ] as const);
      for (const result of settled) if (result.status === 'rejected') throw result.reason;
      // When and where each photo was taken: its EXIF (read from the file's header only) and its evidence.
      const captures = await photoCaptures(pages, language, words, kept);
      const [coverSheet, logo, images, digests] = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
        Awaited<ReturnType<typeof cover>>,
        Awaited<ReturnType<typeof companyLogo>>,
        Array<readonly [PdfImage | null, PdfImage | null]>,
        Map<string, string | null>,
      ];
      // Pages after the last signature are not covered by it (they may still change): each says so.
      const lastSignature = pages.findLastIndex((p) => p.layout === 'signature');
      const [{ facts, records }, materials] = await Promise.all([
        signatureFacts(pages, language),
        report.element_type && report.fk_element !== null
          ? repo.materialsOf(handle.db, entity, report.element_type, Number(report.fk_element))
          : Promise.resolve([]),
      ]);
      const photoNumbers = numberPhotos(pages);
      const bodyPages = pages.map((page, index): PdfPage => {
        const drawn = pdfPage(page, images[index]![0], images[index]![1], facts.get(Number(page.rowid)), photoNumbers);
        if (drawn.kind === 'photo') drawn.capture = captures[index]![0];
        if (drawn.kind === 'before_after') drawn.captures = captures[index]!;
        return lastSignature >= 0 && index > lastSignature ? { ...drawn, notice: NOT_COVERED } : drawn;
      });
      const signatures = pages.map((p) => facts.get(Number(p.rowid))).filter((f): f is SignatureFacts => f !== undefined);
      const summary = summaryOf(
        report,
        values,
        parent,
        language,
        signatures,
        materials.map((m) => ({ label: m.label, qty: Number(m.qty), unit: m.unit, note: m.note })),
        intervals,
      );
      const companyName = company.get('MAIN_INFO_SOCIETE_NOM') || null;
      const evidenceSheet = await evidence(report, pages, records, digests, made, user, companyName, language);
      const result = await renderReportPdf(
        {
          format: report.format as 'A4',
          orientation: report.orientation as 'portrait',
          header: {
            logo,
            lines: [
              company.get('MAIN_INFO_SOCIETE_NOM') ?? '',
              `${report.title}`,
              `${words.report} ${report.ref}${values.object_ref ? ` · ${words.order} ${values.object_ref}` : ''}`,
            ].filter(Boolean),
          },
          language,
          photosPerSheet: perSheet,
          cover: coverSheet,
          summary,
          pages: bodyPages,
          evidence: evidenceSheet,
          info: {
            title: `${report.ref} ${report.title}`,
            author: company.get('MAIN_INFO_SOCIETE_NOM') || user.name,
            subject: values.object_ref || undefined,
            creationDate: new Date(),
          },
        },
        out,
      );
      return result.pageCount;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Renders into `file` (created new); on failure the stream is closed and the partial file removed. */
  async function renderToFile(
    report: ReportRow,
    pages: PageRow[],
    intervals: TimeInterval[],
    user: AuthUser,
    file: string,
    strict: boolean,
    made: EvidenceRender,
  ): Promise<void> {
    const out = createWriteStream(file, { flags: 'wx' });
    try {
      await render(report, pages, intervals, user, out, strict, made);
    } catch (error) {
      out.destroy();
      await rm(file, { force: true });
      throw error;
    } finally {
      collectWhenQuiet();
    }
  }

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
        const intervals = await intervalsOf(await deps.times.scopeFor(user, report));
        const made: EvidenceRender = {
          at: Math.floor(Date.now() / 1000),
          ip: from.ip ?? null,
          file: `${reportFolder(dataRoot, entity, report.ref).name}.pdf`,
          preview: true,
        };
        await limit(() => renderToFile(report, pages, intervals, user, file, false, made));
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
      if (Number(report.status) === 0 || !report.final_pdf_path) return undefined;
      return { path: await resolveSource(dataRoot, entity, report.final_pdf_path), filename: path.basename(report.final_pdf_path) };
    },

    /** `from.ip`: where the request came from, kept with Dolibarr's event. */
    async finalize(user: AuthUser, id: number, from: { ip?: string } = {}): Promise<ReportDetail> {
      const report = await deps.visibleReport(user, id);
      if (Number(report.is_template) === 1) throw new AppError('CONFLICT', { message: 'Eine Vorlage wird nicht abgeschlossen' });
      if (Number(report.status) !== 0) throw new AppError('REPORT_FINAL');
      const pages = await repo.pages(handle.db, id);
      if (pages.length === 0) throw new AppError('REPORT_EMPTY');
      const missing = await missingSources(pages);
      if (missing.length > 0) throw new AppError('REPORT_SOURCE_MISSING', { details: { missing } });

      const folder = reportFolder(dataRoot, entity, report.ref);
      const filename = `${folder.name}.pdf`;
      const target = path.join(folder.dir, filename);
      const madeFolder = await mkdir(folder.dir, { recursive: true });
      const temp = path.join(folder.dir, tempName(filename));
      // A copy in the object's own documents (commande/<ref>/<report ref>.pdf), where Dolibarr's
      // screens, its "send by e-mail" and its merge tools find it.
      const parent = await parentOf(report);
      const copy =
        parent && report.element_type ? objectFolder(dataRoot, entity, report.element_type as ElementType, parent.ref) : undefined;
      const copyTarget = copy && path.join(copy.dir, filename);
      const copyTemp = copy && path.join(copy.dir, tempName(filename));
      const written: string[] = [];
      const intents: Array<[string, string]> = [];
      let placed = false;
      let sealedTimestamp: string | undefined;
      const scope = await deps.times.scopeFor(user, report);
      const intervals = await intervalsOf(scope);
      try {
        // The finalization as the evidence sheet prints it: now, by the caller, from where the request came.
        const made: EvidenceRender = { at: Math.floor(Date.now() / 1000), ip: from.ip ?? null, file: filename, preview: false };
        await limit(() => renderToFile(report, pages, intervals, user, temp, true, made));
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
          if (Number(locked.status) !== 0) throw new AppError('REPORT_FINAL');
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
            JSON.stringify(await intervalsOf(scope, trx)) !== JSON.stringify(intervals) ||
            (await deps.times.take(trx, id, taking)) !== taking.length
          ) {
            throw new AppError('CONFLICT', {
              message: 'Die Zeit vor Ort wurde während des Abschließens geändert; bitte erneut abschließen',
            });
          }
          const relPath = `${WORK_AREA_DIR}/${folder.name}/${filename}`;
          await repo.updateReport(trx, id, { status: 1, final_pdf_path: relPath, fk_user_modif: user.id }, { status: 0 });
          const ecm = createUploadsRepository(trx, handle.dialect, { timeZone: config.timeZone });
          // As Dolibarr indexes a document it generates: '' as the original name, 'generated'.
          const index = async (filepath: string, srcObjectType: string, srcObjectId: number) => {
            await ecm.deleteEcmFiles(entity, filepath, filename);
            await ecm.createEcmFile({
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
          await deps.seal.record(trx, report, sealed);
          await index(folder.filepath, 'bericht', id);
          if (copy && report.element_type) await index(copy.filepath, report.element_type, Number(report.fk_element));
          if (report.element_type && report.fk_element !== null) {
            await recordAgendaEvent(trx, handle.dialect, agendaFitter, {
              entity,
              trigger: 'BERICHT_VALIDATE',
              label: `Bericht ${report.ref} abgeschlossen`,
              note: [`Bericht ${report.ref} „${report.title}“ abgeschlossen`, `Seiten: ${pages.length}`, `PDF: ${filename}`].join('\n'),
              socId: parent?.fk_soc ?? null,
              elementType: report.element_type,
              elementId: Number(report.fk_element),
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
        await Promise.all((placed ? [target, ...(copyTarget ? [copyTarget] : [])] : written).map((file) => rm(file, { force: true })));
        for (const [where, name] of intents) await endIntent(handle.db, entity, where, name).catch(() => undefined);
        if (madeFolder) await rmdir(folder.dir).catch(() => undefined); // only when still empty
        throw error;
      }
      for (const [where, name] of intents) await endIntent(handle.db, entity, where, name).catch(() => undefined);
      if (sealedTimestamp === 'pending') deps.seal.queue.kick();
      return deps.detail(user, await deps.visibleReport(user, id));
    },
  };
}

export type ReportPdfService = ReturnType<typeof createReportPdfService>;
