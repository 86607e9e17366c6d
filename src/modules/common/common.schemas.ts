/** Schemas every module uses. */
import { Type, type TSchema } from 'typebox';
import { IDEMPOTENCY_KEY_PATTERN } from './idempotency.js';

/** The one error shape (docs/architecture.md, "Errors"). */
export const ErrorResponse = Type.Object({
  error: Type.String({ description: 'German message for people.' }),
  code: Type.String({ description: 'Stable code for programs, e.g. AUTH_LOGIN_FAILED.' }),
  details: Type.Optional(Type.Unknown()),
});

/** A Dolibarr rowid: a positive `integer` column (PostgreSQL refuses larger values with an error). */
export const MAX_ROW_ID = 2_147_483_647;
export const RowId = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_ROW_ID, description });

/** A report's status in the API: stored 0 is 'draft', anything else (1) 'final'. */
export function reportStatus(stored: number | string): 'draft' | 'final' {
  return Number(stored) === 0 ? 'draft' : 'final';
}

/** Longest search text of every list's `q`; longer is 400, not silently cut. */
export const MAX_SEARCH_LENGTH = 100;

/** A list's search text: case-insensitive substring, `%` and `_` literal, over `what`. */
export const SearchText = (what: string) =>
  Type.String({
    maxLength: MAX_SEARCH_LENGTH,
    description: `Search (case-insensitive substring; % and _ are literal; at most ${MAX_SEARCH_LENGTH} characters, trimmed) over ${what}.`,
  });

/** Paging of every list (docs/architecture.md): `limit` default 50, at most 500; `offset` from 0. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Entries per page (at most 500).' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
};

/** A list answer: `{ items, total }`, total counting every match, not only this page. */
export const ListOf = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item), total: Type.Integer({ minimum: 0 }) });

/**
 * Text a person types (a title, a note, a material line): trimmed before it is checked and
 * stored (the `x-trim` keyword of the validation plugin). `required` refuses text that is empty
 * after trimming, with a 400 that names the field; so is text with a control character (but tab
 * and line breaks) or a direction override (FORBIDDEN_TEXT_CHARACTERS of the validation plugin).
 */
export const PersonText = (options: { required: boolean; maxLength: number; description: string }) =>
  Type.String({
    ...(options.required ? { minLength: 1 } : {}),
    maxLength: options.maxLength,
    description: `${options.description} Trimmed${options.required ? '; empty or only spaces is 400 VALIDATION_FAILED' : ''}; a control character (NUL, ESC, DEL, C1; tab and line breaks are allowed) or a direction override (U+202A-U+202E, U+2066-U+2069) is 400 VALIDATION_FAILED.`,
    'x-trim': options.required ? 'nonempty' : 'allow-empty',
  });

/** The Idempotency-Key header of writes a client may repeat (common/idempotency.ts). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Optional, 1-128 visible ASCII characters (else 400 VALIDATION_FAILED). Claimed per user before the work begins. ' +
        'Repeating the same key on the same route and object returns the first answer (status and body) and does nothing again ' +
        '(no second file, line, report or page); while the first request is still running: 409 IDEMPOTENCY_IN_PROGRESS with Retry-After; ' +
        'the key used before on another route or object: 409 IDEMPOTENCY_KEY_REUSED. A request that failed frees its key, so it can be ' +
        'retried with the same key. A key is remembered for 7 days.',
    }),
  ),
});
