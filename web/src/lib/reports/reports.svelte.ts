/**
 * Reports on the phone: what the report screens read (a report, the templates, the cover sheets,
 * the order's photos to pick from) and every change they make, which goes to the outbox first
 * (lib/outbox/outbox) and shows at once through the report's view (lib/reports/report-view).
 * `ReportWatch` is one report on screen: the service's state (cached, then fresh), the outbox laid
 * over it, refreshed once things are quiet after the service took a change of it.
 */
import { api, ApiError, NetworkError, unwrap } from '../../api/client';
import type { OdtTemplateItem, OrderFile, ReportDetail, SignedPage, TemplateItem, Verification } from '../../api/types';
import { readCache, readThrough, writeCache } from '../store/cache';
import type {
  CheckItemPayload,
  OutboxRecord,
  PageFields,
  PhotoRef,
  PhotosPerSheet,
  Ref,
  ReportCreatePayload,
  SignaturePayload,
} from '../outbox/records';
import { failureText } from '../i18n/i18n.svelte';
import { photoName, sameRef, serverId } from '../outbox/local-ids.svelte';
import { enqueue, mine, onDelivered, outbox, outboxReady, remove } from '../outbox/outbox.svelte';
import { readOrderFiles } from '../store/reads';
import { objectKey } from '../app/objects';
import { recordReport, viewReport, type ImageView, type ReportView } from './report-view';

type Order = { id: number; ref: string };

/** Whether a page can show a photo of this type: the service takes JPEG, PNG and WebP (415 otherwise). */
export function pageCanShow(type: string | undefined): boolean {
  return type === 'image/jpeg' || type === 'image/png' || type === 'image/webp';
}

/** A photo still in the outbox that a page can show: not refused, of a type the service takes. */
export function pageCanShowWaiting(record: OutboxRecord<'photo'>): boolean {
  return record.state !== 'refused' && pageCanShow(record.payload.type);
}

export function readReport(id: number, show: (report: ReportDetail, fromCache: boolean) => void): Promise<void> {
  return readThrough(
    `report:${id}`,
    async () => (await unwrap(api.GET('/api/reports.php', { params: { query: { id } } }))) as ReportDetail,
    show,
  );
}

export function readTemplates(show: (items: TemplateItem[], fromCache: boolean) => void): Promise<void> {
  return readThrough(
    'templates',
    async () => (await unwrap(api.GET('/api/templates.php', { params: { query: { limit: 100 } } }))).items as TemplateItem[],
    show,
  );
}

export function readOdtTemplates(show: (items: OdtTemplateItem[], fromCache: boolean) => void): Promise<void> {
  return readThrough('odt-templates', async () => (await unwrap(api.GET('/api/odt_templates.php', {}))).items, show);
}

/** The pages of templates the phone has, by template id (for a report made offline). */
const templatePages = $state<Record<number, ReportDetail['pages']>>({});

/**
 * Keeps what making a report needs offline: the templates, their pages and the cover sheets
 * (asked when an order is opened; quiet when there is no network). A template's pages that arrive
 * after a report was made from it show in that report at once.
 */
export async function keepReportChoices(): Promise<void> {
  let templates: TemplateItem[] = [];
  await Promise.allSettled([readTemplates((items) => (templates = items)), readOdtTemplates(() => {})]);
  await Promise.allSettled(templates.map((template) => readReport(template.id, (report) => (templatePages[template.id] = report.pages))));
}

async function loadTemplatePages(id: number): Promise<void> {
  if (templatePages[id]) return;
  const cached = await readCache<ReportDetail>(`report:${id}`);
  if (cached) templatePages[id] = cached.value.pages;
}

// ---- changes: each one an outbox record --------------------------------------------------------

/** A new report on the order; with `photos`, one photo page for each (in the order given). */
export async function createReport(order: Order, settings: ReportCreatePayload, photos: PhotoRef[] = []): Promise<string> {
  const record = await enqueue('report-create', order, settings);
  for (const source of photos) await enqueue('page-add', order, { layout: 'photo', source }, { reportRef: record.id });
  return record.id;
}

/** The report's PDF page layout: how many photo pages go on one printed sheet (a draft's). */
export async function setPhotosPerSheet(order: Order, report: Ref, photosPerSheet: PhotosPerSheet): Promise<void> {
  await enqueue('report-update', order, { photos_per_sheet: photosPerSheet }, { reportRef: report });
}

export async function addPage(order: Order, report: Ref, fields: PageFields): Promise<string> {
  return (await enqueue('page-add', order, fields, { reportRef: report })).id;
}

export async function updatePage(order: Order, report: Ref, page: Ref, changes: PageFields): Promise<void> {
  await enqueue('page-update', order, { page, changes }, { reportRef: report });
}

export async function deletePage(order: Order, report: Ref, page: Ref): Promise<void> {
  await enqueue('page-delete', order, { page }, { reportRef: report });
}

/** The report's pages in a new order (every page, as the person now sees them). */
export async function reorderPages(order: Order, report: Ref, pages: Ref[]): Promise<void> {
  await enqueue('page-reorder', order, { order: pages }, { reportRef: report });
}

