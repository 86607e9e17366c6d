/**
 * What the report PDF is made of, read for one render: the company's details, the order and its
 * customer, the cover (an ODT template filled and converted by LibreOffice; the built-in one where
 * LibreOffice is missing or fails), the images at print size, their digests and capture facts, the
 * signatures' facts and the evidence sheet. Photos are scaled to print size once and kept in
 * `bericht/temp/print/`, so a second render does not decode 12-megapixel originals again.
 *
 * One file, a little longer than most: every input of one render is read here, so that the
 * render reads each file and row once.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { readPhotoExif } from '../../adapters/exif.js';
import { sha256OfFile } from '../../adapters/file-digest.js';
import type { LibreOffice } from '../../adapters/libreoffice.js';
import { fillOdtTemplate } from '../../adapters/odt.js';
import {
  type EvidenceInput,
  type ImageBox,
  LOGO_BOX,
  NOT_COVERED,
  type PdfCover,
  type PdfImage,
  type PdfLanguage,
  type PdfPage,
  pdfLanguageOf,
  type renderReportPdf,
  type SignatureFacts,
} from '../../adapters/pdf.js';
import type { MaterialLine, PhotoCapture, SummaryInput } from '../../adapters/pdf/model.js';
import { objectWord, type PdfWords, wordsFor } from '../../adapters/pdf/words.js';
import { loadCoverPdf } from '../../adapters/pdf-import.js';
import { preparePrintImage } from '../../adapters/print-image.js';
import type { Config } from '../../config.js';
import type { DbHandle } from '../../db/database.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { type ElementType, resolveInside } from '../../dolibarr/documents.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { AppError } from '../../errors.js';
import type { AuthUser } from '../auth/auth.service.js';
import { evidenceOf, imagesOf, type SignatureRecord, userIdsOf } from './evidence.js';
import { keptCopiesOf, resolveKept } from '../reports/kept-copies.js';
import { photoCapture } from './photo-capture.js';
import { photosPerSheetOf } from '../reports/photos-per-sheet.js';
import type { PageRow, ReportRepository, ReportRow } from '../reports/reports.repository.js';
import { pageEvidenceOf, signatureFactsOf } from '../reports/reports.mappers.js';
import { pageImageBox, printCacheDir, resolveSource } from '../reports/work-area.js';
import type { TimeService } from '../times/times.service.js';
import type { TimeInterval } from '../times/times.schemas.js';
import {
  materialKey,
  type MissingKind,
  signedVisit,
  signoffIn,
  storedText,
  unmatchedFlags,
  visitCoverage,
  type Signoff,
} from '../signatures/signoff.js';
import { visitNow } from '../signatures/visit-now.js';
import {
  COMPANY_CONSTS,
  coverValues,
  type EvidenceRender,
  formatWhen,
  mapLimited,
  numberPhotos,
  type Parent,
  pdfPage,
  summaryOf,
  toSignatureFacts,
} from './sheets.js';

/** The kept copies of a report's signed images (kept-copies.ts): read when an image is gone. */
type KeptCopies = ReadonlyMap<string, readonly string[]>;

/** Photos prepared for print at once (libvips uses its own threads for each). */
const PREPARE_CONCURRENCY = 2;

/** A material line as a report shows it; `settled`: a final report settled it already (an earlier version of this one). */
export interface ShownMaterial {
  id: number;
  label: string;
  qty: number;
  unit: string | null;
  note: string | null;
  settled: boolean;
}

/** What of the visit a report shows besides its pages (PdfInputs visitOf). */
export interface VisitShown {
  intervals: TimeInterval[];
  materials: ShownMaterial[];
}

/** Everything the PDF renderer is given for one report. */
export type ReportPdfInput = Parameters<typeof renderReportPdf>[0];

export interface PdfInputsDeps {
  handle: DbHandle;
  repo: ReportRepository;
  config: Config;
  consts: ConstRepository;
  libreOffice: LibreOffice;
  /** The folders holding cover-sheet templates, searched in order. */
  odtTemplateDirs(): Promise<string[]>;
  times: Pick<TimeService, 'ofReport' | 'onSite'>;
  logger: FastifyBaseLogger;
}

