/**
 * Sessions that end on the server, and login addresses that are known:
 * - `bericht_token_void`: per user, the Unix second `void_through` up to which every token is
 *   void (a token whose iat is at most this second is refused). Written by a logout ("log out
 *   everywhere"), a password change and a deactivation made through this service, and when the
 *   service sees a user deactivated (`inactive` = 1 until it sees the user active again);
 *   `voided_at` the clock's second of the last void; `issued_through` the highest iat issued to
 *   the user (each login writes it, each issuing a later iat than the one before).
 * - `bericht_token_revoked`: single tokens ended by a logout on one device, by the SHA-256 of the
 *   token (the token itself is not kept), until their own expiry `exp`.
 * - `bericht_login_known`: a login and a client address from which that login succeeded, with the
 *   Unix second `at` of its last success: such an address is not slowed down when other addresses
 *   guess the login's password.
 * Times in UTC, as in every module table.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { schemaTools } from './helpers.js';

export function berichtSessions(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      const { table, index } = schemaTools(db, dialect, prefix);
      await table('bericht_token_void')
        .addColumn('fk_user', 'integer', (c) => c.notNull())
        .addColumn('void_through', 'integer', (c) => c.notNull())
        .addColumn('voided_at', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('issued_through', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('inactive', ty.smallint, (c) => c.notNull().defaultTo(0))
        .execute();
      await index('uk_bericht_token_void_user', 'bericht_token_void', ['fk_user'], true);

      await table('bericht_token_revoked')
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('fk_user', 'integer', (c) => c.notNull())
        .addColumn('exp', 'integer', (c) => c.notNull())
        .execute();
      await index('uk_bericht_token_revoked_hash', 'bericht_token_revoked', ['token_hash'], true);
      await index('idx_bericht_token_revoked_exp', 'bericht_token_revoked', ['exp']);

      await table('bericht_login_known')
        .addColumn('login', 'varchar(128)', (c) => c.notNull())
        .addColumn('address', 'varchar(64)', (c) => c.notNull())
        .addColumn('at', 'integer', (c) => c.notNull())
        .execute();
      await index('uk_bericht_login_known', 'bericht_login_known', ['login', 'address'], true);
      await index('idx_bericht_login_known_at', 'bericht_login_known', ['at']);
    },
  };
}
