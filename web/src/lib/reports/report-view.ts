/**
 * A report as the person sees it: the service's last known state with the changes still in the
 * outbox laid over it, in the order they were made (docs/app-design.md, the outbox). A report made on the
 * phone starts from its create record (and the pages of its template, when the phone has them).
 * Refused changes are not laid over the service's report: they are listed, with the service's
 * reason, for the person. A report only the phone has (its create refused) shows everything made
 * in it, refused or not: nothing of it is at the service, and it is all the person's work.
 * Pure: the screens give it the records, the cached report and how to look things up.
 */
import type { ReportDetail, ReportPage } from '../../api/types.js';
import { applyCheck, applyCheckAll, applyDefinitions, fromServerItems, type CheckItemView } from './checklist.js';
import {
  DEFAULT_PHOTOS_PER_SHEET,
  type OutboxRecord,
  type PageFields,
  type PhotoRef,
  type PhotosPerSheet,
  type Ref,
} from '../outbox/records.js';

/**
 * A page's image: a file of the service, or a photo or signature still on the phone; `name` is the
 * photo's file name where it is known (it names a page that has no title).
 */
export type ImageView = ({ url: string | null; thumb: string | null } | { blob: Blob; key: string }) & { name?: string };

/** Who signed a signature page and when (the service's facts, or the phone's while it waits). */
export interface SignatureView {
  signer: string;
  /** Unix seconds: when the service received it (absent while it waits on the phone). */
  receivedAt?: number;
  /** Unix seconds: when the customer signed, by the phone's clock. */
  signedAt?: number;
  /** The phone's clock was far from the service's (ahead, or a month behind). */
  implausible?: boolean;
}

export interface PageView {
  ref: Ref;
  layout: string;
  title: string | null;
  note: string | null;
  /** What the page's template asks for: the note's placeholder, never printed. */
  prompt?: string | null;
  rotation: number;
  images: ImageView[];
  /** A change of this page waits in the outbox. */
  pending: boolean;
  /** Under a signature (or a signature itself), or in a final report: it cannot change. */
  locked: boolean;
  /** After the report's last signature: no signature covers it. */
  uncovered: boolean;
  /** A signature page's signer and times. */
  signature?: SignatureView;
  /** A checklist page's items, with the answers still waiting laid over them. */
  checklist?: CheckItemView[];
}

export interface ReportView {
  ref: Ref;
  /** The service's report (undefined while only the phone knows it). */
  report?: ReportDetail;
  title: string;
  status: 'draft' | 'final';
  /** The PDF's page layout: photo pages on one printed sheet, with the changes still waiting. */
  photosPerSheet: PhotosPerSheet;
  /** A change of photosPerSheet waits in the outbox. */
  photosPerSheetPending: boolean;
  /** Made on the phone and not yet at the service. */
  pending: boolean;
  pages: PageView[];
  /** This report's changes the service refused, for the person to see (and remove). */
  refused: OutboxRecord[];
  /** This report's changes that wait. */
  waiting: OutboxRecord[];
}

export interface ViewContext {
  /** Whether two refs name the same report or page (local-ids). */
  same(a: Ref, b: Ref): boolean;
  /** The pages of a template, if the phone has them. */
  templatePages(id: number): ReportPage[] | undefined;
  /** How a photo ref shows (a file of the order by name, or a photo still in the outbox). */
  photo(ref: PhotoRef): ImageView | undefined;
}

