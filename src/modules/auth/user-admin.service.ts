/**
 * User administration for the command line: add a user, set a password, grant report rights,
 * writing Dolibarr's tables the way Dolibarr does (bcrypt `$2y$` in pass_crypted, pass and
 * pass_temp cleared, rights as user_rights rows of the module's rights_def ids).
 */
import type { Db, DbHandle } from '../../db/database.js';
import { insertId, isUniqueViolation } from '../../db/dialect.js';
import { toDolibarrDateTime } from '../../dolibarr/time.js';
import { hashPassword } from '../../dolibarr/password.js';
import { RIGHTS, RIGHTS_MODULE, type Right } from '../../dolibarr/rights.js';
import { createTokenVoidRepository } from './token-void.repository.js';

export class UserAdminError extends Error {}

export interface NewUser {
  login: string;
  password: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  admin?: boolean;
  rights?: Right[];
}

export function parseRights(list: string): Right[] {
  const names = [
    ...new Set(
      list
        .split(',')
        .map((r) => r.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const unknown = names.filter((n) => !RIGHTS.includes(n as Right));
  if (unknown.length > 0) throw new UserAdminError(`unknown right(s): ${unknown.join(', ')} (known: ${RIGHTS.join(', ')})`);
  return names as Right[];
}

/** @param timeZone Dolibarr's time zone: llx_user's dates are its wall times (time.ts). */
export function createUserAdmin(handle: DbHandle, entity: number, timeZone = 'UTC') {
  const { db, dialect } = handle;

  async function userId(login: string, on: Db = db): Promise<number> {
    const row = await on
      .selectFrom('user')
      .select('rowid')
      .where('login', '=', login)
      .where('entity', 'in', [0, entity])
      .orderBy('entity', 'desc')
      .executeTakeFirst();
    if (!row) throw new UserAdminError(`no user with login '${login}' in entity ${entity}`);
    return row.rowid;
  }

  async function userColumns(): Promise<Set<string>> {
    const table = (await db.introspection.getTables()).find((t) => t.name === `${handle.prefix}user`);
    return new Set(table?.columns.map((c) => c.name) ?? []);
  }

  async function grant(login: string, rights: Right[], on: Db = db): Promise<Right[]> {
    const id = await userId(login, on);
    const defs = await on
      .selectFrom('rights_def')
      .select(['id', 'perms'])
      .where('module', '=', RIGHTS_MODULE)
      .where('entity', '=', entity)
      .execute();
    const held = new Set(
      (await on.selectFrom('user_rights').select('fk_id').where('fk_user', '=', id).where('entity', '=', entity).execute()).map(
        (r) => r.fk_id,
      ),
    );
    // Checked before inserting rather than caught after: inside a PostgreSQL transaction a failed
    // insert would void everything before it.
    const granted: Right[] = [];
    for (const right of new Set(rights)) {
      const def = defs.find((d) => d.perms === right);
      if (!def) throw new UserAdminError(`right '${right}' is not registered in rights_def: run \`fieldreport migrate\``);
      if (held.has(def.id)) continue;
      await on.insertInto('user_rights').values({ entity, fk_user: id, fk_id: def.id }).execute();
      held.add(def.id);
      granted.push(right);
    }
    return granted;
  }

  return {
    async add(user: NewUser): Promise<number> {
      if (!/^[^\s<>"'`]{1,50}$/.test(user.login)) throw new UserAdminError('login: 1 to 50 characters, no spaces or quotes');
      if (user.password.length < 4) throw new UserAdminError('password: at least 4 characters');
      const passCrypted = await hashPassword(user.password);
      try {
        // One transaction: a user is added with its rights or not at all.
        return await db.transaction().execute(async (trx) => {
          const id = await insertId(
            dialect,
            trx.insertInto('user').values({
              entity,
              login: user.login,
              pass_crypted: passCrypted,
              firstname: user.firstname ?? null,
              lastname: user.lastname ?? null,
              email: user.email ?? null,
              admin: user.admin ? 1 : 0,
              statut: 1,
              datec: toDolibarrDateTime(new Date(), timeZone),
            }),
          );
          if (user.rights?.length) await grant(user.login, user.rights, trx);
          return id;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new UserAdminError(`a user with login '${user.login}' exists already`);
        throw error;
      }
    },

    async setPassword(login: string, password: string): Promise<void> {
      if (password.length < 4) throw new UserAdminError('password: at least 4 characters');
      const id = await userId(login);
      const columns = await userColumns();
      const passCrypted = await hashPassword(password);
      const now = Math.floor(Date.now() / 1000);
      // The new password first, then the void, in one transaction: a login with the old password
      // until the change commits gets a token the void covers (every iat issued so far is).
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('user')
          .set({
            pass_crypted: passCrypted,
            pass: null,
            pass_temp: null,
            // As Dolibarr's setPassword, in UTC as Dolibarr writes this column: its sessions from
            // before the change are void (nobody's own session to spare here).
            ...(columns.has('flagdelsessionsbefore') ? { flagdelsessionsbefore: toDolibarrDateTime(now, 'UTC') } : {}),
          })
          .where('rowid', '=', id)
          .execute();
        await createTokenVoidRepository(trx).voidThrough(id, now);
      });
    },

    /**
     * Deactivates (statut 0) or activates (statut 1) a user as Dolibarr's user card does. A
     * deactivation voids every token issued so far: activating the user again does not revive them.
     */
    async setActive(login: string, active: boolean): Promise<void> {
      const id = await userId(login);
      // The deactivation first, then the void, in one transaction: a login until it commits gets
      // a token the void covers.
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('user')
          .set({ statut: active ? 1 : 0 })
          .where('rowid', '=', id)
          .execute();
        const voids = createTokenVoidRepository(trx);
        if (active) await voids.markActive(id);
        else await voids.voidThrough(id, Math.floor(Date.now() / 1000), true);
      });
    },

    grant,
  };
}
