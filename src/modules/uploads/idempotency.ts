/**
 * Idempotency-Key for uploads (a phone that lost its connection repeats the request): the key is
 * claimed in `bericht_idempotency` before the body is read, so two requests with one key never both
 * write a file. The unique index (fk_user, idem_key) decides who was first, across processes.
 * - key free: claimed; the caller runs, then `complete` stores the answer or `release` frees the
 *   key again (a failed attempt may be retried with the same key);
 * - same scope, answer stored: that answer again (status and JSON), nothing written;
 * - same scope, no answer yet: 409 IDEMPOTENCY_IN_PROGRESS, unless the claim is older than
 *   STALE_CLAIM_SECONDS (its request died): then it is freed and claimed anew;
 * - another scope (another route or order): 409 IDEMPOTENCY_KEY_REUSED.
 */
import { createHash } from 'node:crypto';
import { isUniqueViolation } from '../../db/dialect.js';
import { AppError } from '../../errors.js';
import type { UploadsRepository } from './uploads.repository.js';

/** A claim older than this without an answer belongs to a request that died (the longest upload of 200 MB on a slow line fits). */
export const STALE_CLAIM_SECONDS = 3600;

/** 1 to 128 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{1,128}$';

export type IdempotencyOutcome =
  | { replay: { statusCode: number; body: unknown } }
  | { replay?: undefined; complete(statusCode: number, body: unknown): Promise<void>; release(): Promise<void> };

export async function beginIdempotent(
  repo: UploadsRepository,
  claim: { entity: number; userId: number; key: string; scope: string },
): Promise<IdempotencyOutcome> {
  const { entity, userId, scope } = claim;
  // Stored as its SHA-256: compared byte for byte whatever the column's collation (MariaDB's
  // utf8mb4_unicode_ci would take 'abcKEY' and 'ABCkey' for one key and drop the second upload).
  const key = createHash('sha256').update(claim.key, 'utf8').digest('hex');
  // Two rounds: the row seen in the first may be released before we read it.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await repo.claimKey(entity, userId, key, scope);
      return {
        complete: (statusCode, body) => repo.completeKey(userId, key, statusCode, JSON.stringify(body)),
        release: () => repo.releaseKey(userId, key),
      };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const row = await repo.getKey(userId, key);
    if (!row) continue;
    if (row.scope !== scope) throw new AppError('IDEMPOTENCY_KEY_REUSED');
    if (row.statusCode === null || row.response === null) {
      // A claim never completed long ago is a process that died mid-request: free it and claim again.
      const staleBefore = Math.floor(Date.now() / 1000) - STALE_CLAIM_SECONDS;
      if (row.claimedAt < staleBefore && attempt === 0) {
        await repo.releaseStaleKey(userId, key, staleBefore);
        continue;
      }
      throw new AppError('IDEMPOTENCY_IN_PROGRESS');
    }
    return { replay: { statusCode: row.statusCode, body: JSON.parse(row.response) } };
  }
  throw new AppError('IDEMPOTENCY_IN_PROGRESS');
}
