/** Request and response shapes of /api/mails.php: a final report sent to the customer by e-mail. */
import { Type, type Static } from 'typebox';
import { PageQuery, PersonText, RowId } from '../common/common.schemas.js';
import { Nullable } from '../reports/reports.schemas.js';

/** The most addresses in `to` and `cc` any setting allows (BERICHT_MAIL_MAX_RECIPIENTS, default 10, is at most this). */
export const MAX_RECIPIENTS = 20;
/** RFC 5321: a path of at most 256 octets, so an address of at most 254; a local part of at most 64. */
export const MAX_ADDRESS_LENGTH = 254;
export const MAX_LOCAL_PART_LENGTH = 64;
export const MAX_SUBJECT = 255;
export const MAX_TEXT = 20_000;
/** Seconds between attempts while the mail server cannot take the mail: 30 s, doubled each time, at most 30 min. */
export const RETRY_BASE_SECONDS = 30;
export const RETRY_MAX_SECONDS = 30 * 60;

export const MAIL_STATES = ['queued', 'sending', 'sent', 'failed'] as const;
export type MailState = (typeof MAIL_STATES)[number];

/** The reasons a mail failed, for programs; `error` says it in words. */
export const MAIL_ERROR_CODES = [
  'MAIL_NOT_CONFIGURED',
  'MAIL_AUTH_FAILED',
  'MAIL_RECIPIENT_REFUSED',
  'MAIL_TOO_LARGE',
  'MAIL_REFUSED',
  'MAIL_UNREACHABLE',
  'MAIL_PDF_MISSING',
] as const;
export type MailErrorCode = (typeof MAIL_ERROR_CODES)[number];

export const MAIL_RULES =
  'A final report is sent as a PDF attachment with its public check link, to at most BERICHT_MAIL_MAX_RECIPIENTS (default 10, at most ' +
  MAX_RECIPIENTS +
  ') addresses in `to` and `cc` together ' +
  `(each a plain address as name@domain: at most ${MAX_ADDRESS_LENGTH} characters, at most ${MAX_LOCAL_PART_LENGTH} before the @, the part before the @ dot-separated words without % or ! (source routes); ` +
  'a name, quotes, comments, angle brackets, spaces, line breaks or a route (@host:) are 400 VALIDATION_FAILED naming the field and the address). ' +
  'Limits: at most BERICHT_MAIL_MAX_PER_USER_HOUR (default 20) mails by one user in any 60 minutes and BERICHT_MAIL_MAX_PER_REPORT_DAY (default 10) of one report in any 24 hours ' +
  '(settings in llx_const or the environment); beyond them 429 MAIL_LIMIT_REACHED with Retry-After (seconds until the oldest mail counted leaves its window; with both reached, the limit that frees later), nothing queued. ' +
  `Subject (at most ${MAX_SUBJECT} characters, one line: line breaks and tabs become spaces; a longer template subject is cut between characters) and text (at most ${MAX_TEXT}; every line break, a lone CR or LF too, is kept and sent as CRLF) default to the template in the customer's language ` +
  '(BERICHT_MAIL_SUBJECT/BERICHT_MAIL_TEXT, `_EN` for English; substitutions `__REF__`, `__REPORT_TITLE__`, `__ORDER_REF__`, `__REF_CLIENT__`, `__THIRDPARTY_NAME__`, `__MYCOMPANY_NAME__`, `__USER_FULLNAME__`, `__CHECK_URL__`); ' +
  'a control character (NUL, ESC, DEL …; tab and line breaks are allowed) or a bidirectional override in either is 400 VALIDATION_FAILED. ' +
  'Addresses named twice (in `to` and `cc` together, case ignored) count once. ' +
  'Copies: the office (BERICHT_MAIL_COPY_TO) and the sender (BERICHT_MAIL_COPY_AUTHOR=1: the first address of their e-mail in Dolibarr) in Cc, MAIN_MAIL_AUTOCOPY_TO in Bcc, not counted; ' +
  'a copy address that is not a plain address by the rule above is left out (and logged); MAIN_MAIL_FORCE_SENDTO sends every mail there instead. ' +
  "A send is a job kept in the database: `queued` until a service process takes it, `sending` while one holds it, `sent` with the server's message id, " +
  `or \`failed\` with \`error_code\` and the reason in words in \`error\`. A server that cannot be reached or answers 4xx is tried again (after ${RETRY_BASE_SECONDS} s, doubled each time, at most ${RETRY_MAX_SECONDS / 60} min apart) ` +
  'until MAIL_RETRY_HOURS after the send (then failed, MAIL_UNREACHABLE); a wrong login (MAIL_AUTH_FAILED), every recipient refused (MAIL_RECIPIENT_REFUSED), a mail too large for the server (MAIL_TOO_LARGE) or another refusal (MAIL_REFUSED) fail at once. ' +
  "Sent, it is recorded in Dolibarr's agenda on the object (AC_ORDER_SENTBYMAIL, AC_BILL_SENTBYMAIL, AC_PROPAL_SENTBYMAIL). " +
  'Each job is taken by one process at a time (a lease in the database), so several processes or hosts never send it twice; with an Idempotency-Key a repeated send is the first one.';

