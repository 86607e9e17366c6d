/**
 * Interventions (Dolibarr's module Interventions, llx_fichinter) as the caller may see them
 * (docs/architecture.md, Visibility): the list, the detail with customer and reports, and the
 * files of its folder (`ficheinter/<ref>/`). One the caller may not see is INTERVENTION_NOT_FOUND,
 * exactly like one that does not exist.
 */
import { REF_EXT_PREFIX } from '../office-records/visit-intervention.js';
import { sql, type Expression, type SqlBool } from 'kysely';
import type { DbHandle } from '../../db/database.js';
import { anyContains, descNullsLast } from '../../db/dialect.js';
import { objectFolder } from '../../dolibarr/documents.js';
import { fromDolibarrDateTime } from '../../dolibarr/time.js';
import { AppError } from '../../errors.js';
import { isCustomer, type Caller, type ElementAccess } from '../access/element-access.js';
import { listOrderPhotos } from '../orders/order-photos.js';
import { reportsOf } from '../orders/orders.repository.js';
import { customerOf, parseStatusList, reportOf, type Page } from '../orders/orders.service.js';
import type { OrderPhoto } from '../orders/orders.schemas.js';
import { INTERVENTION_STATUSES, type InterventionDetail, type InterventionListItem } from './interventions.schemas.js';

const ALIAS = 'fi';

export function createInterventionService(deps: {
  handle: Pick<DbHandle, 'db' | 'dialect'>;
  access: ElementAccess;
  dataRoot: string;
  entity: number;
  timeZone: string;
}) {
  const { handle, access, dataRoot, entity, timeZone } = deps;
  const { db, dialect } = handle;

  function base(visible: Expression<SqlBool>) {
    return db
      .selectFrom('fichinter as fi')
      .leftJoin('societe as s', 's.rowid', 'fi.fk_soc')
      .where(() => visible);
  }
  const fields = [
    'fi.rowid',
    'fi.ref',
    'fi.ref_client',
    'fi.fk_statut',
    'fi.fk_soc',
    'fi.description',
    'fi.dateo',
    'fi.datee',
    'fi.datec',
    'fi.duree',
    'fi.ref_ext',
    's.nom',
    's.client',
  ] as const;

  function fieldsOf(row: {
    rowid: number;
    ref: string;
    ref_client: string | null;
    fk_statut: number;
    description: string | null;
    dateo: unknown;
    datee: unknown;
    datec: unknown;
    duree: number | string | null;
    ref_ext: string | null;
  }) {
    return {
      id: Number(row.rowid),
      ref: row.ref,
      ref_client: row.ref_client ?? null,
      status: Number(row.fk_statut),
      description: row.description ?? null,
      date_start: fromDolibarrDateTime(row.dateo as string | null, timeZone),
      date_end: fromDolibarrDateTime(row.datee as string | null, timeZone),
      date_creation: fromDolibarrDateTime(row.datec as string | null, timeZone),
      duration: Math.max(0, Math.round(Number(row.duree ?? 0))),
      visit_record: row.ref_ext?.startsWith(REF_EXT_PREFIX) ? row.ref_ext.slice(REF_EXT_PREFIX.length) : null,
    };
  }

  return {
    async list(
      user: Caller,
      options: Page & { q?: string; status?: string; visitRecords?: boolean },
    ): Promise<{ items: InterventionListItem[]; total: number }> {
      const q = options.q?.trim() || undefined;
      const statuses = parseStatusList(options.status, INTERVENTION_STATUSES);
      let query = base(access.visible('fichinter', user, ALIAS));
      if (q) query = query.where(() => anyContains(['fi.ref', 'fi.ref_client', 'fi.description', 's.nom'], q));
      if (statuses) query = query.where('fi.fk_statut', 'in', statuses);
      if (options.visitRecords === false)
        query = query.where((eb) => eb.or([eb('fi.ref_ext', 'is', null), eb('fi.ref_ext', 'not like', `${REF_EXT_PREFIX}%`)]));
      const [rows, count] = await Promise.all([
        query
          .select(fields)
          .orderBy(descNullsLast(dialect, 'fi.dateo'))
          .orderBy('fi.rowid', 'desc')
          .limit(options.limit)
          .offset(options.offset)
          .execute(),
        query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
      ]);
      const items = rows.map((row) => ({
        ...fieldsOf(row),
        customer: isCustomer(row.client) ? { id: Number(row.fk_soc), name: row.nom ?? null } : null,
      }));
      return { items, total: Number(count.n) };
    },

    async get(user: Caller, id: number): Promise<InterventionDetail> {
      const row = await base(access.visible('fichinter', user, ALIAS))
        .select(fields)
        .select([
          'fi.note_public',
          's.rowid as soc_id',
          's.name_alias',
          's.code_client',
          's.address',
          's.zip',
          's.town',
          's.phone',
          's.email',
        ])
        .where('fi.rowid', '=', id)
        .executeTakeFirst();
      if (!row) throw new AppError('INTERVENTION_NOT_FOUND');
      return {
        ...fieldsOf(row),
        note_public: row.note_public ?? null,
        customer: customerOf(row),
        reports: (await reportsOf(handle, 'fichinter', id, entity)).map(reportOf),
      };
    },

    async listPhotos(user: Caller, id: number, page: Page): Promise<{ items: OrderPhoto[]; total: number }> {
      const intervention = await access.getById('fichinter', id, user);
      if (!intervention) throw new AppError('INTERVENTION_NOT_FOUND');
      let folder;
      try {
        folder = objectFolder(dataRoot, entity, 'fichinter', intervention.ref);
      } catch {
        return { items: [], total: 0 }; // a ref that names no folder has no files
      }
      return listOrderPhotos(folder.dir, folder.name, page, 'fichinter');
    },
  };
}

export type InterventionService = ReturnType<typeof createInterventionService>;
