/**
 * Who sees which object (docs/architecture.md, Visibility):
 * - an order, invoice, proposal or intervention: a user with Dolibarr's admin flag, or one named in any of its
 *   `fk_user_*` columns (author, validator, closer, …; the columns present on this database), or
 *   one the office gave it to the Dolibarr way (`assigned`): an active internal contact of it
 *   (`element_contact` statut 4 of an internal `c_type_contact` of the object's type whose code is
 *   one of ASSIGNED_CONTACT_TYPES), or the owner (`fk_user_action`) or a user attending
 *   (`actioncomm_resources`) of an agenda event linked to it (`fk_element`, `elementtype` as
 *   Dolibarr's ActionComm writes it) that is not an automatic one (`c_actioncomm.type`
 *   'systemauto'); an external user (user.fk_soc set) only objects of its own third party;
 * - a report: its creator, or whoever sees its parent object; a template without a parent object:
 *   every internal user, since templates are shared (changing one needs the template right, checked
 *   by the reports module); external users (user.fk_soc set) do not see templates;
 * - a customer (client 1, 2 or 3): admin, or whoever sees one of its orders, invoices, proposals or
 *   interventions.
 * Everything outside the served entity is invisible. What is invisible is "not found" (404).
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/tables.js';
import { agendaNames } from '../../dolibarr/agenda.js';
import type { ElementType } from '../../dolibarr/documents.js';
import type { AuthUser } from '../auth/auth.service.js';

export const ELEMENT_TYPES: readonly ElementType[] = ['commande', 'facture', 'propal', 'fichinter'];

/** The 404 of an object of `type` that does not exist or that the caller may not see. */
export function notFoundCode(type: ElementType): 'ORDER_NOT_FOUND' | 'INTERVENTION_NOT_FOUND' | 'OBJECT_NOT_FOUND' {
  return type === 'commande' ? 'ORDER_NOT_FOUND' : type === 'fichinter' ? 'INTERVENTION_NOT_FOUND' : 'OBJECT_NOT_FOUND';
}

/** How the office gives a user an object besides the `fk_user_*` columns. */
export interface AssignedWork {
  /** Internal contact type codes that count; none: contacts give nothing. */
  contactCodes: readonly string[];
  /** Agenda events linked to the object give it to their owner and attendees. */
  agenda: boolean;
}
export const CUSTOMER_CLIENT_VALUES = [1, 2, 3] as const;

/** A third party's `client` value makes it a customer (1 customer, 2 prospect, 3 both). */
export function isCustomer(client: number | string | null | undefined): boolean {
  return client !== null && client !== undefined && (CUSTOMER_CLIENT_VALUES as readonly number[]).includes(Number(client));
}

/**
 * The `fk_user_*` columns each object table has on this database (`tables` from Kysely's
 * introspection): who is "named" on an order differs between Dolibarr versions.
 */
export function namedUserColumns(
  tables: readonly { name: string; columns: readonly { name: string }[] }[],
  prefix: string,
): Record<ElementType, string[]> {
  const columnsOf = (type: ElementType) => tables.find((t) => t.name === `${prefix}${type}`)?.columns.map((c) => c.name) ?? [];
  return Object.fromEntries(ELEMENT_TYPES.map((type) => [type, columnsOf(type).filter((c) => c.startsWith('fk_user_'))])) as Record<
    ElementType,
    string[]
  >;
}

export interface ElementRow {
  id: number;
  ref: string;
  fk_soc: number;
}

export type Caller = Pick<AuthUser, 'id' | 'admin' | 'fkSoc'>;

export interface ElementAccess {
  /** A WHERE condition: rows of `type` (under `alias`) that `user` may see. */
  visible(type: ElementType, user: Caller, alias?: string): Expression<SqlBool>;
  /** A WHERE condition: reports (under `alias`) that `user` may see. */
  reportVisible(user: Caller, alias?: string): Expression<SqlBool>;
  /** A WHERE condition: third parties (llx_societe under `alias`) that `user` may see as customers. */
  customerVisible(user: Caller, alias?: string): Expression<SqlBool>;
  getById(type: ElementType, id: number, user: Caller): Promise<ElementRow | undefined>;
  getByRef(type: ElementType, ref: string, user: Caller): Promise<ElementRow | undefined>;
}

/**
 * @param userColumns the `fk_user_*` columns each table has on this database (from introspection).
 */
