/**
 * The report records of the outbox (report-create, report-update, page-add, page-update,
 * page-delete, page-reorder, signature, and a checklist's check-item and check-all): how each is
 * sent, and what its answer teaches the phone.
 * - A record names its report and pages by Ref (db.ts): things made offline are known by the id of
 *   the record that makes them until the service answered; `afterDelivery` learns their ids
 *   (lib/outbox/local-ids) before the record leaves the outbox, so the records behind it can be sent.
 * - A reorder is the order the person saw. Sent, it is laid over the service's order of the moment:
 *   pages it does not name (added meanwhile on another phone) keep their place at the end, pages
 *   gone meanwhile are left out. Nothing is sent when the order is already so.
 * - The cached report (`report:<id>`) takes each answer at once, so the report reads right offline
 *   and after a reload even before the screen asks the service again.
 * - A checklist answer carries the item's whole answer (state, value, note, photos) and the phone's
 *   time of the tap; answers go in the order they were given, so the last one is what stays.
 */
import { api, unwrap } from '../../api/client';
import type { ReportDetail, ReportPage, SignedPage, UploadAnswer } from '../../api/types';
import { readCache, writeCache } from '../store/cache';
import { coordinateText } from '../outbox/coordinate';
import type {
  CheckAllPayload,
  CheckItemPayload,
  OutboxRecord,
  PageFields,
  PhotoRef,
  ReportCreatePayload,
  ReportSettingsPayload,
  Ref,
  SignaturePayload,
} from '../store/db';
import { learn, photoName, refreshLocalIds, serverId } from '../outbox/local-ids.svelte';

/** A record refers to a report, page or photo whose own record was refused or removed: it cannot be sent. */
export class UnresolvedRef extends Error {}

export const REPORT_KINDS = [
  'report-create',
  'report-update',
  'page-add',
  'page-update',
  'page-delete',
  'page-reorder',
  'signature',
  'check-item',
  'check-all',
] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export function isReportKind(kind: string): kind is ReportKind {
  return (REPORT_KINDS as readonly string[]).includes(kind);
}

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

type Fetch = (request: Request) => Promise<Response>;

/** Whether every ref the record names is known here; if not, another tab may have learnt it. */
async function refsKnown(record: OutboxRecord): Promise<void> {
  const payload = record.payload as {
    page?: Ref;
    order?: Ref[];
    source?: PhotoRef;
    source_2?: PhotoRef;
    changes?: PageFields;
    photos?: PhotoRef[];
  };
  const photos = [payload.source, payload.source_2, payload.changes?.source, payload.changes?.source_2, ...(payload.photos ?? [])].filter(
    (p): p is PhotoRef => !!p,
  );
  const refs = [record.kind === 'report-create' ? undefined : record.reportRef, payload.page].filter((r): r is Ref => r !== undefined);
  if (refs.some((r) => serverId(r) === undefined) || photos.some((p) => photoName(p) === undefined)) await refreshLocalIds();
}