/**
 * One answer to a checklist item. Each record carries the item's whole answer, so only the last one
 * matters: an earlier answer to the same item that has not left the phone yet is dropped (quick
 * taps, a value typed and then OK, make one request, not several), and so is one the service
 * refused (answering again is the person's reply to it; sent again later, it would undo this one).
 * One already on its way stays; it arrives first, and this one after it wins.
 */
/** Answers are queued one after the other: a value kept on leaving its field and the OK tapped right after it must not overtake each other. */
let checking: Promise<unknown> = Promise.resolve();

export function checkItem(order: Order, report: Ref, answer: CheckItemPayload): Promise<void> {
  const run = checking.then(() => checkItemNow(order, report, answer));
  checking = run.catch(() => undefined);
  return run;
}

async function checkItemNow(order: Order, report: Ref, answer: CheckItemPayload): Promise<void> {
  const earlier = mine().filter(
    (r) =>
      r.kind === 'check-item' && (r.state === 'waiting' || r.state === 'refused') && r.id !== outbox.sending && sameItem(r.payload, answer),
  );
  for (const record of earlier) await remove(record.id);
  await enqueue('check-item', order, answer, { reportRef: report });
}

const sameItem = (a: CheckItemPayload, b: CheckItemPayload) => a.item === b.item && sameRef(a.page, b.page);

/** "Alle übrigen OK" on a checklist page, at the phone's time (Unix seconds). */
export async function checkAllRemaining(order: Order, report: Ref, page: Ref, at: number): Promise<void> {
  await enqueue('check-all', order, { page, checked_at: at }, { reportRef: report });
}

/**
 * Now, by the phone's clock: as milliseconds, as its wall time with its UTC offset (RFC 3339, what
 * the service keeps as `signed_at_device`), and its time zone's name where the phone knows one.
 */
export function deviceMoment(now = new Date()): Pick<SignaturePayload, 'signed_at' | 'signed_at_device' | 'signed_at_zone'> {
  const two = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  const offset = -now.getTimezoneOffset();
  const wall = `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}T${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}.${String(now.getMilliseconds()).padStart(3, '0')}`;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return {
    signed_at: now.getTime(),
    signed_at_device: `${wall}${offset < 0 ? '-' : '+'}${two(offset / 60)}:${two(offset % 60)}`,
    // A browser that cannot place its system's zone says Etc/Unknown: then the offset alone.
    ...(zone && zone !== 'Etc/Unknown' ? { signed_at_zone: zone } : {}),
  };
}

export async function signReport(order: Order, report: Ref, signature: SignaturePayload): Promise<string> {
  return (await enqueue('signature', order, signature, { reportRef: report })).id;
}

/** Names of the order's photos whose deletion waits in the outbox: no new page may show them. */
export function photosBeingDeleted(orderId: number): Set<string> {
  return new Set(
    mine()
      .filter((r) => r.orderId === orderId && r.state !== 'refused')
      .flatMap((r) => (r.kind === 'photo-delete' ? [r.payload.name] : [])),
  );
}

/**
 * What keeps a photo of the order from being deleted, as far as the phone knows: a page waiting in
 * the outbox that shows it, or a report of the order (as last read) with a page that shows it. The
 * service checks again (409 PHOTO_IN_USE); this answers at once, also offline.
 */
export async function photoUsedBy(
  orderId: number,
  photo: { name?: string; record?: string },
  reportIds: number[],
): Promise<{ waitingPage: boolean; reports: string[] }> {
  const same = (ref: PhotoRef | undefined) =>
    !!ref && (('record' in ref && ref.record === photo.record) || (photo.name !== undefined && photoName(ref) === photo.name));
  const waitingPage = mine().some((r) => {
    if (r.orderId !== orderId || r.state === 'refused') return false;
    if (r.kind === 'page-add') return same(r.payload.source) || same(r.payload.source_2);
    if (r.kind === 'page-update') return same(r.payload.changes.source) || same(r.payload.changes.source_2);
    return false;
  });
  const reports: string[] = [];
  if (photo.name !== undefined) {
    const ending = `/${photo.name}`;
    for (const id of reportIds) {
      const report = (await readCache<ReportDetail>(`report:${id}`))?.value;
      if (report?.pages.some((p) => p.source_path?.endsWith(ending) || p.source_path_2?.endsWith(ending))) reports.push(report.ref);
    }
  }
  return { waitingPage, reports };
}

// ---- online only: finalize, a new version, the signature's check -----------------------------

/** Finalizes; the final state is kept on the phone at once (offline, the report reads final). */
/** Finalizes the report; `missing`: why it is finalized with what is still missing (the PDF prints it). */
export async function finalizeReport(id: number, missing: Array<{ what: string; reason: string }> = []): Promise<ReportDetail> {
  const report = (await unwrap(
    api.POST('/api/reports.php', { params: { query: { id, action: 'finalize' } }, body: (missing.length > 0 ? { missing } : {}) as never }),
  )) as ReportDetail;
  await writeCache(`report:${id}`, report);
  return report;
}

