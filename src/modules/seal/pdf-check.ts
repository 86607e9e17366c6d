/**
 * The check of an uploaded PDF: what it is (sealed by this instance and unaltered, and which report;
 * altered after sealing; not ours; no PDF). The file is read in memory, never stored; everything
 * that reads the whole of it runs in worker threads (pdf-check-pool.ts) within a budget of time and
 * memory.
 */
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { CheckTooCostly, createScanPool } from '../../adapters/pdf-check-pool.js';
import { documentId, type FoundSignature } from '../../adapters/pdf-sign.js';
import type { Db } from '../../db/database.js';
import { fromDbDateTime } from '../../db/dialect.js';
import { commonNameOf, type SealCertificate } from './seal-certificate.js';

/** The largest PDF the public check reads (in memory): a report of 50 photo pages is under 5 MB. */
export const MAX_CHECK_BYTES = 32 * 1024 * 1024;
/** Files read at once by the public check, each in a worker thread of its own. */
export const CHECK_WORKERS = 2;
/** A check worker's heap: the file as text, a signature's bytes and what is read from them. */
const CHECK_WORKER_MB = 256;

/** The answer of a check of an uploaded PDF. */
export type CheckVerdict =
  | { verdict: 'not_pdf' }
  /** Reading the file's signatures took longer than the budget (PDF_CHECK_BUDGET_MS) or more memory than allowed. */
  | { verdict: 'too_costly' }
  | { verdict: 'not_ours'; signer?: string }
  | { verdict: 'altered'; report?: { ref: string; version: number }; why: 'content_changed' | 'signature_broken' | 'appended' }
  | {
      verdict: 'unaltered';
      report?: { id: number; ref: string; version: number; signers: string[] };
      sealedAt: Date | undefined;
      signer: string;
      timestamp?: { at: Date; authority: string | undefined };
    };

/** A PDF date (`D:YYYYMMDDHHmmss+HH'mm'` or `Z`) as a moment; undefined when it is none. */
export function pdfDateOf(text: string | undefined): Date | undefined {
  const m = text && /^D:(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:([+-])(\d{2})'?(\d{2})'?|Z)?/.exec(text);
  if (!m) return undefined;
  const utc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const offset = m[7] ? (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9])) * 60_000 : 0;
  return new Date(utc - offset);
}

const sha256Hex = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export interface PdfCheckDeps {
  db: Db;
  entity: number;
  certificate: SealCertificate;
  /** Time a check may take from the file's arrival (PDF_CHECK_BUDGET_MS), in ms. */
  budgetMs: number;
  logger: Pick<FastifyBaseLogger, 'warn'>;
}