export async function sendReportRecord(record: OutboxRecord, headers: Record<string, string>, fetch: Fetch): Promise<unknown> {
  await refsKnown(record);
  switch (record.kind as ReportKind) {
    case 'report-create': {
      const settings = record.payload as ReportCreatePayload;
      return unwrap(
        api.POST('/api/reports.php', {
          params: { query: { action: 'create' } },
          headers,
          body: { element_type: 'commande', fk_element: record.orderId, ...settings } as never,
          fetch,
        }),
      );
    }
    case 'report-update': {
      const changes = record.payload as ReportSettingsPayload;
      return unwrap(
        api.POST('/api/reports.php', {
          params: { query: { action: 'update', id: idOf(record.reportRef) } },
          headers,
          body: { ...changes } as never,
          fetch,
        }),
      );
    }
    case 'page-add':
      return unwrap(
        api.POST('/api/pages.php', {
          params: { query: { action: 'add', bericht_id: idOf(record.reportRef) } },
          headers,
          body: pageBody(record.payload as PageFields) as never,
          fetch,
        }),
      );
    case 'page-update': {
      const { page, changes } = record.payload as { page: Ref; changes: PageFields };
      return unwrap(
        api.POST('/api/pages.php', { params: { query: { id: idOf(page) } }, headers, body: pageBody(changes) as never, fetch }),
      );
    }
    case 'page-delete': {
      const { page } = record.payload as { page: Ref };
      // A page whose own record never arrived is not there: deleted, as the person wanted.
      if (serverId(page) === undefined) return undefined;
      return unwrap(api.DELETE('/api/pages.php', { params: { query: { id: idOf(page) } }, headers, fetch }));
    }
    case 'page-reorder': {
      const reportId = idOf(record.reportRef);
      // A page whose own record never arrived is not in the report: its place is no matter.
      const wanted = (record.payload as { order: Ref[] }).order.map(serverId).filter((id): id is number => id !== undefined);
      const current = (await unwrap(api.GET('/api/reports.php', { params: { query: { id: reportId } }, fetch }))) as ReportDetail;
      const there = current.pages.map((p) => p.id);
      const order = [...wanted.filter((id) => there.includes(id)), ...there.filter((id) => !wanted.includes(id))];
      if (order.every((id, index) => there[index] === id)) return current;
      return unwrap(
        api.POST('/api/pages.php', {
          params: { query: { action: 'reorder', bericht_id: reportId } },
          headers,
          body: { order } as never,
          fetch,
        }),
      );
    }
    case 'check-item': {
      const { page, item, state, value, note, photos, checked_at } = record.payload as CheckItemPayload;
      const body = { item, state, note, photos: photos.map(nameOf), checked_at, ...(value !== undefined ? { value } : {}) };
      return unwrap(
        api.POST('/api/pages.php', { params: { query: { action: 'check', id: idOf(page) } }, headers, body: body as never, fetch }),
      );
    }
    case 'check-all': {
      const { page, checked_at } = record.payload as CheckAllPayload;
      return unwrap(
        api.POST('/api/pages.php', {
          params: { query: { action: 'check_all', id: idOf(page) } },
          headers,
          body: { state: 'ok', checked_at } as never,
          fetch,
        }),
      );
    }
    case 'signature': {
      const signature = record.payload as SignaturePayload;
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
      form.append('file', signature.png, 'signature.png');
      return unwrap(
        api.POST('/api/pages.php', {
          params: { query: { action: 'signature', bericht_id: idOf(record.reportRef) } },
          headers,
          body: {} as never,
          bodySerializer: () => form,
          fetch,
        }),
      );
    }
  }
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

/** Learns what the answer names (ids of things made on the phone) and keeps the report's new state. */
export async function afterDelivery(record: OutboxRecord, answer: unknown): Promise<void> {
  switch (record.kind) {
    case 'photo':
      await learn({ [record.id]: (answer as UploadAnswer).name });
      return;
    case 'report-create': {
      const report = answer as ReportDetail;
      // The pages of its template are known as <record>#<index> until now.
      const pages = Object.fromEntries(report.pages.map((page, index) => [`${record.id}#${index}`, page.id]));
      await learn({ [record.id]: report.id, ...pages });
      await writeCache(`report:${report.id}`, report);
      return;
    }
    case 'page-add':
    case 'signature': {
      const page = answer as ReportPage | SignedPage;
      await learn({ [record.id]: page.id });
      if ('verify_url' in page) await writeCache(`signed:${page.id}`, page);
      await updateCachedReport(page.fk_bericht, (report) => ({
        ...report,
        pages: [...report.pages.filter((p) => p.id !== page.id), page],
      }));
      return;
    }
    case 'page-update':
    case 'check-item':
    case 'check-all': {
      const page = answer as ReportPage;
      await updateCachedReport(page.fk_bericht, (report) => ({ ...report, pages: report.pages.map((p) => (p.id === page.id ? page : p)) }));
      return;
    }
    case 'page-delete': {
      const gone = serverId((record.payload as { page: Ref }).page);
      const reportId = record.reportRef === undefined ? undefined : serverId(record.reportRef);
      if (gone === undefined || reportId === undefined) return;
      await updateCachedReport(reportId, (report) => ({ ...report, pages: ordered(report.pages.filter((p) => p.id !== gone)) }));
      return;
    }
    case 'report-update':
    case 'page-reorder': {
      const report = answer as ReportDetail;
      if (report?.id) await writeCache(`report:${report.id}`, report);
      return;
    }
  }
}
