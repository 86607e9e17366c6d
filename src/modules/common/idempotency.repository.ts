/**
 * The rows of `bericht_idempotency`: one per user and Idempotency-Key (its SHA-256), with the
 * scope it was claimed for, the answer once there is one, and the run that holds an unanswered
 * claim. Only Kysely; no HTTP. Takes `db` or a transaction, so an answer can be stored together
 * with the change it answers for.
 */
import type { Db } from '../../db/database.js';
import { fromDbDateTime, toDbDateTime } from '../../db/dialect.js';
import { RUN_ID } from '../../adapters/runs.js';

export interface IdempotencyRow {
  scope: string;
  statusCode: number | null;
  response: string | null;
  /** Unix seconds of the claim. */
  claimedAt: number;
  /** The run that made the claim; null for claims made before runs were recorded. */
  runId: string | null;
}

export function createIdempotencyRepository(db: Db) {
  return {
    /** Claims `key` for the user; throws the driver's unique violation when it is taken. */
    async claimKey(entity: number, userId: number, key: string, scope: string): Promise<void> {
      await db
        .insertInto('bericht_idempotency')
        .values({ entity, fk_user: userId, idem_key: key, scope, status_code: null, response: null, datec: toDbDateTime(), run_id: RUN_ID })
        .execute();
    },

    async getKey(userId: number, key: string): Promise<IdempotencyRow | undefined> {
      const row = await db
        .selectFrom('bericht_idempotency')
        .select(['scope', 'status_code', 'response', 'datec', 'run_id'])
        .where('fk_user', '=', userId)
        .where('idem_key', '=', key)
        .executeTakeFirst();
      return row
        ? {
            scope: row.scope,
            statusCode: row.status_code === null ? null : row.status_code,
            response: row.response,
            claimedAt: fromDbDateTime(row.datec) ?? 0,
            runId: row.run_id,
          }
        : undefined;
    },

    /** Frees a claim that was never completed and is older than `before` (Unix seconds). */
    async releaseStaleKey(userId: number, key: string, before: number): Promise<void> {
      await db
        .deleteFrom('bericht_idempotency')
        .where('fk_user', '=', userId)
        .where('idem_key', '=', key)
        .where('status_code', 'is', null)
        .where('datec', '<', toDbDateTime(before))
        .execute();
    },

    /** Frees an unanswered claim of the dead run `runId`. */
    async releaseDeadKey(userId: number, key: string, runId: string): Promise<void> {
      await db
        .deleteFrom('bericht_idempotency')
        .where('fk_user', '=', userId)
        .where('idem_key', '=', key)
        .where('status_code', 'is', null)
        .where('run_id', '=', runId)
        .execute();
    },

    /** Completes an unanswered claim of the dead run `runId` with the answer it had planned. */
    async completeDeadKey(userId: number, key: string, runId: string, statusCode: number): Promise<void> {
      await db
        .updateTable('bericht_idempotency')
        .set({ status_code: statusCode })
        .where('fk_user', '=', userId)
        .where('idem_key', '=', key)
        .where('status_code', 'is', null)
        .where('run_id', '=', runId)
        .execute();
    },

    /** Records the answer an unanswered claim plans to give (with the work, in its transaction), for a retry after a crash. */
    async planResponse(userId: number, key: string, response: string): Promise<void> {
      await db
        .updateTable('bericht_idempotency')
        .set({ response })
        .where('fk_user', '=', userId)
        .where('idem_key', '=', key)
        .where('status_code', 'is', null)
        .execute();
    },

    async completeKey(userId: number, key: string, statusCode: number, response: string): Promise<void> {
      await db
        .updateTable('bericht_idempotency')
        .set({ status_code: statusCode, response })
        .where('fk_user', '=', userId)
        .where('idem_key', '=', key)
        .execute();
    },

    async releaseKey(userId: number, key: string): Promise<void> {
      await db
        .deleteFrom('bericht_idempotency')
        .where('fk_user', '=', userId)
        .where('idem_key', '=', key)
        .where('status_code', 'is', null)
        .execute();
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
