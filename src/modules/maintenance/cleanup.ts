/**
 * The daily clean-up (docs/api-contract.md, Upload token): expired upload tokens go (past their
 * own expiry, or UPLOAD_TOKEN_MAX_DAYS after they were made), and with them what only ever grows:
 * old idempotency keys, old failed-login rows, tokens ended by a logout once they have expired, and
 * login addresses not used for LOGIN_KNOWN_ADDRESS_DAYS. Every step is a plain
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
  revoked_tokens: number;
  known_addresses: number;
}

export interface CleanupLimits {
  /** UPLOAD_TOKEN_MAX_DAYS (default 7): a link made longer ago is gone whatever its own expiry. */
  uploadTokenMaxDays?: number;
  /** LOGIN_KNOWN_ADDRESS_DAYS (default 30): a login address unused that long is forgotten. */
  knownAddressDays?: number;
}

export async function runCleanup(db: Db, now: Date = new Date(), limits: CleanupLimits = {}): Promise<CleanupResult> {
  const unix = Math.floor(now.getTime() / 1000);
  const madeBefore = toDbDateTime(unix - (limits.uploadTokenMaxDays ?? 7) * 86_400);
  const tokens = await db
    .deleteFrom('bericht_upload_token')
    .where((eb) => eb.or([eb('date_expiry', '<=', toDbDateTime(now)), eb('datec', '<=', madeBefore)]))
    .executeTakeFirst();
  const keys = await db
    .deleteFrom('bericht_idempotency')
    .where('datec', '<', toDbDateTime(unix - IDEMPOTENCY_KEEP_DAYS * 86_400))
    .executeTakeFirst();
  const failures = await db
    .deleteFrom('bericht_login_failure')
    .where('at', '<', unix - LOGIN_FAILURE_KEEP_SECONDS)
    .executeTakeFirst();
  const revoked = await db.deleteFrom('bericht_token_revoked').where('exp', '<', unix).executeTakeFirst();
  const known = await db
    .deleteFrom('bericht_login_known')
    .where('at', '<', unix - (limits.knownAddressDays ?? 30) * 86_400)
    .executeTakeFirst();
  return {
    upload_tokens: Number(tokens.numDeletedRows),
    idempotency_keys: Number(keys.numDeletedRows),
    login_failures: Number(failures.numDeletedRows),
    revoked_tokens: Number(revoked.numDeletedRows),
    known_addresses: Number(known.numDeletedRows),
  };
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
export async function runDailyCleanup(deps: {
  db: Db;
  dataRoot: string;
  entity: number;
  runs: RunRegistry;
  limits?: CleanupLimits;
}): Promise<DailyCleanupResult> {
  return {
    removed: await runCleanup(deps.db, new Date(), deps.limits),
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
