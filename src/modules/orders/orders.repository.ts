/**
 * Orders (llx_commande) with their third party and reports; Kysely only. Who may see what is the
 * caller's `visible` condition (element-access.ts), written against the alias `c`.
 */
import type { Expression, SqlBool } from 'kysely';
import type { DbHandle } from '../../db/database.js';
import { createCompiledCache } from '../../db/compiled-queries.js';
import { anyContains, descNullsLast } from '../../db/dialect.js';
import type { ListTotals } from '../../db/list-total.js';
import type { ElementType } from '../../dolibarr/documents.js';
import type { Caller, ElementAccess } from '../access/element-access.js';

/** The alias of llx_commande in every query here; `visible` conditions must use it. */
export const ORDER_ALIAS = 'c';

/** At most this many reports in an order's detail. @default 500 */
export const MAX_ORDER_REPORTS = 500;

export interface OrderListOptions {
  visible: Expression<SqlBool>;
  /** Search text, already trimmed and capped; matched as a literal substring. */
  q?: string;
  /** Only orders with one of these fk_statut values (sorted, each once); undefined: every status. */
  status?: readonly number[];
  limit: number;
  offset: number;
}

export function createOrderRepository(
  { db, dialect }: Pick<DbHandle, 'db' | 'dialect'>,
  deps: { access: ElementAccess; totals: ListTotals },
) {
  const { access, totals } = deps;

  function base(visible: Expression<SqlBool>, q?: string, status?: readonly number[]) {
    let query = db
      .selectFrom('commande as c')
      .leftJoin('societe as s', 's.rowid', 'c.fk_soc')
      .where(() => visible);
    if (q) query = query.where(() => anyContains(['c.ref', 'c.ref_client', 's.nom'], q));
    if (status) query = query.where('c.fk_statut', 'in', status);
    return query;
  }

  const orderFields = [
    'c.rowid',
    'c.ref',
    'c.ref_client',
    'c.fk_statut',
    'c.fk_soc',
    'c.date_commande',
    'c.date_livraison',
    'c.date_creation',
    'c.total_ttc',
  ] as const;

  /** One page of the list (exported for the benchmark's floor, which serves the same query). */
  function listQuery(options: OrderListOptions) {
    return (
      base(options.visible, options.q, options.status)
        .select([...orderFields, 's.nom', 's.client'])
        // Newest first, orders without a date last, in a form an index on the date serves.
        .orderBy(descNullsLast(dialect, 'c.date_commande'))
        .orderBy('c.rowid', 'desc')
        .limit(options.limit)
        .offset(options.offset)
    );
  }

  function countBase(visible: Expression<SqlBool>, status?: readonly number[]) {
    const query = db.selectFrom('commande as c').where(() => visible);
    return status ? query.where('c.fk_statut', 'in', status) : query;
  }

  function compileList(user: Caller, options: Omit<OrderListOptions, 'visible'>) {
    const visible = access.visible('commande', user, ORDER_ALIAS);
    return {
      rows: listQuery({ visible, ...options }).compile(),
      // The customer is joined for the count only when the search needs its name.
      count: (options.q ? base(visible, options.q, options.status) : countBase(visible, options.status))
        .select((eb) => eb.fn.countAll().as('n'))
        .compile(),
    };
  }
  /** The list's queries by caller and page: what the caller sees and the page determine them. */
  const compiledLists = createCompiledCache<ReturnType<typeof compileList>>();

  return {
    listQuery,

    /** The page of orders `user` sees, with the total; `version` as ListTotals.page takes it. */
    async list(user: Caller, options: Omit<OrderListOptions, 'visible'>, version?: string) {
      // The statuses are part of the query (and so of the key) as the caller listed them, sorted and
      // each once. The offset is not: it is the page query's last value, put in for each page, so
      // a list paged through keeps one compiled query (its tree and SQL), not one per page.
      const key = JSON.stringify([user.id, user.admin, user.fkSoc, options.limit, options.q ?? null, options.status ?? null]);
      const compiled = compiledLists(key, () => {
        const made = compileList(user, { ...options, offset: 0 });
        const values = made.rows.parameters;
        if (values.at(-1) !== 0 || values.at(-2) !== options.limit)
          throw new Error("the order list's offset is not its query's last value");
        return made;
      });
      const { parameters } = compiled.rows;
      const rows = options.offset === 0 ? compiled.rows : { ...compiled.rows, parameters: [...parameters.slice(0, -1), options.offset] };
      // The rows may be kept and shared between answers (list-total.ts): they are read, never changed.
      return totals.page(async (on) => (await on.executeQuery(rows)).rows, compiled.count, {
        limit: options.limit,
        offset: options.offset,
        version,
        query: rows,
      });
    },

    getById(id: number, visible: Expression<SqlBool>) {
      return base(visible)
        .select([
          ...orderFields,
          'c.note_public',
          's.rowid as soc_id',
          's.nom',
          's.name_alias',
          's.client',
          's.code_client',
          's.address',
          's.zip',
          's.town',
          's.phone',
          's.email',
        ])
        .where('c.rowid', '=', id)
        .executeTakeFirst();
    },

    /** The order's reports (not templates) of the entity, newest first, with their page counts. */
    listReports(orderId: number, entity: number) {
      return reportsOf({ db, dialect }, 'commande', orderId, entity);
    },
  };
}

/** The reports (not templates) of the entity on the object `type` `id`, newest first, with their page counts; at most MAX_ORDER_REPORTS. */
export function reportsOf({ db, dialect }: Pick<DbHandle, 'db' | 'dialect'>, type: ElementType, id: number, entity: number) {
  return db
    .selectFrom('bericht as b')
    .select((eb) => [
      'b.rowid',
      'b.ref',
      'b.title',
      'b.status',
      'b.version',
      'b.datec',
      eb.selectFrom('bericht_page as bp').select(eb.fn.countAll().as('n')).whereRef('bp.fk_bericht', '=', 'b.rowid').as('page_count'),
    ])
    .where('b.element_type', '=', type)
    .where('b.fk_element', '=', id)
    .where('b.is_template', '=', 0)
    .where('b.entity', '=', entity)
    .orderBy(descNullsLast(dialect, 'b.datec'))
    .orderBy('b.rowid', 'desc')
    .limit(MAX_ORDER_REPORTS)
    .execute();
}

export type OrderRepository = ReturnType<typeof createOrderRepository>;
