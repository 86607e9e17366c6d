/**
 * Events in Dolibarr's agenda (`llx_actioncomm`), written as Dolibarr 22's automatic events are
 * (core/triggers/interface_50_modAgenda_ActionsAuto.class.php, which calls ActionComm::create):
 * type AC_OTH_AUTO (`fk_action` its id in `llx_c_actioncomm`), `code` 'AC_' + the trigger's name,
 * `datep` = `datep2` = now in Dolibarr's wall time, `durationp` 0, `percent` -1 (not applicable),
 * `priority`, `fulldayevent` and `transparency` 0, `location` '', the author as author and owner,
 * `fk_soc` the third party, `fk_element` + `elementtype` the object (ActionComm::create writes an
 * order as 'order' and an invoice as 'invoice'; a proposal and an intervention keep 'propal' and 'fichinter'), `ref` the event's id as
 * text (ActionComm::create inserts '(PROV)' and then sets it), the owner in
 * `llx_actioncomm_resources` ('user', mandatory 0, transparency 0, answer_status '0'), a single
 * contact also in `fk_contact`, and every contact as a 'socpeople' resource. A mail also fills
 * Dolibarr's `email_*` columns. The order's (invoice's, proposal's) Events tab lists them.
 */
import type { Dialect } from '../config.js';
import type { Db } from '../db/database.js';
import { insertId } from '../db/dialect.js';
import type { ColumnFitter } from './charset.js';
import { toDolibarrDateTime } from './time.js';

/** ActionComm::create's names of the object types, where they differ from Dolibarr's element names. */
export const AGENDA_ELEMENT_TYPES: Readonly<Record<string, string>> = {
  commande: 'order',
  facture: 'invoice',
  propal: 'propal',
  fichinter: 'fichinter',
};

/** The `elementtype` values that name an object of `element`: ActionComm's, and the element's own name that other writers use. */
export function agendaNames(element: string): string[] {
  const name = AGENDA_ELEMENT_TYPES[element];
  return name && name !== element ? [name, element] : [element];
}

/** The element an `actioncomm.elementtype` names (of `elements`), by agendaNames; undefined for another. */
export function elementOfAgendaType<E extends string>(elementtype: string | null, elements: readonly E[]): E | undefined {
  return elementtype === null ? undefined : elements.find((element) => agendaNames(element).includes(elementtype));
}

/** The trigger names Dolibarr uses for a document of each object type sent by mail. */
export const SENT_BY_MAIL_TRIGGER: Record<string, string> = {
  commande: 'ORDER_SENTBYMAIL',
  facture: 'BILL_SENTBYMAIL',
  propal: 'PROPAL_SENTBYMAIL',
  fichinter: 'FICHINTER_SENTBYMAIL',
};

export interface AgendaEvent {
  entity: number;
  /** The trigger's name: the code is 'AC_' + it. */
  trigger: string;
  /** The short text (at most 128 characters, as ActionComm::create cuts it). */
  label: string;
  note: string;
  socId: number | null;
  elementType: string;
  elementId: number;
  userId: number;
  contactIds?: number[];
  mail?: {
    msgid: string | null;
    from: string;
    to: string;
    cc: string | null;
    bcc: string | null;
    subject: string;
    errorsTo: string | null;
  };
  /** The address the action came from (ActionComm's `ip`). */
  ip?: string | null;
  timeZone: string;
  at?: Date;
}

/**
 * Writes the event and its resources with `trx`; returns the event's id. Text goes through
 * `fitter`: Dolibarr's tables are `utf8` (3 bytes a character) on a MariaDB its installer made, and
 * a report's title or a mail's text may hold an emoji.
 */
