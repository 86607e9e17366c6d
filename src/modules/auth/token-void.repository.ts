/**
 * Tokens that end on the server: per user, the second through which every token is void
 * (`bericht_token_void`). The token's claims stay the spec's (sub, login, name, iat, exp, iss,
 * perms); a token whose iat is at most `void_through` is refused. A token issued after a void in
 * the same second would carry that second as its iat, so a login issues its token with an iat of
 * at least `void_through` + 1 (auth.service.ts): a logout ends the tokens before it, never the
 * login right after it.
 *
 * Written by a logout, by `fieldreport user passwd` and `user disable`, and when the service sees
 * a user deactivated: a request with one of its tokens, or the sweep that looks for deactivated
 * users every few seconds (a deactivation in Dolibarr's own screens writes nothing here). The row's
 * `inactive` says the deactivation was seen, so that the sweep writes once per deactivation; a
 * user reactivated afterwards keeps its old tokens void.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';

export interface TokenVoidRepository {
  /**
   * Voids every token of the user issued so far: those with an iat up to and including second
   * `through`, and those issued after the previous void (whose iat may be one second ahead of the
   * clock). It never moves back. `inactive`, when given, records whether the user was seen
   * deactivated.
   */
  voidThrough(userId: number, through: number, inactive?: boolean): Promise<void>;
  /** Ends one token (by its SHA-256) until its expiry; forgets tokens ended before that have expired since. */
  revokeToken(tokenHash: string, userId: number, exp: number, now: number): Promise<void>;
  /** Records that the user is active (again); its tokens voided before stay void. */
  markActive(userId: number): Promise<void>;
  /**
   * Voids the tokens of every user deactivated since the last sweep and notes the users active
   * again; reads only when nothing changed. Returns the users whose tokens it voided.
   */
  sweep(entity: number, now: number): Promise<number[]>;
}

export function createTokenVoidRepository(db: Db): TokenVoidRepository {
  async function update(userId: number, through: number, inactive: boolean | undefined): Promise<void> {
    await db
      .updateTable('bericht_token_void')
      .set({
        // A token issued after the last void carries an iat of at least void_through + 1 (the
        // second after), which may still be ahead of `through`: the new void covers it too.
        void_through: sql<number>`case when void_through < ${through} then ${through} else void_through + 1 end`,
        ...(inactive === undefined ? {} : { inactive: inactive ? 1 : 0 }),
      })
      .where('fk_user', '=', userId)
      .execute();
  }

  const repo: TokenVoidRepository = {
    async voidThrough(userId, through, inactive) {
      const exists = await db.selectFrom('bericht_token_void').select('rowid').where('fk_user', '=', userId).executeTakeFirst();
      if (exists) return update(userId, through, inactive);
      try {
        await db.insertInto('bericht_token_void').values({ fk_user: userId, void_through: through, inactive: inactive ? 1 : 0 }).execute();
      } catch (error) {
        // Another process wrote the user's row meanwhile.
        if (!isUniqueViolation(error)) throw error;
        await update(userId, through, inactive);
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
      const voided = deactivated.map((r) => Number(r.rowid));
      for (const id of voided) await repo.voidThrough(id, now, true);
      const active = await db
        .selectFrom('bericht_token_void as v')
        .innerJoin('user as u', 'u.rowid', 'v.fk_user')
        .select('v.fk_user')
        .where('v.inactive', '=', 1)
        .where('u.statut', '=', 1)
        .execute();
      if (active.length > 0) {
        await db.updateTable('bericht_token_void').set({ inactive: 0 }).where('fk_user', 'in', active.map((r) => Number(r.fk_user))).where('inactive', '=', 1).execute();
      }
      return voided;
    },
  };
  return repo;
}
