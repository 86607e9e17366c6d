/**
 * The PDF seal of final reports (PAdES, pdf-sign.ts) and everything around it:
 *
 * - seal(): signs a rendered report PDF with the instance's certificate (seal-certificate.ts). With
 *   a time-stamp authority configured (TSA_URL), the signature carries its token (B-T); when the
 *   authority does not answer within TSA_TIMEOUT_SECONDS, the report is sealed without it (B-B) and
 *   its record says `pending`.
 * - record(): the `bericht_seal` row, written in the finalize transaction.
 * - The time-stamp queue: in every process, the pending records are taken one at a time (lease by
 *   a conditional UPDATE, as for mails); the authority's document time stamp is appended to the
 *   final PDF and its copy in the object's documents as an incremental update (the first signature
 *   stays valid), the files replaced atomically and their `ecm_files` checksum updated. The
 *   authority not answering: again after a pause that doubles (30 s … 1 h), for as long as it takes.
 * - check(): what an uploaded PDF is: sealed by this instance and unaltered (which report), altered
 *   after sealing, or not ours. Read in memory, never stored.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db, DbHandle } from '../../db/database.js';
import { fromDbDateTime, toDbDateTime } from '../../db/dialect.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { hashFile } from '../../adapters/file-store.js';
import { RUN_ID, tempName, type RunRegistry } from '../../adapters/runs.js';
import { createPoller } from '../common/poller.js';
import { addDocumentTimestamp, documentId, PdfSignError, sealPdf, type FoundSignature } from '../../adapters/pdf-sign.js';
import { CheckTooCostly, createScanPool } from '../../adapters/pdf-check-pool.js';
import { requestTimestamp, TsaError, type TsaSettings } from '../../adapters/tsa.js';
import { certificatePem, type SealCertificate } from './seal-certificate.js';
import { createReportRepository } from '../reports/reports.repository.js';

/** The largest PDF the public check reads (in memory): a report of 50 photo pages is under 5 MB. */
export const MAX_CHECK_BYTES = 32 * 1024 * 1024;
/** Files read at once by the public check, each in a worker thread of its own. */
export const CHECK_WORKERS = 2;
/** A check worker's heap: the file as text, a signature's bytes and what is read from them. */
const CHECK_WORKER_MB = 256;
/** How long a process holds a time-stamp job: longer than an attempt can take. */
const LEASE_SECONDS = 5 * 60;
const RETRY_BASE_SECONDS = 30;
const RETRY_MAX_SECONDS = 3600;
const BATCH = 10;

export const SEAL_FIELD = 'Siegel';
export const TIMESTAMP_FIELD = 'Zeitstempel';

export type TimestampState = 'none' | 'embedded' | 'pending' | 'added' | 'failed';

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