/**
 * A plain address (RFC 5321's dot-string @ a domain with a dot): at most 64 characters before the @,
 * words of atom characters separated by single dots, without `%` and `!` (the source routes some
 * servers still follow); no name, quotes, comments, brackets, spaces or `@host:` route.
 */
export const ADDRESS_PATTERN =
  "^(?=[^@]{1,64}@)[A-Za-z0-9#$&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9#$&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$";
const ADDRESS = new RegExp(ADDRESS_PATTERN);
/** The rule of an address in a send's to and cc (Address below), for addresses read elsewhere (settings, the user's e-mail). */
export const isPlainAddress = (address: string) => address.length >= 3 && address.length <= MAX_ADDRESS_LENGTH && ADDRESS.test(address);
const Address = Type.String({
  minLength: 3,
  maxLength: MAX_ADDRESS_LENGTH,
  pattern: ADDRESS_PATTERN,
  description: 'An e-mail address (name@domain).',
});

export const MailsQuery = Type.Object({
  id: Type.Optional(RowId('One mail.')),
  action: Type.Optional(
    Type.String({ maxLength: 64, description: '`propose` (GET: recipients, subject and text proposed for a report), `send` (POST).' }),
  ),
  bericht_id: Type.Optional(RowId('The report.')),
  ...PageQuery,
});
export type MailsQuery = Static<typeof MailsQuery>;

export const SendMailBody = Type.Object(
  {
    bericht_id: RowId('The final report to send.'),
    to: Type.Array(Address, { minItems: 1, maxItems: MAX_RECIPIENTS, description: 'Recipients.' }),
    cc: Type.Optional(Type.Array(Address, { maxItems: MAX_RECIPIENTS, description: 'Copies (beside those the settings add).' })),
    subject: Type.Optional(PersonText({ required: true, maxLength: MAX_SUBJECT, description: 'The subject; default: the template.' })),
    text: Type.Optional(PersonText({ required: true, maxLength: MAX_TEXT, description: 'The text; default: the template.' })),
  },
  { additionalProperties: false },
);
export type SendMailBody = Static<typeof SendMailBody>;

export const MailJob = Type.Object({
  id: Type.Integer(),
  bericht_id: Type.Integer(),
  state: Type.Union(MAIL_STATES.map((s) => Type.Literal(s))),
  to: Type.Array(Type.String()),
  cc: Type.Array(Type.String()),
  bcc: Type.Array(Type.String(), { description: 'Hidden copies (MAIN_MAIL_AUTOCOPY_TO).' }),
  subject: Type.String(),
  text: Type.String(),
  lang: Type.String({ description: 'de or en: the language of the template and the PDF.' }),
  attempts: Type.Integer({ description: 'Attempts made so far.' }),
  next_attempt: Nullable(Type.Integer({ description: 'Unix seconds: when a queued mail is tried next.' })),
  message_id: Nullable(Type.String({ description: "The mail's Message-ID, once sent." })),
  server_response: Nullable(Type.String({ description: "The mail server's last answer." })),
  error_code: Nullable(Type.String({ description: MAIL_ERROR_CODES.join(', ') })),
  error: Nullable(Type.String({ description: 'Why it failed or is tried again, in German words.' })),
  created: Type.Integer({ description: 'Unix seconds.' }),
  sent: Nullable(Type.Integer({ description: 'Unix seconds.' })),
  fk_user_author: Type.Integer(),
});
export type MailJob = Static<typeof MailJob>;

export const MailList = Type.Object({ items: Type.Array(MailJob), total: Type.Integer({ minimum: 0 }) });

const Recipient = Type.Object({
  email: Type.String(),
  name: Type.String(),
  source: Type.Union([Type.Literal('contact'), Type.Literal('thirdparty')], {
    description: "contact: one of the object's contacts in Dolibarr (element_contact); thirdparty: the customer's own address.",
  }),
  type: Nullable(Type.String({ description: 'The contact type code (CUSTOMER, BILLING, …) for a contact.' })),
});

export const MailProposal = Type.Object({
  bericht_id: Type.Integer(),
  configured: Type.Boolean({ description: 'false: mail is not set up on this service; a send would fail with MAIL_NOT_CONFIGURED.' }),
  to: Type.Array(Recipient, { description: "The object's customer contacts, then the third party's address; the app proposes the first." }),
  cc: Type.Array(Type.String(), { description: 'Copies the settings add (the office, the sender).' }),
  subject: Type.String(),
  text: Type.String(),
  lang: Type.String(),
});
export type MailProposal = Static<typeof MailProposal>;
