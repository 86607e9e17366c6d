/**
 * Sends the queued mails (`bericht_mail`), in every service process, safely side by side:
 *
 * - A job is due when `queued` and its `next_attempt_at` has come, or `sending` under a lease that
 *   ran out or whose process is dead (runs.ts: a kill -9 leaves its lease, the next process takes
 *   it at once). A process takes a job with one conditional UPDATE (state, lease owner and lease
 *   time as it read them): the database lets exactly one process win, so no two send one mail.
 * - The lease (LEASE_SECONDS) outlasts the longest attempt (the SMTP client's time limits), so a
 *   live process never loses a job it is sending.
 * - Sent: `sent` with the server's answer and the Message-ID, and Dolibarr's agenda event on the
 *   object, in one transaction. The Message-ID is the job's own (messageIdOf), the same on every
 *   attempt: a process killed after the server took the mail and before it wrote `sent` makes the
 *   next one send it again; that second copy has the same Message-ID, which mail programs show once.
 * - Refused for good (wrong login, every recipient refused, too large, another 5xx): `failed` with
 *   the reason in words. Not reached, 4xx, mail not set up: `queued` again after a pause that
 *   doubles (RETRY_BASE_SECONDS … RETRY_MAX_SECONDS) until `expires_at`, then `failed`.
 *
 * One file, a little longer than most: the queue's lease, its sending and its retries share the
 * job's row and its states.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { fromDbDateTime, toDbDateTime } from '../../db/dialect.js';
import { recordAgendaEvent, SENT_BY_MAIL_TRIGGER } from '../../dolibarr/agenda.js';
import { createColumnFitter } from '../../dolibarr/charset.js';
import type { ElementType } from '../../dolibarr/documents.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { RUN_ID, type RunRegistry } from '../../adapters/runs.js';
import { createPoller } from '../common/poller.js';
import { mailBody, mailIdHost, mailSubject, messageIdOf, trackIdOf, type MailRow } from './mail.service.js';
import { readMailSettings, addressList, type MailSettings, type MailTransportSettings } from './mail.settings.js';
import { RETRY_BASE_SECONDS, RETRY_MAX_SECONDS, type MailErrorCode } from './mail.schemas.js';

/** How long a process holds a job it took: longer than an attempt can last (the time limits below). */
export const LEASE_SECONDS = 5 * 60;
const CONNECTION_TIMEOUT_MS = 30_000;
const SOCKET_TIMEOUT_MS = 120_000;
/** Jobs looked at per round. */
const BATCH = 10;

export interface MailQueueDeps {
  db: Db;
  dialect: Dialect;
  /** The table prefix (llx_), to read the character set of Dolibarr's columns. */
  prefix: string;
  entity: number;
  dataRoot: string;
  consts: ConstRepository;
  mailEnv: Readonly<Record<string, string>>;
  instanceId: string;
  timeZone: string;
  runs: Pick<RunRegistry, 'state'>;
  logger: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Seconds between rounds; 0: no rounds of its own (runOnce only). */
  pollSeconds: number;
}

type Outcome =
  | { kind: 'sent'; messageId: string; response: string; rejected: string[] }
  | { kind: 'retry' | 'failed'; code: MailErrorCode; reason: string; response?: string };

/** Backoff after `attempts` attempts: 30 s, 60 s, 2 min … at most 30 min. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(RETRY_MAX_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
}

function transportOf(settings: MailTransportSettings) {
  if (settings.kind === 'sendmail') return nodemailer.createTransport({ sendmail: true, newline: 'unix' });
  const options: SMTPTransport.Options = {
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: settings.requireTLS,
    tls: { rejectUnauthorized: !settings.allowSelfSigned },
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: CONNECTION_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    ...(settings.auth ? { auth: { user: settings.auth.user, pass: settings.auth.pass }, authMethod: settings.auth.method } : {}),
  };
  return nodemailer.createTransport(options);
}

/** An address as Dolibarr shows it in an event's label (getValidAddress mode 4): the name when there is one, else the address. */
export function shownAddress(address: string): string {
  const named = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(address);
  return named ? named[1] || named[2]! : address.trim();
}