export async function newVersion(id: number): Promise<ReportDetail> {
  return (await unwrap(api.POST('/api/reports.php', { params: { query: { id, action: 'new_version' } } }))) as ReportDetail;
}

export function verifySignature(pageId: number): Promise<Verification> {
  return unwrap(api.GET('/ajax/verify_signature.php', { params: { query: { id: pageId } } }));
}

/** What the service answered when it took the signature (its hash and check link), if the phone has it. */
export async function signedAnswer(pageId: number): Promise<SignedPage | undefined> {
  return (await readCache<SignedPage>(`signed:${pageId}`))?.value;
}

/** The PDF: the final one, or a preview made now (`preview`). */
export async function reportPdf(id: number, options: { preview?: boolean } = {}): Promise<Blob> {
  const query = { id, ...(options.preview ? { preview: '1' as const } : {}) };
  return (await unwrap(api.GET('/api/pdf.php', { params: { query }, parseAs: 'blob', cache: 'no-store' }))) as Blob;
}

// ---- one report on screen ----------------------------------------------------------------------

export class ReportWatch {
  base = $state<ReportDetail | undefined>();
  files = $state<OrderFile[]>([]);
  fromCache = $state(false);
  error = $state('');
  notFound = $state(false);
  #deliveries = 0;

  constructor(readonly ref: Ref) {}

  /** The service's id of the report (once it has one). */
  get id(): number | undefined {
    return serverId(this.ref);
  }

  /** The order the report belongs to: from the service's report, or from the record that makes it. */
  get order(): Order | undefined {
    const report = this.base;
    // Orders and interventions are the phone's objects; a report on an invoice or proposal has none here.
    if (report?.fk_element && report.parent_ref)
      return report.element_type === 'commande' || report.element_type === 'fichinter'
        ? { id: objectKey(report.element_type, report.fk_element), ref: report.parent_ref }
        : undefined;
    const record = outbox.items.find((r) => r.kind === 'report-create' && sameRef(r.id, this.ref));
    return record ? { id: record.orderId, ref: record.orderRef } : undefined;
  }

  view: ReportView | undefined = $derived.by(() =>
    viewReport(this.ref, this.base, mine(), {
      same: sameRef,
      templatePages: (id) => templatePages[id],
      photo: (ref) => this.photo(ref),
    }),
  );

  /** A photo to pick or show: a file of the order, or a photo still in the outbox. */
  photo(ref: PhotoRef): ImageView | undefined {
    if ('record' in ref) {
      const record = outbox.items.find((r) => r.id === ref.record);
      if (record?.kind === 'photo') return { blob: record.payload, key: record.id, ...(record.fileName ? { name: record.fileName } : {}) };
    }
    // A photo that arrived is known by the name the service gave it.
    const name = photoName(ref);
    const file = name === undefined ? undefined : this.files.find((f) => f.name === name);
    return file ? { url: file.url, thumb: file.thumb_small_url ?? file.thumb_mini_url, name: file.name } : undefined;
  }

  /** Loads (cache, then the service) and follows the outbox; returns the clean-up. */
  start(): () => void {
    // Opened first (a reload on this screen): the records and learnt ids must be there to find the report.
    void outboxReady.then(() => this.load());
    let refresh: ReturnType<typeof setTimeout> | undefined;
    const stop = onDelivered(({ record }) => {
      const about = recordReport(record);
      if (record.kind === 'photo' && record.orderId === this.order?.id) {
        void this.loadFiles();
        return;
      }
      if (about === undefined || !sameRef(about, this.ref)) return;
      this.#deliveries++;
      // The answer is in the cache already (report-sync): shown now, the service's whole state once quiet.
      const id = this.id;
      if (id !== undefined) void readCache<ReportDetail>(`report:${id}`).then((cached) => cached && (this.base = cached.value));
      clearTimeout(refresh);
      refresh = setTimeout(() => void this.load(), 1500);
    });
    return () => {
      stop();
      clearTimeout(refresh);
    };
  }

  async load(): Promise<void> {
    const id = this.id;
    const order = this.order;
    if (order) void this.loadFiles();
    const create = outbox.items.find((r) => r.kind === 'report-create' && sameRef(r.id, this.ref));
    const template = create?.kind === 'report-create' ? create.payload.template_id : undefined;
    if (template !== undefined) void loadTemplatePages(template);
    if (id === undefined) return;
    const started = this.#deliveries;
    this.error = '';
    try {
      await readReport(id, (report, cached) => {
        // An answer older than a change the service took since would hide that change.
        if (!cached && started !== this.#deliveries) return;
        this.base = report;
        this.fromCache = cached;
        // The order was not known before the report (a reload on this screen): its photos now.
        if (!order) void this.loadFiles();
      });
    } catch (failure) {
      if (failure instanceof NetworkError) return;
      if (failure instanceof ApiError && failure.status === 404) this.notFound = true;
      else this.error = failureText(failure);
    }
  }

  async loadFiles(): Promise<void> {
    const order = this.order;
    if (!order) return;
    await readOrderFiles(order.id, (list) => (this.files = list.items)).catch(() => undefined);
  }
}
