/**
 * Tokens that end on the server: per user, the second through which every token is void
 * (`bericht_token_void`). The token's claims stay the contract's (sub, login, name, iat, exp, iss,
 * perms); a token whose iat is at most `void_through` is refused.
 *
 * Each login records the iat it issues in `issued_through`, and issues an iat later than both the
 * last void and the last iat issued (`issue`): two logins of one person in one second get
 * different tokens (the second's iat one second later), so that ending one device's token never
 * ends another's, and a login right after a logout is never covered by it. A void covers
 * max(now, issued_through): every token issued so far, and never more than that (it never runs
 * ahead of the clock by more than the iats actually issued). An iat is at most ISSUE_AHEAD_SECONDS
 * ahead of the clock; a login that would need more is refused with 503 and Retry-After: 1.
 *
 * Written by a logout, by `fieldreport user passwd` and `user disable`, and when the service sees
 * a user deactivated: a request with one of its tokens, or the sweep that looks for deactivated
 * users every SWEEP_SECONDS (a deactivation in Dolibarr's own screens writes nothing here). The
 * row's `inactive` says the deactivation was seen, so that the sweep writes once per deactivation;
 * a user reactivated afterwards keeps its old tokens void.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';

/** How often each process looks for users deactivated in Dolibarr's own screens. */
export const SWEEP_SECONDS = 30;

/** How far ahead of the clock an issued iat may be. */
export const ISSUE_AHEAD_SECONDS = 3600;

export interface TokenVoidRepository {
  /**
   * Voids every token of the user issued so far: those with an iat up to and including second
   * `through` (at least `now`), and every iat recorded as issued. It never moves back. `inactive`,
   * when given, records whether the user was seen deactivated.
   */
  voidThrough(userId: number, now: number, inactive?: boolean, through?: number): Promise<void>;
  /**
   * The iat for a new token of the user: at least `least`, after the last void and after the last
   * iat issued; recorded as issued. Undefined when it would be more than ISSUE_AHEAD_SECONDS
   * ahead of `now` (nothing recorded then).
   */
  issue(userId: number, least: number, now: number): Promise<number | undefined>;
  /** Ends one token (by its SHA-256) until its expiry; forgets tokens ended before that have expired since. */
  revokeToken(tokenHash: string, userId: number, exp: number, now: number): Promise<void>;
  /** Records that the user is active (again); its tokens voided before stay void. */
  markActive(userId: number): Promise<void>;
  /**
   * Voids the tokens of every user deactivated since the last sweep and notes the users active
   * again; rows recorded inactive already are not written again. Returns the users whose tokens
   * it voided.
   */
  sweep(entity: number, now: number): Promise<number[]>;
}

const greatest = (...values: RawBuilder<number>[]): RawBuilder<number> =>
  values.reduce((a, b) => sql<number>`(case when ${a} > ${b} then ${a} else ${b} end)`);

class IssueTooFarAhead extends Error {}

export function createTokenVoidRepository(db: Db): TokenVoidRepository {
  async function update(userId: number, now: number, through: number, inactive: boolean | undefined, onlyIfActive = false): Promise<void> {
    let query = db
      .updateTable('bericht_token_void')
      .set({
        void_through: greatest(sql<number>`void_through`, sql<number>`issued_through`, sql<number>`${through}`),
        voided_at: greatest(sql<number>`voided_at`, sql<number>`${now}`),
        ...(inactive === undefined ? {} : { inactive: inactive ? 1 : 0 }),
      })
      .where('fk_user', '=', userId);
    if (onlyIfActive) query = query.where('inactive', '=', 0);
    await query.execute();
  }

  /** The user's row, made when missing (void_through 0: nothing voided). */
  async function ensureRow(userId: number, values: { void_through: number; voided_at: number; inactive: number }): Promise<boolean> {
    const exists = await db.selectFrom('bericht_token_void').select('rowid').where('fk_user', '=', userId).executeTakeFirst();
    if (exists) return false;
    try {
      await db
        .insertInto('bericht_token_void')
        .values({ fk_user: userId, ...values })
        .execute();
      return true;
    } catch (error) {
      // Another process wrote the user's row meanwhile.
      if (!isUniqueViolation(error)) throw error;
      return false;
    }
  }

  async function voidUser(
    userId: number,
    now: number,
    inactive: boolean | undefined,
    through: number,
    onlyIfActive: boolean,
  ): Promise<void> {
    const made = await ensureRow(userId, { void_through: Math.max(now, through), voided_at: now, inactive: inactive ? 1 : 0 });
    if (!made) await update(userId, now, Math.max(now, through), inactive, onlyIfActive);
  }

  const repo: TokenVoidRepository = {
    async voidThrough(userId, now, inactive, through = now) {
      await voidUser(userId, now, inactive, through, false);
    },

    async issue(userId, least, now) {
      await ensureRow(userId, { void_through: 0, voided_at: 0, inactive: 0 });
      try {
        return await db.transaction().execute(async (trx) => {
          // The update first: it holds the row until the end, so that two logins at once issue
          // one iat after the other.
          await trx
            .updateTable('bericht_token_void')
            .set({ issued_through: greatest(sql<number>`${least}`, sql<number>`void_through + 1`, sql<number>`issued_through + 1`) })
            .where('fk_user', '=', userId)
            .execute();
          const row = await trx
            .selectFrom('bericht_token_void')
            .select('issued_through')
            .where('fk_user', '=', userId)
            .executeTakeFirstOrThrow();
          const iat = row.issued_through;
          if (iat > now + ISSUE_AHEAD_SECONDS) throw new IssueTooFarAhead();
          return iat;
        });
      } catch (error) {
        if (error instanceof IssueTooFarAhead) return undefined;
        throw error;
      }
    },

    async revokeToken(tokenHash, userId, exp, now) {
      await db.deleteFrom('bericht_token_revoked').where('exp', '<', now).execute();
      try {
        await db.insertInto('bericht_token_revoked').values({ token_hash: tokenHash, fk_user: userId, exp }).execute();
      } catch (error) {
        // Ended already (two logouts at once).
        if (!isUniqueViolation(error)) throw error;
      }
    },

    async markActive(userId) {
      await db.updateTable('bericht_token_void').set({ inactive: 0 }).where('fk_user', '=', userId).where('inactive', '=', 1).execute();
    },

    async sweep(entity, now) {
      const deactivated = await db
        .selectFrom('user as u')
        .leftJoin('bericht_token_void as v', 'v.fk_user', 'u.rowid')
        .select('u.rowid')
        .where('u.entity', 'in', [0, entity])
        .where('u.statut', '<>', 1)
        .where((eb) => eb.or([eb('v.rowid', 'is', null), eb('v.inactive', '=', 0)]))
        .execute();
      const voided = deactivated.map((r) => r.rowid);
      // Rows recorded inactive meanwhile (a request saw the deactivation) are not written again.
      for (const id of voided) await voidUser(id, now, true, now, true);
      const active = await db
        .selectFrom('bericht_token_void as v')
        .innerJoin('user as u', 'u.rowid', 'v.fk_user')
        .select('v.fk_user')
        .where('v.inactive', '=', 1)
        .where('u.statut', '=', 1)
        .execute();
      if (active.length > 0) {
        await db
          .updateTable('bericht_token_void')
          .set({ inactive: 0 })
          .where(
            'fk_user',
            'in',
            active.map((r) => r.fk_user),
          )
          .where('inactive', '=', 1)
          .execute();
      }
      return voided;
    },
  };
  return repo;
}
