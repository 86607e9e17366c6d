/**
 * The caller's appointments (docs/features.md, *The technician's day*): the events of Dolibarr's
 * agenda he owns (`fk_user_action`) or attends (an `actioncomm_resources` row of type `user`) from
 * a day on, in time order, each with the order, invoice, proposal or intervention it is linked to (when he may
 * see it, elementaccess.ts), what is already done there (its reports), and the customer with the
 * address to drive to. Dolibarr's automatic entries (type `systemauto`) are no appointments.
 * Days begin at midnight where Dolibarr is (TIME_ZONE): its date-time columns are wall times there.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import { elementOfAgendaType } from '../../dolibarr/agenda.js';
import { addDays, fromDolibarrDateTime, toDolibarrDateTime } from '../../dolibarr/time.js';
import { AppError } from '../../errors.js';
import { CUSTOMER_CLIENT_VALUES, ELEMENT_TYPES, type Caller, type ElementAccess } from '../access/element-access.js';
import type { ElementType } from '../../dolibarr/documents.js';
import { MAX_AGENDA_ITEMS, type AgendaItem, type AgendaList } from './agenda.schemas.js';

const DEFAULT_DAYS = 7;

/** A `YYYY-MM-DD` that names a day of the calendar (not 2026-02-30). */
function isDay(day: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && addDays(day, 0) === day && day >= '1970-01-01' && day <= '9999-12-31';
}

