/**
 * The time-stamp queue of sealed reports. In every process, the pending `bericht_seal` records are
 * taken one at a time (lease by a conditional UPDATE, as for mails); the authority's document time
 * stamp is appended to the final PDF and its copy in the object's documents as an incremental
 * update (the first signature stays valid), the files replaced atomically and their `ecm_files`
 * checksum updated. The authority not answering: again after a pause that doubles (30 s … 1 h),
 * for as long as it takes.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { hashFile } from '../../adapters/file-store.js';
import { addDocumentTimestamp, PdfSignError } from '../../adapters/pdf-sign.js';
import { RUN_ID, tempName, type RunRegistry } from '../../adapters/runs.js';
import { requestTimestamp, TsaError, type TsaSettings } from '../../adapters/tsa.js';
import type { Db } from '../../db/database.js';
import { fromDbDateTime, toDbDateTime } from '../../db/dialect.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { createEcmFilesRepository } from '../../dolibarr/ecm-files.repository.js';
import { createPoller } from '../common/poller.js';
import type { ReportRepository } from '../reports/reports.repository.js';

/** How long a process holds a time-stamp job: longer than an attempt can take. */
const LEASE_SECONDS = 5 * 60;
const RETRY_BASE_SECONDS = 30;
const RETRY_MAX_SECONDS = 3600;
const BATCH = 10;

export const TIMESTAMP_FIELD = 'Zeitstempel';

export type TimestampState = 'none' | 'embedded' | 'pending' | 'added' | 'failed';

const sha256Hex = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Backoff after `attempts` attempts: 30 s, 60 s, 2 min … at most an hour. */
export const timestampRetrySeconds = (attempts: number) =>
  Math.min(RETRY_MAX_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, Math.min(attempts - 1, 20)));

export interface TimestampQueueDeps {
  db: Db;
  repo: Pick<ReportRepository, 'lockById'>;
  entity: number;
  dataRoot: string;
  /** The authority; without one, pending records wait and no round runs. */
  tsa: TsaSettings | undefined;
  pollSeconds: number;
  runs: Pick<RunRegistry, 'state'>;
  logger: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

export function createTimestampQueue(deps: TimestampQueueDeps) {
  const { db, repo, entity, tsa, logger } = deps;
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
        attempts: row.attempts + 1,
        tms: toDbDateTime(now),
      })
      .where('rowid', '=', row.rowid)
      .where('timestamp', '=', 'pending')
      .where('attempts', '=', row.attempts);
    q = row.lease_owner === null ? q.where('lease_owner', 'is', null) : q.where('lease_owner', '=', row.lease_owner);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }

  /** The files of this sealed PDF (the report's, the copy in the object's documents), by their ecm_files rows. */
  async function filesOf(row: SealRow, conn: Db = db) {
    const report = await conn
      .selectFrom('bericht')
      .select(['final_pdf_path', 'status'])
      .where('rowid', '=', row.fk_bericht)
      .executeTakeFirst();
    if (!report?.final_pdf_path || report.status === 0) return undefined;
    const filename = path.posix.basename(report.final_pdf_path);
    const rows = await createEcmFilesRepository(conn).named(entity, filename);
    const root = entityRoot(deps.dataRoot, entity);
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
        ...(set.retry ? { next_attempt_at: toDbDateTime(new Date(now.getTime() + timestampRetrySeconds(row.attempts) * 1000)) } : {}),
        lease_owner: null,
        lease_until: null,
        tms: toDbDateTime(now),
      })
      .where('rowid', '=', row.rowid)
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
        if (!(await repo.lockById(trx, row.fk_bericht))) throw new Error('the report was deleted meanwhile');
        const still = await filesOf(row, trx);
        if (!still || still.main !== files.main) throw new Error('the report changed meanwhile');
        for (const t of targets) await createEcmFilesRepository(trx).setChecksum(t.rowid, md5);
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
      const held = { ...row, attempts: row.attempts + 1, lease_owner: RUN_ID };
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
  const poller = createPoller(tsa ? deps.pollSeconds : 0, round, (error) => logger.error({ err: error }, 'time-stamp queue round failed'));
  return poller;
}