export function createPdfInputs(deps: PdfInputsDeps) {
  const { handle, repo, config, consts, libreOffice, logger } = deps;
  const { dataRoot, entity } = config;
  const root = entityRoot(dataRoot, entity);
  const printCache = printCacheDir(dataRoot, entity);

  /**
   * The print-size copy of a page image, or null when the file is gone (or unreadable, for a
   * preview). A signature sheet is drawn as it is: an opaque PNG made for print, whose bytes the
   * signature's proof covers.
   */
  async function printImage(relPath: string | null, strict: boolean, box: ImageBox | 'as-is', kept: KeptCopies): Promise<PdfImage | null> {
    if (!relPath) return null;
    try {
      const file = await resolveKept(dataRoot, entity, relPath, kept);
      if (box === 'as-is') return { path: file };
      const copy = await preparePrintImage(file, printCache, box);
      return { path: copy.path, width: copy.width, height: copy.height };
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

  /** The report's order (or other object) with its customer; undefined for a report of none. */
  function parentOf(report: ReportRow): Promise<Parent> {
    return report.element_type && report.fk_element !== null
      ? repo.parentWithCustomer(handle.db, report.element_type as ElementType, report.fk_element)
      : Promise.resolve(undefined);
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
        `${words.report} ${report.ref}${report.version > 1 ? ` (${words.version(report.version)})` : ''}`,
        values.object_ref
          ? `${objectWord(words, report.element_type)} ${values.object_ref}${values.object_ref_customer ? ` (${words.customerOrder} ${values.object_ref_customer})` : ''}`
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
      facts.set(
        id,
        toSignatureFacts(row, metadata as { hash?: string; page_count_at_signing?: number; verify_code?: string }, language, config),
      );
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
    const parentId = report.fk_bericht_parent === null ? null : report.fk_bericht_parent;
    const [userNames, linked] = await Promise.all([
      repo.userNames(handle.db, userIdsOf(report, pages)),
      parentId === null ? Promise.resolve([]) : repo.linked(handle.db, [parentId]),
    ]);
    return evidenceOf({
      report,
      pages,
      signatures: records,
      userNames,
      versionOf: linked.find((r) => r.rowid === parentId)?.ref ?? null,
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

  /**
   * What the last signature with a sign-off covers of the visit (signoff.ts): the material lines
   * and intervals added or changed since are marked, the lines removed since and a changed work
   * description named; without such a signature nothing is marked.
   */
  async function signoffCoverage(reportId: number, pages: PageRow[], records: Map<number, SignatureRecord>) {
    // The metadata file as read (the check proves it; a damaged one is as good as none here).
    const last = pages
      .map((p) => records.get(p.rowid))
      .map((r) => (r ? { row: r.row, signoff: signoffIn(r.metadata) } : undefined))
      .filter((r): r is { row: SignatureRecord['row']; signoff: Signoff } => r?.signoff !== undefined)
      .at(-1);
    if (!last) return { mark: (lines: MaterialLine[]) => lines, timeNotCovered: undefined, signoff: null };
    const signed = signedVisit(last.signoff);
    const coverage = visitCoverage(signed, await visitNow(handle.db, repo, entity, reportId));
    const timesAdded = new Set(coverage.times_added.map((t) => `${t.arrival}/${t.departure}`));
    return {
      // The printed lines the signature does not cover: those no signed line matches, as the check counts them.
      mark: (lines: MaterialLine[]) => {
        const asStored = lines.map((line) => ({
          ...line,
          label: storedText(line.label) ?? '',
          unit: storedText(line.unit),
          note: storedText(line.note),
        }));
        const uncovered = unmatchedFlags(asStored, signed.materials, materialKey);
        return lines.map((line, i) => (uncovered[i] ? { ...line, notCovered: true } : line));
      },
      timeNotCovered: (i: TimeInterval) => timesAdded.has(`${i.arrival}/${i.departure}`),
      signoff: {
        signer: last.row.signer_name,
        workChanged: coverage.work_changed,
        removedMaterials: coverage.materials_removed,
        changed: !coverage.covered,
        missing: last.signoff.missing,
      },
    };
  }

  /** The intervals of time on site a report shows (`scope`: times.scopeFor the caller), read on `conn`. */
  async function intervalsOf(scope: ReportRow, conn = handle.db): Promise<TimeInterval[]> {
    return deps.times.ofReport(conn, scope, await repo.lineage(conn, scope.rowid));
  }

  /**
   * What of the visit `report` shows besides its pages: its time on site as `scope` (times.scopeFor
   * the caller) shows it, and its material lines (reports.repository materialsOf: those it or a
   * version it descends from settled, for a draft also those not yet settled; never an earlier visit's), the
   * same for every caller, as the check of a signature's sign-off compares them (visit-now.ts).
   */
  async function visitOf(report: ReportRow, scope: ReportRow, conn = handle.db): Promise<VisitShown> {
    const lineage = await repo.lineage(conn, report.rowid);
    const [intervals, materials] = await Promise.all([
      deps.times.ofReport(conn, scope, lineage),
      report.element_type && report.fk_element !== null
        ? repo.materialsOf(
            conn,
            entity,
            { element_type: report.element_type, fk_element: Number(report.fk_element), status: report.status },
            await repo.materialSource(conn, entity, report, lineage),
          )
        : Promise.resolve([]),
    ]);
    return {
      intervals,
      materials: materials.map((m) => ({
        id: Number(m.rowid),
        label: m.label,
        qty: Number(m.qty),
        unit: m.unit,
        note: m.note,
        settled: m.fk_stock_mouvement !== null,
      })),
    };
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
          missing.push({ page: page.page_order, source: relPath });
        }
      }
    }
    return missing;
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
   * Reads what the PDF of `report` with `pages` is made of, into `workDir` (the filled cover);
   * `strict` makes a missing or unreadable image an error; `made` describes the PDF for the
   * evidence sheet.
   */
  async function gather(
    report: ReportRow,
    pages: PageRow[],
    visit: VisitShown,
    user: AuthUser,
    workDir: string,
    strict: boolean,
    made: EvidenceRender,
  ): Promise<ReportPdfInput> {
    const [company, parent] = await Promise.all([consts.getMany(COMPANY_CONSTS), parentOf(report)]);
    const values = coverValues(report, pages.length, user, company, parent, config.timeZone);
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
    const { facts, records } = await signatureFacts(pages, language);
    const photoNumbers = numberPhotos(pages);
    const bodyPages = pages.map((page, index): PdfPage => {
      const drawn = pdfPage(page, images[index]![0], images[index]![1], facts.get(page.rowid), photoNumbers);
      if (drawn.kind === 'photo') drawn.capture = captures[index]![0];
      if (drawn.kind === 'before_after') drawn.captures = captures[index]!;
      return lastSignature >= 0 && index > lastSignature ? { ...drawn, notice: NOT_COVERED } : drawn;
    });
    const signatures = pages.map((p) => facts.get(p.rowid)).filter((f): f is SignatureFacts => f !== undefined);
    const lines = visit.materials.map(({ label, qty, unit, note }) => ({ label, qty, unit, note }));
    // The last signature with a sign-off covers the work, the time and the material as it showed them: what changed since is marked.
    const coverage = await signoffCoverage(report.rowid, pages, records);
    const summary = summaryOf(report, values, parent, language, signatures, coverage.mark(lines), visit.intervals, config.timeZone, {
      timeNotCovered: coverage.timeNotCovered,
      signoff: coverage.signoff,
    });
    const stillOnSite = await deps.times.onSite(handle.db, report);
    summary.incomplete = incompleteOf(bodyPages, pages, stillOnSite, made, coverage.signoff?.missing ?? []);
    const companyName = company.get('MAIN_INFO_SOCIETE_NOM') || null;
    const evidenceSheet = await evidence(report, pages, records, digests, made, user, companyName, language);
    return {
      format: report.format as 'A4',
      orientation: report.orientation as 'portrait',
      header: {
        logo,
        lines: [
          company.get('MAIN_INFO_SOCIETE_NOM') ?? '',
          `${report.title}`,
          `${words.report} ${report.ref}${values.object_ref ? ` · ${objectWord(words, report.element_type)} ${values.object_ref}` : ''}`,
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
    };
  }

  return { gather, parentOf, intervalsOf, visitOf, missingSources };
}

/**
 * What the report lacks as printed: checklist items not checked, someone still on site (no
 * departure), no signature, pages after the last signature. Final, each with the reason given at
 * finalizing or none; what the customer's signature already explained with the same words is not
 * said twice. A preview lists it as a reminder.
 */
export function incompleteOf(
  drawn: readonly PdfPage[],
  pages: readonly PageRow[],
  onSite: boolean,
  made: EvidenceRender,
  atSigning: ReadonlyArray<{ what: string; reason: string }>,
): SummaryInput['incomplete'] {
  const lastSignature = pages.findLastIndex((p) => p.layout === 'signature');
  const open = drawn.reduce((sum, p) => sum + (p.kind === 'checklist' ? p.items.filter((i) => i.state === 'open').length : 0), 0);
  const found: Array<{ what: MissingKind; count: number }> = [
    ...(open > 0 ? [{ what: 'open_items' as const, count: open }] : []),
    ...(onSite ? [{ what: 'no_departure' as const, count: 1 }] : []),
    ...(lastSignature < 0 ? [{ what: 'no_signature' as const, count: 1 }] : []),
    ...(lastSignature >= 0 && lastSignature < pages.length - 1
      ? [{ what: 'pages_after_signature' as const, count: pages.length - 1 - lastSignature }]
      : []),
  ];
  if (made.preview) return { final: false, items: found.map((f) => ({ ...f, reason: null })) };
  const items = found
    .map((f) => ({ ...f, reason: made.missing?.find((m) => m.what === f.what)?.reason ?? null }))
    .filter((f) => !atSigning.some((m) => m.what === f.what && m.reason === f.reason));
  return { final: true, items };
}

export type PdfInputs = ReturnType<typeof createPdfInputs>;
