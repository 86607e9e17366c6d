/**
 * GET /api/agenda.php, the technician's day, on every database: the events of Dolibarr's agenda he
 * owns or attends, from a day on, in time order, with the order they are linked to (when he may see
 * it) and its reports, and the customer's address; no one else's, no automatic entry, nothing
 * outside the days asked. Days begin at midnight where Dolibarr is (Europe/Berlin here). Bad input
 * is a 400 naming the field; no token 401, no read right 403.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays, toDolibarrDateTime } from '../../src/dolibarr/time.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { type Caller, testClient } from '../helpers/client.js';
import { testDialects } from '../helpers/databases.js';

const ZONE = 'Europe/Berlin';
/** A fixed week far from today, so that the tests do not depend on the date they run. */
const MONDAY = '2031-03-24';
const TUESDAY = addDays(MONDAY, 1);

interface AgendaAnswer {
  from: string;
  days: number;
  time_zone: string;
  total: number;
  items: {
    id: number;
    label: string;
    code: string | null;
    start: number;
    end: number | null;
    all_day: boolean;
    location: string | null;
    percent: number;
    done: boolean;
    object: {
      element_type: string;
      id: number;
      ref: string;
      ref_client: string | null;
      status: number;
      report_count: number;
      final_report_count: number;
    } | null;
    customer: {
      id: number;
      name: string | null;
      address: string | null;
      zip: string | null;
      town: string | null;
      phone: string | null;
    } | null;
  }[];
}

