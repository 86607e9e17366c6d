/**
 * A report's mails to the customer as the person sees them: the service's jobs (queued, sending,
 * sent, failed) with the sends still in the outbox laid over them, newest first (docs/app-design.md, the
 * outbox). Refused sends are not laid over; they are listed for the person. Also the address check
 * the service makes (ADDRESS_PATTERN of src/modules/mail/mail.schemas.ts, the same text: the
 * browser test of the mail compares them), so a typo is said at once, also offline. Pure.
 */
import type { MailJob, MailList } from '../../api/types.js';
import type { OutboxKind, OutboxRecord } from '../outbox/records.js';

export const MAIL_KINDS = ['mail-send'] as const satisfies readonly OutboxKind[];
export type MailKind = (typeof MAIL_KINDS)[number];
const mailKindSet: ReadonlySet<OutboxKind> = new Set(MAIL_KINDS);

/** Whether a record (or a delivered one) is a mail's. */
export function isMail<T extends { kind: OutboxKind }>(item: T): item is Extract<T, { kind: MailKind }> {
  return mailKindSet.has(item.kind);
}

/** The service's check of an address (a plain name@domain: at most 64 characters before the @, no % or !, no quotes or route). */
export const ADDRESS_PATTERN =
  "^(?=[^@]{1,64}@)[A-Za-z0-9#$&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9#$&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$";
const ADDRESS = new RegExp(ADDRESS_PATTERN);
/** At most this many addresses in to and cc together (the settings' copies are not counted): the service's default (BERICHT_MAIL_MAX_RECIPIENTS). */
export const MAX_RECIPIENTS = 10;
export const MAX_ADDRESS_LENGTH = 254;
export const MAX_SUBJECT = 255;
export const MAX_TEXT = 20_000;

/** Why the service would refuse an address: none when it takes it. */
export function addressProblem(address: string): 'empty' | 'space' | 'long' | 'format' | undefined {
  const value = address.trim();
  if (!value) return 'empty';
  if (/\s/.test(value)) return 'space';
  if (value.length > MAX_ADDRESS_LENGTH) return 'long';
  if (value.length < 3 || !ADDRESS.test(value)) return 'format';
  return undefined;
}

/** The PDF's file name as the mail attaches it (the final PDF's own name). */
export function attachmentName(report: { ref: string; final_pdf_path: string | null } | undefined): string {
  const path = report?.final_pdf_path;
  return path ? path.slice(path.lastIndexOf('/') + 1) : `${report?.ref ?? ''}.pdf`;
}

export const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export interface MailView {
  /** The service's id, or the outbox record's. */
  key: string;
  /** phone: still in the outbox (not yet at the service); else the service's state. */
  state: 'phone' | MailJob['state'];
  to: string[];
  cc: string[];
  /** Unix seconds: when it was written (the phone's clock for one still on the phone). */
  created: number;
  /** The service's job (absent while it waits on the phone). */
  job?: MailJob;
  /** The outbox record while it waits on the phone. */
  record?: OutboxRecord<MailKind>;
}

export interface MailsView {
  mails: MailView[];
  /** This report's sends the service refused, for the person to see (and remove). */
  refused: OutboxRecord<MailKind>[];
  /** A mail is on its way (on the phone, or queued or being sent at the service): worth asking again. */
  active: boolean;
}

/** `records`: the person's outbox records (any kind: this report's mail sends are picked). */
export function viewMails(base: MailList | undefined, records: readonly OutboxRecord[], reportId: number): MailsView {
  const mine = records.filter(isMail).filter((r) => r.payload.bericht_id === reportId);
  const waiting: MailView[] = mine
    .filter((r) => r.state !== 'refused')
    .map((record) => {
      const payload = record.payload;
      return { key: record.id, state: 'phone', to: payload.to, cc: payload.cc ?? [], created: Math.floor(record.createdAt / 1000), record };
    });
  const jobs: MailView[] = (base?.items ?? []).map((job) => ({
    key: String(job.id),
    state: job.state,
    to: job.to,
    cc: job.cc,
    created: job.created,
    job,
  }));
  const mails = [...waiting.reverse(), ...jobs];
  return {
    mails,
    refused: mine.filter((r) => r.state === 'refused'),
    active: mails.some((m) => m.state === 'phone' || m.state === 'queued' || m.state === 'sending'),
  };
}

/** The report's list after the service's answer about one mail (new or changed), newest first. */
export function withMail(list: MailList | undefined, job: MailJob): MailList {
  const known = list?.items ?? [];
  const items = [...known.filter((m) => m.id !== job.id), job].sort((a, b) => b.id - a.id);
  return { items, total: Math.max(items.length, (list?.total ?? 0) + (items.length - known.length)) };
}
