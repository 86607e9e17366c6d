/**
 * The app's checklists and time on site, without a browser: numbers as typed on a phone, the
 * service's "alle übrigen OK" rule, answers and an admin's definitions laid over a report's page,
 * and taps, entries and corrections laid over an order's intervals (web/src/lib/reports/checklist.ts,
 * report-view.ts, time-view.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReportDetail, ReportPage, TimeInterval, TimeList } from '../../web/src/api/types.js';
import { becomesOk, countItems, fromServerItems, isDefect, parseDecimal, type ServerItem } from '../../web/src/lib/reports/checklist.js';
import type { CheckItemPayload, OutboxKind, OutboxRecord, PayloadOf, Ref } from '../../web/src/lib/outbox/records.js';
import { viewReport, type ViewContext } from '../../web/src/lib/reports/report-view.js';
import { viewTimes, withInterval } from '../../web/src/lib/time/time-view.js';

let clock = 0;
/** A record of `kind` as the outbox keeps it. */
function record<K extends OutboxKind>(kind: K, payload: PayloadOf<K>, extra: Partial<OutboxRecord> = {}): OutboxRecord<K> {
  clock++;
  return {
    id: `r${clock}`,
    kind,
    userId: 1,
    orderId: 10,
    orderRef: 'CO1',
    payload,
    createdAt: clock,
    attempts: 0,
    nextAttemptAt: 0,
    state: 'waiting',
    reportRef: 7,
    ...extra,
  } as OutboxRecord<K>;
}

function item(id: number, fields: Partial<ServerItem> = {}): ServerItem {
  return {
    id,
    label: `Punkt ${id}`,
    unit: null,
    lower: null,
    upper: null,
    state: 'open',
    value: null,
    note: null,
    photos: [],
    checked_at: null,
    ...fields,
  };
}

function checklistPage(id: number, items: ServerItem[]): ReportPage {
  const page = {
    id,
    fk_bericht: 7,
    page_order: 1,
    title: 'Prüfliste',
    note: null,
    rotation: 0,
    layout: 'checklist',
    source_path: null,
    source_path_2: null,
    url: null,
    thumb_url: null,
    url_2: null,
    thumb_url_2: null,
    signature: null,
  };
  return {
    ...page,
    checklist: items.map((i) => ({
      ...i,
      deviation: null,
      checked_by: null,
      photos: i.photos.map((p) => ({ ...p, source_path: `commande/CO1/${p.name}`, url: '', thumb_url: '' })),
    })),
  } as ReportPage;
}

const report = (pages: ReportPage[]) =>
  ({ id: 7, ref: 'BR1', title: 'Wartung', status: 'draft', pages, versions: [], page_count: pages.length }) as unknown as ReportDetail;

function context(known: Record<string, number> = {}): ViewContext {
  const id = (ref: Ref) => (typeof ref === 'number' ? ref : known[ref]);
  return { same: (a, b) => a === b || (id(a) !== undefined && id(a) === id(b)), templatePages: () => undefined, photo: () => undefined };
}

test('a number as typed on a phone: a decimal comma or a point, thousands marks, a sign; nothing else', () => {
  assert.equal(parseDecimal('6,8'), 6.8);
  assert.equal(parseDecimal('6.8'), 6.8);
  assert.equal(parseDecimal(' 1.234,5 '), 1234.5);
  assert.equal(parseDecimal('1,234.5'), 1234.5);
  assert.equal(parseDecimal('−0,5'), -0.5);
  assert.equal(parseDecimal(',5'), 0.5);
  assert.equal(parseDecimal('0,12345678'), 0.123457, 'kept to six places, as the service keeps it');
  assert.equal(parseDecimal(''), null);
  for (const bad of ['abc', '1,2,3', '1.2.3', '1e5', '1.23,4', '6,8 %']) assert.equal(parseDecimal(bad), undefined, bad);
});

