/**
 * Customers (llx_societe with client 1, 2 or 3) and what hangs off them, as the caller may see it.
 * Only Kysely; rows or undefined; nothing about HTTP.
 *
 * Who sees a customer (docs/architecture.md, Visibility): a third party of the served entity with client 1, 2
 * or 3; a user with the admin flag sees all of them, anyone else those with at least one order,
 * invoice, proposal or intervention the user sees (ElementAccess.visible). An external user (user.fk_soc) only
 * ever sees its own third party.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { DbHandle } from '../../db/database.js';
import { anyContains, descNullsLast } from '../../db/dialect.js';
import type { ListTotals } from '../../db/list-total.js';
import type { Caller, ElementAccess } from '../access/element-access.js';

/**
 * The parents whose reports count as a customer's reports: the contract's orders and invoices
 * (endpoint 21: "over orders and invoices"), and interventions, the visits the office plans.
 */
export const REPORT_PARENTS = ['commande', 'facture', 'fichinter'] as const;
export type ReportParent = (typeof REPORT_PARENTS)[number];

export interface CustomerListRow {
  rowid: number | string;
  nom: string | null;
  name_alias: string | null;
  code_client: string | null;
  town: string | null;
  zip: string | null;
  email: string | null;
  phone: string | null;
  status: number | string;
  report_count: number | string;
}

export interface CustomerRow {
  rowid: number | string;
  nom: string | null;
  name_alias: string | null;
  code_client: string | null;
  address: string | null;
  zip: string | null;
  town: string | null;
  phone: string | null;
  email: string | null;
  url: string | null;
  tva_intra: string | null;
  status: number | string;
  note_public: string | null;
}

export interface CustomerOrderRow {
  rowid: number | string;
  ref: string;
  ref_client: string | null;
  fk_statut: number | string;
  date_commande: string | Date | null;
}

export interface CustomerInvoiceRow {
  rowid: number | string;
  ref: string;
  ref_client: string | null;
  type: number | string;
  fk_statut: number | string;
  paye: number | string;
  datef: string | Date | null;
  total_ttc: number | string | null;
}

export interface CustomerReportRow {
  rowid: number | string;
  ref: string;
  title: string;
  status: number | string;
  element_type: string;
  parent_ref: string;
  datec: string | Date | null;
}

export interface CustomerRepository {
  list(user: Caller, options: { q?: string; limit: number; offset: number }): Promise<{ rows: CustomerListRow[]; total: number }>;
  getById(id: number, user: Caller): Promise<CustomerRow | undefined>;
  listOrders(customerId: number, user: Caller, limit: number): Promise<CustomerOrderRow[]>;
  listInvoices(customerId: number, user: Caller, limit: number): Promise<CustomerInvoiceRow[]>;
  listReports(customerId: number, user: Caller, limit: number): Promise<CustomerReportRow[]>;
}

const SEARCH_COLUMNS = ['nom', 'name_alias', 'code_client', 'town', 'email'] as const;

