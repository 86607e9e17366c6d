/**
 * Idempotency-Key for writes a phone may repeat after a lost answer (what the app's offline queue
 * sends: uploads, material lines, new reports, pages and signatures): the key is claimed in
 * `bericht_idempotency` before the work (for an upload or a signature, before its body is read),
 * so two requests with one key never both do it. The unique index (fk_user, idem_key) decides
 * who was first, across processes.
 * - key free: claimed; the caller works, then `complete` stores the answer (in the work's own
 *   transaction where it has one, so the change and its answer are kept together or not at all)
 *   or `release` frees the key again (a failed attempt may be retried with the same key);
 * - same scope, answer stored: that answer again (status and JSON), nothing done;
 * - same scope, no answer yet: 409 IDEMPOTENCY_IN_PROGRESS with Retry-After while the claim's run
 *   (process, runs.ts) lives. When it died (kill -9, power cut) the claim is settled at once: the
 *   answer it had planned is given when its result is complete (`confirm`; an upload plans its
 *   answer with its file's row; work that stores its answer in its own transaction plans none:
 *   unanswered, it did not happen), otherwise the claim is freed and claimed anew. Claims made before
 *   runs were recorded are freed after STALE_CLAIM_SECONDS;
 * - another scope (another route or object): 409 IDEMPOTENCY_KEY_REUSED.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { AppError } from '../../errors.js';
import type { RunRegistry } from '../../adapters/runs.js';
import { createIdempotencyRepository } from './idempotency.repository.js';

/** A claim older than this without an answer belongs to a request that died (the longest upload of 200 MB on a slow line fits). */
export const STALE_CLAIM_SECONDS = 3600;

/** 1 to 128 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{1,128}$';

/** Seconds a client is asked to wait before repeating a request whose first attempt is at work. */
export const IN_PROGRESS_RETRY_SECONDS = 5;

const inProgress = () => new AppError('IDEMPOTENCY_IN_PROGRESS', { headers: { 'retry-after': String(IN_PROGRESS_RETRY_SECONDS) } });

export type IdempotencyOutcome =
  | { replay: { statusCode: number; body: unknown } }
  | {
      replay?: undefined;
      /** Who holds the claim, for planning its answer with the work (uploads.repository reserveFile). */
      claim: { userId: number; key: string };
      /** Stores the answer; with `trx`, inside the transaction that did the work. */
      complete(statusCode: number, body: unknown, trx?: Db): Promise<void>;
      release(): Promise<void>;
    };

export interface IdempotencyDeps {
  db: Db;
  runs: Pick<RunRegistry, 'state'>;
  /**
   * Whether the result a dead run planned (its answer's body) is complete and in place.
   * @default none is: work that stores its answer in its own transaction plans none
   */
  confirm?(planned: unknown): Promise<boolean>;
}

/** A key claimed for the caller's work: `complete` stores its answer, `release` frees the key. */
export type IdempotentClaim = Extract<IdempotencyOutcome, { claim: unknown }>;

/**
 * Runs `work` under the Idempotency-Key `claim.key`; without a key, just runs it. A repeat gets
 * the stored answer's body and `work` does not run (the status is the route's one success status,
 * the one `work` stored); a failure of `work` frees the key, so the request may be retried with it.
 * `work` stores its answer with `complete(status, body, trx)`, inside its own transaction where it
 * has one, so a repeat finds the change and its answer together or neither.
 */
export async function idempotent<T>(
  deps: IdempotencyDeps,
  claim: { entity: number; userId: number; key: string | undefined; scope: string },
  work: (claimed: IdempotentClaim | undefined) => Promise<T>,
): Promise<T> {
  if (claim.key === undefined) return work(undefined);
  const outcome = await beginIdempotent(deps, { ...claim, key: claim.key });
  if (outcome.replay) return outcome.replay.body as T;
  try {
    return await work(outcome);
  } catch (error) {
    await outcome.release().catch(() => undefined);
    throw error;
  }
}

export async function beginIdempotent(
  deps: IdempotencyDeps,
  claim: { entity: number; userId: number; key: string; scope: string },
): Promise<IdempotencyOutcome> {
  const { runs, confirm = async () => false } = deps;
  const repo = createIdempotencyRepository(deps.db);
  const { entity, userId, scope } = claim;
  // Stored as its SHA-256: compared byte for byte whatever the column's collation (MariaDB's
  // utf8mb4_unicode_ci would take 'abcKEY' and 'ABCkey' for one key and drop the second upload).
  const key = createHash('sha256').update(claim.key, 'utf8').digest('hex');
  // Two rounds: the row seen in the first may be released before we read it.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await repo.claimKey(entity, userId, key, scope);
      return {
        claim: { userId, key },
        complete: (statusCode, body, trx) =>
          (trx ? createIdempotencyRepository(trx) : repo).completeKey(userId, key, statusCode, JSON.stringify(body)),
        release: () => repo.releaseKey(userId, key),
      };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const row = await repo.getKey(userId, key);
    if (!row) continue;
    if (row.scope !== scope) throw new AppError('IDEMPOTENCY_KEY_REUSED');
    if (row.statusCode === null) {
      if (attempt === 0 && row.runId !== null && (await runs.state(row.runId)) === 'dead') {
        // Its process died. Done but unanswered: answer as planned. Otherwise start afresh.
        const planned = row.response === null ? undefined : JSON.parse(row.response);
        if (planned !== undefined && (await confirm(planned))) {
          await repo.completeDeadKey(userId, key, row.runId, 201);
          return { replay: { statusCode: 201, body: planned } };
        }
        await repo.releaseDeadKey(userId, key, row.runId);
        continue;
      }
      // A claim never completed long ago is a process that died mid-request: free it and claim again.
      const staleBefore = Math.floor(Date.now() / 1000) - STALE_CLAIM_SECONDS;
      if (row.claimedAt < staleBefore && attempt === 0) {
        await repo.releaseStaleKey(userId, key, staleBefore);
        continue;
      }
      throw inProgress();
    }
    if (row.response === null) throw inProgress();
    return { replay: { statusCode: row.statusCode, body: JSON.parse(row.response) } };
  }
  throw inProgress();
}