/** The report a record is about: a create record makes it, the others name it. */
export function recordReport(record: OutboxRecord): Ref | undefined {
  return record.kind === 'report-create' ? record.id : record.reportRef;
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

function serverImages(page: ReportPage): ImageView[] {
  const images: ImageView[] = [];
  if (page.source_path) images.push({ url: page.url, thumb: page.thumb_url, name: baseName(page.source_path) });
  if (page.source_path_2) images.push({ url: page.url_2, thumb: page.thumb_url_2, name: baseName(page.source_path_2) });
  return images;
}

/** The service's facts of a signature page (older services do not give them: the note names the signer). */
function serverSignature(page: ReportPage): SignatureView | undefined {
  if (page.layout !== 'signature') return undefined;
  const facts = page.signature;
  if (!facts) return undefined;
  return {
    signer: facts.signer_name,
    receivedAt: facts.signed_at,
    ...(facts.signed_at_device !== null ? { signedAt: facts.signed_at_device } : {}),
    ...(facts.device_time_plausible === false ? { implausible: true } : {}),
  };
}

/** `copy`: a template's page in a report made on the phone (its checklist starts unanswered, as the service copies it). */
function fromServer(page: ReportPage, ref: Ref = page.id, pending = false, copy = false): PageView {
  const signature = serverSignature(page);
  return {
    ref,
    layout: page.layout,
    title: page.title,
    // A template's note is a prompt in a report made from it, as the service copies it.
    note: copy ? null : page.note,
    prompt: copy ? (page.note ?? page.prompt ?? null) : (page.prompt ?? null),
    rotation: page.rotation,
    images: serverImages(page),
    pending,
    locked: false,
    uncovered: false,
    ...(signature ? { signature } : {}),
    // An older answer (kept on the phone from before checklists) has no `checklist`.
    ...(page.layout === 'checklist' ? { checklist: fromServerItems(page.checklist, copy) } : {}),
  };
}

function images(fields: PageFields, context: ViewContext, before: ImageView[] = []): ImageView[] {
  const layout = fields.layout;
  if (layout === 'title_only') return [];
  const first = fields.source ? context.photo(fields.source) : before[0];
  const second = fields.source_2 ? context.photo(fields.source_2) : before[1];
  if (layout === 'photo') return first ? [first] : [];
  return [first, second].filter((image): image is ImageView => image !== undefined);
}

export function viewReport(
  ref: Ref,
  base: ReportDetail | undefined,
  records: readonly OutboxRecord[],
  context: ViewContext,
): ReportView | undefined {
  const { same } = context;
  const mine = records.filter((r) => {
    const about = recordReport(r);
    return about !== undefined && same(about, ref);
  });
  const create = mine.find((r): r is OutboxRecord<'report-create'> => r.kind === 'report-create');
  if (!base && !create) return undefined;
  let pages: PageView[];
  let title: string;
  // A report the phone kept from before the service had the choice has none: it had the default.
  let photosPerSheet: PhotosPerSheet;
  let photosPerSheetPending = false;
  if (base) {
    pages = base.pages.map((page) => fromServer(page));
    title = base.title;
    photosPerSheet = base.photos_per_sheet ?? DEFAULT_PHOTOS_PER_SHEET;
  } else {
    const settings = create!.payload;
    const template = settings.template_id === undefined ? [] : (context.templatePages(settings.template_id) ?? []);
    pages = template.map((page, index) => fromServer(page, `${create!.id}#${index}`, true, true));
    title = settings.title;
    photosPerSheet = settings.photos_per_sheet ?? DEFAULT_PHOTOS_PER_SHEET;
  }
  const find = (page: Ref) => pages.findIndex((p) => same(p.ref, page));
  for (const record of mine) {
    if (record.state === 'refused' && base) continue;
    switch (record.kind) {
      case 'report-update': {
        photosPerSheet = record.payload.photos_per_sheet;
        photosPerSheetPending = true;
        break;
      }
      case 'page-add': {
        const fields = record.payload;
        const layout = fields.layout ?? (fields.source ? 'photo' : 'title_only');
        pages.push({
          ref: record.id,
          layout,
          title: fields.title ?? null,
          note: fields.note ?? null,
          rotation: fields.rotation ?? 0,
          images: images({ ...fields, layout }, context),
          pending: true,
          locked: false,
          uncovered: false,
          ...(layout === 'checklist' ? { checklist: applyDefinitions([], fields.checklist ?? []) } : {}),
        });
        break;
      }
      case 'page-update': {
        const { page, changes } = record.payload;
        const at = find(page);
        if (at < 0) break;
        const old = pages[at]!;
        const layout = changes.layout ?? (old.layout as PageFields['layout']);
        pages[at] = {
          ...old,
          layout: layout ?? old.layout,
          ...('title' in changes ? { title: changes.title ?? null } : {}),
          ...('note' in changes ? { note: changes.note ?? null } : {}),
          ...(changes.rotation !== undefined ? { rotation: changes.rotation } : {}),
          images: changes.layout || changes.source || changes.source_2 ? images({ ...changes, layout }, context, old.images) : old.images,
          pending: true,
          ...(changes.checklist ? { checklist: applyDefinitions(old.checklist ?? [], changes.checklist) } : {}),
        };
        break;
      }
      case 'check-item':
      case 'check-all': {
        const at = find(record.payload.page);
        const old = pages[at];
        if (!old?.checklist) break;
        const checklist =
          record.kind === 'check-item' ? applyCheck(old.checklist, record.payload) : applyCheckAll(old.checklist, record.payload);
        pages[at] = { ...old, checklist, pending: true };
        break;
      }
      case 'page-delete': {
        const at = find(record.payload.page);
        if (at >= 0) pages.splice(at, 1);
        break;
      }
      case 'page-reorder': {
        const order = record.payload.order;
        const placed = order.map((r) => pages.find((p) => same(p.ref, r))).filter((p): p is PageView => p !== undefined);
        pages = [...placed, ...pages.filter((p) => !placed.includes(p))];
        break;
      }
      case 'signature': {
        const signature = record.payload;
        pages.push({
          ref: record.id,
          layout: 'signature',
          title: null,
          note: null,
          rotation: 0,
          images: [{ blob: signature.png, key: record.id }],
          pending: true,
          locked: false,
          uncovered: false,
          signature: {
            signer: signature.signer_name,
            ...(signature.signed_at ? { signedAt: Math.floor(signature.signed_at / 1000) } : {}),
          },
        });
        break;
      }
    }
  }
  const status = base?.status ?? 'draft';
  const lastSignature = pages.findLastIndex((p) => p.layout === 'signature');
  pages = pages.map((page, index) => ({
    ...page,
    locked: status === 'final' || index <= lastSignature,
    uncovered: lastSignature >= 0 && index > lastSignature,
  }));
  return {
    ref,
    report: base,
    title,
    status,
    photosPerSheet,
    photosPerSheetPending,
    pending: !base,
    pages,
    refused: mine.filter((r) => r.state === 'refused'),
    waiting: mine.filter((r) => r.state !== 'refused'),
  };
}
