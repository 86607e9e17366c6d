import path from 'node:path';
import type { Db } from '../../db/database.js';
import { fromDbDateTime } from '../../db/dialect.js';
import { reportStatus } from '../common/common.schemas.js';
import { evidenceByPaths } from '../photo-evidence/photo-evidence.repository.js';
import { toEvidenceResponse, type PhotoEvidenceRow } from '../photo-evidence/photo-evidence.js';
import { type PageRow, type ReportRepository, type ReportRow, type SignatureFactsRow } from './reports.repository.js';
import type { ChecklistItemResponse, PageResponse, PageSignature, ReportListItem, TemplateItem } from './reports.schemas.js';
import { DEFAULT_PHOTOS_PER_SHEET, photosPerSheetOf } from './photos-per-sheet.js';
import { deviationOf, isDefect, readItems, type StoredItem } from '../pages/checklist.js';
import { sourceUrl } from './work-area.js';

/** A signature page's facts for its answer; null for any other page, or a signature page without its record. */
function toPageSignature(row: PageRow, facts: SignatureFactsRow | undefined): PageSignature {
  if (row.layout !== 'signature' || !facts) return null;
  const plausible = facts.device_time_plausible;
  return {
    signer_name: facts.signer_name,
    signed_at: fromDbDateTime(facts.datec) ?? 0,
    signed_at_device: fromDbDateTime(facts.signed_at_device),
    signed_at_device_zone: facts.signed_at_device_zone ?? null,
    device_time_plausible: plausible === null || plausible === undefined ? null : Number(plausible) === 1,
  };
}

/** A checklist item as the API answers it: its photos with their links, its value against its limits. */
export function toChecklistItem(item: StoredItem): ChecklistItemResponse {
  return {
    id: item.id,
    label: item.label,
    unit: item.unit,
    lower: item.lower,
    upper: item.upper,
    state: item.state,
    value: item.value,
    deviation: deviationOf(item),
    note: item.note,
    photos: item.photos.map((p) => ({
      name: path.posix.basename(p),
      source_path: p,
      url: sourceUrl(p)!,
      thumb_url: sourceUrl(p, 'small')!,
    })),
    checked_at: item.checked_at,
    checked_by: item.checked_by,
    ok_reason: item.ok_reason,
    defect: isDefect(item),
  };
}

/**
 * A page as the API answers it; `signature`: the page's `bericht_signature` row, for a signature
 * page; `evidence`: the photo evidence of its images by path (evidenceByPaths), none when not given.
 */
export function toPageResponse(
  row: PageRow,
  signature?: SignatureFactsRow,
  evidence?: ReadonlyMap<string, PhotoEvidenceRow>,
): PageResponse {
  const evidenceOf = (relPath: string | null) => {
    const found = relPath === null ? undefined : evidence?.get(relPath);
    return found ? toEvidenceResponse(found) : null;
  };
  return {
    id: row.rowid,
    fk_bericht: row.fk_bericht,
    page_order: row.page_order,
    title: row.title,
    note: row.note,
    prompt: row.prompt ?? null,
    rotation: row.rotation,
    layout: row.layout,
    source_path: row.source_path,
    source_path_2: row.source_path_2,
    url: sourceUrl(row.source_path),
    thumb_url: sourceUrl(row.source_path, 'small'),
    url_2: sourceUrl(row.source_path_2),
    thumb_url_2: sourceUrl(row.source_path_2, 'small'),
    signature: toPageSignature(row, signature),
    checklist: row.layout === 'checklist' ? readItems(row.checklist).map(toChecklistItem) : null,
    evidence: evidenceOf(row.source_path),
    evidence_2: evidenceOf(row.source_path_2),
  };
}

/** The photo evidence of `pages`' images, by path, in one query (a few for a long report). */
export function pageEvidenceOf(
  conn: Db,
  entity: number,
  pages: readonly Pick<PageRow, 'source_path' | 'source_path_2'>[],
): Promise<Map<string, PhotoEvidenceRow>> {
  return evidenceByPaths(
    conn,
    entity,
    pages.flatMap((p) => [p.source_path, p.source_path_2]),
  );
}

