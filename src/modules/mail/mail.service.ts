/**
 * A final report sent to the customer (mail.schemas.ts, MAIL_RULES): the recipients proposed from
 * Dolibarr (the object's customer contacts in `element_contact`, then the third party's address),
 * subject and text from the template in the customer's language, and the send itself, which only
 * queues a job (`bericht_mail`) in the transaction that stores the Idempotency-Key's answer. The
 * queue (mail.queue.ts) sends it.
 */
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Selectable } from 'kysely';
import type { BerichtMailTable } from '../../db/tables.js';
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { fromDbDateTime, insertId, toDbDateTime } from '../../db/dialect.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { pdfLanguageOf, type PdfLanguage } from '../../adapters/pdf/words.js';
import type { RunRegistry } from '../../adapters/runs.js';
import { AppError } from '../../errors.js';
import type { AuthUser } from '../auth/auth.service.js';
import { idempotent } from '../common/idempotency.js';
import type { ReportRepository, ReportRow } from '../reports/reports.repository.js';
import { verifyUrl } from '../signatures/signatures.model.js';
import { mailText, type Substitutions } from './mail-text.js';
import { addressList, readMailLimits, readMailSettings, type MailLimits, type MailSettings } from './mail.settings.js';
import { isPlainAddress, type MailJob, type MailProposal, type SendMailBody } from './mail.schemas.js';
import type { ElementType } from '../../dolibarr/documents.js';

/** A row of `bericht_mail` as read. */
export type MailRow = Selectable<BerichtMailTable>;

const split = (value: string | null) => (value ? value.split(/,\s*/).filter(Boolean) : []);

export function toMailJob(row: MailRow): MailJob {
  const state = row.state as MailJob['state'];
  return {
    id: row.rowid,
    bericht_id: row.fk_bericht,
    state,
    to: split(row.mail_to),
    cc: split(row.mail_cc),
    bcc: split(row.mail_bcc),
    subject: row.subject,
    text: row.body,
    lang: row.lang ?? 'de',
    attempts: row.attempts,
    next_attempt: state === 'queued' ? fromDbDateTime(row.next_attempt_at) : null,
    message_id: row.message_id,
    server_response: row.server_response,
    error_code: row.error_code,
    error: row.error,
    created: fromDbDateTime(row.datec) ?? 0,
    sent: fromDbDateTime(row.date_sent),
    fk_user_author: row.fk_user_author,
  };
}

export interface MailServiceDeps {
  db: Db;
  dialect: Dialect;
  entity: number;
  consts: ConstRepository;
  mailEnv: Readonly<Record<string, string>>;
  retryHours: number;
  runs: Pick<RunRegistry, 'state'>;
  repo: ReportRepository;
  visibleReport(user: AuthUser, id: number, conn?: Db): Promise<ReportRow>;
  /** Called after a mail was queued, so a process sends it at once. */
  queued(): void;
  /** Copy addresses left out (not plain addresses). */
  logger?: Pick<FastifyBaseLogger, 'warn'>;
}

/**
 * A mail's text as it goes out: every line break (CRLF, a lone CR, a lone LF) is CRLF, so no lone CR
 * reaches the mail server (`\r.\r\n` would end the message early on some servers: SMTP smuggling).
 */
export const mailBody = (text: string) => text.replace(/\r\n|\r|\n/g, '\r\n');
/**
 * A subject is one line: line breaks and tabs become spaces; other control characters (C0, DEL, C1)
 * and direction overrides go (a template's or Dolibarr's value is not checked as typed text is).
 */
// eslint-disable-next-line no-control-regex
export const mailSubject = (text: string) =>
  text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g, '')
    .trim();

/** At most 255 characters (the column's), cut between characters, never inside an emoji's surrogate pair. */
export const cutSubject = (text: string) => Array.from(text).slice(0, 255).join('');

const WINDOWS = { user: 3600, report: 24 * 3600 } as const;

