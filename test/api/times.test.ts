/**
 * Time on site, /api/times.php, on every database: arrival and departure taps (the phone's time
 * within its bounds), several intervals a day, intervals entered and corrected by hand with a
 * reason (the earlier times kept), overlaps, who may correct what, visibility, the list and its
 * total, the Idempotency-Key, and the intervals a report shows and takes when it is finalized.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fromDbDateTime, toDbDateTime } from '../../src/db/dialect.js';
import { type TimeInterval, type TimeList, UNDO_SECONDS } from '../../src/modules/times/times.schemas.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient, type Who } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

const URL = '/api/times.php';
const now = () => Math.floor(Date.now() / 1000);
const HOUR = 3600;
const DAY = 86_400;

for (const dialect of testDialects()) {
  describe(`time on site [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    const { caller, api } = testClient(() => ctx);

    const tap = (action: 'arrive' | 'leave', who: Caller, orderId: number, at?: number, key?: string, type = 'commande') =>
      api(
        'POST',
        `${URL}?action=${action}`,
        who,
        { element_type: type, fk_element: orderId, ...(at === undefined ? {} : { at }) },
        { key },
      );
    async function arrive(who: Caller, orderId: number, at?: number): Promise<TimeInterval> {
      const res = await tap('arrive', who, orderId, at);
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    }
    async function leave(who: Caller, orderId: number, at?: number): Promise<TimeInterval> {
      const res = await tap('leave', who, orderId, at);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }
    const addUrl = `${URL}?action=add`;
    async function add(
      who: Caller,
      orderId: number,
      arrival: number,
      departure: number,
      reason = 'Ankunft vergessen',
    ): Promise<TimeInterval> {
      const res = await api('POST', addUrl, who, { element_type: 'commande', fk_element: orderId, arrival, departure, reason });
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    }
    const correct = (who: Who, id: number, body: Record<string, unknown>, key?: string) =>
      api('POST', `${URL}?id=${id}`, who, body, { key });
    async function list(who: Caller, orderId: number, query = ''): Promise<TimeList> {
      const res = await api('GET', `${URL}?element_type=commande&fk_element=${orderId}${query}`, who);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }
    async function ofReport(who: Caller, reportId: number): Promise<TimeList> {
      const res = await api('GET', `${URL}?bericht_id=${reportId}`, who);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    /** The rows of `bericht_time` at an order, by id. */
    const rows = (orderId: number, type = 'commande') =>
      ctx.handle.db
        .selectFrom('bericht_time')
        .selectAll()
        .where('element_type', '=', type)
        .where('fk_element', '=', orderId)
        .orderBy('rowid')
        .execute();
    const row = (id: number) => ctx.handle.db.selectFrom('bericht_time').selectAll().where('rowid', '=', id).executeTakeFirstOrThrow();
    const seconds = (value: unknown) => fromDbDateTime(value as string | Date | null);

    /** A technician and an order of theirs. */
    async function setup() {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      return { me, order };
    }
    /** Another technician named on the order (as its validator), so seeing it. */
    async function colleagueOn(orderId: number): Promise<Caller> {
      const colleague = await caller();
      await ctx.handle.db.updateTable('commande').set({ fk_user_valid: colleague.id }).where('rowid', '=', orderId).execute();
      return colleague;
    }

    describe('taps', () => {
      test("arrive without `at` is the service's time, with `at` the phone's; leave closes it; the rows as stored", async () => {
        const { me, order } = await setup();
        const t0 = now();
        const res = await tap('arrive', me, order.id);
        assert.equal(res.statusCode, 201, res.body);
        const opened = res.json() as TimeInterval;
        assert.ok(opened.arrival >= t0 && opened.arrival <= now(), `arrival ${opened.arrival} is now`);
        assert.deepEqual(opened, {
          id: opened.id,
          element_type: 'commande',
          fk_element: order.id,
          fk_user: me.id,
          user_name: 'Test Nutzer',
          fk_bericht: null,
          arrival: opened.arrival,
          departure: null,
          seconds: null,
          arrival_tapped: opened.arrival,
          departure_tapped: null,
          manual: false,
          corrections: [],
        });
        const stored = await row(opened.id);
        assert.deepEqual(
          [
            Number(stored.entity),
            stored.element_type,
            Number(stored.fk_element),
            Number(stored.fk_user),
            stored.fk_bericht,
            seconds(stored.arrival),
            stored.departure,
            seconds(stored.arrival_tapped),
            stored.departure_tapped,
            stored.corrections,
          ],
          [ctx.config.entity, 'commande', order.id, me.id, null, opened.arrival, null, opened.arrival, null, null],
        );
        const closed = await leave(me, order.id);
        assert.equal(closed.id, opened.id);
        assert.ok(closed.departure! >= opened.arrival && closed.departure! <= now());
        assert.deepEqual([closed.seconds, closed.departure_tapped], [closed.departure! - closed.arrival, closed.departure]);
        assert.deepEqual(
          [seconds((await row(opened.id)).departure), seconds((await row(opened.id)).departure_tapped)],
          [closed.departure, closed.departure],
        );

        // With the phone's times (tapped offline an hour ago).
        const other = await ctx.make.order({ author: me.id });
        const at = now() - HOUR;
        const phone = await arrive(me, other.id, at);
        assert.deepEqual([phone.arrival, phone.arrival_tapped], [at, at]);
        const left = await leave(me, other.id, at + 1800);
        assert.deepEqual([left.departure, left.departure_tapped, left.seconds], [at + 1800, at + 1800, 1800]);
        assert.equal((await rows(other.id)).length, 1);
      });

      test('at invoices and proposals too', async () => {
        const me = await caller();
        const invoice = await ctx.make.invoice({ author: me.id });
        const proposal = await ctx.make.proposal({ author: me.id });
        for (const [type, id] of [
          ['facture', invoice.id],
          ['propal', proposal.id],
        ] as const) {
          const res = await tap('arrive', me, id, undefined, undefined, type);
          assert.equal(res.statusCode, 201, res.body);
          assert.equal(res.json().element_type, type);
          assert.equal((await rows(id, type)).length, 1);
        }
      });

      test('arrive twice is 409 TIME_ALREADY_OPEN; leave without arrival 409 TIME_NOT_OPEN; leave before the arrival 400; nothing changes', async () => {
        const { me, order } = await setup();
        assertError(await tap('leave', me, order.id), 409, 'TIME_NOT_OPEN');
        assert.equal((await rows(order.id)).length, 0);
        const at = now() - 2 * HOUR;
        const opened = await arrive(me, order.id, at);
        const before = await rows(order.id);
        const twice = assertError(await tap('arrive', me, order.id), 409, 'TIME_ALREADY_OPEN');
        assert.deepEqual(twice.details, { id: opened.id, arrival: at });
        assertError(await tap('leave', me, order.id, at - 60), 400, 'VALIDATION_FAILED');
        assert.deepEqual(await rows(order.id), before);
        await leave(me, order.id, at + 60);
        assertError(await tap('leave', me, order.id), 409, 'TIME_NOT_OPEN');
        // Leaving at the moment of arrival is an interval of 0 seconds.
        const again = await arrive(me, order.id);
        const zero = await leave(me, order.id, again.arrival);
        assert.equal(zero.seconds, 0);
      });

      test('`at`: up to 5 minutes ahead and 30 days back; 10 minutes ahead, 31 days back, not an integer: 400', async () => {
        const { me, order } = await setup();
        for (const bad of [now() + 10 * 60, now() - 31 * DAY, 1.5, now() + 0.5, -1, '1700000000', null, 4_102_444_801]) {
          for (const action of ['arrive', 'leave'] as const) {
            const res = await api('POST', `${URL}?action=${action}`, me, { element_type: 'commande', fk_element: order.id, at: bad });
            const body = assertError(res, 400, 'VALIDATION_FAILED');
            assert.ok(
              (body.details as Array<{ field: string }>).some((d) => d.field === 'body.at'),
              res.body,
            );
          }
        }
        assert.equal((await rows(order.id)).length, 0);
        const back = now() - 29 * DAY;
        assert.equal((await arrive(me, order.id, back)).arrival, back);
        const ahead = now() + 4 * 60;
        // 29 days later than the arrival is more than a day: the departure is refused as too long.
        assertError(await tap('leave', me, order.id, ahead), 400, 'VALIDATION_FAILED');
        assert.equal(
          (await correct(me, (await rows(order.id))[0]!.rowid, { departure: back + HOUR, reason: 'Abfahrt vergessen' })).statusCode,
          200,
        );
        // A correction's times lie within the same window: 1970 or a year back is refused, naming the field.
        for (const [fields, field] of [
          [{ arrival: 0 }, 'body.arrival'],
          [{ arrival: back - 365 * DAY }, 'body.arrival'],
          [{ departure: HOUR }, 'body.departure'],
        ] as const) {
          const refused = assertError(
            await correct(me, (await rows(order.id))[0]!.rowid, { ...fields, reason: 'Tippfehler' }),
            400,
            'VALIDATION_FAILED',
          );
          assert.deepEqual(
            (refused.details as Array<{ field: string }>).map((d) => d.field),
            [field],
            JSON.stringify(fields),
          );
          assert.match(String(refused.error), /liegt mehr als 30 Tage zurück/);
        }
        const other = await ctx.make.order({ author: me.id });
        assert.equal((await arrive(me, other.id, ahead)).arrival, ahead);
      });

      test('unknown fields, a missing object, and unknown actions are 400', async () => {
        const { me, order } = await setup();
        for (const body of [
          { element_type: 'commande', fk_element: order.id, at: now(), user: 1 },
          { element_type: 'commande' },
          { fk_element: order.id },
          { element_type: 'bericht', fk_element: order.id },
          { element_type: 'commande', fk_element: '1' },
        ]) {
          assertError(await api('POST', `${URL}?action=arrive`, me, body), 400, 'VALIDATION_FAILED');
        }
        assertError(await api('POST', `${URL}?action=fly`, me, { element_type: 'commande', fk_element: order.id }), 400, 'ACTION_UNKNOWN');
        assertError(await api('POST', URL, me, { reason: 'x' }), 400, 'VALIDATION_FAILED');
        assert.equal((await rows(order.id)).length, 0);
      });
    });

    describe('the list', () => {
      test('several intervals a day by arrival; total_seconds sums the closed ones; open is the caller’s; paging keeps the totals', async () => {
        const { me, order } = await setup();
        const colleague = await colleagueOn(order.id);
        const t = now();
        const a = await arrive(me, order.id, t - 5 * HOUR);
        await leave(me, order.id, t - 4 * HOUR);
        const b = await arrive(me, order.id, t - 3 * HOUR);
        await leave(me, order.id, t - 3 * HOUR + 1800);
        const c = await arrive(colleague, order.id, t - 2 * HOUR);
        await leave(colleague, order.id, t - 2 * HOUR + 900);
        const mine = await arrive(me, order.id, t - HOUR);
        const theirs = await arrive(colleague, order.id, t - 600);
        // Colleagues may be on site at the same time.
        const manual = await add(colleague, order.id, t - 6 * HOUR, t - 5 * HOUR - 1800);

        const seen = await list(me, order.id);
        assert.deepEqual(
          seen.items.map((i) => i.id),
          [manual.id, a.id, b.id, c.id, mine.id, theirs.id],
        );
        assert.equal(seen.total, 6);
        assert.equal(seen.total_seconds, 1800 + HOUR + 1800 + 900);
        assert.deepEqual(seen.open, { ...mine });
        assert.deepEqual(
          seen.items.map((i) => [i.fk_user, i.seconds]),
          [
            [colleague.id, 1800],
            [me.id, HOUR],
            [me.id, 1800],
            [colleague.id, 900],
            [me.id, null],
            [colleague.id, null],
          ],
        );
        assert.equal((await list(colleague, order.id)).open!.id, theirs.id);
        const paged = await list(me, order.id, '&limit=2&offset=1');
        assert.deepEqual(
          paged.items.map((i) => i.id),
          [a.id, b.id],
        );
        assert.deepEqual([paged.total, paged.total_seconds, paged.open?.id], [6, seen.total_seconds, mine.id]);
        // Another order's list is its own.
        const other = await ctx.make.order({ author: me.id });
        assert.deepEqual(await list(me, other.id), { items: [], total: 0, total_seconds: 0, open: null });
      });
    });

    describe('by hand', () => {
      test('an interval entered by hand: reason required, departure not before arrival, at most 24 hours, not in the future, at most 30 days back', async () => {
        const { me, order } = await setup();
        const t = now() - 2 * DAY;
        const body = (fields: Record<string, unknown>) => ({
          element_type: 'commande',
          fk_element: order.id,
          arrival: t,
          departure: t + HOUR,
          reason: 'vergessen',
          ...fields,
        });
        const refusals: Array<[Record<string, unknown>, string]> = [
          [{ reason: undefined }, 'body.reason'],
          [{ reason: '' }, 'body.reason'],
          [{ reason: '    ' }, 'body.reason'],
          [{ reason: 'r'.repeat(501) }, 'body.reason'],
          [{ reason: 5 }, 'body.reason'],
          [{ departure: t - 1 }, 'body.departure'],
          [{ departure: t + DAY + 1 }, 'body.departure'],
          [{ arrival: now() + HOUR, departure: now() + 2 * HOUR }, 'body.arrival'],
          [{ arrival: now() - 60, departure: now() + HOUR }, 'body.departure'],
          [{ arrival: 't', departure: t + HOUR }, 'body.arrival'],
          // A mistyped year: 1970, one year back, a day beyond the taps' 30 days.
          [{ arrival: 0, departure: HOUR }, 'body.arrival'],
          [{ arrival: 3 * HOUR, departure: 4 * HOUR }, 'body.arrival'],
          [{ arrival: t - 365 * DAY, departure: t - 365 * DAY + HOUR }, 'body.arrival'],
          [{ arrival: now() - 31 * DAY, departure: now() - 31 * DAY + HOUR }, 'body.arrival'],
          [{ departure: undefined }, 'body.departure'],
          [{ note: 'x' }, 'body.note'],
        ];
        for (const [fields, field] of refusals) {
          const res = await api('POST', addUrl, me, JSON.parse(JSON.stringify(body(fields))));
          const error = assertError(res, 400, 'VALIDATION_FAILED');
          assert.ok(
            (error.details as Array<{ field: string }>).some((d) => d.field === field),
            `${field}: ${res.body}`,
          );
        }
        assert.equal((await rows(order.id)).length, 0);

        const t0 = now();
        const manual = await add(me, order.id, t, t + DAY, '  Ankunft und Abfahrt vergessen ');
        assert.deepEqual(
          { ...manual, corrections: [] },
          {
            id: manual.id,
            element_type: 'commande',
            fk_element: order.id,
            fk_user: me.id,
            user_name: 'Test Nutzer',
            fk_bericht: null,
            arrival: t,
            departure: t + DAY,
            seconds: DAY,
            arrival_tapped: null,
            departure_tapped: null,
            manual: true,
            corrections: [],
          },
        );
        assert.equal(manual.corrections.length, 1);
        const [entry] = manual.corrections;
        assert.ok(entry!.at >= t0 && entry!.at <= now());
        assert.deepEqual(
          { ...entry, at: 0 },
          { at: 0, by: me.id, reason: 'Ankunft und Abfahrt vergessen', arrival: null, departure: null },
        );
        const stored = await row(manual.id);
        assert.deepEqual(
          [seconds(stored.arrival), seconds(stored.departure), stored.arrival_tapped, stored.departure_tapped],
          [t, t + DAY, null, null],
        );
        assert.deepEqual(JSON.parse(stored.corrections!), manual.corrections);
      });

      test('overlapping intervals of one technician are 409 TIME_OVERLAP; touching ones are taken; an open interval reaches to now', async () => {
        const { me, order } = await setup();
        const colleague = await colleagueOn(order.id);
        const t = now() - 3 * DAY;
        const first = await add(me, order.id, t, t + HOUR);
        const overlaps: Array<[number, number]> = [
          [t + 1800, t + 2 * HOUR],
          [t - 1800, t + 1],
          [t + 60, t + 120],
          [t - HOUR, t + 2 * HOUR],
          [t, t + HOUR],
        ];
        for (const [arrival, departure] of overlaps) {
          const res = await api('POST', addUrl, me, { element_type: 'commande', fk_element: order.id, arrival, departure, reason: 'x' });
          const body = assertError(res, 409, 'TIME_OVERLAP');
          assert.deepEqual(body.details, { id: first.id, arrival: t, departure: t + HOUR });
        }
        assert.equal((await rows(order.id)).length, 1);
        await add(me, order.id, t + HOUR, t + 2 * HOUR);
        await add(me, order.id, t - HOUR, t);
        // The colleague's time is theirs.
        await add(colleague, order.id, t, t + HOUR);
        // An arrival before an earlier interval's end would overlap it.
        const late = await add(me, order.id, now() - 2 * HOUR, now() - HOUR);
        assertError(await tap('arrive', me, order.id, now() - 90 * 60), 409, 'TIME_OVERLAP');
        assertError(await tap('arrive', me, order.id, now() - 3 * HOUR), 409, 'TIME_OVERLAP');
        assert.equal((await rows(order.id)).length, 5);
        const open = await arrive(me, order.id, now() - 600);
        // While on site, no interval may be entered from then on.
        const clash = assertError(
          await api('POST', addUrl, me, {
            element_type: 'commande',
            fk_element: order.id,
            arrival: now() - 300,
            departure: now() - 200,
            reason: 'x',
          }),
          409,
          'TIME_OVERLAP',
        );
        assert.deepEqual(clash.details, { id: open.id, arrival: open.arrival, departure: null });
        assert.equal(late.seconds, HOUR);
        assert.equal((await rows(order.id)).length, 6);
      });

      test('a correction needs a reason, keeps the times before it, and the first tapped times stay', async () => {
        const { me, order } = await setup();
        const t = now() - 5 * HOUR;
        const tapped = await arrive(me, order.id, t);
        await leave(me, order.id, t + HOUR);
        for (const body of [
          { arrival: t - 600 },
          { arrival: t - 600, reason: '' },
          { arrival: t - 600, reason: '  ' },
          { reason: 'r'.repeat(501) },
          { arrival: t - 600, reason: 'x', fk_user: 1 },
        ]) {
          assertError(await correct(me, tapped.id, body), 400, 'VALIDATION_FAILED');
        }
        const untouched = await row(tapped.id);
        const t0 = now();
        const res = await correct(me, tapped.id, { arrival: t - 600, reason: ' Ankunft zu spät getippt ' });
        assert.equal(res.statusCode, 200, res.body);
        const once = res.json() as TimeInterval;
        assert.deepEqual(
          [once.arrival, once.departure, once.seconds, once.arrival_tapped, once.departure_tapped, once.manual],
          [t - 600, t + HOUR, HOUR + 600, t, t + HOUR, false],
        );
        assert.equal(once.corrections.length, 1);
        assert.ok(once.corrections[0]!.at >= t0 && once.corrections[0]!.at <= now());
        assert.deepEqual(
          { ...once.corrections[0], at: 0 },
          { at: 0, by: me.id, reason: 'Ankunft zu spät getippt', arrival: t, departure: t + HOUR },
        );
        const twice = (await correct(me, tapped.id, { departure: t + 2 * HOUR, reason: 'Abfahrt vergessen' })).json() as TimeInterval;
        assert.deepEqual(
          [twice.arrival, twice.departure, twice.arrival_tapped, twice.departure_tapped],
          [t - 600, t + 2 * HOUR, t, t + HOUR],
        );
        assert.deepEqual(
          twice.corrections.map((c) => [c.reason, c.arrival, c.departure]),
          [
            ['Ankunft zu spät getippt', t, t + HOUR],
            ['Abfahrt vergessen', t - 600, t + HOUR],
          ],
        );
        const stored = await row(tapped.id);
        assert.deepEqual(
          [seconds(stored.arrival), seconds(stored.departure), seconds(stored.arrival_tapped), seconds(stored.departure_tapped)],
          [t - 600, t + 2 * HOUR, t, t + HOUR],
        );
        assert.deepEqual(JSON.parse(stored.corrections!), twice.corrections);
        assert.notDeepEqual(stored, untouched);

        // A correction is held to the same rules as an entry.
        const before = await row(tapped.id);
        assertError(await correct(me, tapped.id, { departure: t - 3600, reason: 'x' }), 400, 'VALIDATION_FAILED');
        assertError(await correct(me, tapped.id, { departure: t - 600 + DAY + 1, reason: 'x' }), 400, 'VALIDATION_FAILED');
        assertError(await correct(me, tapped.id, { departure: now() + HOUR, reason: 'x' }), 400, 'VALIDATION_FAILED');
        const neighbour = await add(me, order.id, t + 3 * HOUR, t + 4 * HOUR);
        assertError(await correct(me, tapped.id, { departure: t + 3 * HOUR + 1, reason: 'x' }), 409, 'TIME_OVERLAP');
        assertError(await correct(me, neighbour.id, { arrival: t + 2 * HOUR - 1, reason: 'x' }), 409, 'TIME_OVERLAP');
        assert.deepEqual(await row(tapped.id), before);
        // An open interval is closed by a correction.
        // One moment for both (a second may pass between two calls of now()).
        const moment = now();
        const open = await arrive(me, order.id, moment - 600);
        const closed = (await correct(me, open.id, { departure: moment - 300, reason: 'Abfahrt vergessen' })).json() as TimeInterval;
        assert.deepEqual([closed.seconds, closed.departure_tapped, closed.corrections[0]!.departure], [300, null, null]);
        assertError(await tap('leave', me, order.id), 409, 'TIME_NOT_OPEN');
      });

      test("another technician's interval is 404 TIME_NOT_FOUND unless the caller is an admin who sees the order; unknown ids 404", async () => {
        const { me, order } = await setup();
        const colleague = await colleagueOn(order.id);
        const stranger = await caller();
        const interval = await add(me, order.id, now() - 3 * HOUR, now() - 2 * HOUR);
        const before = await row(interval.id);
        assertError(await correct(colleague, interval.id, { arrival: now() - 4 * HOUR, reason: 'Kollege' }), 404, 'TIME_NOT_FOUND');
        assertError(await correct(stranger, interval.id, { arrival: now() - 4 * HOUR, reason: 'Fremd' }), 404, 'TIME_NOT_FOUND');
        assertError(await correct(me, 2147483647, { arrival: now() - 4 * HOUR, reason: 'x' }), 404, 'TIME_NOT_FOUND');
        // The module's admin right, but not named on the order: it does not see it.
        const manager = await caller(['read', 'write', 'admin']);
        assertError(await correct(manager, interval.id, { arrival: now() - 4 * HOUR, reason: 'Verwaltung' }), 404, 'TIME_NOT_FOUND');
        assert.deepEqual(await row(interval.id), before);
        // Named on the order, the admin right may.
        await ctx.handle.db.updateTable('commande').set({ fk_user_modif: manager.id }).where('rowid', '=', order.id).execute();
        const byManager = await correct(manager, interval.id, { arrival: now() - 4 * HOUR, reason: 'Verwaltung' });
        assert.equal(byManager.statusCode, 200, byManager.body);
        assert.equal(byManager.json().fk_user, me.id);
        assert.equal(byManager.json().corrections.at(-1).by, manager.id);
        // Dolibarr's admin flag sees every order.
        const admin = await caller(['read', 'write'], true);
        const byAdmin = await correct(admin, interval.id, { departure: now() - HOUR, reason: 'Chef' });
        assert.equal(byAdmin.statusCode, 200, byAdmin.body);
        assert.deepEqual(
          byAdmin.json().corrections.map((c: { by: number }) => c.by),
          [me.id, manager.id, admin.id],
        );
        // The overlap is checked against the owner's intervals, not the admin's.
        await add(me, order.id, now() - 10 * HOUR, now() - 9 * HOUR);
        assertError(await correct(admin, interval.id, { arrival: now() - 9 * HOUR - 60, reason: 'Chef' }), 409, 'TIME_OVERLAP');
      });
    });

    describe('rights and visibility', () => {
      test('an order the caller does not see is 404 on every call; no token 401; read-only may list, not write', async () => {
        const { me, order } = await setup();
        const interval = await add(me, order.id, now() - 3 * HOUR, now() - 2 * HOUR);
        const report = await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'Wartung' });
        assert.equal(report.statusCode, 201, report.body);
        const stranger = await caller();
        const before = await rows(order.id);
        assertError(await api('GET', `${URL}?element_type=commande&fk_element=${order.id}`, stranger), 404, 'ORDER_NOT_FOUND');
        assertError(await api('GET', `${URL}?bericht_id=${report.json().id}`, stranger), 404, 'REPORT_NOT_FOUND');
        assertError(await tap('arrive', stranger, order.id), 404, 'ORDER_NOT_FOUND');
        assertError(await tap('leave', stranger, order.id), 404, 'ORDER_NOT_FOUND');
        assertError(
          await api('POST', addUrl, stranger, {
            element_type: 'commande',
            fk_element: order.id,
            arrival: now() - HOUR,
            departure: now() - 60,
            reason: 'x',
          }),
          404,
          'ORDER_NOT_FOUND',
        );
        assertError(await correct(stranger, interval.id, { reason: 'x' }), 404, 'TIME_NOT_FOUND');
        // Unknown objects and reports answer the same.
        assertError(await tap('arrive', me, 2147483647), 404, 'ORDER_NOT_FOUND');
        assertError(await tap('arrive', me, 2147483647, undefined, undefined, 'facture'), 404, 'OBJECT_NOT_FOUND');
        assertError(await api('GET', `${URL}?element_type=propal&fk_element=2147483647`, me), 404, 'OBJECT_NOT_FOUND');
        assertError(await api('GET', `${URL}?bericht_id=2147483647`, me), 404, 'REPORT_NOT_FOUND');
        // An invoice of someone else, by an id that exists.
        const foreign = await ctx.make.invoice({ author: stranger.id });
        assertError(await tap('arrive', me, foreign.id, undefined, undefined, 'facture'), 404, 'OBJECT_NOT_FOUND');
        assert.equal((await rows(foreign.id, 'facture')).length, 0);
        // Missing or malformed query.
        assertError(await api('GET', URL, me), 400, 'VALIDATION_FAILED');
        assertError(await api('GET', `${URL}?element_type=commande`, me), 400, 'VALIDATION_FAILED');
        assertError(await api('GET', `${URL}?element_type=bericht&fk_element=${order.id}`, me), 400, 'VALIDATION_FAILED');
        assertError(await api('GET', `${URL}?element_type=commande&fk_element=abc`, me), 400, 'VALIDATION_FAILED');
        // No token; read-only.
        assertError(await api('GET', `${URL}?element_type=commande&fk_element=${order.id}`, null), 401, 'AUTH_TOKEN_MISSING');
        assertError(
          await api('POST', `${URL}?action=arrive`, null, { element_type: 'commande', fk_element: order.id }),
          401,
          'AUTH_TOKEN_MISSING',
        );
        assertError(await correct({ id: 0, token: 'kein-token' }, interval.id, { reason: 'x' }), 401, 'AUTH_TOKEN_INVALID');
        const reader = await caller(['read']);
        await ctx.handle.db.updateTable('commande').set({ fk_user_valid: reader.id }).where('rowid', '=', order.id).execute();
        assert.equal((await list(reader, order.id)).total, 1);
        assertError(await tap('arrive', reader, order.id), 403, 'AUTH_RIGHT_MISSING');
        assertError(await correct(reader, interval.id, { reason: 'x' }), 403, 'AUTH_RIGHT_MISSING');
        assert.deepEqual(await rows(order.id), before);
      });
    });

    describe('Idempotency-Key', () => {
      test('a repeated arrive answers the same interval and adds no row; leave, add and a correction likewise', async () => {
        const { me, order } = await setup();
        const key = randomUUID();
        const first = await tap('arrive', me, order.id, now() - HOUR, key);
        assert.equal(first.statusCode, 201, first.body);
        const again = await tap('arrive', me, order.id, now() - 600, key);
        assert.equal(again.statusCode, 201, again.body);
        assert.deepEqual(again.json(), first.json());
        assert.equal((await rows(order.id)).length, 1);

        const leaveKey = randomUUID();
        const left = await tap('leave', me, order.id, now() - 60, leaveKey);
        assert.equal(left.statusCode, 200, left.body);
        const leftAgain = await tap('leave', me, order.id, now(), leaveKey);
        assert.equal(leftAgain.statusCode, 200, leftAgain.body);
        assert.deepEqual(leftAgain.json(), left.json());
        // The first arrive's answer again, even now that the interval is closed; still one row.
        assert.deepEqual((await tap('arrive', me, order.id, now() - 600, key)).json(), first.json());
        assert.equal((await rows(order.id)).length, 1);

        const addKey = randomUUID();
        const body = {
          element_type: 'commande',
          fk_element: order.id,
          arrival: now() - 5 * HOUR,
          departure: now() - 4 * HOUR,
          reason: 'vergessen',
        };
        const added = await api('POST', addUrl, me, body, { key: addKey });
        assert.equal(added.statusCode, 201, added.body);
        assert.deepEqual((await api('POST', addUrl, me, body, { key: addKey })).json(), added.json());
        assert.equal((await rows(order.id)).length, 2);

        const fixKey = randomUUID();
        const fixed = await correct(me, added.json().id, { arrival: now() - 5 * HOUR - 600, reason: 'früher' }, fixKey);
        assert.equal(fixed.statusCode, 200, fixed.body);
        const fixedAgain = await correct(me, added.json().id, { arrival: now() - 6 * HOUR, reason: 'noch früher' }, fixKey);
        assert.deepEqual(fixedAgain.json(), fixed.json());
        assert.equal(JSON.parse((await row(added.json().id)).corrections!).length, 2);
        assert.equal(seconds((await row(added.json().id)).arrival), fixed.json().arrival);
      });

      test('a key used on another object or for another operation is 409 IDEMPOTENCY_KEY_REUSED and changes nothing; a refused request keeps no key', async () => {
        const { me, order } = await setup();
        const other = await ctx.make.order({ author: me.id });
        const key = randomUUID();
        assert.equal((await tap('arrive', me, order.id, undefined, key)).statusCode, 201);
        assertError(await tap('arrive', me, other.id, undefined, key), 409, 'IDEMPOTENCY_KEY_REUSED');
        assertError(await tap('leave', me, order.id, undefined, key), 409, 'IDEMPOTENCY_KEY_REUSED');
        assertError(
          await api(
            'POST',
            addUrl,
            me,
            { element_type: 'commande', fk_element: other.id, arrival: now() - 2 * HOUR, departure: now() - HOUR, reason: 'x' },
            { key },
          ),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assertError(await correct(me, (await rows(order.id))[0]!.rowid, { reason: 'x' }, key), 409, 'IDEMPOTENCY_KEY_REUSED');
        assert.equal((await rows(other.id)).length, 0);
        assert.equal((await rows(order.id))[0]!.departure, null);
        assert.equal((await rows(order.id))[0]!.corrections, null);
        // Refused (no interval open there): the key stays free.
        const retry = randomUUID();
        assertError(await tap('leave', me, other.id, undefined, retry), 409, 'TIME_NOT_OPEN');
        assertError(await tap('arrive', me, other.id, now() + HOUR, retry), 400, 'VALIDATION_FAILED');
        assert.equal((await tap('arrive', me, other.id, undefined, retry)).statusCode, 201);
        assert.equal((await rows(other.id)).length, 1);
        assertError(await tap('arrive', me, order.id, undefined, 'mit leerzeichen'), 400, 'VALIDATION_FAILED');
      });
    });

    describe('reports', () => {
      async function draft(who: Caller, orderId: number): Promise<{ id: number; ref: string }> {
        const res = await api('POST', '/api/reports.php?action=create', who, { fk_element: orderId, title: 'Wartung', odt_template: null });
        assert.equal(res.statusCode, 201, res.body);
        const page = await api('POST', `/api/pages.php?action=add&bericht_id=${res.json().id}`, who, {
          title: 'Arbeiten',
          note: 'Heizung gewartet',
        });
        assert.equal(page.statusCode, 201, page.body);
        return res.json();
      }

      test("a draft shows the order's closed intervals not yet taken; one taken by a report is 409 TIME_REPORTED", async () => {
        const { me, order } = await setup();
        const colleague = await colleagueOn(order.id);
        const report = await draft(me, order.id);
        const a = await add(me, order.id, now() - 5 * HOUR, now() - 4 * HOUR);
        const b = await add(colleague, order.id, now() - 3 * HOUR, now() - 2 * HOUR - 1800);
        await arrive(me, order.id, now() - 600);
        const shown = await ofReport(me, report.id);
        assert.deepEqual(
          shown.items.map((i) => i.id),
          [a.id, b.id],
        );
        assert.deepEqual([shown.total, shown.total_seconds, shown.open], [2, HOUR + 1800, null]);
        // Another order's intervals are not this report's.
        const other = await ctx.make.order({ author: me.id });
        await add(me, other.id, now() - 5 * HOUR, now() - 4 * HOUR);
        assert.equal((await ofReport(me, report.id)).total, 2);

        // An interval a final report took no longer changes, and is no longer the draft's.
        const final = await draft(me, order.id);
        await ctx.handle.db.updateTable('bericht').set({ status: 1 }).where('rowid', '=', final.id).execute();
        await ctx.handle.db.updateTable('bericht_time').set({ fk_bericht: final.id }).where('rowid', '=', a.id).execute();
        const before = await row(a.id);
        const refused = assertError(await correct(me, a.id, { arrival: now() - 6 * HOUR, reason: 'x' }), 409, 'TIME_REPORTED');
        assert.deepEqual(refused.details, { fk_bericht: final.id });
        const admin = await caller(['read', 'write'], true);
        assertError(await correct(admin, a.id, { reason: 'Chef' }), 409, 'TIME_REPORTED');
        assert.deepEqual(await row(a.id), before);
        assert.deepEqual(
          (await ofReport(me, report.id)).items.map((i) => i.id),
          [b.id],
        );
      });

      test('two arrivals at once (two phones, two keys) open one interval: one 201, one 409 TIME_ALREADY_OPEN', async () => {
        const { me, order } = await setup();
        for (let round = 0; round < 5; round++) {
          const answers = await Promise.all([
            tap('arrive', me, order.id, undefined, `a-${round}`),
            tap('arrive', me, order.id, undefined, `b-${round}`),
          ]);
          assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 409], answers.map((r) => r.body).join(' | '));
          assert.equal((await rows(order.id)).filter((r) => r.departure === null).length, 1);
          await leave(me, order.id);
        }
      });

      test("a report's creator who no longer sees its order reads only the intervals the report took, not the order's others", async () => {
        const { me, order } = await setup();
        const report = await api('POST', '/api/reports.php?action=create', me, {
          fk_element: order.id,
          title: 'Wartung',
          odt_template: null,
        });
        assert.equal(report.statusCode, 201, report.body);
        const colleague = await colleagueOn(order.id);
        await add(colleague, order.id, now() - 3 * HOUR, now() - 2 * HOUR);
        assert.equal((await ofReport(me, report.json().id)).items.length, 1, 'seeing the order: the closed interval not yet taken');
        // The order no longer names the creator: the report stays theirs, the order's times do not.
        await ctx.handle.db.updateTable('commande').set({ fk_user_author: null }).where('rowid', '=', order.id).execute();
        assert.deepEqual((await ofReport(me, report.json().id)).items, []);
      });

      test('finalizing takes the closed intervals: fk_bericht is the report, they no longer change, a later draft does not show them, a new version does', async () => {
        const { me, order } = await setup();
        const a = await add(me, order.id, now() - 5 * HOUR, now() - 4 * HOUR);
        const b = await arrive(me, order.id, now() - HOUR);
        const report = await draft(me, order.id);
        const done = await api('POST', `/api/reports.php?id=${report.id}&action=finalize`, me);
        assert.equal(done.statusCode, 200, done.body);
        assert.equal(Number((await row(a.id)).fk_bericht), report.id, 'the closed interval is taken by the report');
        assert.equal((await row(b.id)).fk_bericht, null, 'the open interval is not taken');
        assertError(await correct(me, a.id, { arrival: now() - 6 * HOUR, reason: 'zu spät' }), 409, 'TIME_REPORTED');
        assert.deepEqual(
          (await ofReport(me, report.id)).items.map((i) => [i.id, i.fk_bericht]),
          [[a.id, report.id]],
        );
        // Left after the report: the interval is for the next one.
        await leave(me, order.id);
        const next = await draft(me, order.id);
        assert.deepEqual(
          (await ofReport(me, next.id)).items.map((i) => i.id),
          [b.id],
        );
        assert.deepEqual(
          (await ofReport(me, report.id)).items.map((i) => i.id),
          [a.id],
        );
        const version = await api('POST', `/api/reports.php?id=${report.id}&action=new_version`, me);
        assert.equal(version.statusCode, 201, version.body);
        assert.deepEqual(
          (await ofReport(me, version.json().id)).items.map((i) => i.id),
          [a.id, b.id],
        );
      });
    });

    describe('a tap taken back', () => {
      const undo = (who: Who, id: number | string, body: unknown, key?: string) =>
        api('POST', `${URL}?action=undo&id=${id}`, who, body, { key });

      test('an arrival goes, a departure opens the interval again; a repeat with its key answers the same; each only once', async () => {
        const { me, order } = await setup();
        const first = await arrive(me, order.id);
        const key = randomUUID();
        const gone = await undo(me, first.id, { tap: 'arrive' }, key);
        assert.equal(gone.statusCode, 200, gone.body);
        assert.deepEqual(gone.json(), { id: first.id, tap: 'arrive', interval: null });
        assert.equal((await rows(order.id)).length, 0);
        const again = await undo(me, first.id, { tap: 'arrive' }, key);
        assert.equal(again.statusCode, 200, again.body);
        assert.deepEqual(again.json(), gone.json(), 'a repeat after a lost answer gets the first one');
        assertError(await undo(me, first.id, { tap: 'arrive' }), 404, 'TIME_NOT_FOUND');

        const visit = await arrive(me, order.id, now() - 600);
        await leave(me, order.id);
        const reopened = await undo(me, visit.id, { tap: 'leave' });
        assert.equal(reopened.statusCode, 200, reopened.body);
        const body = reopened.json() as { interval: TimeInterval };
        assert.equal(body.interval.departure, null);
        assert.equal(body.interval.arrival, visit.arrival);
        const stored = await row(visit.id);
        assert.equal(stored.departure, null);
        assert.equal(stored.departure_tapped, null);
        assert.equal((await list(me, order.id)).open?.id, visit.id, 'on site again');
        assertError(await undo(me, visit.id, { tap: 'leave' }), 409, 'TIME_UNDO_NOT_POSSIBLE');
        // Then leaving again works as before.
        assert.notEqual((await leave(me, order.id)).departure, null);
        // An arrival whose interval is closed: first the departure.
        assertError(await undo(me, visit.id, { tap: 'arrive' }), 409, 'TIME_UNDO_NOT_POSSIBLE');
      });

      test(`only within ${UNDO_SECONDS} s, only taps, only one's own, not once reported; a departure not while another interval is open`, async () => {
        const { me, order } = await setup();
        const old = await arrive(me, order.id, now() - 3600);
        await ctx.handle.db
          .updateTable('bericht_time')
          .set({ datec: toDbDateTime(now() - UNDO_SECONDS - 5) })
          .where('rowid', '=', old.id)
          .execute();
        const late = assertError(await undo(me, old.id, { tap: 'arrive' }), 409, 'TIME_UNDO_NOT_POSSIBLE');
        assert.match(String(late.error), /Minuten nach dem Tippen/);
        await leave(me, order.id, now() - 1800);

        const byHand = await add(me, order.id, now() - 7200, now() - 5400);
        assertError(await undo(me, byHand.id, { tap: 'leave' }), 409, 'TIME_UNDO_NOT_POSSIBLE');

        const colleague = await colleagueOn(order.id);
        const theirs = await arrive(colleague, order.id);
        assertError(await undo(me, theirs.id, { tap: 'arrive' }), 404, 'TIME_NOT_FOUND');
        assertError(await undo(me, 987_654_321, { tap: 'arrive' }), 404, 'TIME_NOT_FOUND');
        assert.equal((await rows(order.id)).length, 3, 'nothing of theirs went');

        const reported = await arrive(me, order.id, now() - 1200);
        await leave(me, order.id, now() - 900);
        await ctx.handle.db.updateTable('bericht_time').set({ fk_bericht: 1 }).where('rowid', '=', reported.id).execute();
        assertError(await undo(me, reported.id, { tap: 'leave' }), 409, 'TIME_REPORTED');

        const left = await arrive(me, order.id, now() - 600);
        await leave(me, order.id, now() - 300);
        await arrive(me, order.id);
        assertError(await undo(me, left.id, { tap: 'leave' }), 409, 'TIME_ALREADY_OPEN');
      });

      test('a body without the tap, an unknown tap, more fields, no or a bad id are 400 naming the field', async () => {
        const { me, order } = await setup();
        const open = await arrive(me, order.id);
        const cases: Array<[number | string, unknown, string]> = [
          [open.id, {}, 'body.tap'],
          [open.id, { tap: 'depart' }, 'body.tap'],
          [open.id, { tap: 'arrive', at: now() }, 'body.at'],
          [open.id, ['arrive'], 'body'],
          ['x', { tap: 'arrive' }, 'querystring.id'],
        ];
        for (const [id, body, field] of cases) {
          const error = assertError(await undo(me, id, body), 400, 'VALIDATION_FAILED');
          assert.ok(JSON.stringify(error.details).includes(field), `${field} in ${JSON.stringify(error)}`);
        }
        assertError(await api('POST', `${URL}?action=undo`, me, { tap: 'arrive' }), 400, 'VALIDATION_FAILED');
        assert.equal((await row(open.id)).departure, null, 'nothing changed');
        const reader = await caller(['read']);
        assertError(await undo(reader, open.id, { tap: 'arrive' }), 403, 'AUTH_RIGHT_MISSING');
      });
    });
  });
}
