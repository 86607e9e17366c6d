/**
 * The PDF seal of final reports (PAdES, pdf-sign.ts), built once per process (app.ts):
 *
 * - seal(): signs a rendered report PDF with the instance's certificate (seal-certificate.ts). With
 *   a time-stamp authority configured (TSA_URL), the signature carries its token (B-T); when the
 *   authority does not answer within TSA_TIMEOUT_SECONDS, the report is sealed without it (B-B) and
 *   its record says `pending`.
 * - record(): the `bericht_seal` row, written in the finalize transaction.
 * - queue: the time stamps added later (timestamp-queue.ts).
 * - check(): what an uploaded PDF is (pdf-check.ts).
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import { documentId, sealPdf } from '../../adapters/pdf-sign.js';
import type { RunRegistry } from '../../adapters/runs.js';
import { requestTimestamp, type TsaSettings } from '../../adapters/tsa.js';
import type { Config } from '../../config.js';
import type { Db, DbHandle } from '../../db/database.js';
import { toDbDateTime } from '../../db/dialect.js';
import { createReportRepository } from '../reports/reports.repository.js';
import { createPdfCheck } from './pdf-check.js';
import { certificatePem, commonNameOf, type SealCertificate } from './seal-certificate.js';
import { createTimestampQueue, type TimestampState } from './timestamp-queue.js';

export const SEAL_FIELD = 'Siegel';

export interface SealOutcome {
  digest: string;
  pdfId: string | undefined;
  sha256: string;
  timestamp: TimestampState;
}

export interface SealReport {
  rowid: number | string;
  ref: string;
  version: number | string;
}

const sha256Hex = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export interface PdfSealDeps {
  handle: DbHandle;
  config: Pick<Config, 'entity' | 'dataRoot' | 'seal'>;
  certificate: SealCertificate;
  runs: Pick<RunRegistry, 'state'>;
  logger: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

export function createPdfSeal(deps: PdfSealDeps) {
  const { handle, config, certificate, logger } = deps;
  const db = handle.db;
  const entity = config.entity;
  const tsa: TsaSettings | undefined = config.seal.tsaUrl
    ? {
        url: config.seal.tsaUrl,
        username: config.seal.tsaUsername,
        password: config.seal.tsaPassword,
        timeoutMs: config.seal.tsaTimeoutSeconds * 1000,
      }
    : undefined;
  const signerName = commonNameOf(certificate.certificate);

  /** Seals the PDF `file` in place. */
  async function seal(file: string, report: SealReport, options: { company: string; at?: Date }): Promise<SealOutcome> {
    const pdf = await readFile(file);
    let tsaProblem: string | undefined;
    const sealed = await sealPdf(pdf, {
      signer: certificate,
      fieldName: SEAL_FIELD,
      name: options.company || signerName,
      reason: `Bericht ${report.ref}${Number(report.version) > 1 ? `, Version ${report.version}` : ''} abgeschlossen und versiegelt`,
      contactInfo: undefined,
      date: options.at ?? new Date(),
      timestamp: tsa
        ? async (imprint) => {
            try {
              return await requestTimestamp(tsa, imprint);
            } catch (error) {
              // Whatever went wrong with the authority, the finalize goes on without its token.
              tsaProblem = (error as Error).message;
              return undefined;
            }
          }
        : undefined,
    });
    if (tsaProblem)
      logger.warn(
        { report: report.ref, tsa: tsa?.url, problem: tsaProblem },
        'time-stamp authority not reached at finalize: the report is sealed without trusted time, which is added when the authority answers',
      );
    await writeFile(file, sealed.pdf);
    return {
      digest: sealed.digest.toString('hex'),
      pdfId: documentId(sealed.pdf),
      sha256: sha256Hex(sealed.pdf),
      timestamp: !tsa ? 'none' : sealed.timestamped ? 'embedded' : 'pending',
    };
  }

  /** The seal's record, in the finalize transaction `trx`. */
  async function record(trx: Db, report: SealReport, outcome: SealOutcome): Promise<void> {
    const now = toDbDateTime();
    await trx
      .insertInto('bericht_seal')
      .values({
        entity,
        fk_bericht: Number(report.rowid),
        ref: report.ref,
        version: Number(report.version),
        digest: outcome.digest,
        pdf_id: outcome.pdfId ?? null,
        sealed_sha256: outcome.sha256,
        stamped_sha256: null,
        cert_sha256: certificate.fingerprint,
        timestamp: outcome.timestamp,
        attempts: 0,
        next_attempt_at: outcome.timestamp === 'pending' ? now : null,
        lease_owner: null,
        lease_until: null,
        error: null,
        stamped_at: null,
        datec: now,
        tms: now,
      })
      .execute();
  }

  const queue = createTimestampQueue({
    db,
    repo: createReportRepository(handle.dialect),
    entity,
    dataRoot: config.dataRoot,
    tsa,
    pollSeconds: config.seal.pollSeconds,
    runs: deps.runs,
    logger,
  });
  const checker = createPdfCheck({ db, entity, certificate, budgetMs: config.seal.checkBudgetMs, logger });

  return {
    seal,
    record,
    check: checker.check,
    /** Time a check may take (PDF_CHECK_BUDGET_MS), in ms. */
    checkBudgetMs: config.seal.checkBudgetMs,
    /** Time an upload's body may take to arrive in all (PDF_CHECK_RECEIVE_SECONDS), in ms. */
    checkReceiveMs: config.seal.checkReceiveSeconds * 1000,
    /** The certificate and its chain (PEM), as a checker needs them. */
    certificatePem: () => [certificate.certificate, ...certificate.chain].map((c) => certificatePem({ certificate: c })).join(''),
    certificate: {
      subject: certificate.subject,
      fingerprint: certificate.fingerprint,
      source: certificate.source,
      validTo: certificate.validTo,
    },
    queue,
    /** Starts a check worker ahead of an upload's check (while its body arrives), unless one is ready. */
    warmCheck: () => checker.warm(),
    /** The check's worker pool now (for tests and logs). */
    checkWorkers: () => checker.stats(),
    /** Ends the check's worker threads. */
    close: () => checker.close(),
  };
}

export type PdfSeal = ReturnType<typeof createPdfSeal>;