/** The signature records of a report's signature pages, in one query; none asked for a report without any. */
export function signatureFactsOf(repo: ReportRepository, conn: Db, pages: PageRow[]): Promise<Map<number, SignatureFactsRow>> {
  return repo.signatureFacts(
    conn,
    pages.filter((p) => p.layout === 'signature').map((p) => p.rowid),
  );
}

/**
 * Answers kept for an Idempotency-Key (7 days) from before pages carried `signature` lack it, and
 * the answer's schema requires it: a repeat of such a request would fail to be written. The field
 * is filled in from the database (null for pages that are no signature pages). Answers that have
 * it are returned as they are, without a query. Likewise a report's answer from before reports had
 * `photos_per_sheet` gets the default, which every report then had.
 */
export async function withPageSignatures<T>(repo: ReportRepository, conn: Db, answer: T): Promise<T> {
  const report = answer as { ref?: unknown; pages?: unknown; photos_per_sheet?: number };
  if (
    typeof report === 'object' &&
    report !== null &&
    'ref' in report &&
    Array.isArray(report.pages) &&
    report.photos_per_sheet === undefined
  ) {
    report.photos_per_sheet = DEFAULT_PHOTOS_PER_SHEET;
  }
  type StoredPage = Omit<PageResponse, 'signature' | 'checklist' | 'evidence' | 'evidence_2'> & {
    signature?: PageSignature;
    checklist?: PageResponse['checklist'];
    evidence?: PageResponse['evidence'];
    evidence_2?: PageResponse['evidence_2'];
  };
  const isPage = (value: unknown): value is StoredPage =>
    typeof value === 'object' && value !== null && 'layout' in value && 'fk_bericht' in value;
  const candidates = isPage(answer)
    ? [answer]
    : Array.isArray((answer as { pages?: unknown })?.pages)
      ? (answer as { pages: unknown[] }).pages.filter(isPage)
      : [];
  // Answers from before checklists existed: no page of theirs was one. Answers from before photo
  // evidence was kept: none was recorded for their images then.
  for (const page of candidates) {
    if (page.checklist === undefined) page.checklist = null;
    if (page.evidence === undefined) page.evidence = null;
    if (page.evidence_2 === undefined) page.evidence_2 = null;
  }
  const lacking = candidates.filter((page) => page.signature === undefined);
  if (lacking.length === 0) return answer;
  const facts = await repo.signatureFacts(
    conn,
    lacking.filter((p) => p.layout === 'signature').map((p) => p.id),
  );
  for (const page of lacking) {
    const row = facts.get(page.id);
    page.signature = page.layout === 'signature' && row ? toPageSignature({ layout: 'signature' } as PageRow, row) : null;
  }
  return answer;
}

export function toReportItem(row: ReportRow): ReportListItem {
  return {
    id: row.rowid,
    ref: row.ref,
    title: row.title,
    element_type: row.element_type,
    fk_element: row.fk_element === null ? null : row.fk_element,
    parent_ref: row.parent_ref ?? null,
    format: row.format,
    orientation: row.orientation,
    odt_template: row.odt_template,
    status: reportStatus(row.status),
    version: row.version,
    fk_bericht_parent: row.fk_bericht_parent === null ? null : row.fk_bericht_parent,
    is_template: row.is_template === 1,
    template_label: row.template_label,
    final_pdf_path: row.final_pdf_path,
    photos_per_sheet: photosPerSheetOf(row),
    fk_user_creat: row.fk_user_creat,
    page_count: Number(row.page_count ?? 0),
    datec: fromDbDateTime(row.datec),
    tms: fromDbDateTime(row.tms),
    pdf_url: `/api/pdf.php?id=${row.rowid}`,
  };
}

export function toTemplateItem(row: ReportRow): TemplateItem {
  return {
    id: row.rowid,
    ref: row.ref,
    template_label: row.template_label,
    title: row.title,
    format: row.format,
    orientation: row.orientation,
    odt_template: row.odt_template,
    photos_per_sheet: photosPerSheetOf(row),
    page_count: Number(row.page_count ?? 0),
    fk_user_creat: row.fk_user_creat,
    datec: fromDbDateTime(row.datec),
  };
}
