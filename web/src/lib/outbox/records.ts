/**
 * What the outbox holds (docs/app-design.md, the outbox): one record per change the person made,
 * kept in IndexedDB (lib/store/db.ts) exactly as typed here. A record's `kind` says what its
 * `payload` is and what the service answers to it (`OutboxKinds`); lib/outbox/kinds.ts, the registry
 * of kinds, says how each kind is sent. Phones keep records written by older versions of the app: a
 * field added to a payload is optional, and the stored shape never changes without an upgrade of
 * the database that converts the records already there.
 */
import type { MailJob, Material, ReportDetail, ReportPage, SignedPage, TimeInterval, UploadAnswer } from '../../api/types.js';

/**
 * A report or page as the phone knows it: the service's id, or, for one made on the phone and not
 * yet sent, the id of the outbox record that makes it (a page of a template a new report starts
 * with: `<record id>#<index>`). lib/outbox/local-ids.svelte.ts turns one into the other once the service answered.
 */
export type Ref = number | string;

/** A page's image: a file of the order by its name, or a photo still in the outbox (its record). */
export type PhotoRef = { name: string } | { record: string };

/** The PDF's page layout: photo pages on one printed sheet (the service's `photos_per_sheet`). */
export const PHOTOS_PER_SHEET = [1, 2, 4] as const;
export type PhotosPerSheet = (typeof PHOTOS_PER_SHEET)[number];
/** What a report has when nobody chose (also a report the phone kept from before the choice existed). */
export const DEFAULT_PHOTOS_PER_SHEET: PhotosPerSheet = 4;

export interface ReportCreatePayload {
  title: string;
  format?: string;
  orientation?: string;
  odt_template: string | null;
  template_id?: number;
  /** Absent in records of older versions: then the template's, or 4. */
  photos_per_sheet?: PhotosPerSheet;
}

/** What a report-update record changes of a report. */
export interface ReportSettingsPayload {
  photos_per_sheet: PhotosPerSheet;
}

export interface PageFields {
  layout?: 'photo' | 'before_after' | 'title_only' | 'checklist';
  title?: string | null;
  note?: string | null;
  rotation?: 0 | 90 | 180 | 270;
  source?: PhotoRef;
  source_2?: PhotoRef;
  /** A checklist page's items in order (the whole list; an item with `id` keeps its answer). */
  checklist?: ChecklistItemDefinition[];
}

/** A checklist item as an admin defines it in a template: what is checked, its unit and limits. */
export interface ChecklistItemDefinition {
  /** An item the page already has (at the service); without it, a new one. */
  id?: number;
  label: string;
  unit?: string | null;
  lower?: number | null;
  upper?: number | null;
}

/** open: not yet checked; ok; defect (Mangel: needs a note); na (not applicable, "n. z."). */
export type CheckState = 'open' | 'ok' | 'defect' | 'na';

/**
 * One answer to one item of a checklist page: the whole answer as the person sees it then (state,
 * value, note, photos), so the last record sent for an item is what the item says.
 */
export interface CheckItemPayload {
  page: Ref;
  /** The item's id on the page. */
  item: number;
  /** Its label, for the person's list of what waits (not sent). */
  label: string;
  state: CheckState;
  /** Only for a measurement (an item with a unit or limits): null clears it. */
  value?: number | null;
  note: string | null;
  photos: PhotoRef[];
  /** When the person answered, by the phone's clock (Unix seconds). */
  checked_at: number;
  /** "OK trotz Grenzwert": why OK with a value outside the limits (absent in records of older versions). */
  ok_reason?: string | null;
}

/** "Alle übrigen OK" on a checklist page. */
export interface CheckAllPayload {
  page: Ref;
  /** Unix seconds, by the phone's clock. */
  checked_at: number;
}

/** Arrival or departure at the record's order: when the person tapped, by the phone's clock (Unix seconds). */
export interface TimeTapPayload {
  at: number;
}

/** An interval entered by hand at the record's order (Unix seconds), with the reason. */
export interface TimeAddPayload {
  arrival: number;
  departure: number;
  reason: string;
}

/** A correction of an interval the service knows (its id): new times and the reason. */
/** A tap taken back once the service has it: the interval, which tap, and that tap's time (for the texts). */
export interface TimeUndoPayload {
  interval: number;
  tap: 'arrive' | 'leave';
  at: number;
}

