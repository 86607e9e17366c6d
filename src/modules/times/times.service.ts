/**
 * Time on site (times.schemas.ts, TIME_RULES): a technician taps arrival and departure at an
 * order (also offline: the phone's time of the tap is sent), may enter or correct an interval by
 * hand with a reason, and the report finalized afterwards takes the closed intervals (`fk_bericht`)
 * and prints them with their total.
 *
 * Each change runs in one transaction that locks the caller's intervals at the object (PostgreSQL,
 * MariaDB; SQLite's write lock is whole), so two taps at once never open two intervals, and with an
 * Idempotency-Key the answer is stored in it: a repeat from the offline queue gets the first answer.
 *
 * One file, a little longer than most: the rules of an interval (taps, additions, corrections, what a
 * report takes) share the checks written once at its top.
 */
import type { RunRegistry } from '../../adapters/runs.js';
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { forUpdate, fromDbDateTime, insertId, toDbDateTime } from '../../db/dialect.js';
import type { ElementType } from '../../dolibarr/documents.js';
import { AppError } from '../../errors.js';
import { notFoundCode, type Caller, type ElementAccess } from '../access/element-access.js';
import type { AuthUser } from '../auth/auth.service.js';
import { idempotent } from '../common/idempotency.js';
import { ELEMENT_TYPE_VALUES } from '../reports/reports.schemas.js';
import { hasAdminRight } from '../reports/reports.service.js';
import {
  MAX_AHEAD_SECONDS,
  MAX_BACK_SECONDS,
  MAX_CORRECTIONS,
  MAX_INTERVAL_SECONDS,
  type AddTimeBody,
  type Correction,
  type CorrectTimeBody,
  type TapBody,
  type TimeInterval,
  type TimeList,
  UNDO_SECONDS,
  type UndoneTime,
  type UndoTimeBody,
} from './times.schemas.js';

interface TimeRow {
  rowid: number;
  element_type: string;
  fk_element: number;
  fk_user: number;
  fk_bericht: number | null;
  arrival: string;
  departure: string | null;
  arrival_tapped: string | null;
  departure_tapped: string | null;
  corrections: string | null;
  /** When the row was made and last changed (rows read whole: `mine`). */
  datec?: string | null;
  tms?: string | null;
  firstname?: string | null;
  lastname?: string | null;
  login?: string | null;
}

function readCorrections(json: string | null): Correction[] {
  if (!json) return [];
  try {
    const list = JSON.parse(json) as unknown;
    return Array.isArray(list) ? (list as Correction[]) : [];
  } catch {
    return [];
  }
}

export function toInterval(row: TimeRow): TimeInterval {
  const arrival = fromDbDateTime(row.arrival) ?? 0;
  const departure = fromDbDateTime(row.departure);
  const name = [row.firstname, row.lastname]
    .filter((s) => s && s.trim())
    .join(' ')
    .trim();
  const corrections = readCorrections(row.corrections);
  return {
    id: row.rowid,
    element_type: row.element_type,
    fk_element: row.fk_element,
    fk_user: row.fk_user,
    user_name: name || row.login || `#${row.fk_user}`,
    fk_bericht: row.fk_bericht === null ? null : row.fk_bericht,
    arrival,
    departure,
    seconds: departure === null ? null : departure - arrival,
    arrival_tapped: fromDbDateTime(row.arrival_tapped),
    departure_tapped: fromDbDateTime(row.departure_tapped),
    manual: row.arrival_tapped === null,
    corrections,
  };
}

/** The sum of the closed intervals. */
export const totalSeconds = (intervals: TimeInterval[]): number => intervals.reduce((sum, i) => sum + (i.seconds ?? 0), 0);

const nowSeconds = () => Math.floor(Date.now() / 1000);

function refuse(message: string, field: string): never {
  throw new AppError('VALIDATION_FAILED', { message, details: [{ field, message }] });
}

/** A tap's time: the phone's when given (within MAX_AHEAD/MAX_BACK of now), else now. */
function tapTime(at: number | undefined, field = 'body.at'): number {
  const now = nowSeconds();
  if (at === undefined) return now;
  if (at > now + MAX_AHEAD_SECONDS)
    refuse(`Die Zeit liegt mehr als ${MAX_AHEAD_SECONDS / 60} Minuten in der Zukunft; die Uhr des Telefons prüfen`, field);
  if (at < now - MAX_BACK_SECONDS) refuse(`Die Zeit liegt mehr als ${MAX_BACK_SECONDS / 86_400} Tage zurück`, field);
  return at;
}