export function createElementAccess(
  db: Db,
  options: { entity: number; userColumns: Readonly<Record<ElementType, readonly string[]>>; assigned?: AssignedWork },
): ElementAccess {
  const { entity, userColumns } = options;
  const assigned = options.assigned ?? { contactCodes: [], agenda: false };

  /**
   * The ids of the objects of `type` given to `user` by contact or agenda: selects that do not
   * depend on the row, joined by `union` into one set that each database reads once per query and
   * looks each row up in (a condition per row over contacts and events would read them again for
   * every order). Each select reads one index: a user's contacts, a user's events, a user's
   * resource rows.
   */
  function assignedIds(type: ElementType, user: Caller) {
    const parts = [];
    if (assigned.contactCodes.length > 0) {
      parts.push(sql`select ec.element_id as id from ${sql.table('element_contact')} as ec
        inner join ${sql.table('c_type_contact')} as tc on tc.rowid = ec.fk_c_type_contact
        where ec.fk_socpeople = ${user.id} and ec.statut = 4 and tc.element = ${type} and tc.source = 'internal' and tc.active = 1
        and tc.code in (${sql.join(assigned.contactCodes)})`);
    }
    if (assigned.agenda) {
      // Owner and attendee apart: one select with an OR between them reads the whole agenda on MariaDB.
      const linked = (ac: string) =>
        sql`${sql.ref(`${ac}.elementtype`)} in (${sql.join(agendaNames(type))}) and ${sql.ref(`${ac}.fk_element`)} is not null and ${sql.ref(`${ac}.entity`)} = ${entity}
        and not exists (select 1 from ${sql.table('c_actioncomm')} as ca where ca.id = ${sql.ref(`${ac}.fk_action`)} and ca.type = 'systemauto')`;
      parts.push(sql`select ao.fk_element as id from ${sql.table('actioncomm')} as ao
        where ao.fk_user_action = ${user.id} and ${linked('ao')}`);
      parts.push(sql`select aa.fk_element as id from ${sql.table('actioncomm_resources')} as ar
        inner join ${sql.table('actioncomm')} as aa on aa.id = ar.fk_actioncomm
        where ar.element_type = 'user' and ar.fk_element = ${user.id} and ${linked('aa')}`);
    }
    return parts;
  }

  function visible(type: ElementType, user: Caller, alias: string = type): Expression<SqlBool> {
    const col = (c: string) => sql.ref(`${alias}.${c}`);
    const parts = [sql<SqlBool>`${col('entity')} = ${entity}`];
    if (user.fkSoc !== null) parts.push(sql<SqlBool>`${col('fk_soc')} = ${user.fkSoc}`);
    if (!user.admin) {
      const columns = userColumns[type];
      const sources = assignedIds(type, user);
      // The named columns stay conditions of the row: a set of them too would make SQLite sort a
      // technician's whole list instead of walking the date index (1.1 ms a first page, not 0.2).
      const given = [
        ...columns.map((c) => sql`${col(c)} = ${user.id}`),
        ...(sources.length > 0
          ? [sql`${col('rowid')} in (select given.id from (${sql.join(sources, sql` union `)}) as given where given.id is not null)`]
          : []),
      ];
      parts.push(sql<SqlBool>`(${given.length > 0 ? sql.join(given, sql` or `) : sql`1 = 0`})`);
    }
    return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
  }

  function reportVisible(user: Caller, alias = 'bericht'): Expression<SqlBool> {
    const col = (c: string) => sql.ref(`${alias}.${c}`);
    const viaParent = ELEMENT_TYPES.map(
      (type) =>
        sql`(${col('element_type')} = ${type} and exists (select 1 from ${sql.table(type)} as p_${sql.raw(type)} where p_${sql.raw(type)}.rowid = ${col('fk_element')} and ${visible(type, user, `p_${type}`)}))`,
    );
    const template = user.fkSoc === null ? sql`(${col('is_template')} = 1 and ${col('fk_element')} is null) or ` : sql``;
    return sql<SqlBool>`(${col('entity')} = ${entity} and (${col('fk_user_creat')} = ${user.id} or ${template}${sql.join(viaParent, sql` or `)}))`;
  }

  function customerVisible(user: Caller, alias = 's'): Expression<SqlBool> {
    const col = (c: string) => sql.ref(`${alias}.${c}`);
    const parts = [
      sql<SqlBool>`${col('entity')} = ${entity}`,
      sql<SqlBool>`${col('client')} in (${sql.join([...CUSTOMER_CLIENT_VALUES])})`,
    ];
    if (user.fkSoc !== null) parts.push(sql<SqlBool>`${col('rowid')} = ${user.fkSoc}`);
    if (!user.admin) {
      // The third parties of the objects the user sees, found once (through the fk_user_* indexes
      // and the assigned set) rather than by looking through every customer's objects.
      const viaObjects = ELEMENT_TYPES.map((type) => {
        const a = `v_${type}`;
        return sql`${col('rowid')} in (select ${sql.ref(`${a}.fk_soc`)} from ${sql.table(type)} as ${sql.raw(a)} where ${visible(type, user, a)})`;
      });
      parts.push(sql<SqlBool>`(${sql.join(viaObjects, sql` or `)})`);
    }
    return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
  }

  async function getOne(type: ElementType, user: Caller, where: (eb: ExpressionBuilder<Database, ElementType>) => Expression<SqlBool>) {
    const row = await db
      .selectFrom(type)
      .select(['rowid', 'ref', 'fk_soc'])
      .where(where)
      .where(() => visible(type, user))
      .executeTakeFirst();
    return row ? { id: row.rowid, ref: row.ref, fk_soc: row.fk_soc } : undefined;
  }

  return {
    visible,
    reportVisible,
    customerVisible,
    getById: (type, id, user) => getOne(type, user, (eb) => eb(`${type}.rowid`, '=', id)),
    getByRef: (type, ref, user) => getOne(type, user, (eb) => eb(`${type}.ref`, '=', ref)),
  };
}
