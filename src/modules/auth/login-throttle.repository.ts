/**
 * Failed-login counting per login name and per client address, in the database so that every
 * process behind a load balancer sees the same count (DESIGN.md: processes keep no state).
 */
import type { Db } from '../../db/database.js';

export interface FailureCounts {
  byLogin: number;
  byAddress: number;
  /** Unix seconds of the oldest failure counted for the login and for the address. */
  oldestByLogin: number | null;
  oldestByAddress: number | null;
}

export interface LoginThrottleRepository {
  count(login: string, address: string, since: number): Promise<FailureCounts>;
  record(login: string, address: string, at: number, forgetBefore: number): Promise<void>;
  clearLogin(login: string): Promise<void>;
}

export function createLoginThrottleRepository(db: Db): LoginThrottleRepository {
  return {
    async count(login, address, since) {
      const [byLogin, byAddress] = await Promise.all([
        db
          .selectFrom('bericht_login_failure')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
          .where('login', '=', login)
          .where('at', '>=', since)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('bericht_login_failure')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
          .where('address', '=', address)
          .where('at', '>=', since)
          .executeTakeFirstOrThrow(),
      ]);
      return {
        byLogin: Number(byLogin.n),
        byAddress: Number(byAddress.n),
        oldestByLogin: byLogin.oldest === null ? null : Number(byLogin.oldest),
        oldestByAddress: byAddress.oldest === null ? null : Number(byAddress.oldest),
      };
    },

    async record(login, address, at, forgetBefore) {
      await db.insertInto('bericht_login_failure').values({ login, address, at }).execute();
      // Old rows of this login and address are no longer counted: drop them as we go.
      await db
        .deleteFrom('bericht_login_failure')
        .where('at', '<', forgetBefore)
        .where((eb) => eb.or([eb('login', '=', login), eb('address', '=', address)]))
        .execute();
    },

    async clearLogin(login) {
      await db.deleteFrom('bericht_login_failure').where('login', '=', login).execute();
    },
  };
}