/**
 * A time set by hand (`action=add`, a correction) lies within the taps' window: at most
 * MAX_BACK_SECONDS back (as a tap, and as a signature's device time is still plausible), so a
 * mistyped year (1970, 2016) is refused naming the field rather than printed.
 */
function checkNotTooOld(value: number | undefined, field: 'body.arrival' | 'body.departure'): void {
  if (value === undefined) return;
  if (value < nowSeconds() - MAX_BACK_SECONDS)
    refuse(`${field === 'body.arrival' ? 'Die Ankunft' : 'Die Abfahrt'} liegt mehr als ${MAX_BACK_SECONDS / 86_400} Tage zurück`, field);
}

/** Departure after arrival, at most MAX_INTERVAL_SECONDS later, neither in the future. */
function checkSpan(arrival: number, departure: number | null): void {
  const now = nowSeconds();
  if (arrival > now + MAX_AHEAD_SECONDS) refuse('Die Ankunft liegt in der Zukunft', 'body.arrival');
  if (departure === null) return;
  if (departure > now + MAX_AHEAD_SECONDS) refuse('Die Abfahrt liegt in der Zukunft', 'body.departure');
  if (departure < arrival) refuse('Die Abfahrt liegt vor der Ankunft', 'body.departure');
  if (departure - arrival > MAX_INTERVAL_SECONDS)
    refuse(`Ein Eintrag dauert höchstens ${MAX_INTERVAL_SECONDS / 3600} Stunden`, 'body.departure');
}

