/**
 * Login attempts per login name and per client address, in the database so that every process
 * behind a load balancer sees the same count (DESIGN.md: processes keep no state).
 *
 * An attempt is claimed (written) before its password is checked, and counted with itself; so
 * attempts sent in parallel count each other, and a burst cannot slip past the limit. An attempt
 * that succeeds, or is refused unchecked, is released again; a failed one stays as the failure.
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
  count(login: string, address: string, since: number): Promise<FailureCounts>;
  release(id: number): Promise<void>;
  clearLogin(login: string): Promise<void>;
  /** Forgets every attempt older than `before`. */
  purge(before: number): Promise<void>;
}

export function createLoginThrottleRepository({ db, dialect }: Pick<DbHandle, 'db' | 'dialect'>): LoginThrottleRepository {
  const countBy = (column: 'login' | 'address', value: string, since: number) =>
    db
      .selectFrom('bericht_login_failure')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
      .where(column, '=', value)
      .where('at', '>=', since)
      .executeTakeFirstOrThrow();

  return {
    claim: (login, address, at) => insertId(dialect, db.insertInto('bericht_login_failure').values({ login, address, at })),

    async count(login, address, since) {
      const [byLogin, byAddress] = await Promise.all([countBy('login', login, since), countBy('address', address, since)]);
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
