/**
 * The app's view of a report (web/src/lib/reports/report-view.ts): the service's last state with the
 * waiting outbox records laid over it in order; a report made offline starts from its template's
 * pages; refused records are listed, not applied; pages up to the last signature are locked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReportDetail, ReportPage } from '../../web/src/api/types.js';
import type { OutboxKind, OutboxRecord, PayloadOf, Ref } from '../../web/src/lib/outbox/records.js';
import { viewReport, type ViewContext } from '../../web/src/lib/reports/report-view.js';

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
    ...extra,
  } as OutboxRecord<K>;
}

function page(id: number, fields: Partial<ReportPage> = {}): ReportPage {
  return {
    id,
    fk_bericht: 7,
    page_order: id,
    title: null,
    note: null,
    prompt: null,
    rotation: 0,
    layout: 'title_only',
    source_path: null,
    source_path_2: null,
    url: null,
    thumb_url: null,
    url_2: null,
    thumb_url_2: null,
    signature: null,
    checklist: null,
    evidence: null,
    evidence_2: null,
    ...fields,
  };
}

function report(pages: ReportPage[], fields: Partial<ReportDetail> = {}): ReportDetail {
  return {
    id: 7,
    ref: 'BR1',
    title: 'Bericht',
    status: 'draft',
    pages,
    versions: [],
    page_count: pages.length,
    ...fields,
  } as unknown as ReportDetail;
}

/** Local refs resolve through this map, as lib/outbox/local-ids does once the service answered. */
function context(known: Record<string, number> = {}, templates: Record<number, ReportPage[]> = {}): ViewContext {
  const id = (ref: Ref) => (typeof ref === 'number' ? ref : known[ref]);
  return {
    same: (a, b) => a === b || (id(a) !== undefined && id(a) === id(b)),
    templatePages: (template) => templates[template],
    photo: (ref) => ('name' in ref ? { url: `/f/${ref.name}`, thumb: `/t/${ref.name}` } : undefined),
  };
}

const titles = (view: ReturnType<typeof viewReport>) => view!.pages.map((p) => p.title ?? p.layout);

test('a report made offline starts from its template, takes new pages, edits, a delete and a reorder in order', () => {
  const create = record('report-create', { title: 'Wartung', odt_template: null, template_id: 3 });
  const tpl = [page(31, { title: 'Sicht', note: 'Was ist zu sehen?' }), page(32, { title: 'Funktion' })];
  const add = record('page-add', { layout: 'photo', source: { name: 'a.jpg' } }, { reportRef: create.id });
  const title = record('page-add', { layout: 'title_only', title: 'Schluss' }, { reportRef: create.id });
  const edit = record('page-update', { page: add.id, changes: { note: 'Notiz', rotation: 90 } }, { reportRef: create.id });
  const gone = record('page-delete', { page: `${create.id}#1` }, { reportRef: create.id });
  const order = record('page-reorder', { order: [title.id, `${create.id}#0`, add.id] }, { reportRef: create.id });
  const view = viewReport(create.id, undefined, [create, add, title, edit, gone, order], context({}, { 3: tpl }));
  assert.ok(view);
  assert.equal(view.pending, true);
  assert.equal(view.title, 'Wartung');
  assert.deepEqual(titles(view), ['Schluss', 'Sicht', 'photo']);
  // The template's note is the page's prompt, as the service copies it: the note starts empty.
  assert.deepEqual([view.pages[1]!.note, view.pages[1]!.prompt], [null, 'Was ist zu sehen?']);
  const photo = view.pages[2]!;
  assert.deepEqual([photo.note, photo.rotation, photo.pending], ['Notiz', 90, true]);
  assert.deepEqual(photo.images, [{ url: '/f/a.jpg', thumb: '/t/a.jpg' }]);
  assert.equal(view.waiting.length, 6);
});

test('records of other reports and refused records are not laid over; refused ones are listed', () => {
  const base = report([page(1, { title: 'Eins' }), page(2, { title: 'Zwei' })]);
  const other = record('page-add', { layout: 'title_only', title: 'Fremd' }, { reportRef: 99 });
  const refused = record(
    'page-update',
    { page: 1, changes: { title: 'Neu' } },
    { reportRef: 7, state: 'refused', lastError: 'abgeschlossen' },
  );
  const view = viewReport(7, base, [other, refused], context());
  assert.deepEqual(titles(view), ['Eins', 'Zwei']);
  assert.deepEqual(
    view!.refused.map((r) => r.id),
    [refused.id],
  );
  assert.equal(view!.waiting.length, 0);
});

test('a record naming a page by its local ref finds it once the service gave the page an id', () => {
  // The page-add arrived (the cached report has page 5); a later edit still names its record.
  const base = report([page(5, { title: 'Alt' })]);
  const edit = record('page-update', { page: 'r-add', changes: { title: 'Neu' } }, { reportRef: 'r-create' });
  const view = viewReport('r-create', base, [edit], context({ 'r-add': 5, 'r-create': 7 }));
  assert.deepEqual(titles(view), ['Neu']);
  assert.equal(view!.pages[0]!.pending, true);
});