test('"alle übrigen OK" leaves measurements without a value or outside their limits open, as the service does', () => {
  const items = fromServerItems([
    item(1),
    item(2, { unit: 'bar', lower: 1, upper: 2 }),
    item(3, { unit: '%', upper: 10, value: 12 }),
    item(4, { unit: '%', upper: 10, value: 6.8 }),
    item(5, { state: 'defect', note: 'undicht' }),
  ]);
  assert.deepEqual(items.map(becomesOk), [true, false, false, true, false]);
  assert.deepEqual(countItems(items), { total: 5, checked: 1, defects: 1, open: 4, deviations: 1 });
});

test('a value outside its limits is a defect unless OK with a reason: the app counts as the service and the PDF do; an answer waiting keeps the reason only while it holds', () => {
  const items = fromServerItems([
    item(1, { unit: '%', upper: 10, value: 11.2, state: 'ok', ok_reason: 'Kessel kalt' }),
    item(2, { unit: '%', upper: 10, value: 11.2, state: 'ok' }),
    item(3, { state: 'defect', note: 'undicht' }),
    item(4, { unit: '%', upper: 10, value: 6.8, state: 'ok' }),
  ]);
  assert.deepEqual(items.map(isDefect), [false, true, true, false]);
  assert.equal(countItems(items).defects, 2);
  const page = checklistPage(31, [item(1, { unit: '%', upper: 10 })]);
  const answer = (fields: Pick<CheckItemPayload, 'state' | 'value' | 'ok_reason'>, at: number) =>
    record('check-item', { page: 31, item: 1, label: 'Punkt 1', note: null, photos: [], checked_at: at, ...fields });
  const after = (records: OutboxRecord[]) => viewReport(7, report([page]), records, context())!.pages[0]!.checklist![0]!;
  const ok = after([answer({ state: 'ok', value: 11.2, ok_reason: 'Kessel kalt' }, 1)]);
  assert.deepEqual([ok.state, ok.okReason, isDefect(ok)], ['ok', 'Kessel kalt', false]);
  const within = after([answer({ state: 'ok', value: 11.2, ok_reason: 'Kessel kalt' }, 1), answer({ state: 'ok', value: 9 }, 2)]);
  assert.equal(within.okReason, null, 'within its limits the reason goes, as the service drops it');
});

test("answers waiting in the outbox lay over the service's checklist, in order; a template's copy starts unanswered", () => {
  const page = checklistPage(31, [item(1), item(2, { unit: '%', upper: 10 }), item(3), item(4, { unit: 'bar', lower: 1 })]);
  const records = [
    record('check-item', { page: 31, item: 1, label: 'Punkt 1', state: 'ok', note: null, photos: [], checked_at: 100 }),
    record('check-item', { page: 31, item: 2, label: 'Punkt 2', state: 'open', value: 6.8, note: null, photos: [], checked_at: 101 }),
    record('check-item', { page: 31, item: 2, label: 'Punkt 2', state: 'ok', value: 6.8, note: null, photos: [], checked_at: 102 }),
    record('check-item', {
      page: 31,
      item: 3,
      label: 'Punkt 3',
      state: 'defect',
      note: 'Dichtung',
      photos: [{ name: 'a.jpg' }],
      checked_at: 103,
    }),
    record('check-all', { page: 31, checked_at: 104 }),
    record(
      'check-item',
      { page: 31, item: 1, label: 'Punkt 1', state: 'na', note: null, photos: [], checked_at: 105 },
      { state: 'refused' },
    ),
  ];
  const view = viewReport(7, report([page]), records, context())!;
  const items = view.pages[0]!.checklist!;
  assert.deepEqual(
    items.map((i) => [i.state, i.value, i.pending]),
    [
      ['ok', null, true],
      ['ok', 6.8, true],
      ['defect', null, true],
      ['open', null, false],
    ],
  );
  assert.deepEqual(items[2]!.photos, [{ name: 'a.jpg' }]);
  assert.equal(view.pages[0]!.pending, true);
  assert.equal(view.refused.length, 1, 'the refused answer is listed, not applied');

  // Made on the phone from a template: the template's items, unanswered, under the page's local ref.
  const create = record('report-create', { title: 'Neu', odt_template: null, template_id: 3 });
  const answered = checklistPage(40, [item(1, { state: 'ok' })]);
  const offline = viewReport(
    create.id,
    undefined,
    [
      create,
      record(
        'check-item',
        { page: `${create.id}#0`, item: 1, label: 'Punkt 1', state: 'defect', note: 'x', photos: [], checked_at: 1 },
        { reportRef: create.id },
      ),
    ],
    {
      ...context(),
      templatePages: () => [answered],
    },
  )!;
  assert.deepEqual(
    offline.pages[0]!.checklist!.map((i) => i.state),
    ['defect'],
  );
  assert.equal(
    viewReport(create.id, undefined, [create], { ...context(), templatePages: () => [answered] })!.pages[0]!.checklist![0]!.state,
    'open',
  );
});