/** Lower-cased, duplicates dropped, in the order given. */
function distinct(addresses: readonly string[]): string[] {
  const seen = new Set<string>();
  return addresses.filter((a) => {
    const key = a.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function createMailService(deps: MailServiceDeps) {
  const { db, entity, consts } = deps;

  const settings = async (): Promise<MailSettings | undefined> => {
    const read = await readMailSettings(consts, { env: deps.mailEnv });
    return read.ok ? read.settings : undefined;
  };

  async function finalReport(user: AuthUser, id: number): Promise<ReportRow> {
    const report = await deps.visibleReport(user, id);
    if (report.is_template === 1) throw new AppError('REPORT_NOT_FOUND');
    if (report.status !== 1 || !report.final_pdf_path) throw new AppError('REPORT_NOT_FINAL');
    return report;
  }

  /** What the mail of `report` says, with the values Dolibarr's substitutions take. */
  async function context(user: AuthUser, report: ReportRow, baseUrl: string) {
    const type = report.element_type as ElementType;
    const parent = report.fk_element === null ? undefined : await deps.repo.parentWithCustomer(db, type, report.fk_element);
    const language: PdfLanguage = pdfLanguageOf(parent?.default_lang);
    const [company, signature] = await Promise.all([
      consts.getMany(['MAIN_INFO_SOCIETE_NOM']),
      db
        .selectFrom('bericht_signature')
        .select('verify_code')
        .where('fk_bericht', '=', report.rowid)
        .orderBy('rowid', 'desc')
        .executeTakeFirst(),
    ]);
    const values: Substitutions = {
      __REF__: report.ref,
      __REPORT_TITLE__: report.title,
      __ORDER_REF__: parent?.ref ?? '',
      __REF_CLIENT__: parent?.ref_client ?? '',
      __THIRDPARTY_NAME__: parent?.nom ?? '',
      __MYCOMPANY_NAME__: company.get('MAIN_INFO_SOCIETE_NOM') ?? '',
      __USER_FULLNAME__: user.name,
      __CHECK_URL__: signature ? verifyUrl(baseUrl, signature.verify_code) : '',
    };
    return { type, parent, language, values };
  }

  /** The object's active customer contacts with an address (Dolibarr's element_contact), then the third party's own. */
  async function recipientsOf(
    type: string,
    id: number,
    parent: { nom: string | null; email: string | null; fk_soc: number | null } | undefined,
  ) {
    const contacts = await db
      .selectFrom('element_contact as ec')
      .innerJoin('c_type_contact as tc', 'tc.rowid', 'ec.fk_c_type_contact')
      .innerJoin('socpeople as p', 'p.rowid', 'ec.fk_socpeople')
      .select(['p.rowid', 'p.email', 'p.firstname', 'p.lastname', 'tc.code'])
      .where('ec.element_id', '=', id)
      .where('tc.element', '=', type)
      .where('tc.source', '=', 'external')
      .where('ec.statut', '=', 4)
      .orderBy('tc.position')
      .orderBy('ec.rowid')
      .execute();
    const list: MailProposal['to'] = [];
    const seen = new Set<string>();
    const add = (email: string | null | undefined, entry: Omit<MailProposal['to'][number], 'email'>) => {
      for (const address of addressList(email ?? '')) {
        if (seen.has(address.toLowerCase())) continue;
        seen.add(address.toLowerCase());
        list.push({ email: address, ...entry });
      }
    };
    for (const c of contacts) add(c.email, { name: [c.firstname, c.lastname].filter(Boolean).join(' '), source: 'contact', type: c.code });
    add(parent?.email, { name: parent?.nom ?? '', source: 'thirdparty', type: null });
    return list;
  }

  /**
   * The copies the settings add: the office's, and the sender's own when asked for (the first
   * address of their e-mail in Dolibarr, if it is a plain address). Addresses left out are logged.
   */
  async function copiesOf(mail: MailSettings | undefined, user: AuthUser): Promise<string[]> {
    if (!mail) return [];
    for (const { setting, address } of mail.dropped)
      deps.logger?.warn({ setting, address }, 'mail copy address left out: not a plain address');
    const own = mail.copyAuthor
      ? addressList((await db.selectFrom('user').select('email').where('rowid', '=', user.id).executeTakeFirst())?.email ?? '')[0]
      : undefined;
    if (own !== undefined && !isPlainAddress(own)) {
      deps.logger?.warn(
        { setting: 'BERICHT_MAIL_COPY_AUTHOR', user: user.id, address: own.slice(0, 300) },
        "the sender's copy left out: their e-mail is not a plain address",
      );
      return [...mail.copyTo];
    }
    return [...mail.copyTo, ...(own ? [own] : [])];
  }

  /**
   * Refuses a send beyond the limits (429 MAIL_LIMIT_REACHED with Retry-After), counting the mails
   * `bericht_mail` already holds: the user's in the last hour, the report's in the last 24 hours.
   * Runs in the transaction that queues the mail, after the user's row and then the report's are
   * locked (PostgreSQL, MariaDB; SQLite's write transactions run one at a time), so sends at the
   * same moment are counted one after the other and never pass a limit together. When both limits
   * are reached, the 429 names the one that frees later (its Retry-After: the send can go only then).
   */
  async function withinLimits(trx: Db, user: AuthUser, reportId: number, limits: MailLimits, now: Date): Promise<void> {
    if (deps.dialect !== 'sqlite') {
      await trx.selectFrom('user').select('rowid').where('rowid', '=', user.id).forUpdate().execute();
      await trx.selectFrom('bericht').select('rowid').where('rowid', '=', reportId).forUpdate().execute();
    }
    const checks = [
      { kind: 'user' as const, max: limits.perUserHour, column: 'fk_user_author' as const, id: user.id },
      { kind: 'report' as const, max: limits.perReportDay, column: 'fk_bericht' as const, id: reportId },
    ];
    let refusal: { retryAfter: number; error: AppError } | undefined;
    for (const check of checks) {
      const window = WINDOWS[check.kind];
      const since = toDbDateTime(new Date(now.getTime() - window * 1000));
      const base = trx
        .selectFrom('bericht_mail')
        .where('entity', '=', entity)
        .where(check.column, '=', check.id)
        .where('datec', '>', since);
      // The first count must be the transaction's first non-locking read, after the locks above:
      // MariaDB (REPEATABLE READ) takes its snapshot at the first such read, so a read before the
      // locks would not see the mails a send that held them before has queued (and both would pass).
      const count = Number((await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      if (count < check.max) continue;
      // Free again when enough of the counted mails have left the window for one more.
      const oldest = await base
        .select('datec')
        .orderBy('datec')
        .orderBy('rowid')
        .offset(count - check.max)
        .limit(1)
        .executeTakeFirst();
      const leaves = ((fromDbDateTime(oldest?.datec) ?? Math.floor(now.getTime() / 1000)) + window) * 1000;
      const retryAfter = Math.max(1, Math.ceil((leaves - now.getTime()) / 1000));
      const minutes = Math.max(1, Math.ceil(retryAfter / 60));
      const message =
        check.kind === 'user'
          ? `Zu viele E-Mails: höchstens ${check.max} je Stunde und Benutzer; die nächste ist in ${minutes} Minute${minutes === 1 ? '' : 'n'} möglich`
          : `Zu viele E-Mails zu diesem Bericht: höchstens ${check.max} in 24 Stunden; die nächste ist in ${minutes} Minute${minutes === 1 ? '' : 'n'} möglich`;
      if (refusal && refusal.retryAfter >= retryAfter) continue;
      refusal = {
        retryAfter,
        error: new AppError('MAIL_LIMIT_REACHED', {
          message,
          details: {
            limit: check.kind === 'user' ? 'per_user_hour' : 'per_report_day',
            max: check.max,
            window_seconds: window,
            retry_after: retryAfter,
          },
          headers: { 'retry-after': String(retryAfter) },
        }),
      };
    }
    if (refusal) throw refusal.error;
  }

  async function one(user: AuthUser, id: number): Promise<MailRow> {
    const row = await db.selectFrom('bericht_mail').selectAll().where('rowid', '=', id).where('entity', '=', entity).executeTakeFirst();
    if (!row) throw new AppError('MAIL_NOT_FOUND');
    // Visible with its report: a mail of a report the caller may not see does not exist for them.
    await deps.visibleReport(user, row.fk_bericht).catch((error: unknown) => {
      throw error instanceof AppError && error.code === 'REPORT_NOT_FOUND' ? new AppError('MAIL_NOT_FOUND') : error;
    });
    return row;
  }

  return {
    async propose(user: AuthUser, reportId: number, baseUrl: string): Promise<MailProposal> {
      const report = await finalReport(user, reportId);
      const { type, parent, language, values } = await context(user, report, baseUrl);
      const mail = await settings();
      const text = mailText(language, mail?.templates[language] ?? {}, values);
      return {
        bericht_id: reportId,
        configured: !!mail,
        to: report.fk_element === null ? [] : await recipientsOf(type, report.fk_element, parent),
        cc: distinct(await copiesOf(mail, user)),
        subject: text.subject,
        text: text.text,
        lang: language,
      };
    },

    async send(user: AuthUser, body: SendMailBody, key: string | undefined, request: { baseUrl: string; ip: string }): Promise<MailJob> {
      const report = await finalReport(user, body.bericht_id);
      const scope = `mail:send:${body.bericht_id}`;
      return idempotent({ db, runs: deps.runs }, { entity, userId: user.id, key, scope }, async (claim) => {
        const { language, values } = await context(user, report, request.baseUrl);
        const [mail, limits] = await Promise.all([settings(), readMailLimits(consts, { env: deps.mailEnv })]);
        const to = distinct(body.to);
        const copies = await copiesOf(mail, user);
        const cc = distinct([...(body.cc ?? []), ...copies]).filter((a) => !to.some((t) => t.toLowerCase() === a.toLowerCase()));
        // Counted once each, in to and cc together (case ignored); the settings' copies are not counted.
        if (distinct([...to, ...(body.cc ?? [])]).length > limits.recipients) {
          const field = to.length > limits.recipients ? 'body.to' : 'body.cc';
          throw new AppError('VALIDATION_FAILED', {
            message: `Höchstens ${limits.recipients} Empfänger je E-Mail (An und Kopie zusammen)`,
            details: [{ field, message: `at most ${limits.recipients} recipients in to and cc together` }],
          });
        }
        const text = mailText(language, mail?.templates[language] ?? {}, values);
        const job = await db.transaction().execute(async (trx) => {
          const now = new Date();
          await withinLimits(trx, user, body.bericht_id, limits, now);
          const id = await insertId(
            deps.dialect,
            trx.insertInto('bericht_mail').values({
              entity,
              fk_bericht: body.bericht_id,
              state: 'queued',
              mail_to: to.join(', '),
              mail_cc: cc.length > 0 ? cc.join(', ') : null,
              mail_bcc: mail?.autocopyTo ?? null,
              subject: cutSubject(mailSubject(body.subject ?? text.subject)),
              body: mailBody(body.text ?? text.text),
              lang: language,
              attempts: 0,
              next_attempt_at: toDbDateTime(now),
              expires_at: toDbDateTime(new Date(now.getTime() + deps.retryHours * 3600_000)),
              fk_user_author: user.id,
              ip: request.ip.slice(0, 250),
              datec: toDbDateTime(now),
              tms: toDbDateTime(now),
            }),
          );
          const answer = toMailJob(await trx.selectFrom('bericht_mail').selectAll().where('rowid', '=', id).executeTakeFirstOrThrow());
          await claim?.complete(201, answer, trx);
          return answer;
        });
        deps.queued();
        return job;
      });
    },

    async list(user: AuthUser, reportId: number, page: { limit: number; offset: number }) {
      await deps.visibleReport(user, reportId);
      const base = db.selectFrom('bericht_mail').where('entity', '=', entity).where('fk_bericht', '=', reportId);
      const [rows, total] = await Promise.all([
        base.selectAll().orderBy('rowid', 'desc').limit(page.limit).offset(page.offset).execute(),
        base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toMailJob), total: Number(total.n) };
    },

    async get(user: AuthUser, id: number): Promise<MailJob> {
      return toMailJob(await one(user, id));
    },
  };
}

/** Dolibarr's tracking id of an object in mail ids (CMailFile; its e-mail collector reads it back): ord12, inv3, pro7, int4. */
const TRACK_PREFIX: Record<string, string> = { commande: 'ord', facture: 'inv', propal: 'pro', fichinter: 'int' };
export function trackIdOf(elementType: string | null, elementId: number | null): string | undefined {
  const prefix = elementType ? TRACK_PREFIX[elementType] : undefined;
  return prefix && elementId ? `${prefix}${elementId}` : undefined;
}

/** Dolibarr's host part of mail ids (dol_getprefix('email')): MAIL_PREFIX_FOR_EMAIL_ID, else sha1('dolibarr' + instance id). */
export function mailIdHost(instanceId: string, prefix: string | undefined): string {
  return prefix && prefix !== 'SERVER_NAME' ? prefix : createHash('sha1').update(`dolibarr${instanceId}`).digest('hex');
}

/**
 * The Message-ID of a job, in Dolibarr's form (`<time>.<n>.<mailer>-dolibarr-<trackid>@<host>`), so
 * Dolibarr's e-mail collector links a reply to the order; the same on every attempt (the job's
 * creation time and id), so a mail sent twice after a crash is recognisable as one.
 */
export function messageIdOf(job: { rowid: number; datec: string }, trackId: string | undefined, host: string): string {
  const created = Math.floor(new Date(`${job.datec.replace(' ', 'T')}Z`).getTime() / 1000);
  return `${created}.${job.rowid}.fieldreport-dolibarr${trackId ? `-${trackId}` : ''}@${host}`;
}

export type MailService = ReturnType<typeof createMailService>;
