/**
 * The app's storage on the phone (IndexedDB through idb). One database, five stores:
 * - `session`: the login (token, expiry, user, rights), key 'current';
 * - `cache`: the last answer of each GET the app shows (orders, an order, its files, materials),
 *   so a screen shows at once and offline;
 * - `blobs`: thumbnails and files fetched with the token, as Blobs;
 * - `outbox`: every change waiting to be sent (lib/outbox/outbox.svelte.ts), in creation order;
 * - `settings`: the person's choices on this phone, and which service ids the reports, pages and
 *   photos made on the phone got (lib/outbox/local-ids.svelte.ts; records waiting to be sent refer to them).
 * Logout clears everything but what is still waiting to be sent (a shared phone must not show the
 * last user's orders; nothing the person captured is dropped silently).
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

export type OutboxKind =
  | 'photo'
  | 'photo-delete'
  | 'voice'
  | 'material-add'
  | 'material-delete'
  | 'report-create'
  | 'report-update'
  | 'page-add'
  | 'page-update'
  | 'page-delete'
  | 'page-reorder'
  | 'signature'
  | 'check-item'
  | 'check-all'
  | 'time-arrive'
  | 'time-leave'
  | 'time-add'
  | 'time-correct'
  | 'mail-send';

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
}

export type OutboxPayload =
  | Blob
  | { label: string; qty: number; unit?: string; note?: string }
  | { materialId: number; label: string }
  | { name: string }
  | ReportCreatePayload
  | ReportSettingsPayload
  | PageFields
  | { page: Ref; changes: PageFields }
  | { page: Ref }
  | { order: Ref[] }
  | SignaturePayload
  | CheckItemPayload
  | CheckAllPayload
  | TimeTapPayload
  | TimeAddPayload
  | TimeCorrectPayload
  | MailSendPayload;
export type OutboxState = 'waiting' | 'sending' | 'refused';

export interface OutboxRecord {
  /** A UUID made on the phone; also the request's Idempotency-Key. */
  id: string;
  kind: OutboxKind;
  /** Whose change it is: only that user's login sends it. */
  userId: number;
  orderId: number;
  orderRef: string;
  /** The report a report-create, page, checklist or signature record is about. */
  reportRef?: Ref;
  /**
   * photo/voice: the file; photo-delete: the photo's name; material-add: the line; material-delete: the line's id; report-create:
   * the report's settings; report-update: what changes of them; page-add: the page; page-update: the page and what changes; page-delete:
   * the page; page-reorder: every page in the new order; signature: the PNG and the signer; check-item: one answer to a checklist item;
   * check-all: "alle übrigen OK" on a checklist page; time-arrive/time-leave: the phone's time of the tap; time-add: an interval by hand;
   * time-correct: an interval's new times; mail-send: the report's mail (recipients, subject, text).
   */
  payload: OutboxPayload;
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

export interface Session {
  token: string;
  /** Unix seconds. */
  expires: number;
  user: { id: number; login: string; name: string; admin: boolean };
  perms: { read: boolean; write: boolean; delete: boolean; admin: boolean };
}

interface Schema extends DBSchema {
  session: { key: string; value: Session };
  cache: { key: string; value: { value: unknown; savedAt: number } };
  blobs: { key: string; value: { blob: Blob; savedAt: number }; indexes: { savedAt: number } };
  outbox: { key: string; value: OutboxRecord; indexes: { createdAt: number } };
  settings: { key: string; value: unknown };
}

let opened: Promise<IDBPDatabase<Schema>> | undefined;

export function db(): Promise<IDBPDatabase<Schema>> {
  opened ??= openDB<Schema>('fieldreport', 1, {
    upgrade(database) {
      database.createObjectStore('session');
      database.createObjectStore('cache');
      database.createObjectStore('blobs').createIndex('savedAt', 'savedAt');
      database.createObjectStore('outbox', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
      database.createObjectStore('settings');
    },
  });
  return opened;
}

/**
 * Counts the clearings: a read that started before one must not write its answer after it (a slow
 * answer for the last user arriving after the logout).
 */
export let userDataEpoch = 0;

/** Everything a user's reads left on the phone; the outbox stays. */
export async function clearUserData(): Promise<void> {
  userDataEpoch++;
  const d = await db();
  const tx = d.transaction(['session', 'cache', 'blobs'], 'readwrite');
  await Promise.all([tx.objectStore('session').clear(), tx.objectStore('cache').clear(), tx.objectStore('blobs').clear(), tx.done]);
}