/**
 * The sender: MAIN_MAIL_EMAIL_FROM, named after the company (MAIN_INFO_SOCIETE_NOM) when it is a
 * bare address, as Dolibarr's mails are. `written` is the form Dolibarr keeps in an event.
 */
export function senderOf(
  from: string,
  company: string | undefined,
): { header: string | { name: string; address: string }; written: string } {
  const name = company?.replace(/[\r\n]+/g, ' ').trim();
  if (from.includes('<') || !name) return { header: from, written: from };
  return { header: { name, address: from.trim() }, written: `${name} <${from.trim()}>` };
}

/** Shortened to fit its column, and free of line breaks. */
const clip = (text: string, max = 1000) => text.replace(/\s+/g, ' ').trim().slice(0, max);

/** What an SMTP failure means for the job, in words a clerk understands (German, as every message). */
export function classify(error: unknown, sizeMb: number): Extract<Outcome, { kind: 'retry' | 'failed' }> {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string; rejected?: string[]; command?: string };
  const response = e.response ? clip(e.response) : undefined;
  const said = response ?? clip(e.message ?? String(error));
  const status = e.responseCode ?? 0;
  if (e.code === 'EAUTH') {
    return status >= 400 && status < 500
      ? { kind: 'retry', code: 'MAIL_AUTH_FAILED', reason: `Der Mailserver hat die Anmeldung vorübergehend abgelehnt: ${said}`, response }
      : {
          kind: 'failed',
          code: 'MAIL_AUTH_FAILED',
          reason: `Der Mailserver hat die Anmeldung abgelehnt (Benutzer oder Passwort falsch, MAIN_MAIL_SMTPS_ID/MAIN_MAIL_SMTPS_PW): ${said}`,
          response,
        };
  }
  if (status === 552 || status === 523 || (status >= 500 && /size|too (large|big)|exceeds/i.test(said))) {
    return {
      kind: 'failed',
      code: 'MAIL_TOO_LARGE',
      reason: `Die E-Mail mit dem PDF (${sizeMb.toFixed(1)} MB) ist dem Mailserver zu groß: ${said}`,
      response,
    };
  }
  if (e.code === 'EENVELOPE' && status >= 500) {
    const who = e.rejected?.length ? e.rejected.join(', ') : 'die Empfänger';
    return { kind: 'failed', code: 'MAIL_RECIPIENT_REFUSED', reason: `Der Mailserver hat ${who} abgelehnt: ${said}`, response };
  }
  if (status >= 500) return { kind: 'failed', code: 'MAIL_REFUSED', reason: `Der Mailserver hat die E-Mail abgelehnt: ${said}`, response };
  if (status >= 400)
    return { kind: 'retry', code: 'MAIL_UNREACHABLE', reason: `Der Mailserver nimmt die E-Mail gerade nicht an: ${said}`, response };
  return { kind: 'retry', code: 'MAIL_UNREACHABLE', reason: `Der Mailserver ist nicht erreichbar: ${said}` };
}

