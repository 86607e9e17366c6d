/** Request and response shapes of GET /api/agenda.php: the caller's appointments from Dolibarr's agenda. */
import { Type, type Static } from 'typebox';

/** At most this many days in one answer. */
export const MAX_AGENDA_DAYS = 31;
/** At most this many appointments in one answer (a day of a busy technician is a dozen). */
export const MAX_AGENDA_ITEMS = 500;

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Unix = Type.Integer({ description: 'Unix seconds.' });

export const AgendaQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
      description: 'The first day, `YYYY-MM-DD`, where Dolibarr is (TIME_ZONE). Default: today there.',
    }),
  ),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AGENDA_DAYS, description: 'How many days from `from` on. Default 7.' })),
});
export type AgendaQuery = Static<typeof AgendaQuery>;

export const AgendaObject = Type.Object(
  {
    element_type: Type.Union([Type.Literal('commande'), Type.Literal('facture'), Type.Literal('propal'), Type.Literal('fichinter')]),
    id: Type.Integer(),
    ref: Type.String(),
    ref_client: NullableString,
    status: Type.Integer({ description: "The object's fk_statut." }),
    report_count: Type.Integer({ minimum: 0, description: 'Reports on it (templates left out).' }),
    final_report_count: Type.Integer({ minimum: 0, description: 'Of them, the final ones.' }),
  },
  { description: 'The order, invoice, proposal or intervention the event is linked to, when the caller may see it.' },
);

export const AgendaCustomer = Type.Object({
  id: Type.Integer(),
  name: NullableString,
  address: NullableString,
  zip: NullableString,
  town: NullableString,
  phone: NullableString,
});

export const AgendaItem = Type.Object({
  id: Type.Integer({ description: 'llx_actioncomm.id' }),
  label: Type.String(),
  code: NullableString,
  start: Unix,
  end: Type.Union([Unix, Type.Null()], { description: 'datep2; null when the event has no end.' }),
  all_day: Type.Boolean({ description: 'fulldayevent: start and end are days, not times.' }),
  location: NullableString,
  percent: Type.Integer({ description: 'Dolibarr: -1 not applicable, 0 to do, 1-99 in progress, 100 done.' }),
  done: Type.Boolean({ description: 'percent is 100.' }),
  object: Type.Union([AgendaObject, Type.Null()]),
  customer: Type.Union([AgendaCustomer, Type.Null()], {
    description:
      "The event's third party, else the object's, when it is a customer the caller may see (as GET /api/customers.php?id= would show it); null otherwise.",
  }),
});
export type AgendaItem = Static<typeof AgendaItem>;

export const AgendaList = Type.Object({
  from: Type.String({ description: 'The first day, `YYYY-MM-DD`.' }),
  days: Type.Integer(),
  time_zone: Type.String({ description: "Dolibarr's time zone, in which the days begin." }),
  items: Type.Array(AgendaItem),
  total: Type.Integer({ minimum: 0 }),
});
export type AgendaList = Static<typeof AgendaList>;
