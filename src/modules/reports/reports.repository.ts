/**
 * The reports' rows (`bericht`, `bericht_page`): only Kysely, no HTTP. Every function takes the
 * database or a transaction, so a service can group writes. Visibility comes in as a condition
 * from ElementAccess; "not visible" and "missing" are both `undefined`.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Dialect } from '../../config.js';
import { anyContains, descNullsLast, forUpdate, insertId, toDbDateTime } from '../../db/dialect.js';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { BerichtPageTable, BerichtSignatureTable, BerichtTable } from '../../db/tables.js';
import type { ListTotals } from '../../db/list-total.js';
import type { ElementType } from '../../dolibarr/documents.js';
import { ELEMENT_TYPES } from '../access/element-access.js';

export type ReportRow = Selectable<BerichtTable> & { parent_ref: string | null; page_count: number | string | bigint | null };
export type PageRow = Selectable<BerichtPageTable>;
/** What a signature page's answer shows of its `bericht_signature` row. */
export type SignatureFactsRow = Pick<
  Selectable<BerichtSignatureTable>,
  'fk_page' | 'signer_name' | 'datec' | 'signed_at_device' | 'signed_at_device_zone' | 'device_time_plausible' | 'metadata_path'
>;
export type NewReportRow = Insertable<BerichtTable>;
export type NewPageRow = Insertable<BerichtPageTable>;
export type ReportRowUpdate = Updateable<BerichtTable>;
export type PageRowUpdate = Updateable<BerichtPageTable>;

/** Alias of the report table in every query here; visibility conditions are built for it. */
export const REPORT_ALIAS = 'b';

export interface ReportFilter {
  visible: Expression<SqlBool>;
  templates: boolean;
  q?: string;
  elementType?: string;
  fkElement?: number;
  status?: number;
}

/** The date of each kind of parent on the cover sheet: ordered, invoiced, proposed, the intervention's planned start. */
const PARENT_DATE_COLUMN: Record<ElementType, string> = {
  commande: 'o.date_commande',
  facture: 'o.datef',
  propal: 'o.datep',
  fichinter: 'o.dateo',
};