/** The service's answer to a tap taken back: the interval open again (`leave`), or null when it went (`arrive`). */
export interface TimeUndoAnswer {
  id: number;
  tap: 'arrive' | 'leave';
  interval: TimeInterval | null;
}

export interface TimeCorrectPayload {
  interval: number;
  arrival?: number;
  departure?: number;
  reason: string;
}

/**
 * A final report sent to the customer by e-mail (/api/mails.php?action=send). Without subject and
 * text (written offline with no proposal on the phone) the service takes its template's.
 */
export interface MailSendPayload {
  bericht_id: number;
  to: string[];
  cc?: string[];
  subject?: string;
  text?: string;
}

/** A photo's capture by the phone, sent with it as the service's photo evidence. */
export interface PhotoCapture {
  /** The phone's time of capture, its wall time with its UTC offset (RFC 3339): `taken_at_device`. */
  takenAt: string;
  /** Its position then (`gps_lat`/`gps_lon`), only when the person switched it on. */
  lat?: number;
  lon?: number;
}

export interface SignaturePayload {
  png: Blob;
  signer_name: string;
  confirmation_text: string;
  gps_lat?: number;
  gps_lon?: number;
  /** The moment the customer signed, by the phone's clock (ms since 1970; absent in records of older versions). */
  signed_at?: number;
  /** The same moment as the phone's wall time with its UTC offset (RFC 3339), as sent to the service. */
  signed_at_device?: string;
  /** The phone's time zone then (IANA name), if it knows one. */
  signed_at_zone?: string;
  /**
   * Every pointer sample of the drawing (JSON, format fieldreport-strokes/1, lib/reports/strokes.ts), sent
   * as the field `strokes` exactly as kept; absent in records of older versions.
   */
  strokes?: string;
  /**
   * What the customer was shown before signing (JSON, lib/reports/signoff.ts), sent as the field
   * `signoff` exactly as kept; absent in records of older versions.
   */
  signoff?: string;
}

/** A material line of the order (material-add): free text, or a part of the catalogue (`fk_product`, with its lot or serial number where it needs one). */
export interface MaterialLinePayload {
  label: string;
  qty: number;
  unit?: string;
  note?: string;
  fk_product?: number;
  batch?: string;
}

/** The removal of a material line (material-delete): its id, and its label for the person's list. */
export interface MaterialDeletePayload {
  materialId: number;
  label: string;
}

/** The deletion of a photo of the order (photo-delete), by its file name. */
export interface PhotoDeletePayload {
  name: string;
}

/** What changes of a page (page-update). */
export interface PageUpdatePayload {
  page: Ref;
  changes: PageFields;
}

/** The page a page-delete removes. */
export interface PageDeletePayload {
  page: Ref;
}

/** Every page of the report in the new order (page-reorder), as the person saw them. */
export interface PageReorderPayload {
  order: Ref[];
}

/**
 * Every kind of record: its payload and the service's answer to it. The answer is `unknown` where
 * nothing reads it, and so where a record may arrive without one (a deletion of something gone
 * already: 404).
 */
export interface OutboxKinds {
  /** The photo's file (its name in `fileName`, when and where it was taken in `capture`). */
  photo: { payload: Blob; answer: UploadAnswer };
  /** The recording's file (its name in `fileName`). */
  voice: { payload: Blob; answer: UploadAnswer };
  'photo-delete': { payload: PhotoDeletePayload; answer: unknown };
  'material-add': { payload: MaterialLinePayload; answer: Material };
  'material-delete': { payload: MaterialDeletePayload; answer: unknown };
  /** The report's settings; the record's id names the report until the service answered. */
  'report-create': { payload: ReportCreatePayload; answer: ReportDetail };
  'report-update': { payload: ReportSettingsPayload; answer: ReportDetail };
  /** The page; the record's id names it until the service answered. */
  'page-add': { payload: PageFields; answer: ReportPage };
  'page-update': { payload: PageUpdatePayload; answer: ReportPage };
  'page-delete': { payload: PageDeletePayload; answer: unknown };
  'page-reorder': { payload: PageReorderPayload; answer: ReportDetail };
  /** The PNG and the signer; the record's id names the signature page until the service answered. */
  signature: { payload: SignaturePayload; answer: SignedPage };
  'check-item': { payload: CheckItemPayload; answer: ReportPage };
  'check-all': { payload: CheckAllPayload; answer: ReportPage };
  'time-arrive': { payload: TimeTapPayload; answer: TimeInterval };
  'time-leave': { payload: TimeTapPayload; answer: TimeInterval };
  'time-add': { payload: TimeAddPayload; answer: TimeInterval };
  'time-correct': { payload: TimeCorrectPayload; answer: TimeInterval };
  'time-undo': { payload: TimeUndoPayload; answer: TimeUndoAnswer };
  'mail-send': { payload: MailSendPayload; answer: MailJob };
}

