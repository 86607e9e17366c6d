/**
 * The mail records of the outbox (mail-send): how each is sent to /api/mails.php?action=send (the
 * record's id is the Idempotency-Key, so a send repeated after a lost answer queues no second
 * mail), and how its answer goes into the report's cached mails (`mails:<report>`), so the report
 * screen says what became of it offline and after a reload. A mail beyond the service's limit is
 * set aside until its Retry-After: no record refers to a mail record.
 */
import { api, unwrap } from '../../api/client';
import type { MailJob, MailList } from '../../api/types';
import type { KindHandlers } from '../outbox/records';
import { readCache, writeCache } from '../store/cache';
import { withMail, type MailKind } from './mail-view';

export const mailKinds: KindHandlers<MailKind> = {
  'mail-send': {
    send(record, { headers, fetch }) {
      const { bericht_id, to, cc, subject, text } = record.payload;
      const body = {
        bericht_id,
        to,
        ...(cc?.length ? { cc } : {}),
        ...(subject !== undefined ? { subject } : {}),
        ...(text !== undefined ? { text } : {}),
      };
      return unwrap(
        api.POST('/api/mails.php', { params: { query: { action: 'send' } }, headers, body: body as never, fetch }),
      ) as Promise<MailJob>;
    },
    /** The report's cached mails take the service's answer (the new job, queued). */
    async delivered(record, answer) {
      if (!answer?.id) return;
      const key = `mails:${record.payload.bericht_id}`;
      const cached = (await readCache<MailList>(key))?.value;
      await writeCache(key, withMail(cached, answer));
    },
    setAsideOverLimit: true,
  },
};
