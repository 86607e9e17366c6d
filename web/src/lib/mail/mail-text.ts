/**
 * A report's mails in words: where each one is (on the phone, being sent, sent, not sent) and why
 * one was not sent. The service says why in German (`error`); a German reader gets its words (they
 * name the addresses and the server's answer), an English reader the dictionary's reason for the
 * code with the mail server's own answer.
 */
import type { MailJob } from '../../api/types';
import type { OutboxRecord } from '../outbox/records';
import { formatDateTime, formatTime } from '../i18n/format';
import { i18n, t } from '../i18n/i18n.svelte';
import type { MailKind, MailView } from './mail-view';

const list = (addresses: string[]) => addresses.join(', ');

function codeText(code: string | null): string {
  switch (code) {
    case 'MAIL_NOT_CONFIGURED':
      return t('mail.reason.notConfigured');
    case 'MAIL_AUTH_FAILED':
      return t('mail.reason.authFailed');
    case 'MAIL_RECIPIENT_REFUSED':
      return t('mail.reason.recipientRefused');
    case 'MAIL_TOO_LARGE':
      return t('mail.reason.tooLarge');
    case 'MAIL_REFUSED':
      return t('mail.reason.refused');
    case 'MAIL_UNREACHABLE':
      return t('mail.reason.unreachable');
    case 'MAIL_PDF_MISSING':
      return t('mail.reason.pdfMissing');
    default:
      return t('mail.reason.unknown', { code: code ?? '' });
  }
}

/** Why a mail was not sent (yet), in the person's language. */
export function mailReason(job: MailJob): string {
  if (i18n.lang === 'de' && job.error) return job.error;
  const said = job.server_response ? ` (${job.server_response})` : '';
  return `${codeText(job.error_code)}${said}`;
}

/** The first line of a mail: where it is, to whom, and when it was sent. */
export function mailLine(mail: MailView): string {
  const to = list(mail.to);
  switch (mail.state) {
    case 'phone':
      return t('mail.line.phone', { to });
    case 'queued':
    case 'sending':
      return t('mail.line.sending', { to });
    case 'sent':
      return t('mail.line.sent', { to, time: formatDateTime(mail.job?.sent ?? null) });
    case 'failed':
      return t('mail.line.failed', { reason: mail.job ? mailReason(mail.job) : '' });
  }
}

/** A second line where there is more to say: a retry's time and reason, addresses not accepted, a failed mail's recipients. */
export function mailDetail(mail: MailView): string | undefined {
  const job = mail.job;
  if (!job) return undefined;
  if (job.state === 'queued' && job.attempts > 0 && job.next_attempt !== null) {
    return t('mail.line.retry', { time: formatTime(job.next_attempt * 1000), reason: mailReason(job) });
  }
  if (job.state === 'sent' && job.error_code) return i18n.lang === 'de' && job.error ? job.error : t('mail.line.partlyRefused');
  if (job.state === 'failed') return t('mail.line.to', { to: list(job.to) });
  return undefined;
}

/** A mail record of the outbox in a few words (the queue, a refusal). */
export function mailRecordText(record: OutboxRecord<MailKind>): string {
  return t('mail.what', { to: list(record.payload.to) });
}
