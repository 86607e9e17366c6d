/**
 * Login attempts per login name and per client address, in the database so that every process
 * behind a load balancer sees the same count (DESIGN.md: processes keep no state).
 *
 * An attempt is claimed (written) before its password is checked, and counted with the attempts
 * before it (by id); so attempts sent in parallel count each other, exactly the first ones of a
 * burst are checked, and they stay recorded. An attempt that succeeds, or is refused unchecked, is
 * released again; a failed one stays as the failure. (An insert that takes an earlier id but
 * becomes visible late can let one extra attempt through; closing that needs a lock per login.)
 */
import type { DbHandle } from '../../db/database.js';
import { insertId } from '../../db/dialect.js';

export interface FailureCounts {
  byLogin: number;
  byAddress: number;
  /** Unix seconds of the oldest attempt counted for the login and for the address. */
  oldestByLogin: number | null;
  oldestByAddress: number | null;
}

export interface LoginThrottleRepository {
  /** Writes an attempt; returns its id. */
  claim(login: string, address: string, at: number): Promise<number>;
  /** Attempts since `since`, up to and including attempt `upTo` (later ones do not count against it). */
  count(login: string, address: string, since: number, upTo: number): Promise<FailureCounts>;
  release(id: number): Promise<void>;
  clearLogin(login: string): Promise<void>;
  /** Forgets every attempt older than `before`. */
  purge(before: number): Promise<void>;
}

export function createLoginThrottleRepository({ db, dialect }: Pick<DbHandle, 'db' | 'dialect'>): LoginThrottleRepository {
  const countBy = (column: 'login' | 'address', value: string, since: number, upTo: number) =>
    db
      .selectFrom('bericht_login_failure')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
      .where(column, '=', value)
      .where('at', '>=', since)
      .where('rowid', '<=', upTo)
      .executeTakeFirstOrThrow();

  return {
    claim: (login, address, at) => insertId(dialect, db.insertInto('bericht_login_failure').values({ login, address, at })),

    async count(login, address, since, upTo) {
      const [byLogin, byAddress] = await Promise.all([countBy('login', login, since, upTo), countBy('address', address, since, upTo)]);
      return {
        byLogin: Number(byLogin.n),
        byAddress: Number(byAddress.n),
        oldestByLogin: byLogin.oldest === null ? null : Number(byLogin.oldest),
        oldestByAddress: byAddress.oldest === null ? null : Number(byAddress.oldest),
      };
    },

    async release(id) {
      await db.deleteFrom('bericht_login_failure').where('rowid', '=', id).execute();
    },

    async clearLogin(login) {
      await db.deleteFrom('bericht_login_failure').where('login', '=', login).execute();
    },

    async purge(before) {
      await db.deleteFrom('bericht_login_failure').where('at', '<', before).execute();
    },
  };
}