export function createReportRepository(dialect: Dialect) {
  /** Reports joined to their parent object, whichever kind it is. */
  function withParents(db: Db) {
    return db
      .selectFrom('bericht as b')
      .leftJoin('commande as pc', (j) => j.onRef('pc.rowid', '=', 'b.fk_element').on('b.element_type', '=', 'commande'))
      .leftJoin('facture as pf', (j) => j.onRef('pf.rowid', '=', 'b.fk_element').on('b.element_type', '=', 'facture'))
      .leftJoin('propal as pp', (j) => j.onRef('pp.rowid', '=', 'b.fk_element').on('b.element_type', '=', 'propal'))
      .leftJoin('fichinter as pi', (j) => j.onRef('pi.rowid', '=', 'b.fk_element').on('b.element_type', '=', 'fichinter'));
  }

  /** The report with its parent's ref and its page count. */
  function selectReports(db: Db) {
    return withParents(db)
      .selectAll('b')
      .select((eb) => [
        eb.fn.coalesce('pc.ref', 'pf.ref', 'pp.ref', 'pi.ref').as('parent_ref'),
        eb.selectFrom('bericht_page as bp').select(eb.fn.countAll().as('n')).whereRef('bp.fk_bericht', '=', 'b.rowid').as('page_count'),
      ]);
  }

  /** The report's parent (of `type`) has a ref that contains `q`. */
  function parentRefContains(type: ElementType, q: string) {
    const p = `q_${type}`;
    return sql<SqlBool>`(b.element_type = ${type} and exists (select 1 from ${sql.table(type)} as ${sql.raw(p)} where ${sql.ref(`${p}.rowid`)} = b.fk_element and ${anyContains([`${p}.ref`], q)}))`;
  }

  /**
   * The reports of a list, without joining their parents: the page is read in the order of
   * idx_bericht_newest (entity, is_template, datec, rowid) and only the search looks at parents.
   */
  function filtered(db: Db, filter: ReportFilter) {
    let query = db
      .selectFrom('bericht as b')
      .where(() => filter.visible)
      .where('b.is_template', '=', filter.templates ? 1 : 0);
    const q = filter.q;
    if (q)
      query = query.where((eb) =>
        eb.or([anyContains(['b.ref', 'b.title', 'b.template_label'], q), ...ELEMENT_TYPES.map((type) => parentRefContains(type, q))]),
      );
    if (filter.elementType !== undefined) query = query.where('b.element_type', '=', filter.elementType);
    if (filter.fkElement !== undefined) query = query.where('b.fk_element', '=', filter.fkElement);
    if (filter.status !== undefined) query = filter.status === 0 ? query.where('b.status', '=', 0) : query.where('b.status', '<>', 0);
    return query;
  }

  return {
    /** A page of reports (or templates) with the total; `totals` counts as little as it can (list-total.ts). */
    async list(
      db: Db,
      totals: ListTotals,
      filter: ReportFilter,
      page: { limit: number; offset: number },
    ): Promise<{ rows: ReportRow[]; total: number }> {
      const pageIds = filtered(db, filter)
        .select('b.rowid')
        .orderBy(descNullsLast(dialect, 'b.datec'))
        .orderBy('b.rowid', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .compile();
      const { rows: ids, total } = await totals.page(
        async (on) => (await on.executeQuery(pageIds)).rows,
        filtered(db, filter)
          .select((eb) => eb.fn.countAll().as('n'))
          .compile(),
        page,
      );
      if (ids.length === 0) return { rows: [], total };
      const rows = await selectReports(db)
        .where(
          'b.rowid',
          'in',
          ids.map((r) => r.rowid),
        )
        .execute();
      const byId = new Map(rows.map((r) => [r.rowid, r]));
      return { rows: ids.map((r) => byId.get(r.rowid)!).filter(Boolean), total };
    },

    getById(db: Db, id: number, visible: Expression<SqlBool>): Promise<ReportRow | undefined> {
      return selectReports(db)
        .where('b.rowid', '=', id)
        .where(() => visible)
        .executeTakeFirst();
    },

    /** The report row locked for the rest of the transaction (PostgreSQL, MariaDB; SQLite's write lock is whole). */
    async lockById(db: Db, id: number): Promise<Selectable<BerichtTable> | undefined> {
      return forUpdate(dialect, db.selectFrom('bericht').selectAll().where('rowid', '=', id)).executeTakeFirst();
    },

    pages(db: Db, reportId: number): Promise<PageRow[]> {
      return db.selectFrom('bericht_page').selectAll().where('fk_bericht', '=', reportId).orderBy('page_order').orderBy('rowid').execute();
    },

    /** The signature records of the pages `pageIds` (one query, whatever their number), by page id. */
    async signatureFacts(db: Db, pageIds: number[]): Promise<Map<number, SignatureFactsRow>> {
      if (pageIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('bericht_signature')
        .select(['fk_page', 'signer_name', 'datec', 'signed_at_device', 'signed_at_device_zone', 'device_time_plausible', 'metadata_path'])
        .where('fk_page', 'in', pageIds)
        .execute();
      return new Map(rows.map((r) => [r.fk_page, r]));
    },

    /** Dolibarr users' names (first and last name, else the login) by id, for the ids given that exist. */
    async userNames(db: Db, ids: number[]): Promise<Map<number, string>> {
      const wanted = [...new Set(ids)];
      if (wanted.length === 0) return new Map();
      const rows = await db.selectFrom('user').select(['rowid', 'login', 'firstname', 'lastname']).where('rowid', 'in', wanted).execute();
      return new Map(
        rows.map((r) => [
          r.rowid,
          [r.firstname, r.lastname]
            .map((s) => (s ?? '').trim())
            .filter(Boolean)
            .join(' ') || r.login,
        ]),
      );
    },

    getPage(db: Db, pageId: number): Promise<PageRow | undefined> {
      return db.selectFrom('bericht_page').selectAll().where('rowid', '=', pageId).executeTakeFirst();
    },

    /** Of `ids`, the reports `visible` admits. */
    async visibleIds(db: Db, ids: number[], visible: Expression<SqlBool>): Promise<number[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('bericht as b')
        .select('b.rowid')
        .where('b.rowid', 'in', ids)
        .where(() => visible)
        .execute();
      return rows.map((r) => r.rowid);
    },

    /** Pages of reports other than `reportId` that show a file under `dirPrefix` (`bericht/<name>/`). */
    async foreignPagesIn(db: Db, reportId: number, dirPrefix: string): Promise<number> {
      const pattern = `${dirPrefix.replace(/[!%_]/g, (c) => `!${c}`)}%`;
      const row = await db
        .selectFrom('bericht_page')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('fk_bericht', '<>', reportId)
        .where(sql<SqlBool>`(source_path like ${pattern} escape '!' or source_path_2 like ${pattern} escape '!')`)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** The highest number of refs `<prefix>NNNN` of the entity (0 when none); longer numbers sort after shorter ones. */
    async maxRefNumber(db: Db, entity: number, prefix: string): Promise<number> {
      const rows = await db
        .selectFrom('bericht')
        .select('ref')
        .where('entity', '=', entity)
        .where('ref', 'like', `${prefix}%`)
        .orderBy(sql`length(ref)`, 'desc')
        .orderBy('ref', 'desc')
        .limit(20)
        .execute();
      // The highest, not the first: a longer ref may only have more leading zeros (BR2606-00042).
      let max = 0;
      for (const { ref } of rows) {
        const rest = ref.slice(prefix.length);
        if (/^\d+$/.test(rest)) max = Math.max(max, Number(rest));
      }
      return max;
    },

    insertReport(db: Db, row: NewReportRow): Promise<number> {
      return insertId(dialect, db.insertInto('bericht').values(row));
    },

    async updateReport(db: Db, id: number, set: ReportRowUpdate, where: { status?: number } = {}): Promise<number> {
      let query = db
        .updateTable('bericht')
        .set({ ...set, tms: toDbDateTime() })
        .where('rowid', '=', id);
      if (where.status !== undefined) query = query.where('status', '=', where.status);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async deleteReport(db: Db, id: number): Promise<void> {
      await db.deleteFrom('bericht_page').where('fk_bericht', '=', id).execute();
      await db.deleteFrom('bericht').where('rowid', '=', id).execute();
    },

    /** Versions that pointed at `id` now point at its parent, so the chain stays whole. */
    async relinkChildren(db: Db, id: number, parent: number | null): Promise<void> {
      await db.updateTable('bericht').set({ fk_bericht_parent: parent }).where('fk_bericht_parent', '=', id).execute();
    },

    insertPage(db: Db, row: NewPageRow): Promise<number> {
      return insertId(dialect, db.insertInto('bericht_page').values(row));
    },

    async updatePage(db: Db, id: number, set: PageRowUpdate): Promise<void> {
      await db
        .updateTable('bericht_page')
        .set({ ...set, tms: toDbDateTime() })
        .where('rowid', '=', id)
        .execute();
    },

    async deletePage(db: Db, id: number): Promise<void> {
      await db.deleteFrom('bericht_page').where('rowid', '=', id).execute();
    },

    async setPageOrder(db: Db, id: number, pageOrder: number): Promise<void> {
      await db.updateTable('bericht_page').set({ page_order: pageOrder }).where('rowid', '=', id).execute();
    },

    /** How many pages (of any report) show `relPath`. */
    async countPagesShowing(db: Db, relPath: string): Promise<number> {
      const row = await db
        .selectFrom('bericht_page')
        .select((eb) => eb.fn.countAll().as('n'))
        .where((eb) => eb.or([eb('source_path', '=', relPath), eb('source_path_2', '=', relPath)]))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** The parent object (order, invoice, proposal or intervention) with its third party, for the cover sheet. */
    parentWithCustomer(db: Db, type: ElementType, id: number) {
      const dateColumn = PARENT_DATE_COLUMN[type];
      return (
        db
          .selectFrom(`${type} as o` as 'commande as o')
          .leftJoin('societe as s', 's.rowid', 'o.fk_soc')
          .select(['o.ref', 'o.ref_client', 'o.fk_soc', sql<string | null>`${sql.ref(dateColumn)}`.as('date')])
          // The work to be done: an intervention's description (its note_public when it has none), an order's note_public.
          .select(
            type === 'fichinter'
              ? sql<string | null>`coalesce(nullif(o.description, ''), o.note_public)`.as('note_public')
              : sql<string | null>`o.note_public`.as('note_public'),
          )
          .select(['s.nom', 's.name_alias', 's.address', 's.zip', 's.town', 's.email', 's.phone', 's.code_client', 's.default_lang'])
          .where('o.rowid', '=', id)
          .executeTakeFirst()
      );
    },

    /**
     * Whose settled material lines a report lists (materialsOf): `reports`, its own and those of the
     * versions it descends from (`lineage`, lineage()); for a report finalized before migration 0026
     * (`all_material`) or a new version of one, which listed every line of its object, also the
     * reports of its object from before 0026 made before it (its earlier visits'), and (`unknown`)
     * the lines settled before a line knew its report (migration 0025).
     */
    async materialSource(
      db: Db,
      entity: number,
      report: { element_type: string | null; fk_element: number | null },
      lineage: number[],
    ): Promise<{ reports: number[]; unknown: boolean }> {
      if (lineage.length === 0) return { reports: [], unknown: false };
      const old = await db.selectFrom('bericht').select('rowid').where('rowid', 'in', lineage).where('all_material', '=', 1).execute();
      if (old.length === 0 || report.element_type === null || report.fk_element === null) return { reports: lineage, unknown: false };
      const before = await db
        .selectFrom('bericht')
        .select('rowid')
        .where('entity', '=', entity)
        .where('element_type', '=', report.element_type)
        .where('fk_element', '=', report.fk_element)
        .where('all_material', '=', 1)
        .where('rowid', '<=', Math.max(...old.map((r) => Number(r.rowid))))
        .execute();
      return { reports: [...new Set([...lineage, ...before.map((r) => Number(r.rowid))])], unknown: true };
    },

    /**
     * The material lines a report shows, oldest first: of its object, those settled by a report of
     * `source` (materialSource), and for a draft those no report settled yet. A line a later visit's
     * report settled (and billed) is not this visit's, nor (but for reports from before migration
     * 0026) one an earlier visit's report settled.
     */
    materialsOf(
      db: Db,
      entity: number,
      report: { element_type: string; fk_element: number; status: number },
      source: { reports: number[]; unknown: boolean },
    ) {
      return db
        .selectFrom('bericht_material')
        .select(['rowid', 'label', 'qty', 'unit', 'note', 'fk_stock_mouvement'])
        .where('entity', '=', entity)
        .where('element_type', '=', report.element_type)
        .where('fk_element', '=', report.fk_element)
        .where((eb) =>
          eb.or([
            ...(source.reports.length > 0 ? [eb('fk_bericht', 'in', source.reports)] : []),
            ...(source.unknown ? [eb.and([eb('fk_bericht', 'is', null), eb('fk_stock_mouvement', 'is not', null)])] : []),
            ...(report.status === 0 ? [eb('fk_stock_mouvement', 'is', null)] : []),
          ]),
        )
        .orderBy('rowid')
        .execute();
    },

    /** The report's id and those of the versions it descends from (its parent, theirs, …), nearest first. */
    async lineage(db: Db, id: number, max = 500): Promise<number[]> {
      const ids = [id];
      let parent =
        (await db.selectFrom('bericht').select('fk_bericht_parent').where('rowid', '=', id).executeTakeFirst())?.fk_bericht_parent ?? null;
      while (parent !== null && ids.length < max && !ids.includes(Number(parent))) {
        ids.push(Number(parent));
        parent =
          (await db.selectFrom('bericht').select('fk_bericht_parent').where('rowid', '=', Number(parent)).executeTakeFirst())
            ?.fk_bericht_parent ?? null;
      }
      return ids;
    },

    /** id, parent, ref, version and status of the reports linked to `ids` as parent or child. */
    async linked(db: Db, ids: number[]) {
      return db
        .selectFrom('bericht')
        .select(['rowid', 'ref', 'version', 'status', 'fk_bericht_parent', 'datec'])
        .where((eb) => eb.or([eb('rowid', 'in', ids), eb('fk_bericht_parent', 'in', ids)]))
        .execute();
    },
  };
}

export type ReportRepository = ReturnType<typeof createReportRepository>;
