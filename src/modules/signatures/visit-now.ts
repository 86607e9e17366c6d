/**
 * The visit as the service holds it now, in the form a sign-off's visit is hashed and compared
 * (signoff.ts): the work description of the report's object (its note_public), the material
 * lines the report shows (reports.repository materialsOf: not those an earlier visit's report
 * settled), and the time on site the report shows (times.service.ts, ofReport: intervals the report
 * or an earlier version took, and for a draft those not yet taken, the open ones included, since a
 * sign-off may show a technician still on site).
 */
import type { Db } from '../../db/database.js';
import { fromDbDateTime } from '../../db/dialect.js';
import type { ElementType } from '../../dolibarr/documents.js';
import { ELEMENT_TYPES } from '../access/element-access.js';
import type { ReportRepository } from '../reports/reports.repository.js';
import { signedVisit, storedText, type SignedVisit } from './signoff.js';

const OBJECT_TYPES = new Set<string>(ELEMENT_TYPES);

export async function visitNow(db: Db, repo: ReportRepository, entity: number, reportId: number): Promise<SignedVisit> {
  const report = await db
    .selectFrom('bericht')
    .select(['element_type', 'fk_element', 'status'])
    .where('rowid', '=', reportId)
    .executeTakeFirst();
  const type = report?.element_type ?? null;
  const id = report?.fk_element ?? null;
  if (!report || type === null || id === null || !OBJECT_TYPES.has(type)) return { work: null, times: [], materials: [] };
  const lineage = await repo.lineage(db, reportId);
  const [parent, materials, times] = await Promise.all([
    repo.parentWithCustomer(db, type as ElementType, id),
    repo.materialsOf(
      db,
      entity,
      { element_type: type, fk_element: Number(id), status: report.status },
      await repo.materialSource(db, entity, report, lineage),
    ),
    db
      .selectFrom('bericht_time')
      .select(['arrival', 'departure'])
      .where('entity', '=', entity)
      .where('element_type', '=', type)
      .where('fk_element', '=', id)
      .where((eb) => eb.or([eb('fk_bericht', 'in', lineage), ...(report.status === 0 ? [eb('fk_bericht', 'is', null)] : [])]))
      .execute(),
  ]);
  return signedVisit({
    work: storedText(parent?.note_public),
    times: times.map((t) => ({ arrival: fromDbDateTime(t.arrival) ?? 0, departure: fromDbDateTime(t.departure) })),
    materials: materials.map((m) => ({
      label: storedText(m.label) ?? '',
      qty: Number(m.qty),
      unit: storedText(m.unit),
      note: storedText(m.note),
    })),
  });
}