export function createTimeService(deps: {
  db: Db;
  dialect: Dialect;
  access: ElementAccess;
  entity: number;
  runs: Pick<RunRegistry, 'state'>;
  /** A report's id and those of its earlier versions, the report's first (reports.repository.ts). */
  lineage: (conn: Db, reportId: number) => Promise<number[]>;
}) {
  const { db, dialect, access, entity, runs } = deps;

  const select = (conn: Db) =>
    conn
      .selectFrom('bericht_time as t')
      .leftJoin('user as u', 'u.rowid', 't.fk_user')
      .select([
        't.rowid',
        't.element_type',
        't.fk_element',
        't.fk_user',
        't.fk_bericht',
        't.arrival',
        't.departure',
        't.arrival_tapped',
        't.departure_tapped',
        't.corrections',
      ])
      .select(['u.firstname', 'u.lastname', 'u.login'])
      .where('t.entity', '=', entity);

  async function visibleElement(user: Caller, type: ElementType, id: number) {
    const element = await access.getById(type, id, user);
    if (!element) throw new AppError(notFoundCode(type));
    return element;
  }

  /**
   * The caller's intervals at the object, locked for the transaction. FOR UPDATE locks only rows
   * that exist, so two first arrivals at once would both find none: the technician's user row is
   * locked first (it always exists; a lock, no write), which puts one technician's changes of time
   * on site in a row, on every object, without holding up anybody else's.
   */
  async function mine(trx: Db, user: Caller, type: string, id: number): Promise<TimeRow[]> {
    if (dialect !== 'sqlite') await trx.selectFrom('user').select('rowid').where('rowid', '=', user.id).forUpdate().execute();
    const query = trx
      .selectFrom('bericht_time')
      .selectAll()
      .where('entity', '=', entity)
      .where('element_type', '=', type)
      .where('fk_element', '=', id)
      .where('fk_user', '=', user.id);
    return (await forUpdate(dialect, query).execute()) as TimeRow[];
  }

  /** Refuses a span that overlaps another of `rows` (not `except`). An open interval reaches to now. */
  function checkOverlap(rows: TimeRow[], arrival: number, departure: number | null, except?: number): void {
    const end = departure ?? Number.POSITIVE_INFINITY;
    for (const row of rows) {
      if (row.rowid === except) continue;
      const a = fromDbDateTime(row.arrival) ?? 0;
      const d = fromDbDateTime(row.departure) ?? Number.POSITIVE_INFINITY;
      if (arrival < d && a < end)
        throw new AppError('TIME_OVERLAP', { details: { id: row.rowid, arrival: a, departure: Number.isFinite(d) ? d : null } });
    }
  }

  /** A new interval of the caller at `at`'s object: tapped (its times kept as first recorded) or entered by hand (with its reason as the first correction). */
  function insert(
    trx: Db,
    user: Caller,
    at: { element_type: string; fk_element: number },
    interval: { arrival: number; departure: number | null; tapped: boolean; corrections: Correction[] | null },
  ): Promise<number> {
    const now = toDbDateTime();
    const arrival = toDbDateTime(interval.arrival);
    const departure = interval.departure === null ? null : toDbDateTime(interval.departure);
    return insertId(
      dialect,
      trx.insertInto('bericht_time').values({
        entity,
        element_type: at.element_type,
        fk_element: at.fk_element,
        fk_user: user.id,
        fk_bericht: null,
        arrival,
        departure,
        arrival_tapped: interval.tapped ? arrival : null,
        departure_tapped: interval.tapped ? departure : null,
        corrections: interval.corrections ? JSON.stringify(interval.corrections) : null,
        fk_user_modif: user.id,
        datec: now,
        tms: now,
      }),
    );
  }

  /**
   * The intervals a report's PDF shows: those taken by the report or an earlier version of it
   * (`lineage`, the report's id first), and for a draft also the closed ones not yet taken.
   */
  async function ofReport(
    conn: Db,
    report: { element_type: string | null; fk_element: number | null; status: number },
    lineage: number[],
  ): Promise<TimeInterval[]> {
    if (!report.element_type || report.fk_element === null) return [];
    const rows = (await select(conn)
      .where('t.element_type', '=', report.element_type)
      .where('t.fk_element', '=', report.fk_element)
      .where((eb) => {
        const taken = lineage.length > 0 ? [eb('t.fk_bericht', 'in', lineage)] : [];
        const pending = report.status === 0 ? [eb.and([eb('t.fk_bericht', 'is', null), eb('t.departure', 'is not', null)])] : [];
        return eb.or([...taken, ...pending]);
      })
      .orderBy('t.arrival')
      .orderBy('t.rowid')
      .execute()) as TimeRow[];
    return rows.map(toInterval);
  }

  /** Whether someone is still on site for a draft's object: an interval without departure that no report took. */
  async function onSite(conn: Db, report: { element_type: string | null; fk_element: number | null; status: number }): Promise<boolean> {
    if (report.status !== 0 || !report.element_type || report.fk_element === null) return false;
    const row = await conn
      .selectFrom('bericht_time')
      .select('rowid')
      .where('entity', '=', entity)
      .where('element_type', '=', report.element_type)
      .where('fk_element', '=', report.fk_element)
      .where('fk_bericht', 'is', null)
      .where('departure', 'is', null)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * What of a report's time on site `user` (who sees the report) is shown: all of ofReport when the
   * user also sees the report's object; otherwise (a creator who lost the order) only what the report
   * or its earlier versions took, never the object's other intervals. Pass the answer to ofReport.
   */
  async function scopeFor<R extends { element_type: string | null; fk_element: number | null; status: number }>(
    user: Caller,
    report: R,
  ): Promise<R> {
    const type = report.element_type as ElementType | null;
    const seesObject = type !== null && report.fk_element !== null && (await access.getById(type, report.fk_element, user)) !== undefined;
    return seesObject ? report : { ...report, status: 1 };
  }

  /** An interval of the served entity whose object `user` sees; undefined otherwise (who may change it is the caller's to check). */
  async function intervalOf(user: Caller, id: number): Promise<TimeRow | undefined> {
    const row = (await db.selectFrom('bericht_time').selectAll().where('rowid', '=', id).where('entity', '=', entity).executeTakeFirst()) as
      | TimeRow
      | undefined;
    const visible =
      row &&
      (ELEMENT_TYPE_VALUES as readonly string[]).includes(row.element_type) &&
      (await access.getById(row.element_type as ElementType, row.fk_element, user));
    return visible ? row : undefined;
  }

  const read = async (conn: Db, id: number) =>
    toInterval((await select(conn).where('t.rowid', '=', id).executeTakeFirstOrThrow()) as TimeRow);

  return {
    async list(user: Caller, type: ElementType, id: number, page: { limit: number; offset: number }): Promise<TimeList> {
      await visibleElement(user, type, id);
      const rows = (await select(db)
        .where('t.element_type', '=', type)
        .where('t.fk_element', '=', id)
        .orderBy('t.arrival')
        .orderBy('t.rowid')
        .execute()) as TimeRow[];
      const all = rows.map(toInterval);
      const open = all.find((i) => i.fk_user === user.id && i.departure === null) ?? null;
      return { items: all.slice(page.offset, page.offset + page.limit), total: all.length, total_seconds: totalSeconds(all), open };
    },

    ofReport,

    onSite,

    scopeFor,

    /** The intervals of `report` (which `user` sees) as its PDF shows them to that user. */
    async shownOnReport(
      user: Caller,
      report: { rowid: number; element_type: string | null; fk_element: number | null; status: number },
    ): Promise<TimeInterval[]> {
      return ofReport(db, await scopeFor(user, report), await deps.lineage(db, report.rowid));
    },

    /** Locks the intervals at the report's object for the rest of the transaction (finalize; PostgreSQL, MariaDB). */
    async lock(trx: Db, report: { element_type: string | null; fk_element: number | null }): Promise<void> {
      if (dialect === 'sqlite' || !report.element_type || report.fk_element === null) return;
      await trx
        .selectFrom('bericht_time')
        .select('rowid')
        .where('entity', '=', entity)
        .where('element_type', '=', report.element_type)
        .where('fk_element', '=', report.fk_element)
        .forUpdate()
        .execute();
    },

    /** At finalize (in its transaction, after `lock`): the report takes the intervals `ids` it printed; answers how many it took. */
    async take(trx: Db, reportId: number, ids: number[]): Promise<number> {
      if (ids.length === 0) return 0;
      const result = await trx
        .updateTable('bericht_time')
        .set({ fk_bericht: reportId })
        .where('rowid', 'in', ids)
        .where('fk_bericht', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Arrival: opens an interval at the tap's time. */
    async arrive(user: AuthUser, body: TapBody, key?: string): Promise<TimeInterval> {
      await visibleElement(user, body.element_type, body.fk_element);
      const at = tapTime(body.at);
      const scope = `time:arrive:${body.element_type}:${body.fk_element}`;
      return idempotent({ db, runs }, { entity, userId: user.id, key, scope }, (claim) =>
        db.transaction().execute(async (trx) => {
          const rows = await mine(trx, user, body.element_type, body.fk_element);
          const open = rows.find((r) => r.departure === null);
          if (open) throw new AppError('TIME_ALREADY_OPEN', { details: { id: open.rowid, arrival: fromDbDateTime(open.arrival) } });
          checkOverlap(rows, at, null);
          const interval = await read(
            trx,
            await insert(trx, user, body, { arrival: at, departure: null, tapped: true, corrections: null }),
          );
          await claim?.complete(201, interval, trx);
          return interval;
        }),
      );
    },

    /** Departure: closes the caller's open interval at the object. */
    async leave(user: AuthUser, body: TapBody, key?: string): Promise<TimeInterval> {
      await visibleElement(user, body.element_type, body.fk_element);
      const at = tapTime(body.at);
      const scope = `time:leave:${body.element_type}:${body.fk_element}`;
      return idempotent({ db, runs }, { entity, userId: user.id, key, scope }, (claim) =>
        db.transaction().execute(async (trx) => {
          const open = (await mine(trx, user, body.element_type, body.fk_element)).find((r) => r.departure === null);
          if (!open) throw new AppError('TIME_NOT_OPEN');
          checkSpan(fromDbDateTime(open.arrival) ?? 0, at);
          await trx
            .updateTable('bericht_time')
            .set({ departure: toDbDateTime(at), departure_tapped: toDbDateTime(at), fk_user_modif: user.id, tms: toDbDateTime() })
            .where('rowid', '=', open.rowid)
            .execute();
          const interval = await read(trx, open.rowid);
          await claim?.complete(200, interval, trx);
          return interval;
        }),
      );
    },

    /**
     * A tap taken back (a finger that hit the wrong button): `arrive` removes the interval, which
     * must still be open; `leave` opens it again. Only the caller's own tapped interval (not entered
     * or corrected by hand), not taken by a report, within UNDO_SECONDS of the tap's arrival here;
     * else 409 TIME_UNDO_NOT_POSSIBLE (a correction with a reason is the way then).
     */
    async undo(user: AuthUser, id: number, body: UndoTimeBody, key?: string): Promise<UndoneTime> {
      // The key first: a repeat after a lost answer finds the first answer, also when the interval went.
      return idempotent({ db, runs }, { entity, userId: user.id, key, scope: `time:undo:${id}` }, async (claim) => {
        const row = await intervalOf(user, id);
        if (!row || row.fk_user !== user.id) throw new AppError('TIME_NOT_FOUND');
        return db.transaction().execute(async (trx) => {
          const rows = await mine(trx, user, row.element_type, row.fk_element);
          const current = rows.find((r) => r.rowid === id);
          if (!current) throw new AppError('TIME_NOT_FOUND');
          if (current.fk_bericht !== null) throw new AppError('TIME_REPORTED', { details: { fk_bericht: current.fk_bericht } });
          const why = (message: string, field: string) =>
            new AppError('TIME_UNDO_NOT_POSSIBLE', { message, details: [{ field, message }] });
          if (current.corrections !== null) throw why('Von Hand erfasst oder korrigiert: nur eine Korrektur ändert ihn', 'id');
          const tappedAt = fromDbDateTime((body.tap === 'arrive' ? current.datec : current.tms) ?? null) ?? 0;
          if (nowSeconds() - tappedAt > UNDO_SECONDS)
            throw why(`Mehr als ${UNDO_SECONDS / 60} Minuten nach dem Tippen: bitte korrigieren`, 'id');
          let interval: TimeInterval | null = null;
          if (body.tap === 'arrive') {
            if (current.departure !== null) throw why('Die Abfahrt ist schon erfasst: erst sie rückgängig machen', 'body.tap');
            await trx.deleteFrom('bericht_time').where('rowid', '=', id).execute();
          } else {
            if (current.departure === null) throw why('Keine Abfahrt erfasst, die sich rückgängig machen ließe', 'body.tap');
            const open = rows.find((r) => r.departure === null);
            if (open) throw new AppError('TIME_ALREADY_OPEN', { details: { id: open.rowid, arrival: fromDbDateTime(open.arrival) } });
            await trx
              .updateTable('bericht_time')
              .set({ departure: null, departure_tapped: null, fk_user_modif: user.id, tms: toDbDateTime() })
              .where('rowid', '=', id)
              .execute();
            interval = await read(trx, id);
          }
          const answer: UndoneTime = { id, tap: body.tap, interval };
          await claim?.complete(200, answer, trx);
          return answer;
        });
      });
    },

    /** An interval entered by hand (forgotten taps), with its reason. */
    async add(user: AuthUser, body: AddTimeBody, key?: string): Promise<TimeInterval> {
      await visibleElement(user, body.element_type, body.fk_element);
      checkNotTooOld(body.arrival, 'body.arrival');
      checkNotTooOld(body.departure, 'body.departure');
      checkSpan(body.arrival, body.departure);
      const scope = `time:add:${body.element_type}:${body.fk_element}`;
      return idempotent({ db, runs }, { entity, userId: user.id, key, scope }, (claim) =>
        db.transaction().execute(async (trx) => {
          checkOverlap(await mine(trx, user, body.element_type, body.fk_element), body.arrival, body.departure);
          const corrections: Correction[] = [{ at: nowSeconds(), by: user.id, reason: body.reason.trim(), arrival: null, departure: null }];
          const interval = await read(
            trx,
            await insert(trx, user, body, { arrival: body.arrival, departure: body.departure, tapped: false, corrections }),
          );
          await claim?.complete(201, interval, trx);
          return interval;
        }),
      );
    },

    /** A correction by hand: new times with a reason, the times before it kept. Own intervals, or any with the admin right. */
    async correct(user: AuthUser, id: number, body: CorrectTimeBody, key?: string): Promise<TimeInterval> {
      const row = await intervalOf(user, id);
      if (!row || (row.fk_user !== user.id && !hasAdminRight(user))) throw new AppError('TIME_NOT_FOUND');
      // Only the times sent: an interval recorded long ago keeps its other time.
      checkNotTooOld(body.arrival, 'body.arrival');
      checkNotTooOld(body.departure, 'body.departure');
      return idempotent({ db, runs }, { entity, userId: user.id, key, scope: `time:update:${id}` }, (claim) =>
        db.transaction().execute(async (trx) => {
          const owner = { id: row.fk_user } as Caller;
          const rows = await mine(trx, owner, row.element_type, row.fk_element);
          const current = rows.find((r) => r.rowid === id);
          if (!current) throw new AppError('TIME_NOT_FOUND');
          if (current.fk_bericht !== null) throw new AppError('TIME_REPORTED', { details: { fk_bericht: current.fk_bericht } });
          const before = { arrival: fromDbDateTime(current.arrival), departure: fromDbDateTime(current.departure) };
          const arrival = body.arrival ?? before.arrival ?? 0;
          const departure = body.departure ?? before.departure;
          checkSpan(arrival, departure);
          checkOverlap(rows, arrival, departure, id);
          const corrections = readCorrections(current.corrections);
          if (corrections.length >= MAX_CORRECTIONS)
            throw new AppError('CONFLICT', { message: `Ein Eintrag wird höchstens ${MAX_CORRECTIONS}-mal korrigiert` });
          corrections.push({ at: nowSeconds(), by: user.id, reason: body.reason.trim(), ...before });
          await trx
            .updateTable('bericht_time')
            .set({
              arrival: toDbDateTime(arrival),
              departure: departure === null ? null : toDbDateTime(departure),
              corrections: JSON.stringify(corrections),
              fk_user_modif: user.id,
              tms: toDbDateTime(),
            })
            .where('rowid', '=', id)
            .execute();
          const interval = await read(trx, id);
          await claim?.complete(200, interval, trx);
          return interval;
        }),
      );
    },
  };
}

export type TimeService = ReturnType<typeof createTimeService>;
