/**
 * The report records of the outbox (report-create, report-update, page-add, page-update,
 * page-delete, page-reorder, signature, and a checklist's check-item and check-all): how each is
 * sent, and what its answer teaches the phone (lib/outbox/kinds.ts lists them with the others).
 * - A record names its report and pages by Ref (lib/outbox/records.ts): things made offline are known by the id of
 *   the record that makes them until the service answered; `delivered` learns their ids
 *   (lib/outbox/local-ids) before the record leaves the outbox, so the records behind it can be sent.
 * - A reorder is the order the person saw. Sent, it is laid over the service's order of the moment:
 *   pages it does not name (added meanwhile on another phone) keep their place at the end, pages
 *   gone meanwhile are left out. Nothing is sent when the order is already so.
 * - The cached report (`report:<id>`) takes each answer at once, so the report reads right offline
 *   and after a reload even before the screen asks the service again.
 * - A checklist answer carries the item's whole answer (state, value, note, photos) and the phone's
 *   time of the tap; answers go in the order they were given, so the last one is what stays.
 */
import { api, unwrap, type paths } from '../../api/client';
import type { ReportDetail, ReportPage, SignedPage } from '../../api/types';
import { coordinateText } from '../outbox/coordinate';
import { elementParams } from '../app/objects';
import { learn, photoName, refreshLocalIds, serverId } from '../outbox/local-ids.svelte';
import type { KindHandlers, OutboxRecord, PageFields, PhotoRef, Ref, Sending } from '../outbox/records';
import { readCache, writeCache } from '../store/cache';

/** A record refers to a report, page or photo whose own record was refused or removed: it cannot be sent. */
export class UnresolvedRef extends Error {}

export type ReportKind =
  | 'report-create'
  | 'report-update'
  | 'page-add'
  | 'page-update'
  | 'page-delete'
  | 'page-reorder'
  | 'signature'
  | 'check-item'
  | 'check-all';

function idOf(ref: Ref | undefined): number {
  const id = ref === undefined ? undefined : serverId(ref);
  if (id === undefined) throw new UnresolvedRef(String(ref));
  return id;
}

function nameOf(ref: PhotoRef): string {
  const name = photoName(ref);
  if (name === undefined) throw new UnresolvedRef('record' in ref ? ref.record : '');
  return name;
}

/** The page fields as the service takes them (photos by their file name in the order). */
function pageBody(fields: PageFields) {
  const { source, source_2, ...rest } = fields;
  return { ...rest, ...(source ? { source: nameOf(source) } : {}), ...(source_2 ? { source_2: nameOf(source_2) } : {}) };
}

/** The report, page and photos a record names, where it names them. */
function namedRefs(record: OutboxRecord<ReportKind>): { refs: Ref[]; photos: PhotoRef[] } {
  const refs: Ref[] = record.kind === 'report-create' || record.reportRef === undefined ? [] : [record.reportRef];
  const photos: PhotoRef[] = [];
  const fields = (f: PageFields) => photos.push(...[f.source, f.source_2].filter((p): p is PhotoRef => !!p));
  switch (record.kind) {
    case 'page-add':
      fields(record.payload);
      break;
    case 'page-update':
      refs.push(record.payload.page);
      fields(record.payload.changes);
      break;
    case 'check-item':
      refs.push(record.payload.page);
      photos.push(...record.payload.photos);
      break;
    case 'page-delete':
    case 'check-all':
      refs.push(record.payload.page);
      break;
  }
  return { refs, photos };
}

/** Whether every ref the record names is known here; if not, another tab may have learnt it. */
async function refsKnown(record: OutboxRecord<ReportKind>): Promise<void> {
  const { refs, photos } = namedRefs(record);
  if (refs.some((r) => serverId(r) === undefined) || photos.some((p) => photoName(p) === undefined)) await refreshLocalIds();
}

/** The pages of a report in page_order, renumbered from 1. */
function ordered(pages: ReportPage[]): ReportPage[] {
  return pages.map((page, index) => ({ ...page, page_order: index + 1 }));
}

async function updateCachedReport(id: number, change: (report: ReportDetail) => ReportDetail): Promise<void> {
  const cached = await readCache<ReportDetail>(`report:${id}`);
  if (!cached) return;
  const report = change(cached.value);
  await writeCache(`report:${id}`, { ...report, page_count: report.pages.length });
}

/** The report's new state as the service answered it, kept. */
async function keepReport(_record: unknown, report: ReportDetail): Promise<void> {
  if (report?.id) await writeCache(`report:${report.id}`, report);
}

/** A new page (or a signature page), learnt and laid into the cached report. */
async function keepNewPage(record: OutboxRecord<'page-add' | 'signature'>, page: ReportPage | SignedPage): Promise<void> {
  await learn({ [record.id]: page.id });
  if ('verify_url' in page) await writeCache(`signed:${page.id}`, page);
  await updateCachedReport(page.fk_bericht, (report) => ({ ...report, pages: [...report.pages.filter((p) => p.id !== page.id), page] }));
}

/** A changed page laid into the cached report. */
async function keepPage(_record: unknown, page: ReportPage): Promise<void> {
  await updateCachedReport(page.fk_bericht, (report) => ({ ...report, pages: report.pages.map((p) => (p.id === page.id ? page : p)) }));
}

type Query<P extends '/api/pages.php' | '/api/reports.php'> = NonNullable<paths[P]['post']['parameters']['query']>;

/**
 * A POST to /api/pages.php and its answer: the page (`A` for an action answered otherwise). The
 * schema types the answers of all actions of the address together, and each action's body apart.
 */