export async function recordAgendaEvent(trx: Db, dialect: Dialect, fitter: ColumnFitter, event: AgendaEvent): Promise<number> {
  const type = await trx.selectFrom('c_actioncomm').select('id').where('code', '=', 'AC_OTH_AUTO').executeTakeFirst();
  const now = toDolibarrDateTime(event.at ?? new Date(), event.timeZone);
  const contacts = [...new Set(event.contactIds ?? [])];
  const fit = (column: string, value: string) => fitter.fit('actioncomm', column, value);
  const email = async (column: string, value: string | null | undefined) => (value ? fit(column, value.slice(0, 255)) : null);
  const query = trx.insertInto('actioncomm').values({
    ref: '(PROV)',
    entity: event.entity,
    datec: now,
    datep: now,
    datep2: now,
    durationp: 0,
    fk_action: type ? type.id : null,
    code: `AC_${event.trigger}`,
    fk_soc: event.socId && event.socId > 0 ? event.socId : null,
    note: await fit('note', event.note),
    fk_contact: contacts.length === 1 ? contacts[0]! : null,
    fk_user_author: event.userId,
    fk_user_action: event.userId,
    label: await fit('label', [...event.label.trim()].slice(0, 128).join('')),
    percent: -1,
    priority: 0,
    fulldayevent: 0,
    location: '',
    transparency: 0,
    fk_element: event.elementId,
    elementtype: AGENDA_ELEMENT_TYPES[event.elementType] ?? event.elementType,
    status: 0,
    ip: event.ip ? event.ip.slice(0, 250) : null,
    email_msgid: await email('email_msgid', event.mail?.msgid),
    email_from: await email('email_from', event.mail?.from),
    email_to: await email('email_to', event.mail?.to),
    email_tocc: await email('email_tocc', event.mail?.cc),
    email_tobcc: await email('email_tobcc', event.mail?.bcc),
    email_subject: await email('email_subject', event.mail?.subject),
    errors_to: await email('errors_to', event.mail?.errorsTo),
  });
  const id = await insertId(dialect, query, 'id');
  await trx
    .updateTable('actioncomm')
    .set({ ref: String(id) })
    .where('id', '=', id)
    .execute();
  await trx
    .insertInto('actioncomm_resources')
    .values({ fk_actioncomm: id, element_type: 'user', fk_element: event.userId, mandatory: 0, transparency: 0, answer_status: '0' })
    .execute();
  for (const contact of contacts) {
    await trx
      .insertInto('actioncomm_resources')
      .values({ fk_actioncomm: id, element_type: 'socpeople', fk_element: contact, mandatory: 0, transparency: 0, answer_status: '0' })
      .execute();
  }
  return id;
}

export interface PlannedEvent {
  entity: number;
  /** The event type's code in `c_actioncomm` (AC_RDV a meeting, AC_INT an intervention on site, …). */
  code: string;
  label: string;
  note?: string | null;
  location?: string;
  /** Start and end as Dolibarr stores them: wall times where it is (`YYYY-MM-DD HH:MM:SS`). */
  datep: string;
  datep2: string | null;
  allDay?: boolean;
  /** -1 not applicable (the card's default), 0 to do, 100 done. */
  percent?: number;
  socId: number | null;
  /** The object, as an element name (commande, fichinter, …); null for none. */
  elementType: string;
  elementId: number | null;
  authorId: number | null;
  /** The owner (`fk_user_action`), also its first attendee; null for none. */
  ownerId: number | null;
  attendeeIds?: number[];
  /** Written on this day and time (`datec`). */
  datec: string;
  /** false: the owner gets no resource row (an event another tool wrote). */
  ownerAsResource?: boolean;
}

/** Seconds from one wall time to another, both `YYYY-MM-DD HH:MM:SS` (the same zone). */
function secondsBetween(from: string, to: string): number {
  const at = (s: string) => Date.parse(`${s.replace(' ', 'T')}Z`);
  return Math.max(0, Math.round((at(to) - at(from)) / 1000));
}

/**
 * An appointment as Dolibarr 22's event card writes one (comm/action/card.php, action=add, then
 * ActionComm::create; compared column by column with a real Dolibarr 22.0.4): `ref` '(PROV)' and
 * then its id, `durationp` the seconds from start to end, `percent` -1 unless given, `transparency`
 * 1 (busy), `priority` and `status` 0, the object in `fk_element` with ActionComm's `elementtype`
 * (an order 'order'), the owner in `fk_user_action` and each attendee (the owner first) as a 'user'
 * resource with transparency 1. Returns the event's id.
 */
export async function recordPlannedEvent(trx: Db, dialect: Dialect, event: PlannedEvent): Promise<number> {
  const type = await trx.selectFrom('c_actioncomm').select('id').where('code', '=', event.code).executeTakeFirst();
  const query = trx.insertInto('actioncomm').values({
    ref: '(PROV)',
    entity: event.entity,
    datec: event.datec,
    datep: event.datep,
    datep2: event.datep2,
    durationp: event.datep2 === null ? null : secondsBetween(event.datep, event.datep2),
    fk_action: type ? type.id : null,
    code: event.code,
    fk_soc: event.socId,
    note: event.note ?? null,
    fk_user_author: event.authorId,
    fk_user_action: event.ownerId,
    label: event.label,
    percent: event.percent ?? -1,
    priority: 0,
    fulldayevent: event.allDay ? 1 : 0,
    location: event.location ?? '',
    transparency: 1,
    fk_element: event.elementId,
    elementtype: event.elementId === null ? null : (AGENDA_ELEMENT_TYPES[event.elementType] ?? event.elementType),
    status: 0,
  });
  const id = await insertId(dialect, query, 'id');
  await trx
    .updateTable('actioncomm')
    .set({ ref: String(id) })
    .where('id', '=', id)
    .execute();
  const owner = event.ownerId !== null && event.ownerAsResource !== false ? [event.ownerId] : [];
  for (const user of new Set([...owner, ...(event.attendeeIds ?? [])])) {
    await trx
      .insertInto('actioncomm_resources')
      .values({ fk_actioncomm: id, element_type: 'user', fk_element: user, mandatory: 0, transparency: 1, answer_status: '0' })
      .execute();
  }
  return id;
}