export function createAgendaService(deps: { db: Db; access: ElementAccess; entity: number; timeZone: string }) {
  const { db, access, entity, timeZone } = deps;

  /** Events of `user`: owned or attended, as one set each database reads once (see element-access.ts). */
  function mine(user: Caller): Expression<SqlBool> {
    return sql<SqlBool>`ac.id in (select mine.id from (select ao.id as id from ${sql.table('actioncomm')} as ao where ao.fk_user_action = ${user.id}
      union select ar.fk_actioncomm as id from ${sql.table('actioncomm_resources')} as ar where ar.element_type = 'user' and ar.fk_element = ${user.id}) as mine)`;
  }

  async function objectsOf(user: Caller, wanted: Map<ElementType, Set<number>>) {
    const found = new Map<string, NonNullable<AgendaItem['object']> & { fk_soc: number | null }>();
    for (const type of ELEMENT_TYPES) {
      const ids = [...(wanted.get(type) ?? [])];
      if (ids.length === 0) continue;
      const rows = await db
        .selectFrom(`${type} as o` as 'commande as o')
        .select(['o.rowid', 'o.ref', 'o.ref_client', 'o.fk_statut', 'o.fk_soc'])
        .select((eb) => [
          eb
            .selectFrom('bericht as b')
            .select(eb.fn.countAll().as('n'))
            .whereRef('b.fk_element', '=', 'o.rowid')
            .where('b.element_type', '=', type)
            .where('b.is_template', '=', 0)
            .where('b.entity', '=', entity)
            .as('reports'),
          eb
            .selectFrom('bericht as f')
            .select(eb.fn.countAll().as('n'))
            .whereRef('f.fk_element', '=', 'o.rowid')
            .where('f.element_type', '=', type)
            .where('f.is_template', '=', 0)
            .where('f.entity', '=', entity)
            .where('f.status', '<>', 0)
            .as('finals'),
        ])
        .where('o.rowid', 'in', ids)
        .where(() => access.visible(type, user, 'o'))
        .execute();
      for (const row of rows) {
        found.set(`${type}:${row.rowid}`, {
          element_type: type,
          id: Number(row.rowid),
          ref: row.ref,
          ref_client: row.ref_client ?? null,
          status: Number(row.fk_statut),
          report_count: Number(row.reports ?? 0),
          final_report_count: Number(row.finals ?? 0),
          fk_soc: row.fk_soc === null ? null : Number(row.fk_soc),
        });
      }
    }
    return found;
  }

  return {
    async list(user: Caller, query: { from?: string; days?: number }): Promise<AgendaList> {
      const from = query.from ?? toDolibarrDateTime(new Date(), timeZone).slice(0, 10);
      if (!isDay(from)) {
        throw new AppError('VALIDATION_FAILED', { details: [{ field: 'querystring.from', message: 'a day of the calendar, YYYY-MM-DD' }] });
      }
      const days = query.days ?? DEFAULT_DAYS;
      const last = addDays(from, days);
      if (!isDay(last)) {
        throw new AppError('VALIDATION_FAILED', {
          details: [{ field: 'querystring.from', message: 'the days asked must end by 9999-12-31' }],
        });
      }
      const start = `${from} 00:00:00`;
      const end = `${last} 00:00:00`;
      const events = await db
        .selectFrom('actioncomm as ac')
        .select([
          'ac.id',
          'ac.label',
          'ac.code',
          'ac.datep',
          'ac.datep2',
          'ac.fulldayevent',
          'ac.location',
          'ac.percent',
          'ac.fk_soc',
          'ac.fk_element',
          'ac.elementtype',
        ])
        .where('ac.entity', '=', entity)
        .where(() => mine(user))
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('c_actioncomm as ca').select('ca.id').whereRef('ca.id', '=', 'ac.fk_action').where('ca.type', '=', 'systemauto'),
            ),
          ),
        )
        .where('ac.datep', '<', end)
        // An event that began before the first day and lasts into it is one of its appointments
        // (one that ends at its midnight is not).
        .where((eb) => eb.or([eb('ac.datep', '>=', start), eb('ac.datep2', '>', start)]))
        .orderBy('ac.datep')
        .orderBy('ac.id')
        .limit(MAX_AGENDA_ITEMS)
        .execute();

      const wanted = new Map<ElementType, Set<number>>();
      for (const e of events) {
        const type = elementOfAgendaType(e.elementtype, ELEMENT_TYPES);
        if (type && e.fk_element) (wanted.get(type) ?? wanted.set(type, new Set()).get(type)!).add(Number(e.fk_element));
      }
      const objects = await objectsOf(user, wanted);

      const objectOf = (e: (typeof events)[number]) => {
        const type = elementOfAgendaType(e.elementtype, ELEMENT_TYPES);
        return type && e.fk_element ? objects.get(`${type}:${e.fk_element}`) : undefined;
      };
      // The event's third party, else its object's: the customer's address is where to go.
      const customerIdOf = (e: (typeof events)[number]) => (e.fk_soc ? Number(e.fk_soc) : (objectOf(e)?.fk_soc ?? null));
      // Only a customer the caller may see (customers.php's rule): an event's third party is no
      // way around it. The third party of an object he sees passes that rule by itself; only
      // another one is looked up the long way.
      const customerIds = [...new Set(events.map(customerIdOf).filter((id): id is number => id !== null))];
      const viaObjects = new Set([...objects.values()].map((o) => o.fk_soc).filter((id): id is number => id !== null));
      const third = (ids: number[], visible: (alias: string) => Expression<SqlBool>) =>
        ids.length === 0
          ? Promise.resolve([])
          : db
              .selectFrom('societe as s')
              .select(['s.rowid', 's.nom', 's.address', 's.zip', 's.town', 's.phone'])
              .where('s.rowid', 'in', ids)
              .where(() => visible('s'))
              .execute();
      const found = await Promise.all([
        third(
          customerIds.filter((id) => viaObjects.has(id)),
          (alias) =>
            sql<SqlBool>`(${sql.ref(`${alias}.entity`)} = ${entity} and ${sql.ref(`${alias}.client`)} in (${sql.join([...CUSTOMER_CLIENT_VALUES])})${user.fkSoc === null ? sql`` : sql` and ${sql.ref(`${alias}.rowid`)} = ${user.fkSoc}`})`,
        ),
        third(
          customerIds.filter((id) => !viaObjects.has(id)),
          (alias) => access.customerVisible(user, alias),
        ),
      ]);
      const customers = new Map(found.flat().map((s) => [Number(s.rowid), s]));

      const items: AgendaItem[] = events.map((e) => {
        const object = objectOf(e);
        const customerId = customerIdOf(e);
        const customer = customerId === null ? undefined : customers.get(customerId);
        const percent = Number(e.percent ?? -1);
        return {
          id: Number(e.id),
          label: e.label,
          code: e.code ?? null,
          start: fromDolibarrDateTime(e.datep, timeZone) ?? 0,
          end: fromDolibarrDateTime(e.datep2, timeZone),
          all_day: Number(e.fulldayevent) === 1,
          location: e.location || null,
          percent,
          done: percent === 100,
          object: object
            ? {
                element_type: object.element_type,
                id: object.id,
                ref: object.ref,
                ref_client: object.ref_client,
                status: object.status,
                report_count: object.report_count,
                final_report_count: object.final_report_count,
              }
            : null,
          customer: customer
            ? {
                id: Number(customer.rowid),
                name: customer.nom ?? null,
                address: customer.address ?? null,
                zip: customer.zip ?? null,
                town: customer.town ?? null,
                phone: customer.phone ?? null,
              }
            : null,
        };
      });
      return { from, days, time_zone: timeZone, items, total: items.length };
    },
  };
}

export type AgendaService = ReturnType<typeof createAgendaService>;