function postPage<A = ReportPage>(query: Query<'/api/pages.php'>, body: unknown, { headers, fetch }: Sending): Promise<A> {
  return unwrap(api.POST('/api/pages.php', { params: { query }, headers, body: body as never, fetch })) as Promise<A>;
}

/** A POST to /api/reports.php and its answer, the report (as postPage). */
function postReport(query: Query<'/api/reports.php'>, body: unknown, { headers, fetch }: Sending): Promise<ReportDetail> {
  return unwrap(api.POST('/api/reports.php', { params: { query }, headers, body: body as never, fetch })) as Promise<ReportDetail>;
}

// Each send first learns what another tab may know of the refs the record names (refsKnown).
export const reportKinds: KindHandlers<ReportKind> = {
  'report-create': {
    async send(record, sending) {
      await refsKnown(record);
      return postReport({ action: 'create' }, { ...elementParams(record.orderId), ...record.payload }, sending);
    },
    async delivered(record, report) {
      // The pages of its template are known as <record>#<index> until now.
      const pages = Object.fromEntries(report.pages.map((page, index) => [`${record.id}#${index}`, page.id]));
      await learn({ [record.id]: report.id, ...pages });
      await writeCache(`report:${report.id}`, report);
    },
  },
  'report-update': {
    async send(record, sending) {
      await refsKnown(record);
      return postReport({ action: 'update', id: idOf(record.reportRef) }, { ...record.payload }, sending);
    },
    delivered: keepReport,
  },
  'page-add': {
    async send(record, sending) {
      await refsKnown(record);
      return postPage({ action: 'add', bericht_id: idOf(record.reportRef) }, pageBody(record.payload), sending);
    },
    delivered: keepNewPage,
  },
  'page-update': {
    async send(record, sending) {
      await refsKnown(record);
      const { page, changes } = record.payload;
      return postPage({ id: idOf(page) }, pageBody(changes), sending);
    },
    delivered: keepPage,
  },
  'page-delete': {
    async send(record, { headers, fetch }) {
      await refsKnown(record);
      const { page } = record.payload;
      // A page whose own record never arrived is not there: deleted, as the person wanted.
      if (serverId(page) === undefined) return undefined;
      return unwrap(api.DELETE('/api/pages.php', { params: { query: { id: idOf(page) } }, headers, fetch }));
    },
    async delivered(record) {
      const gone = serverId(record.payload.page);
      const reportId = record.reportRef === undefined ? undefined : serverId(record.reportRef);
      if (gone === undefined || reportId === undefined) return;
      await updateCachedReport(reportId, (report) => ({ ...report, pages: ordered(report.pages.filter((p) => p.id !== gone)) }));
    },
    // Gone already (404): what the person wanted.
    goneIsDone: () => true,
  },
  'page-reorder': {
    async send(record, sending) {
      await refsKnown(record);
      const reportId = idOf(record.reportRef);
      // A page whose own record never arrived is not in the report: its place is no matter.
      const wanted = record.payload.order.map(serverId).filter((id): id is number => id !== undefined);
      const current = (await unwrap(
        api.GET('/api/reports.php', { params: { query: { id: reportId } }, fetch: sending.fetch }),
      )) as ReportDetail;
      const there = current.pages.map((p) => p.id);
      const order = [...wanted.filter((id) => there.includes(id)), ...there.filter((id) => !wanted.includes(id))];
      if (order.every((id, index) => there[index] === id)) return current;
      // The service answers a reorder with the report.
      return postPage<ReportDetail>({ action: 'reorder', bericht_id: reportId }, { order }, sending);
    },
    delivered: keepReport,
  },
  'check-item': {
    async send(record, sending) {
      await refsKnown(record);
      const { page, item, state, value, note, photos, checked_at, ok_reason } = record.payload;
      const body = {
        item,
        state,
        note,
        photos: photos.map(nameOf),
        checked_at,
        ...(value !== undefined ? { value } : {}),
        ...(ok_reason !== undefined ? { ok_reason } : {}),
      };
      return postPage({ action: 'check', id: idOf(page) }, body, sending);
    },
    delivered: keepPage,
  },
  'check-all': {
    async send(record, sending) {
      await refsKnown(record);
      return postPage(
        { action: 'check_all', id: idOf(record.payload.page) },
        { state: 'ok', checked_at: record.payload.checked_at },
        sending,
      );
    },
    delivered: keepPage,
  },
  signature: {
    async send(record, { headers, fetch }) {
      await refsKnown(record);
      const signature = record.payload;
      const form = new FormData();
      form.append('signer_name', signature.signer_name);
      form.append('confirmation_text', signature.confirmation_text);
      if (signature.gps_lat !== undefined && signature.gps_lon !== undefined) {
        form.append('gps_lat', coordinateText(signature.gps_lat));
        form.append('gps_lon', coordinateText(signature.gps_lon));
      }
      // When the customer signed, by the phone's clock: the service keeps it beside its own time of receipt.
      if (signature.signed_at_device) form.append('signed_at_device', signature.signed_at_device);
      if (signature.signed_at_zone) form.append('signed_at_device_zone', signature.signed_at_zone);
      // Every pointer sample of the drawing: a text field, so the service keeps these very bytes.
      if (signature.strokes) form.append('strokes', signature.strokes);
      // What the customer was shown: the signature's hash covers its work, times and material.
      if (signature.signoff) form.append('signoff', signature.signoff);
      form.append('file', signature.png, 'signature.png');
      const query = { action: 'signature' as const, bericht_id: idOf(record.reportRef) };
      return unwrap(
        api.POST('/api/pages.php', { params: { query }, headers, body: {} as never, bodySerializer: () => form, fetch }),
      ) as Promise<SignedPage>;
    },
    delivered: keepNewPage,
  },
};