export function createMailQueue(deps: MailQueueDeps) {
  const { db, entity } = deps;
  const fitter = createColumnFitter(db, deps.dialect, deps.prefix);

  /** Takes the job for this process, if it is still as read; true when this process won it. */
  async function take(job: MailRow): Promise<boolean> {
    const now = new Date();
    let q = db
      .updateTable('bericht_mail')
      .set({
        state: 'sending',
        lease_owner: RUN_ID,
        lease_until: toDbDateTime(new Date(now.getTime() + LEASE_SECONDS * 1000)),
        attempts: job.attempts + 1,
        tms: toDbDateTime(now),
      })
      .where('rowid', '=', job.rowid)
      .where('state', '=', job.state)
      .where('attempts', '=', job.attempts);
    q = job.lease_owner === null ? q.where('lease_owner', 'is', null) : q.where('lease_owner', '=', job.lease_owner);
    const result = await q.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async function due(): Promise<Array<MailRow>> {
    const now = toDbDateTime();
    const rows = await db
      .selectFrom('bericht_mail')
      .selectAll()
      .where('entity', '=', entity)
      .where((eb) => eb.or([eb.and([eb('state', '=', 'queued'), eb('next_attempt_at', '<=', now)]), eb('state', '=', 'sending')]))
      .orderBy('rowid')
      .limit(BATCH * 5)
      .execute();
    const out: Array<MailRow> = [];
    for (const row of rows) {
      if (row.state === 'sending') {
        // Held by a process: due when the lease ran out, or at once when that process is dead.
        const expired = (fromDbDateTime(row.lease_until) ?? 0) * 1000 < Date.now();
        if (!expired && (row.lease_owner === RUN_ID || (await deps.runs.state(row.lease_owner ?? '')) !== 'dead')) continue;
      }
      out.push(row);
      if (out.length >= BATCH) break;
    }
    return out;
  }

  /** What a mail of `job` says about its report: the object, its third party, the names Dolibarr knows for the addresses. */
  async function contextOf(job: MailRow) {
    const report = await db
      .selectFrom('bericht')
      .select(['ref', 'final_pdf_path', 'element_type', 'fk_element'])
      .where('rowid', '=', job.fk_bericht)
      .executeTakeFirst();
    const type = report?.element_type && SENT_BY_MAIL_TRIGGER[report.element_type] ? (report.element_type as ElementType) : undefined;
    const parent =
      type && report?.fk_element != null
        ? await db
            .selectFrom(`${type} as o` as 'commande as o')
            .select('o.fk_soc')
            .where('o.rowid', '=', report.fk_element)
            .executeTakeFirst()
        : undefined;
    const socId = parent?.fk_soc ?? null;
    // Names by address: the third party's contacts, then the third party itself (Dolibarr's mails name them).
    const names = new Map<string, { name: string; contact?: number }>();
    if (socId) {
      const contacts = await db
        .selectFrom('socpeople')
        .select(['rowid', 'firstname', 'lastname', 'email'])
        .where('fk_soc', '=', socId)
        .execute();
      for (const c of contacts) {
        for (const address of addressList(c.email ?? ''))
          names.set(address.toLowerCase(), { name: [c.firstname, c.lastname].filter(Boolean).join(' '), contact: c.rowid });
      }
      const soc = await db.selectFrom('societe').select(['nom', 'email']).where('rowid', '=', socId).executeTakeFirst();
      for (const address of addressList(soc?.email ?? ''))
        if (!names.has(address.toLowerCase())) names.set(address.toLowerCase(), { name: soc?.nom ?? '' });
    }
    const named = (list: string | null) =>
      addressList(list ?? '').map((address) => ({ name: names.get(address.toLowerCase())?.name ?? '', address }));
    return { report, type, socId, names, named };
  }

  /** "Name <address>" as Dolibarr writes recipients, or the bare address. */
  const written = (r: { name: string; address: string }) => (r.name ? `${r.name} <${r.address}>` : r.address);

  async function attempt(
    job: MailRow,
    settings: MailSettings,
    company: string | undefined,
    idPrefix: string | undefined,
  ): Promise<Outcome> {
    const { report, type, named } = await contextOf(job);
    if (!report?.final_pdf_path)
      return {
        kind: 'failed',
        code: 'MAIL_PDF_MISSING',
        reason: 'Der Bericht hat kein abgeschlossenes PDF (mehr); er wurde gelöscht oder ist ein Entwurf',
      };
    const file = path.join(entityRoot(deps.dataRoot, entity), report.final_pdf_path);
    const pdf = await readFile(file).catch(() => undefined);
    if (!pdf)
      return {
        kind: 'failed',
        code: 'MAIL_PDF_MISSING',
        reason: `Das PDF des Berichts fehlt im Dokumentenordner (${report.final_pdf_path})`,
      };
    const host = mailIdHost(deps.instanceId, idPrefix);
    const trackId = trackIdOf(type ?? null, report.fk_element === null ? null : report.fk_element);
    const messageId = messageIdOf(job, trackId, host);
    const forced = settings.forceSendTo;
    const transport = transportOf(settings.transport);
    try {
      const info = await transport.sendMail({
        from: senderOf(settings.from, company).header,
        to: forced ?? named(job.mail_to),
        ...(!forced && job.mail_cc ? { cc: named(job.mail_cc) } : {}),
        ...(!forced && job.mail_bcc ? { bcc: job.mail_bcc } : {}),
        // As the send stores them since (a row queued by an earlier version may hold a lone CR or LF).
        subject: mailSubject(job.subject),
        text: mailBody(job.body),
        messageId: `<${messageId}>`,
        headers: { ...(trackId ? { 'X-Dolibarr-TRACKID': `${trackId}@${host}` } : {}), 'X-Mailer': 'fieldreport' },
        ...(settings.errorsTo
          ? {
              envelope: {
                from: settings.errorsTo,
                to: addressList(forced ?? [job.mail_to, job.mail_cc, job.mail_bcc].filter(Boolean).join(',')),
              },
            }
          : {}),
        attachments: [{ filename: path.basename(report.final_pdf_path), content: pdf, contentType: 'application/pdf' }],
      });
      const rejected = (info.rejected ?? []).map((r) => (typeof r === 'string' ? r : r.address));
      if (info.accepted.length === 0)
        return {
          kind: 'failed',
          code: 'MAIL_RECIPIENT_REFUSED',
          reason: `Der Mailserver hat alle Empfänger abgelehnt: ${rejected.join(', ')}`,
          response: clip(info.response ?? ''),
        };
      return { kind: 'sent', messageId, response: clip(info.response ?? ''), rejected };
    } catch (error) {
      return classify(error, pdf.length / (1024 * 1024));
    } finally {
      transport.close();
    }
  }

  async function settle(job: MailRow, outcome: Outcome, sender?: string, errorsTo?: string): Promise<void> {
    const now = new Date();
    const mine = (q: any) => q.where('rowid', '=', job.rowid).where('lease_owner', '=', RUN_ID);
    if (outcome.kind === 'sent') {
      await db.transaction().execute(async (trx) => {
        const eventId = await recordSentEvent(trx, job, outcome, sender ?? '', errorsTo ?? null, now);
        const note = outcome.rejected.length > 0 ? `Nicht angenommen: ${outcome.rejected.join(', ')}` : null;
        await mine(
          trx.updateTable('bericht_mail').set({
            state: 'sent',
            message_id: outcome.messageId,
            server_response: outcome.response || null,
            error_code: outcome.rejected.length > 0 ? 'MAIL_RECIPIENT_REFUSED' : null,
            error: note,
            date_sent: toDbDateTime(now),
            lease_owner: null,
            lease_until: null,
            fk_actioncomm: eventId,
            tms: toDbDateTime(now),
          }),
        ).execute();
      });
      deps.logger.info({ mail: job.rowid, report: job.fk_bericht }, 'report mail sent');
      return;
    }
    const expired = (fromDbDateTime(job.expires_at) ?? 0) * 1000 <= now.getTime();
    const retry = outcome.kind === 'retry' && !expired;
    const reason =
      outcome.kind === 'retry' && expired
        ? `Bis zum Ablauf der Wiederholungen nicht versendet. Zuletzt: ${outcome.reason}`
        : outcome.reason;
    await mine(
      db.updateTable('bericht_mail').set({
        state: retry ? 'queued' : 'failed',
        error_code: outcome.code,
        error: clip(reason),
        server_response: outcome.response ?? null,
        next_attempt_at: toDbDateTime(new Date(now.getTime() + retryDelaySeconds(job.attempts) * 1000)),
        lease_owner: null,
        lease_until: null,
        tms: toDbDateTime(now),
      }),
    ).execute();
    deps.logger.warn(
      { mail: job.rowid, report: job.fk_bericht, code: outcome.code, retry },
      retry ? 'report mail not sent yet; tried again later' : 'report mail failed',
    );
  }

  /** Dolibarr's event of a document sent by mail (actions_sendmails.inc.php and the agenda trigger). */
  async function recordSentEvent(
    trx: Db,
    job: MailRow,
    outcome: Extract<Outcome, { kind: 'sent' }>,
    from: string,
    errorsTo: string | null,
    at: Date,
  ): Promise<number | null> {
    const { report, type, socId, names, named } = await contextOf(job);
    if (!report || !type || report.fk_element === null) return null;
    const to = named(job.mail_to);
    const contacts = to.map((r) => names.get(r.address.toLowerCase())?.contact).filter((id): id is number => id !== undefined);
    // Dolibarr joins the addresses with ',' alone.
    const joined = (list: Array<{ name: string; address: string }>) => (list.length > 0 ? list.map(written).join(',') : null);
    return recordAgendaEvent(trx, deps.dialect, fitter, {
      entity,
      trigger: SENT_BY_MAIL_TRIGGER[type]!,
      // As actions_sendmails.inc.php words it: MailSentByTo with the sender's name and the first recipient (getValidAddress mode 4, one shown).
      label: `E-Mail gesendet von ${shownAddress(from)} an ${shownAddress(to[0] ? written(to[0]) : '')}${to.length > 1 ? '...' : ''}`,
      // The mail's text, then the agenda trigger's line of attached files (dol_concatdesc with "\n").
      note: `${job.body}\n\nAngehängte Dateien: ${path.basename(report.final_pdf_path ?? `${report.ref}.pdf`)}`,
      socId,
      elementType: type,
      elementId: report.fk_element,
      userId: job.fk_user_author,
      contactIds: contacts,
      mail: {
        msgid: outcome.messageId,
        from,
        to: joined(to) ?? job.mail_to,
        cc: joined(named(job.mail_cc)),
        bcc: joined(named(job.mail_bcc)),
        subject: job.subject,
        errorsTo,
      },
      ip: job.ip,
      timeZone: deps.timeZone,
      at,
    });
  }

  /** One round: every job due, one after the other. Returns how many this process took. */
  async function round(): Promise<number> {
    let taken = 0;
    for (const job of await due()) {
      if (poller.stopped) break;
      if (!(await take(job))) continue;
      taken += 1;
      const held = { ...job, attempts: job.attempts + 1 };
      let outcome: Outcome;
      let sender: string | undefined;
      let errorsTo: string | undefined;
      try {
        const read = await readMailSettings(deps.consts, { env: deps.mailEnv });
        const more = await deps.consts.getMany(['MAIN_INFO_SOCIETE_NOM', 'MAIL_PREFIX_FOR_EMAIL_ID']);
        if (read.ok) {
          sender = senderOf(read.settings.from, more.get('MAIN_INFO_SOCIETE_NOM')).written;
          errorsTo = read.settings.errorsTo;
        }
        if (!read.ok) {
          deps.logger.warn({ mail: { problems: read.problems } }, `mail is not set up: ${read.problems.map((p) => p.setting).join(', ')}`);
          outcome = {
            kind: 'retry',
            code: 'MAIL_NOT_CONFIGURED',
            reason: 'Der Versand von E-Mails ist auf diesem Dienst nicht eingerichtet; die E-Mail wartet, bis er eingerichtet ist',
          };
        } else {
          outcome = await attempt(held, read.settings, more.get('MAIN_INFO_SOCIETE_NOM'), more.get('MAIL_PREFIX_FOR_EMAIL_ID'));
        }
      } catch (error) {
        deps.logger.error({ err: error, mail: job.rowid }, 'report mail attempt failed');
        outcome = {
          kind: 'retry',
          code: 'MAIL_UNREACHABLE',
          reason: 'Beim Versand ist ein Fehler im Dienst aufgetreten; die E-Mail wird erneut versucht',
        };
      }
      await settle(held, outcome, sender, errorsTo).catch((error: unknown) =>
        deps.logger.error({ err: error, mail: job.rowid }, 'report mail state not written; the lease runs out and it is taken again'),
      );
    }
    return taken;
  }

  const poller = createPoller(deps.pollSeconds, round, (error) => deps.logger.error({ err: error }, 'mail queue round failed'));
  return poller;
}

export type MailQueue = ReturnType<typeof createMailQueue>;
