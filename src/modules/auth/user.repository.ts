/**
 * Dolibarr users and their report rights, read from Dolibarr's own tables.
 * Some `llx_user` columns only exist in newer Dolibarr versions; the repository is given the
 * column list found on the database and leaves out what is not there.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { RIGHTS_MODULE, rightFromPerms, type Right } from '../../dolibarr/rights.js';

export interface UserRecord {
  id: number;
  entity: number;
  login: string;
  passCrypted: string | null;
  passClear: string | null;
  admin: boolean;
  active: boolean;
  lastname: string | null;
  firstname: string | null;
  email: string | null;
  fkSoc: number | null;
  validFrom: string | null;
  validUntil: string | null;
  /**
   * Tokens issued before this moment are void (Dolibarr's "invalidate sessions", written by its
   * password change). Dolibarr writes and reads this column in UTC ($db->idate(…, 'gmt')), unlike
   * its other date-time columns.
   */
  sessionsValidAfter: string | null;
  /** Tokens whose iat is at most this Unix second are void (bericht_token_void); null: none voided. */
  tokensVoidThrough: number | null;
  /** The clock's Unix second of the last void (bericht_token_void.voided_at); null: never. */
  tokensVoidedAt: number | null;
  /** Whether the token named to getById was ended by a logout on its device (bericht_token_revoked). */
  tokenRevoked?: boolean;
}

export interface UserRepository {
  findForLogin(login: string): Promise<UserRecord | undefined>;
  /** @param tokenHash the SHA-256 of the token being checked: `tokenRevoked` says whether a logout ended it. */
  getById(id: number, tokenHash?: string): Promise<UserRecord | undefined>;
  /** The report rights held directly or through a group, in the served entity. */
  listRights(userId: number): Promise<Right[]>;
  /** The highest bcrypt cost among the users' hashes, or undefined when none is bcrypt. */
  maxBcryptCost(): Promise<number | undefined>;
}

const OPTIONAL_COLUMNS = ['datestartvalidity', 'dateendvalidity', 'flagdelsessionsbefore', 'email', 'pass'] as const;

export function createUserRepository(db: Db, options: { entity: number; userColumns: ReadonlySet<string> }): UserRepository {
  const { entity, userColumns } = options;
  const has = (c: (typeof OPTIONAL_COLUMNS)[number]) => userColumns.has(c);

  const base = () =>
    db
      .selectFrom('user')
      .select(['rowid', 'entity', 'login', 'pass_crypted', 'admin', 'statut', 'lastname', 'firstname', 'fk_soc'])
      .select((eb) => [
        has('pass') ? eb.ref('pass').as('pass') : sql<null>`null`.as('pass'),
        has('email') ? eb.ref('email').as('email') : sql<null>`null`.as('email'),
        has('datestartvalidity') ? eb.ref('datestartvalidity').as('datestartvalidity') : sql<null>`null`.as('datestartvalidity'),
        has('dateendvalidity') ? eb.ref('dateendvalidity').as('dateendvalidity') : sql<null>`null`.as('dateendvalidity'),
        has('flagdelsessionsbefore')
          ? eb.ref('flagdelsessionsbefore').as('flagdelsessionsbefore')
          : sql<null>`null`.as('flagdelsessionsbefore'),
        eb
          .selectFrom('bericht_token_void')
          .select('void_through')
          .whereRef('bericht_token_void.fk_user', '=', 'user.rowid')
          .as('void_through'),
        eb.selectFrom('bericht_token_void').select('voided_at').whereRef('bericht_token_void.fk_user', '=', 'user.rowid').as('voided_at'),
      ])
      .where('entity', 'in', [0, entity]);

  type Row = Awaited<ReturnType<ReturnType<typeof base>['executeTakeFirst']>>;
  const toRecord = (row: NonNullable<Row>): UserRecord => ({
    id: row.rowid,
    entity: row.entity,
    login: row.login,
    passCrypted: row.pass_crypted,
    passClear: row.pass,
    admin: row.admin === 1,
    active: row.statut === 1,
    lastname: row.lastname,
    firstname: row.firstname,
    email: row.email,
    fkSoc: row.fk_soc === null ? null : row.fk_soc,
    validFrom: row.datestartvalidity,
    validUntil: row.dateendvalidity,
    sessionsValidAfter: row.flagdelsessionsbefore,
    tokensVoidThrough: row.void_through === null || row.void_through === undefined ? null : row.void_through,
    tokensVoidedAt: row.voided_at === null || row.voided_at === undefined || row.voided_at === 0 ? null : row.voided_at,
  });

  return {
    async findForLogin(login) {
      // As Dolibarr: the entity's own user before a superadmin of entity 0.
      const row = await base().where('login', '=', login).orderBy('entity', 'desc').limit(1).executeTakeFirst();
      if (row) return toRecord(row);
      if (!login.includes('@') || !has('email')) return undefined;
      // Dolibarr also accepts the e-mail address; only when it names exactly one user.
      const rows = await base().where('email', '=', login).limit(2).execute();
      return rows.length === 1 ? toRecord(rows[0]!) : undefined;
    },

    async getById(id, tokenHash) {
      if (tokenHash === undefined) {
        const row = await base().where('rowid', '=', id).executeTakeFirst();
        return row ? toRecord(row) : undefined;
      }
      // One query: the user and whether this token was ended.
      const row = await base()
        .select((eb) =>
          eb
            .selectFrom('bericht_token_revoked')
            .select('bericht_token_revoked.fk_user')
            .where('bericht_token_revoked.token_hash', '=', tokenHash)
            .limit(1)
            .as('revoked_by'),
        )
        .where('rowid', '=', id)
        .executeTakeFirst();
      return row ? { ...toRecord(row), tokenRevoked: row.revoked_by !== null && row.revoked_by !== undefined } : undefined;
    },

    async maxBcryptCost() {
      // '$2y$10$…': the cost is characters 5 and 6.
      const rows = await db
        .selectFrom('user')
        .select(sql<string>`substr(pass_crypted, 5, 2)`.as('cost'))
        .distinct()
        .where('pass_crypted', 'like', '$2_$%')
        .execute();
      const costs = rows.map((r) => Number(r.cost)).filter((c) => Number.isInteger(c) && c >= 4 && c <= 31);
      return costs.length > 0 ? Math.max(...costs) : undefined;
    },

    async listRights(userId) {
      const direct = db.selectFrom('user_rights').select('fk_id').where('fk_user', '=', userId).where('entity', '=', entity);
      const viaGroups = db
        .selectFrom('usergroup_rights as gr')
        .innerJoin('usergroup_user as gu', 'gu.fk_usergroup', 'gr.fk_usergroup')
        .select('gr.fk_id')
        .where('gu.fk_user', '=', userId)
        .where('gu.entity', 'in', [0, entity])
        .where('gr.entity', '=', entity);
      const rows = await db
        .selectFrom('rights_def')
        .select('perms')
        .where('module', '=', RIGHTS_MODULE)
        .where('entity', '=', entity)
        .where((eb) => eb.or([eb('subperms', 'is', null), eb('subperms', '=', '')]))
        .where((eb) => eb.or([eb('id', 'in', direct), eb('id', 'in', viaGroups)]))
        .execute();
      const rights = new Set<Right>();
      for (const row of rows) {
        const right = rightFromPerms(row.perms);
        if (right) rights.add(right);
      }
      return [...rights];
    },
  };
}
