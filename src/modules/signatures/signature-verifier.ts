import { readFile } from 'node:fs/promises';
import type { Config } from '../../config.js';
import type { DbHandle } from '../../db/database.js';
import { type PageRow, type ReportRepository } from '../reports/reports.repository.js';
import { pageEvidenceOf } from '../reports/reports.mappers.js';
import { resolveSource } from '../reports/work-area.js';
import { keptCopyPath } from '../reports/kept-copies.js';
import { fileSha256, HASH_FORM_EVIDENCE, pagesDigest } from './signature-hash.js';
import { HASH_FORM_VISIT, signedVisit, visitCoverage } from './signoff.js';
import { visitNow } from './visit-now.js';
import { type DigestCache } from './fingerprint.js';
import type { SigningKey } from './signing-key.js';
import { strokesPathOf, type StrokesSummary } from './strokes.js';
import {
  evidenceLookup,
  metadataPathOf,
  REASON_TEXT,
  type SignatureMetadata,
  type VerifyReason,
  type VerifyResult,
} from './signatures.model.js';

/**
 * Verification on its own, for the API and for `fieldreport verify` (which reads the database and
 * the files directly, without a caller).
 */
export function createSignatureVerifier(deps: {
  handle: DbHandle;
  repo: ReportRepository;
  config: Config;
  key: SigningKey;
  digests?: DigestCache;
}) {
  const { handle, repo, config, key } = deps;
  const { db } = handle;
  const { dataRoot, entity } = config;
  const sha256Of = deps.digests ? deps.digests.sha256 : fileSha256;
  /** An image's SHA-256, or undefined when it is gone; a failing read (not a missing file) is an error, not a verdict. */
  const digest = async (relPath: string) => {
    let file: string;
    try {
      file = await resolveSource(dataRoot, entity, relPath);
    } catch {
      return undefined;
    }
    try {
      return await sha256Of(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  /**
   * The strokes check: null when the metadata names no strokes (a signature made before they were
   * recorded, or without them), true when the file beside the image has the SHA-256 the metadata
   * names, false when it is gone or differs.
   */
  async function strokesOk(imageRelPath: string, summary: StrokesSummary | null | undefined): Promise<boolean | null> {
    if (!summary) return null;
    return (await digest(strokesPathOf(imageRelPath))) === summary.sha256;
  }

  async function verifyPage(page: PageRow, reportRef: string): Promise<VerifyResult> {
    const reportId = page.fk_bericht;
    const base = { page_id: page.rowid, report_id: reportId, report_ref: reportRef };
    const fail = (reason: VerifyReason, checks: VerifyResult['checks'], metadata: SignatureMetadata | null): VerifyResult => ({
      verified: false,
      reason,
      message: REASON_TEXT[reason],
      ...base,
      checks,
      not_covered: null,
      metadata,
    });
    const notReached = { page_count: null, hash: null, image: null, strokes: null };
    let metadata: SignatureMetadata | null = null;
    try {
      if (!page.source_path) throw new Error('no image');
      metadata = JSON.parse(
        await readFile(await resolveSource(dataRoot, entity, metadataPathOf(page.source_path)), 'utf8'),
      ) as SignatureMetadata;
      if (!metadata || typeof metadata !== 'object' || typeof metadata.hash !== 'string') throw new Error('not metadata');
    } catch {
      return fail('metadata_missing', { metadata: false, seal: null, ...notReached }, null);
    }
    const { seal, ...sealed } = metadata;
    if ((seal as { key_id?: unknown } | undefined)?.key_id !== key.keyId)
      return fail('key_unknown', { metadata: true, seal: null, ...notReached }, metadata);
    if (!key.check(sealed, seal)) return fail('seal_broken', { metadata: true, seal: false, ...notReached }, metadata);
    // Sealed metadata of another report's signature, put beside this page, proves nothing here.
    if (metadata.report_id !== reportId)
      return fail('content_changed', { metadata: true, seal: true, ...notReached, hash: false }, metadata);
    const pages = await repo.pages(db, reportId);
    const before = pages.slice(
      0,
      pages.findIndex((p) => p.rowid === page.rowid),
    );
    if (before.length !== metadata.page_count_at_signing)
      return fail('page_count_changed', { metadata: true, seal: true, ...notReached, page_count: false }, metadata);
    // Evidence is read only for a signature whose hash covered it (forms 3 and 4): older ones hash as they always did.
    const withVisit = metadata.hash_form === HASH_FORM_VISIT;
    const evidence =
      metadata.hash_form === HASH_FORM_EVIDENCE || withVisit ? evidenceLookup(await pageEvidenceOf(db, entity, before)) : undefined;
    // Form 4 covers what the sign-off showed of the visit, as the sealed metadata keeps it.
    const signed = withVisit && metadata.signoff ? signedVisit(metadata.signoff) : undefined;
    if (withVisit && !signed) return fail('content_changed', { metadata: true, seal: true, ...notReached, hash: false }, metadata);
    // An image that is gone (deleted in Dolibarr's document screens) is read from the copy kept when signing (kept-copies.ts).
    const signatureImage = page.source_path!;
    const coveredDigest = async (relPath: string) => (await digest(relPath)) ?? (await digest(keptCopyPath(signatureImage, relPath)));
    const hashOk = (await pagesDigest(reportRef, before, coveredDigest, evidence, signed)).hash === metadata.hash;
    const imageOk = (await digest(page.source_path!)) === metadata.image_sha256;
    const strokes = await strokesOk(page.source_path!, metadata.strokes);
    const checks = { metadata: true, seal: true, page_count: true, hash: hashOk, image: imageOk, strokes };
    if (!hashOk || !imageOk) return fail('content_changed', checks, metadata);
    if (strokes === false) return fail('strokes_changed', checks, metadata);
    // What of the visit changed since: not a fault of the signature, but not covered by it.
    const notCovered = signed ? visitCoverage(signed, await visitNow(db, repo, entity, reportId)) : null;
    return {
      verified: true,
      message: signed
        ? notCovered!.covered
          ? 'Die Unterschrift ist gültig: die unterschriebenen Seiten, Arbeiten, Zeiten und Materialien sind unverändert'
          : 'Die Unterschrift ist gültig für das, was unterschrieben wurde; seitdem geänderte Arbeiten, Zeiten oder Materialien deckt sie nicht'
        : 'Die Unterschrift ist gültig: die unterschriebenen Seiten sind unverändert',
      ...base,
      checks,
      not_covered: notCovered,
      metadata,
    };
  }

  return {
    digest,
    verifyPage,
    /** Every signature page of the report `ref` of the served entity, in page order; undefined when there is no such report. */
    async verifyReport(ref: string): Promise<VerifyResult[] | undefined> {
      const report = await db
        .selectFrom('bericht')
        .select(['rowid', 'ref'])
        .where('ref', '=', ref)
        .where('entity', '=', entity)
        .executeTakeFirst();
      if (!report) return undefined;
      const reportId = report.rowid;
      const pages = (await repo.pages(db, reportId)).filter((p) => p.layout === 'signature');
      const results: VerifyResult[] = [];
      for (const page of pages) results.push(await verifyPage(page, report.ref));
      // A signature the database records whose page is gone or is no signature page any more fails too.
      const rows = await db.selectFrom('bericht_signature').select(['fk_page']).where('fk_bericht', '=', reportId).execute();
      for (const row of rows) {
        if (pages.some((p) => p.rowid === row.fk_page)) continue;
        results.push({
          verified: false,
          reason: 'page_count_changed',
          message: 'Eine Unterschriftsseite fehlt oder ist keine mehr',
          page_id: row.fk_page,
          report_id: reportId,
          report_ref: report.ref,
          checks: { metadata: false, seal: null, page_count: false, hash: null, image: null, strokes: null },
          not_covered: null,
          metadata: null,
        });
      }
      return results;
    },
  };
}
