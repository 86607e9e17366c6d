/**
 * The daily clean-up (spec: "What the service does", item 8): expired upload tokens go, and with
 * them what only ever grows: old idempotency keys and old failed-login rows. Every step is a plain
 * DELETE of rows past a moment, so running it twice at once, or on several processes, does no harm:
 * a row is deleted once, and a second run finds nothing left.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import { toDbDateTime } from '../../db/dialect.js';
import { sweepPrintCache } from '../../adapters/print-image.js';
import type { RunRegistry } from '../../adapters/runs.js';
import { printCacheDir } from '../reports/work-area.js';
import { recoverDeadRuns, type RecoveryResult } from './recovery.js';

/** Idempotency keys are kept this long (a phone retrying after days is a new upload). */
export const IDEMPOTENCY_KEEP_DAYS = 7;
/** Failed logins older than this never count (the longest login window is one day). */
export const LOGIN_FAILURE_KEEP_SECONDS = 86_400;

export interface CleanupResult {
  upload_tokens: number;
  idempotency_keys: number;
  login_failures: number;
}

export async function runCleanup(db: Db, now: Date = new Date()): Promise<CleanupResult> {
  const unix = Math.floor(now.getTime() / 1000);
  const tokens = await db.deleteFrom('bericht_upload_token').where('date_expiry', '<=', toDbDateTime(now)).executeTakeFirst();
  const keys = await db.deleteFrom('bericht_idempotency').where('datec', '<', toDbDateTime(unix - IDEMPOTENCY_KEEP_DAYS * 86_400)).executeTakeFirst();
  const failures = await db.deleteFrom('bericht_login_failure').where('at', '<', unix - LOGIN_FAILURE_KEEP_SECONDS).executeTakeFirst();
  return { upload_tokens: Number(tokens.numDeletedRows), idempotency_keys: Number(keys.numDeletedRows), login_failures: Number(failures.numDeletedRows) };
}

/** Milliseconds from `now` to the next `at` (HH:MM, UTC). */
export function msUntil(at: string, now: Date = new Date()): number {
  const [h, m] = at.split(':').map(Number) as [number, number];
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), h, m));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next.getTime() - now.getTime();
}

export interface DailyCleanupResult {
  removed: CleanupResult;
  recovered: RecoveryResult;
  print_copies: Awaited<ReturnType<typeof sweepPrintCache>>;
}

/**
 * The whole daily clean-up, the same inside the service and as `fieldreport cleanup`: the rows
 * above, what stopped processes left (recovery.ts), and the print-size copies kept to their age
 * and size.
 */
export async function runDailyCleanup(deps: { db: Db; dataRoot: string; entity: number; runs: RunRegistry }): Promise<DailyCleanupResult> {
  return {
    removed: await runCleanup(deps.db),
    recovered: await recoverDeadRuns(deps),
    print_copies: await sweepPrintCache(printCacheDir(deps.dataRoot, deps.entity)),
  };
}

/**
 * Runs `task` (runDailyCleanup) every day at `at` (UTC) inside the service; returns a stop
 * function. A run that fails is logged and the next day's run comes as usual.
 */
export function scheduleDailyCleanup(task: () => Promise<unknown>, at: string, logger: FastifyBaseLogger): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const plan = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      try {
        logger.info({ done: await task() }, 'daily clean-up done');
      } catch (error) {
        logger.error({ err: error }, 'daily clean-up failed; the next one runs tomorrow');
      }
      plan();
    }, msUntil(at));
    timer.unref();
  };
  plan();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