/** Backoff after `attempts` attempts: 30 s, 60 s, 2 min … at most an hour. */
export const timestampRetrySeconds = (attempts: number) =>
  Math.min(RETRY_MAX_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, Math.min(attempts - 1, 20)));

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
  const repo = createReportRepository(handle.dialect);
  const tsa: TsaSettings | undefined = config.seal.tsaUrl
    ? {
        url: config.seal.tsaUrl,
        username: config.seal.tsaUsername,
        password: config.seal.tsaPassword,
        timeoutMs: config.seal.tsaTimeoutSeconds * 1000,
      }
    : undefined;
  const subjectOf = (der: Buffer) => {
    try {
      const { subject } = new X509Certificate(der);
      return (
        subject
          .split('\n')
          .find((l) => l.startsWith('CN='))
          ?.slice(3) ?? subject
      );
    } catch {
      return '?';
    }
  };
  const signerName = subjectOf(certificate.certificate);

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

  // ---- the time-stamp queue ----------------------------------------------------------------------

  type SealRow = Awaited<ReturnType<typeof due>>[number];

  async function due() {
    const now = toDbDateTime();
    const rows = await db
      .selectFrom('bericht_seal')
      .selectAll()
      .where('entity', '=', entity)
      .where('timestamp', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('rowid')
      .limit(BATCH * 5)
      .execute();
    const out: typeof rows = [];
    for (const row of rows) {
      if (row.lease_owner !== null) {
        const expired = (fromDbDateTime(row.lease_until) ?? 0) * 1000 < Date.now();
        if (!expired && (row.lease_owner === RUN_ID || (await deps.runs.state(row.lease_owner)) !== 'dead')) continue;
      }
      out.push(row);
      if (out.length >= BATCH) break;
    }
    return out;
  }

  async function take(row: SealRow): Promise<boolean> {
    const now = new Date();
    let q = db
      .updateTable('bericht_seal')
      .set({
        lease_owner: RUN_ID,
        lease_until: toDbDateTime(new Date(now.getTime() + LEASE_SECONDS * 1000)),
        attempts: Number(row.attempts) + 1,
        tms: toDbDateTime(now),
      })
      .where('rowid', '=', Number(row.rowid))
      .where('timestamp', '=', 'pending')
      .where('attempts', '=', Number(row.attempts));
    q = row.lease_owner === null ? q.where('lease_owner', 'is', null) : q.where('lease_owner', '=', row.lease_owner);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }

  /** The files of this sealed PDF (the report's, the copy in the object's documents), by their ecm_files rows. */
  async function filesOf(row: SealRow, conn: Db = db) {
    const report = await conn
      .selectFrom('bericht')
      .select(['final_pdf_path', 'status'])
      .where('rowid', '=', Number(row.fk_bericht))
      .executeTakeFirst();
    if (!report?.final_pdf_path || Number(report.status) === 0) return undefined;
    const filename = path.posix.basename(report.final_pdf_path);
    const rows = await conn
      .selectFrom('ecm_files')
      .select(['rowid', 'filepath', 'filename', 'label'])
      .where('entity', '=', entity)
      .where('filename', '=', filename)
      .execute();
    const root = entityRoot(config.dataRoot, entity);
    return {
      main: path.join(root, report.final_pdf_path),
      rows: rows.map((r) => ({ ...r, file: path.join(root, r.filepath, r.filename) })),
    };
  }

  /** Writes the job's outcome while this process holds it; true when it did (false: the lease was lost). */
  async function settle(
    row: SealRow,
    set: { timestamp?: TimestampState; error?: string | null; stamped_sha256?: string; stamped_at?: string; retry?: boolean },
    conn: Db = db,
  ): Promise<boolean> {
    const now = new Date();
    const result = await conn
      .updateTable('bericht_seal')
      .set({
        ...(set.timestamp ? { timestamp: set.timestamp } : {}),
        ...(set.error !== undefined ? { error: set.error?.slice(0, 1000) ?? null } : {}),
        ...(set.stamped_sha256 ? { stamped_sha256: set.stamped_sha256, stamped_at: set.stamped_at } : {}),
        // `row.attempts` counts the attempt just made: 30 s after the first, then 1 min, 2 min …
        ...(set.retry
          ? { next_attempt_at: toDbDateTime(new Date(now.getTime() + timestampRetrySeconds(Number(row.attempts)) * 1000)) }
          : {}),
        lease_owner: null,
        lease_until: null,
        tms: toDbDateTime(now),
      })
      .where('rowid', '=', Number(row.rowid))
      .where('lease_owner', '=', RUN_ID)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** One job: the document time stamp added to every file of the sealed PDF. */
  async function stamp(row: SealRow): Promise<void> {
    if (!tsa) return void (await settle(row, { error: 'Kein Zeitstempeldienst eingerichtet (TSA_URL)', retry: true }));
    const files = await filesOf(row);
    if (!files) return void (await settle(row, { timestamp: 'failed', error: 'Der Bericht hat kein abgeschlossenes PDF mehr' }));
    const pdf = await readFile(files.main).catch(() => undefined);
    if (!pdf) return void (await settle(row, { timestamp: 'failed', error: 'Das PDF fehlt im Dokumentenordner' }));
    if (sha256Hex(pdf) !== row.sealed_sha256)
      return void (await settle(row, {
        timestamp: 'failed',
        error: 'Das PDF wurde nach dem Versiegeln verändert; es bekommt keinen Zeitstempel',
      }));
    let stamped: Buffer;
    try {
      stamped = await addDocumentTimestamp(pdf, TIMESTAMP_FIELD, (imprint) => requestTimestamp(tsa, imprint));
    } catch (error) {
      // A file this service cannot extend will not become one by waiting.
      if (error instanceof PdfSignError)
        return void (await settle(row, { timestamp: 'failed', error: `Der Zeitstempel kann nicht angefügt werden: ${error.message}` }));
      if (!(error instanceof TsaError)) throw error;
      logger.warn({ report: row.ref, tsa: tsa.url, problem: error.message }, 'time-stamp authority still not reached; tried again later');
      return void (await settle(row, { error: error.message, retry: true }));
    }
    const md5 = createHash('md5').update(stamped).digest('hex');
    // Every file that still holds the sealed bytes: the report's, and its copy in the object's documents.
    const targets: typeof files.rows = [];
    for (const t of files.rows) {
      // The report's own file was read and checked above; a copy is hashed as a stream.
      const sha256 = t.file === files.main ? row.sealed_sha256 : await hashFile(t.file, 'sha256').catch(() => undefined);
      if (sha256 === row.sealed_sha256) targets.push(t);
    }
    const temps: Array<[string, string]> = [];
    try {
      for (const t of targets) {
        const temp = path.join(path.dirname(t.file), tempName(path.basename(t.file)));
        await writeFile(temp, stamped, { flag: 'wx' });
        temps.push([temp, t.file]);
      }
      // The record first: the check takes the sealed file and the time-stamped one alike, so a
      // process killed before the renames below leaves a true record and the sealed files.
      await db.transaction().execute(async (trx) => {
        if (!(await repo.lockById(trx, Number(row.fk_bericht)))) throw new Error('the report was deleted meanwhile');
        const still = await filesOf(row, trx);
        if (!still || still.main !== files.main) throw new Error('the report changed meanwhile');
        for (const t of targets) await trx.updateTable('ecm_files').set({ label: md5 }).where('rowid', '=', Number(t.rowid)).execute();
        if (
          !(await settle(row, { timestamp: 'added', error: null, stamped_sha256: sha256Hex(stamped), stamped_at: toDbDateTime() }, trx))
        ) {
          throw new Error('another process took the job meanwhile');
        }
      });
      for (const [temp, file] of temps.splice(0)) await rename(temp, file);
      // Deleted while the files were put in place: they go with the report.
      if (!(await filesOf(row))) await Promise.all(targets.map((t) => rm(t.file, { force: true })));
      logger.info({ report: row.ref }, 'document time stamp added to the sealed report');
    } finally {
      for (const [temp] of temps) await rm(temp, { force: true });
    }
  }

  async function round(): Promise<number> {
    let taken = 0;
    for (const row of await due()) {
      if (poller.stopped) break;
      if (!(await take(row))) continue;
      taken++;
      const held = { ...row, attempts: Number(row.attempts) + 1, lease_owner: RUN_ID };
      try {
        await stamp(held);
      } catch (error) {
        logger.error({ err: error, report: row.ref }, 'document time stamp failed; tried again later');
        await settle(held, { error: (error as Error).message, retry: true }).catch(() => undefined);
      }
    }
    return taken;
  }

  // Rounds only where an authority is configured; pending records wait for one.
  const poller = createPoller(tsa ? config.seal.pollSeconds : 0, round, (error) =>
    logger.error({ err: error }, 'time-stamp queue round failed'),
  );

  // ---- the check of an uploaded PDF --------------------------------------------------------------

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
    budgetMs: config.seal.checkBudgetMs,
    memoryMb: CHECK_WORKER_MB,
    onWorkerError: (error) => logger.warn({ err: error }, 'a worker of the public PDF check failed'),
  });

  /**
   * What the uploaded PDF `bytes` is. Everything that reads the whole file runs in a worker thread
   * (pdf-check-pool.ts) within `budgetMs` of `since` (the file's arrival; else too costly; with
   * less than half of it left once a worker is free, CheckBusy); `bytes` is handed to it and must
   * not be used afterwards.
   */
  async function check(bytes: Buffer, budgetMs = config.seal.checkBudgetMs, since = Date.now()): Promise<CheckVerdict> {
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
      id: Number(r.fk_bericht),
      ref: r.ref,
      version: Number(r.version),
      signers: await signersOf(Number(r.fk_bericht)),
    });
    const stampOf = (s: FoundSignature | undefined) =>
      s?.timestamp?.valid && s.timestamp.info
        ? { at: s.timestamp.info.genTime, authority: s.kind === 'timestamp' && s.certificate ? subjectOf(s.certificate) : undefined }
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
            ? subjectOf(first.certificate)
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
          report: byId ? { ref: byId.ref, version: Number(byId.version) } : undefined,
          why: first.problem === 'digest_mismatch' ? 'content_changed' : 'signature_broken',
        };
      }
      // Whatever came after the seal would have to be the time stamp this instance added, and then the file is one it recorded (above): a change.
      if (!first.coversWholeFile)
        return { verdict: 'altered', report: record ? { ref: record.ref, version: Number(record.version) } : undefined, why: 'appended' };
      return {
        verdict: 'unaltered',
        report: record ? await reportOf(record) : undefined,
        sealedAt: pdfDateOf(first.signedAt),
        signer: subjectOf(first.certificate!),
        timestamp,
      };
    }
    // No signature of ours that can be read: a damaged seal of one of our reports, or someone else's file.
    const byId = id
      ? await db.selectFrom('bericht_seal').selectAll().where('entity', '=', entity).where('pdf_id', '=', id).executeTakeFirst()
      : undefined;
    if (byId) return { verdict: 'altered', report: { ref: byId.ref, version: Number(byId.version) }, why: 'signature_broken' };
    const other = signatures.find((s) => s.certificate);
    return { verdict: 'not_ours', signer: other?.certificate ? subjectOf(other.certificate) : undefined };
  }

  return {
    seal,
    record,
    check,
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
    queue: poller,
    /** Starts a check worker ahead of an upload's check (while its body arrives), unless one is ready. */
    warmCheck: () => scanPool.warm(),
    /** The check's worker pool now (for tests and logs). */
    checkWorkers: () => scanPool.stats(),
    /** Ends the check's worker threads. */
    close: () => scanPool.close(),
  };
}

export type PdfSeal = ReturnType<typeof createPdfSeal>;
