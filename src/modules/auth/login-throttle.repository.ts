/**
 * Login attempts per login name and per client address, in the database so that every process
 * behind a load balancer sees the same count (docs/architecture.md: processes keep no state); and the
 * addresses each login succeeded from, for some days (auth.service.ts: those are not slowed down
 * when others guess the login's password).
 *
 * An attempt is claimed (written) before its password is checked, and counted with the attempts
 * before it (by id); so attempts sent in parallel count each other, exactly the first ones of a
 * burst are checked, and they stay recorded. An attempt that succeeds is released again; one
 * refused unchecked stays as an attempt of its address only; a failed one stays as the failure. (An insert that takes an earlier id but
 * becomes visible late can let one extra attempt through; closing that needs a lock per login.)
 */
import type { DbHandle } from '../../db/database.js';
import { insertId, isUniqueViolation } from '../../db/dialect.js';

export interface FailureCounts {
  /** Attempts of the login from this address. */
  byPair: number;
  /** Attempts of the login from every address. */
  byLogin: number;
  /** Attempts from this address, whatever the login. */
  byAddress: number;
  /** Unix seconds of the oldest attempt counted for the pair and for the address. */
  oldestByPair: number | null;
  oldestByAddress: number | null;
  /** Unix seconds of the newest attempt of the login before this one (any address). */
  newestOtherByLogin: number | null;
}

export interface LoginThrottleRepository {
  /** Writes an attempt; returns its id. */
  claim(login: string, address: string, at: number): Promise<number>;
  /** Attempts since `since`, up to and including attempt `upTo` (later ones do not count against it). */
  count(login: string, address: string, since: number, upTo: number): Promise<FailureCounts>;
  release(id: number): Promise<void>;
  /**
   * An attempt refused unchecked (429) stays as an attempt of its address only (login ''): it
   * counts toward the address's limit, not toward the login's, which the caller never tried.
   */
  markRefused(id: number): Promise<void>;
  /** Forgets the failures of the login from this address (it has just succeeded there). */
  clearPair(login: string, address: string): Promise<void>;
  /** Forgets every attempt older than `before`. */
  purge(before: number): Promise<void>;
  /** Whether the login succeeded from the address at `since` or later. */
  isKnown(login: string, address: string, since: number): Promise<boolean>;
  /** Records a success of the login from the address at `at`; forgets its addresses last used before `forgetBefore`. */
  remember(login: string, address: string, at: number, forgetBefore: number): Promise<void>;
}

export function createLoginThrottleRepository({ db, dialect }: Pick<DbHandle, 'db' | 'dialect'>): LoginThrottleRepository {
  const attempts = (since: number, upTo: number) =>
    db
      .selectFrom('bericht_login_failure')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
      .where('at', '>=', since)
      .where('rowid', '<=', upTo);
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

  return {
    claim: (login, address, at) => insertId(dialect, db.insertInto('bericht_login_failure').values({ login, address, at })),

    async count(login, address, since, upTo) {
      const [byPair, byLogin, byAddress, newest] = await Promise.all([
        attempts(since, upTo).where('login', '=', login).where('address', '=', address).executeTakeFirstOrThrow(),
        attempts(since, upTo).where('login', '=', login).executeTakeFirstOrThrow(),
        attempts(since, upTo).where('address', '=', address).executeTakeFirstOrThrow(),
        db
          .selectFrom('bericht_login_failure')
          .select((eb) => eb.fn.max('at').as('newest'))
          .where('login', '=', login)
          .where('at', '>=', since)
          .where('rowid', '<', upTo)
          .executeTakeFirstOrThrow(),
      ]);
      return {
        byPair: byPair.n,
        byLogin: byLogin.n,
        byAddress: byAddress.n,
        oldestByPair: num(byPair.oldest),
        oldestByAddress: num(byAddress.oldest),
        newestOtherByLogin: num(newest.newest),
      };
    },

    async release(id) {
      await db.deleteFrom('bericht_login_failure').where('rowid', '=', id).execute();
    },

    async markRefused(id) {
      await db.updateTable('bericht_login_failure').set({ login: '' }).where('rowid', '=', id).execute();
    },

    async clearPair(login, address) {
      await db.deleteFrom('bericht_login_failure').where('login', '=', login).where('address', '=', address).execute();
    },

    async purge(before) {
      await db.deleteFrom('bericht_login_failure').where('at', '<', before).execute();
    },

    async isKnown(login, address, since) {
      const row = await db
        .selectFrom('bericht_login_known')
        .select('rowid')
        .where('login', '=', login)
        .where('address', '=', address)
        .where('at', '>=', since)
        .executeTakeFirst();
      return row !== undefined;
    },

    async remember(login, address, at, forgetBefore) {
      await db.deleteFrom('bericht_login_known').where('login', '=', login).where('at', '<', forgetBefore).execute();
      const update = () =>
        db.updateTable('bericht_login_known').set({ at }).where('login', '=', login).where('address', '=', address).execute();
      const known = await db
        .selectFrom('bericht_login_known')
        .select('rowid')
        .where('login', '=', login)
        .where('address', '=', address)
        .executeTakeFirst();
      if (known) return void (await update());
      try {
        await db.insertInto('bericht_login_known').values({ login, address, at }).execute();
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        await update();
      }
    },
  };
}