export function createPdfCheck(deps: PdfCheckDeps) {
  const { db, entity, certificate, logger } = deps;
  const signerName = commonNameOf(certificate.certificate);

  /** Certificates this instance has sealed with: the current one and every one a record names. */
  async function isOurs(cert: Buffer | undefined): Promise<boolean> {
    if (!cert) return false;
    const fingerprint = sha256Hex(cert);
    if (fingerprint === certificate.fingerprint) return true;
    return Boolean(
      await db
        .selectFrom('bericht_seal')
        .select('rowid')
        .where('entity', '=', entity)
        .where('cert_sha256', '=', fingerprint)
        .executeTakeFirst(),
    );
  }

  // The file's signatures and hash are read in worker threads, within a budget of time and memory.
  const scanPool = createScanPool({
    size: CHECK_WORKERS,
    budgetMs: deps.budgetMs,
    memoryMb: CHECK_WORKER_MB,
    onWorkerError: (error) => logger.warn({ err: error }, 'a worker of the public PDF check failed'),
  });

  /**
   * What the uploaded PDF `bytes` is. Everything that reads the whole file runs in a worker thread
   * (pdf-check-pool.ts) within `budgetMs` of `since` (the file's arrival; else too costly; with
   * less than half of it left once a worker is free, CheckBusy); `bytes` is handed to it and must
   * not be used afterwards.
   */
  async function check(bytes: Buffer, budgetMs = deps.budgetMs, since = Date.now()): Promise<CheckVerdict> {
    if (bytes.length < 8 || bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return { verdict: 'not_pdf' };
    const id = documentId(bytes);
    let scanned;
    try {
      scanned = await scanPool.scan(bytes, budgetMs, since);
    } catch (error) {
      if (error instanceof CheckTooCostly) return { verdict: 'too_costly' };
      throw error;
    }
    const { found, fileHash } = scanned;
    const signatures = found.filter((s) => s.kind === 'signature');
    const ours: FoundSignature[] = [];
    for (const s of signatures) if (await isOurs(s.certificate)) ours.push(s);
    const byFile = await db
      .selectFrom('bericht_seal')
      .selectAll()
      .where('entity', '=', entity)
      .where((eb) => eb.or([eb('sealed_sha256', '=', fileHash), eb('stamped_sha256', '=', fileHash)]))
      .executeTakeFirst();
    const first = ours[0];
    const signersOf = async (id: number) =>
      (
        await db
          .selectFrom('bericht_signature')
          .select('signer_name')
          .where('fk_bericht', '=', id)
          .orderBy('datec')
          .orderBy('rowid')
          .execute()
      ).map((r) => r.signer_name);
    type SealRecord = NonNullable<typeof byFile>;
    const reportOf = async (r: SealRecord) => ({
      id: r.fk_bericht,
      ref: r.ref,
      version: r.version,
      signers: await signersOf(r.fk_bericht),
    });
    const stampOf = (s: FoundSignature | undefined) =>
      s?.timestamp?.valid && s.timestamp.info
        ? { at: s.timestamp.info.genTime, authority: s.kind === 'timestamp' && s.certificate ? commonNameOf(s.certificate) : undefined }
        : undefined;
    const timestamp = stampOf(first) ?? stampOf(found.find((s) => s.kind === 'timestamp' && s.valid));
    // Byte for byte a file this instance made (as sealed, or with its later time stamp): unaltered, whatever else it holds.
    if (byFile) {
      return {
        verdict: 'unaltered',
        report: await reportOf(byFile),
        sealedAt: pdfDateOf(first?.signedAt) ?? new Date((fromDbDateTime(byFile.datec) ?? 0) * 1000),
        signer:
          first?.valid && first.certificate
            ? commonNameOf(first.certificate)
            : byFile.cert_sha256 === certificate.fingerprint
              ? signerName
              : 'Zertifikat dieses Dienstes',
        timestamp,
      };
    }
    if (first) {
      const record = first.digest
        ? await db
            .selectFrom('bericht_seal')
            .selectAll()
            .where('entity', '=', entity)
            .where('digest', '=', first.digest.toString('hex'))
            .executeTakeFirst()
        : undefined;
      if (!first.valid) {
        const byId = id
          ? await db.selectFrom('bericht_seal').selectAll().where('entity', '=', entity).where('pdf_id', '=', id).executeTakeFirst()
          : undefined;
        return {
          verdict: 'altered',
          report: byId ? { ref: byId.ref, version: byId.version } : undefined,
          why: first.problem === 'digest_mismatch' ? 'content_changed' : 'signature_broken',
        };
      }
      // Whatever came after the seal would have to be the time stamp this instance added, and then the file is one it recorded (above): a change.
      if (!first.coversWholeFile)
        return { verdict: 'altered', report: record ? { ref: record.ref, version: record.version } : undefined, why: 'appended' };
      return {
        verdict: 'unaltered',
        report: record ? await reportOf(record) : undefined,
        sealedAt: pdfDateOf(first.signedAt),
        signer: commonNameOf(first.certificate!),
        timestamp,
      };
    }
    // No signature of ours that can be read: a damaged seal of one of our reports, or someone else's file.
    const byId = id
      ? await db.selectFrom('bericht_seal').selectAll().where('entity', '=', entity).where('pdf_id', '=', id).executeTakeFirst()
      : undefined;
    if (byId) return { verdict: 'altered', report: { ref: byId.ref, version: byId.version }, why: 'signature_broken' };
    const other = signatures.find((s) => s.certificate);
    return { verdict: 'not_ours', signer: other?.certificate ? commonNameOf(other.certificate) : undefined };
  }

  return {
    check,
    /** Starts a check worker ahead of an upload's check (while its body arrives), unless one is ready. */
    warm: () => scanPool.warm(),
    /** The worker pool now (for tests and logs). */
    stats: () => scanPool.stats(),
    /** Ends the worker threads. */
    close: () => scanPool.close(),
  };
}