export type OutboxKind = keyof OutboxKinds;
export type PayloadOf<K extends OutboxKind> = OutboxKinds[K]['payload'];
export type AnswerOf<K extends OutboxKind> = OutboxKinds[K]['answer'];
export type OutboxState = 'waiting' | 'sending' | 'refused';

/** What every record has, whatever its kind. */
interface RecordFields {
  /** A UUID made on the phone; also the request's Idempotency-Key. */
  id: string;
  /** Whose change it is: only that user's login sends it. */
  userId: number;
  orderId: number;
  orderRef: string;
  /** The report a report-create, page, checklist or signature record is about. */
  reportRef?: Ref;
  /** photo/voice: the file name to send. */
  fileName?: string;
  /** photo: when (and, if the person allows it, where) the phone took it (lib/photos/capture); absent for a marked-up copy and in records of older versions. */
  capture?: PhotoCapture;
  createdAt: number;
  attempts: number;
  nextAttemptAt: number;
  /**
   * Set aside until nextAttemptAt (a mail beyond the service's limit, 429 MAIL_LIMIT_REACHED): the
   * records behind it go on meanwhile (nothing refers to a mail record), and it is not tried before
   * then, not even on "send now".
   */
  aside?: boolean;
  state: OutboxState;
  /** The server's (or the network's) last answer, for the person. */
  lastError?: string;
  lastStatus?: number;
}

/**
 * One record of the outbox: `OutboxRecord` any (its `kind` tells its payload), `OutboxRecord<'photo'>`
 * a photo's, `OutboxRecord<TimeKind>` one of those kinds.
 */
export type OutboxRecord<K extends OutboxKind = OutboxKind> = RecordOfKind[K];
type RecordOfKind = { [K in OutboxKind]: RecordFields & { kind: K; payload: PayloadOf<K> } };

/** A record the service took, with its answer (screens hear of it through onDelivered). */
export type Delivered<K extends OutboxKind = OutboxKind> = DeliveredOfKind[K];
type DeliveredOfKind = { [K in OutboxKind]: { kind: K; record: OutboxRecord<K>; answer: AnswerOf<K> } };

/** How a record goes to the service: its Idempotency-Key header, and the fetch that reports progress. */
export interface Sending {
  headers: Record<string, string>;
  fetch: (request: Request) => Promise<Response>;
}

/** How one kind of record is sent, and what the phone does with the answer (lib/outbox/kinds.ts lists them). */
export interface KindHandler<K extends OutboxKind> {
  /** Sends the record; resolves with the service's answer. */
  send(record: OutboxRecord<K>, sending: Sending): Promise<AnswerOf<K>>;
  /**
   * Learns what the answer names (the ids of things made on the phone) and keeps it (the cache),
   * before the record leaves the outbox: the records behind it refer to it.
   */
  delivered?(record: OutboxRecord<K>, answer: AnswerOf<K>): Promise<void>;
  /** A 404 means what the person wanted is done already (a deletion of something gone): the record arrived. */
  goneIsDone?(error: { code?: string | undefined }): boolean;
  /**
   * Beyond the service's limit (429 MAIL_LIMIT_REACHED), set aside until its Retry-After instead of
   * holding up the records behind it (no record refers to one of this kind).
   */
  setAsideOverLimit?: boolean;
}

/** Handlers of some kinds, one for each. */
export type KindHandlers<K extends OutboxKind> = Pick<HandlerOfKind, K>;
type HandlerOfKind = { [K in OutboxKind]: KindHandler<K> };