test("an admin's definitions waiting in the outbox: items named by id keep their answers, new ones wait for an id", () => {
  const page = checklistPage(31, [item(1, { state: 'ok' }), item(2)]);
  const update = record('page-update', {
    page: 31,
    changes: { checklist: [{ id: 2, label: 'Druck', unit: 'bar', lower: 1, upper: 2 }, { label: 'Neu' }] },
  });
  const items = viewReport(7, report([page]), [update], context())!.pages[0]!.checklist!;
  assert.deepEqual(
    items.map((i) => [i.id, i.label, i.unit, i.lower, i.upper]),
    [
      [2, 'Druck', 'bar', 1, 2],
      [0, 'Neu', null, null, null],
    ],
  );
  const added = viewReport(
    7,
    report([]),
    [record('page-add', { layout: 'checklist', title: 'Elektro', checklist: [{ label: 'RCD', unit: 'ms', upper: 300 }] })],
    context(),
  )!;
  assert.deepEqual(
    added.pages[0]!.checklist!.map((i) => [i.label, i.upper]),
    [['RCD', 300]],
  );
});

function interval(id: number, fields: Partial<TimeInterval> = {}): TimeInterval {
  return {
    id,
    element_type: 'commande',
    fk_element: 10,
    fk_user: 1,
    user_name: 'Max',
    fk_bericht: null,
    arrival: 1000,
    departure: 2000,
    seconds: 1000,
    arrival_tapped: 1000,
    departure_tapped: 2000,
    manual: false,
    corrections: [],
    ...fields,
  };
}

test("time on site: taps, entries and corrections waiting in the outbox lay over the service's intervals", () => {
  const me = { id: 1, name: 'Max' };
  const base: TimeList = {
    items: [interval(1), interval(2, { fk_user: 2, user_name: 'Erika', arrival: 500, departure: 900, seconds: 400 })],
    total: 2,
    total_seconds: 1400,
    open: null,
  };
  const arrive = record('time-arrive', { at: 5000 });
  let view = viewTimes(base, [arrive], 10, me);
  assert.equal(view.open?.arrival, 5000);
  assert.equal(view.open?.pending, true);
  assert.equal(view.totalSeconds, 1400, 'an open interval counts once it is closed');
  const records = [
    arrive,
    record('time-leave', { at: 5600 }),
    record('time-correct', { interval: 1, departure: 2600, reason: 'zu früh' }),
    record('time-add', { arrival: 100, departure: 400, reason: 'vergessen' }),
  ];
  view = viewTimes(base, records, 10, me);
  assert.equal(view.open, undefined);
  assert.deepEqual(
    view.intervals.map((i) => [i.arrival, i.departure, i.corrected, i.pending]),
    [
      [100, 400, true, true],
      [500, 900, false, false],
      [1000, 2600, true, true],
      [5000, 5600, false, true],
    ],
  );
  assert.equal(view.totalSeconds, 300 + 400 + 1600 + 600);
  assert.equal(viewTimes(base, records, 11, me).intervals.length, 2, 'records of another order are not laid over');
  const refused = viewTimes(base, [{ ...arrive, state: 'refused' }], 10, me);
  assert.equal(refused.open, undefined);
  assert.equal(refused.refused.length, 1);
  // The service's answer goes into the list: the open interval closes.
  const opened = withInterval(base, interval(3, { arrival: 5000, departure: null, seconds: null }), 1);
  assert.equal(opened.open?.id, 3);
  const closed = withInterval(opened, interval(3, { arrival: 5000, departure: 5600, seconds: 600 }), 1);
  assert.equal(closed.open, null);
  assert.equal(closed.total_seconds, 2000);
});