export function createCustomerRepository(
  { db, dialect }: Pick<DbHandle, 'db' | 'dialect'>,
  options: { entity: number; access: ElementAccess; totals: ListTotals },
): CustomerRepository {
  const { entity, access, totals } = options;

  const customerVisible = (user: Caller, alias = 's') => access.customerVisible(user, alias);

  /**
   * Reports (not templates) on a parent of `type` that belongs to the customer `customerRef`, that
   * `user` may see: made by the user, or on a parent the user sees (reportVisible, with the parent
   * at hand instead of looked up again). From the customer's objects to their reports.
   */
  function reportCountVia(type: ReportParent, user: Caller, customerRef: string) {
    const p = `rc_${type}`;
    const b = `rb_${type}`;
    return sql<number>`(select count(*) from ${sql.table(type)} as ${sql.raw(p)}
      inner join ${sql.table('bericht')} as ${sql.raw(b)} on ${sql.ref(`${b}.element_type`)} = ${type} and ${sql.ref(`${b}.fk_element`)} = ${sql.ref(`${p}.rowid`)}
      where ${sql.ref(`${p}.fk_soc`)} = ${sql.ref(customerRef)} and ${sql.ref(`${p}.entity`)} = ${entity}
        and ${sql.ref(`${b}.is_template`)} = 0 and ${sql.ref(`${b}.entity`)} = ${entity}
        and (${sql.ref(`${b}.fk_user_creat`)} = ${user.id} or ${access.visible(type, user, p)}))`;
  }

  function searchCondition(q: string, alias = 's'): Expression<SqlBool> {
    return anyContains(
      SEARCH_COLUMNS.map((c) => `${alias}.${c}`),
      q,
    );
  }

  return {
    async list(user, { q, limit, offset }) {
      let base = db.selectFrom('societe as s').where(() => customerVisible(user));
      if (q) base = base.where(() => searchCondition(q));
      // The page is cut first and the reports counted for its customers only: a sort computes
      // every column of every row it sorts.
      const page = base
        .select(['s.rowid', 's.nom', 's.name_alias', 's.code_client', 's.town', 's.zip', 's.email', 's.phone', 's.status'])
        .orderBy(sql`lower(s.nom)`)
        .orderBy('s.rowid')
        .limit(limit)
        .offset(offset);
      const rows = db
        .selectFrom(page.as('s'))
        .selectAll('s')
        .select(
          sql<number>`${sql.join(
            REPORT_PARENTS.map((type) => reportCountVia(type, user, 's.rowid')),
            sql` + `,
          )}`.as('report_count'),
        )
        .orderBy(sql`lower(s.nom)`)
        .orderBy('s.rowid')
        .compile();
      return totals.page(async (on) => (await on.executeQuery(rows)).rows, base.select(sql<number | string>`count(*)`.as('n')).compile(), {
        limit,
        offset,
      });
    },

    getById(id, user) {
      return db
        .selectFrom('societe as s')
        .select([
          's.rowid',
          's.nom',
          's.name_alias',
          's.code_client',
          's.address',
          's.zip',
          's.town',
          's.phone',
          's.email',
          's.url',
          's.tva_intra',
          's.status',
          's.note_public',
        ])
        .where('s.rowid', '=', id)
        .where(() => customerVisible(user))
        .executeTakeFirst();
    },

    listOrders(customerId, user, limit) {
      return db
        .selectFrom('commande as c')
        .select(['c.rowid', 'c.ref', 'c.ref_client', 'c.fk_statut', 'c.date_commande'])
        .where('c.fk_soc', '=', customerId)
        .where(() => access.visible('commande', user, 'c'))
        .orderBy(descNullsLast(dialect, 'c.date_commande'))
        .orderBy('c.rowid', 'desc')
        .limit(limit)
        .execute();
    },

    listInvoices(customerId, user, limit) {
      return db
        .selectFrom('facture as f')
        .select(['f.rowid', 'f.ref', 'f.ref_client', 'f.type', 'f.fk_statut', 'f.paye', 'f.datef', 'f.total_ttc'])
        .where('f.fk_soc', '=', customerId)
        .where(() => access.visible('facture', user, 'f'))
        .orderBy(descNullsLast(dialect, 'f.datef'))
        .orderBy('f.rowid', 'desc')
        .limit(limit)
        .execute();
    },

    async listReports(customerId, user, limit) {
      // A report's parent is one of the customer's orders, invoices or interventions (of the served
      // entity); the left joins are exclusive through element_type, so a report appears at most once.
      const rows = await db
        .selectFrom('bericht as b')
        .leftJoin('commande as o', (join) =>
          join
            .onRef('o.rowid', '=', 'b.fk_element')
            .on('b.element_type', '=', 'commande')
            .on('o.fk_soc', '=', customerId)
            .on('o.entity', '=', entity),
        )
        .leftJoin('facture as f', (join) =>
          join
            .onRef('f.rowid', '=', 'b.fk_element')
            .on('b.element_type', '=', 'facture')
            .on('f.fk_soc', '=', customerId)
            .on('f.entity', '=', entity),
        )
        .leftJoin('fichinter as i', (join) =>
          join
            .onRef('i.rowid', '=', 'b.fk_element')
            .on('b.element_type', '=', 'fichinter')
            .on('i.fk_soc', '=', customerId)
            .on('i.entity', '=', entity),
        )
        .select(['b.rowid', 'b.ref', 'b.title', 'b.status', 'b.datec'])
        .select(sql<string>`coalesce(o.ref, f.ref, i.ref)`.as('parent_ref'))
        .select(sql<string>`b.element_type`.as('element_type'))
        .where('b.entity', '=', entity)
        .where('b.is_template', '=', 0)
        .where((eb) => eb.or([eb('o.rowid', 'is not', null), eb('f.rowid', 'is not', null), eb('i.rowid', 'is not', null)]))
        .where(() => access.reportVisible(user, 'b'))
        .orderBy(descNullsLast(dialect, 'b.datec'))
        .orderBy('b.rowid', 'desc')
        .limit(limit)
        .execute();
      return rows as CustomerReportRow[];
    },
  };
}