for (const dialect of testDialects()) {
  describe(`the technician's day [${dialect}]`, () => {
    let ctx: TestContext;
    let office: Caller;
    before(async () => {
      ctx = await createTestContext(dialect, { timeZone: ZONE });
      office = await caller();
    });
    after(async () => ctx?.close());

    const { caller, api, json, newReport } = testClient(() => ctx);
    const agenda = (who: Caller, query = `from=${MONDAY}&days=2`) => json<AgendaAnswer>('GET', `/api/agenda.php?${query}`, who);

    test("his events of the days asked, in time order, with the order, its reports and the customer's address", async () => {
      const tech = await caller();
      const other = await caller();
      const customer = await ctx.make.thirdParty({ name: 'Bäckerei Huber', town: 'Freising' });
      await ctx.handle.db
        .updateTable('societe')
        .set({ address: 'Hauptstraße 4', zip: '85354', phone: '+49 8161 12345' })
        .where('rowid', '=', customer.id)
        .execute();
      const order = await ctx.make.order({ author: office.id, customer: customer.id, refClient: 'B-77' });
      const later = await ctx.make.order({ author: office.id });
      const report: { id: number } = await newReport(office, order.id);
      assert.ok(report.id);

      const second = await ctx.make.agendaEvent({
        type: 'commande',
        element: later.id,
        owner: tech.id,
        datep: `${MONDAY} 14:00:00`,
        datep2: `${MONDAY} 15:30:00`,
        label: 'Wartung Heizung',
      });
      const first = await ctx.make.agendaEvent({
        type: 'commande',
        element: order.id,
        owner: office.id,
        attendees: [tech.id],
        datep: `${MONDAY} 08:00:00`,
        datep2: `${MONDAY} 09:00:00`,
        socId: customer.id,
        location: 'Backstube, Hintereingang',
        label: 'Ofen prüfen',
      });
      const tuesday = await ctx.make.agendaEvent({
        type: 'commande',
        element: null,
        owner: tech.id,
        datep: `${TUESDAY} 00:00:00`,
        datep2: `${TUESDAY} 23:59:59`,
        allDay: true,
        label: 'Schulung',
        percent: 100,
      });
      // Not his day: someone else's, an automatic entry, the day before, the day after the window.
      await ctx.make.agendaEvent({ type: 'commande', element: order.id, owner: other.id, datep: `${MONDAY} 10:00:00` });
      await ctx.make.agendaEvent({ type: 'commande', element: order.id, owner: tech.id, code: 'AC_OTH_AUTO', datep: `${MONDAY} 11:00:00` });
      await ctx.make.agendaEvent({
        type: 'commande',
        element: order.id,
        owner: tech.id,
        datep: `${addDays(MONDAY, -1)} 23:00:00`,
        datep2: `${addDays(MONDAY, -1)} 23:30:00`,
      });
      await ctx.make.agendaEvent({ type: 'commande', element: order.id, owner: tech.id, datep: `${addDays(MONDAY, 2)} 00:00:00` });
      // Ended at Monday's midnight: not one of Monday's.
      await ctx.make.agendaEvent({
        type: 'commande',
        element: order.id,
        owner: tech.id,
        datep: `${addDays(MONDAY, -1)} 23:00:00`,
        datep2: `${MONDAY} 00:00:00`,
      });
      // Begun the evening before, lasting into Monday: one of Monday's.
      const overnight = await ctx.make.agendaEvent({
        type: 'commande',
        element: order.id,
        owner: tech.id,
        datep: `${addDays(MONDAY, -1)} 22:00:00`,
        datep2: `${MONDAY} 02:00:00`,
        label: 'Notdienst',
      });

      const answer = await agenda(tech);
      assert.equal(answer.from, MONDAY);
      assert.equal(answer.days, 2);
      assert.equal(answer.time_zone, ZONE);
      assert.deepEqual(
        answer.items.map((i) => i.id),
        [overnight, first, second, tuesday],
      );
      assert.equal(answer.total, 4);

      const visit = answer.items[1]!;
      assert.equal(visit.label, 'Ofen prüfen');
      assert.equal(visit.code, 'AC_RDV');
      // 08:00 in Berlin in March (CET, before the change to summer time on the 30th) is 07:00 UTC.
      assert.equal(visit.start, Date.UTC(2031, 2, 24, 7, 0, 0) / 1000);
      assert.equal(visit.end, Date.UTC(2031, 2, 24, 8, 0, 0) / 1000);
      assert.equal(visit.all_day, false);
      assert.equal(visit.location, 'Backstube, Hintereingang');
      assert.deepEqual([visit.percent, visit.done], [-1, false], 'not applicable: what the event card writes unless told');
      assert.deepEqual(visit.object, {
        element_type: 'commande',
        id: order.id,
        ref: order.ref,
        ref_client: 'B-77',
        status: 1,
        report_count: 1,
        final_report_count: 0,
      });
      assert.deepEqual(visit.customer, {
        id: customer.id,
        name: 'Bäckerei Huber',
        address: 'Hauptstraße 4',
        zip: '85354',
        town: 'Freising',
        phone: '+49 8161 12345',
      });
      // Without a third party on the event, the order's customer is where to go.
      assert.equal(answer.items[2]!.customer?.id, later.customer);
      const course = answer.items[3]!;
      assert.deepEqual([course.all_day, course.done, course.object, course.customer], [true, true, null, null]);

      // The other user's day has only his own event.
      assert.equal((await agenda(other)).total, 1);
    });

    test('an order the caller may not see is no object of his appointment (the agenda does not give it when turned off)', async () => {
      const off = await createTestContext(dialect, { timeZone: ZONE, assignedByAgenda: false });
      try {
        const client = testClient(() => off);
        const boss = await client.caller();
        const tech = await client.caller();
        const order = await off.make.order({ author: boss.id });
        await off.make.agendaEvent({ type: 'commande', element: order.id, owner: tech.id, datep: `${MONDAY} 09:00:00` });
        const answer = await client.json<AgendaAnswer>('GET', `/api/agenda.php?from=${MONDAY}`, tech);
        assert.equal(answer.total, 1);
        assert.equal(answer.items[0]!.object, null);
        // The customer of an order he may not see is not shown either.
        assert.equal(answer.items[0]!.customer, null);
        assertError(await client.api('GET', `/api/orders.php?id=${order.id}`, tech), 404, 'ORDER_NOT_FOUND');
      } finally {
        await off.close();
      }
    });

    test("an event's third party the caller may not see as a customer is not shown; an event without an end is one of its day", async () => {
      const tech = await caller();
      const stranger = await ctx.make.thirdParty({ name: 'Fremdfirma AG' });
      // Another user's order of the same third party: the technician does not see that customer.
      await ctx.make.order({ author: office.id, customer: stranger.id });
      const id = await ctx.make.agendaEvent({
        type: 'commande',
        element: null,
        owner: tech.id,
        socId: stranger.id,
        datep: `${TUESDAY} 10:00:00`,
        datep2: null,
        location: 'Werkstor 2',
      });
      const answer = await agenda(tech);
      assert.deepEqual(
        answer.items.map((i) => [i.id, i.customer, i.location, i.end]),
        [[id, null, 'Werkstor 2', null]],
      );
      assertError(await api('GET', `/api/customers.php?id=${stranger.id}`, tech), 404, 'CUSTOMER_NOT_FOUND');
      // Once he sees one of its orders, he sees the customer with the appointment too.
      const given = await ctx.make.order({ author: office.id, customer: stranger.id });
      await ctx.make.internalContact({ type: 'commande', element: given.id, user: tech.id });
      assert.equal((await agenda(tech)).items[0]!.customer?.name, 'Fremdfirma AG');
    });

    test('without `from`, today where Dolibarr is and the next 6 days', async () => {
      const tech = await caller();
      const today = toDolibarrDateTime(new Date(), ZONE).slice(0, 10);
      const soon = await ctx.make.agendaEvent({ type: 'commande', element: null, owner: tech.id, datep: `${addDays(today, 6)} 12:00:00` });
      await ctx.make.agendaEvent({ type: 'commande', element: null, owner: tech.id, datep: `${addDays(today, 7)} 12:00:00` });
      const answer = await json<AgendaAnswer>('GET', '/api/agenda.php', tech);
      const after = toDolibarrDateTime(new Date(), ZONE).slice(0, 10);
      // Midnight may pass between the two readings: the test then says nothing of that day.
      if (after !== today) return;
      assert.deepEqual([answer.from, answer.days], [today, 7]);
      assert.deepEqual(
        answer.items.map((i) => i.id),
        [soon],
      );
    });

    test('bad input is 400 naming the field; no token 401; no read right 403', async () => {
      const tech = await caller();
      for (const [query, field] of [
        ['from=2031-02-30', 'querystring.from'],
        ['from=31.03.2031', 'querystring.from'],
        ['from=2031-3-1', 'querystring.from'],
        ['days=0', 'querystring.days'],
        ['days=32', 'querystring.days'],
        ['days=zwei', 'querystring.days'],
        [`from=${'9'.repeat(5000)}`, 'querystring.from'],
        ['from=9999-12-30', 'querystring.from'],
      ] as const) {
        const res = await api('GET', `/api/agenda.php?${query}`, tech);
        assertError(res, 400, 'VALIDATION_FAILED');
        assert.ok(
          (res.json().details as { field: string }[]).some((d) => d.field === field),
          `${query}: ${res.body}`,
        );
      }
      assertError(await api('GET', '/api/agenda.php', null), 401, 'AUTH_TOKEN_MISSING');
      // A read right withdrawn after login counts at once.
      await ctx.handle.db.deleteFrom('user_rights').where('fk_user', '=', tech.id).execute();
      const res = await api('GET', '/api/agenda.php', tech);
      assert.equal(res.statusCode, 403, res.body);
      assert.doesNotMatch(res.body, /items/);
    });
  });
}

describe('addDays', () => {
  test('counts calendar days across months, years and the change to summer time', () => {
    assert.equal(addDays('2031-03-29', 1), '2031-03-30');
    assert.equal(addDays('2031-03-30', 1), '2031-03-31');
    assert.equal(addDays('2031-12-31', 1), '2032-01-01');
    assert.equal(addDays('2032-02-28', 1), '2032-02-29');
    assert.equal(addDays('2031-03-01', -1), '2031-02-28');
  });
});