test('pages up to the last signature are locked, a waiting signature too; a final report is locked whole', () => {
  const base = report([page(1), page(2, { layout: 'signature' }), page(3)]);
  let view = viewReport(7, base, [], context());
  assert.deepEqual(
    view!.pages.map((p) => p.locked),
    [true, true, false],
  );
  const png = new Blob([new Uint8Array([1])]);
  const sign = record('signature', { png, signer_name: 'E. M.', confirmation_text: 'ok' }, { reportRef: 7 });
  view = viewReport(7, base, [sign], context());
  assert.deepEqual(
    view!.pages.map((p) => p.locked),
    [true, true, true, true],
  );
  assert.equal(view!.pages[3]!.signature?.signer, 'E. M.');
  view = viewReport(7, report([page(1)], { status: 'final' }), [], context());
  assert.deepEqual(
    view!.pages.map((p) => p.locked),
    [true],
  );
});

test('no report and no create record: nothing to show', () => {
  assert.equal(viewReport(7, undefined, [], context()), undefined);
});

test('a report whose create was refused still shows everything made in it, for the person to send again', () => {
  const create = record(
    'report-create',
    { title: 'Abgelehnt', odt_template: 'weg.odt' },
    { state: 'refused', lastError: 'Deckblatt fehlt' },
  );
  const add = record(
    'page-add',
    { layout: 'title_only', title: 'Befund' },
    { reportRef: create.id, state: 'refused', lastError: 'abhängig' },
  );
  const view = viewReport(create.id, undefined, [create, add], context());
  assert.ok(view);
  assert.deepEqual(titles(view), ['Befund']);
  assert.deepEqual(
    view.refused.map((r) => r.id),
    [create.id, add.id],
  );
});

test('pages after the last signature are not covered by it (also a page added while the signature waits); without a signature none is', () => {
  const signed = {
    signer_name: 'Erika',
    signed_at: 1_800_000_000,
    signed_at_device: 1_799_990_000,
    signed_at_device_zone: 'Europe/Berlin',
    device_time_plausible: true,
  };
  const base = report([
    page(1, { title: 'Eins' }),
    page(2, { layout: 'signature', title: 'Unterschrift', signature: signed }),
    page(3, { title: 'Nachtrag' }),
  ]);
  const later = record('page-add', { layout: 'title_only', title: 'Noch später' }, { reportRef: 7 });
  const view = viewReport(7, base, [later], context());
  assert.deepEqual(
    view!.pages.map((p) => p.uncovered),
    [false, false, true, true],
  );
  assert.deepEqual(view!.pages[1]!.signature, { signer: 'Erika', receivedAt: 1_800_000_000, signedAt: 1_799_990_000 });
  const unsigned = viewReport(7, report([page(1), page(2)]), [], context());
  assert.deepEqual(
    unsigned!.pages.map((p) => p.uncovered),
    [false, false],
  );
  // A signature still on the phone covers what is before it, and keeps the moment the phone recorded.
  const png = new Blob(['x']);
  const waiting = record(
    'signature',
    { png, signer_name: 'Nora', confirmation_text: 'ok', signed_at: 1_800_000_123_456 },
    { reportRef: 7 },
  );
  const after = record('page-add', { layout: 'title_only', title: 'Danach' }, { reportRef: 7 });
  const pending = viewReport(7, report([page(1)]), [waiting, after], context());
  assert.deepEqual(
    pending!.pages.map((p) => [p.layout, p.uncovered]),
    [
      ['title_only', false],
      ['signature', false],
      ['title_only', true],
    ],
  );
  assert.deepEqual(pending!.pages[1]!.signature, { signer: 'Nora', signedAt: 1_800_000_123 });
});

test("photos per sheet: the service's value (4 for a report kept from before the choice), the create record's, then the waiting changes in order; refused ones not laid over", () => {
  assert.equal(viewReport(7, report([], { photos_per_sheet: 2 }), [], context())!.photosPerSheet, 2);
  const old = viewReport(7, report([]), [], context())!;
  assert.deepEqual([old.photosPerSheet, old.photosPerSheetPending], [4, false]);

  const create = record('report-create', { title: 'Wartung', odt_template: null, photos_per_sheet: 1 });
  assert.equal(viewReport(create.id, undefined, [create], context())!.photosPerSheet, 1);
  const older = record('report-create', { title: 'Wartung', odt_template: null });
  assert.equal(viewReport(older.id, undefined, [older], context())!.photosPerSheet, 4);

  const first = record('report-update', { photos_per_sheet: 1 }, { reportRef: create.id });
  const second = record('report-update', { photos_per_sheet: 2 }, { reportRef: create.id });
  const offline = viewReport(create.id, undefined, [create, first, second], context())!;
  assert.deepEqual([offline.photosPerSheet, offline.photosPerSheetPending], [2, true]);

  const base = report([], { photos_per_sheet: 4 });
  const refused = record('report-update', { photos_per_sheet: 1 }, { reportRef: 7, state: 'refused', lastError: 'abgeschlossen' });
  const view = viewReport(7, base, [refused], context())!;
  assert.deepEqual([view.photosPerSheet, view.photosPerSheetPending], [4, false]);
  assert.deepEqual(
    view.refused.map((r) => r.id),
    [refused.id],
  );
  const waiting = record('report-update', { photos_per_sheet: 2 }, { reportRef: 7 });
  assert.deepEqual(
    [viewReport(7, base, [waiting], context())!.photosPerSheet, viewReport(7, base, [waiting], context())!.waiting.length],
    [2, 1],
  );
});
