/**
 * What the signature endpoints accept and answer, for validation and the OpenAPI description: the
 * form of endpoint 14 (read by signature-form.ts) and the verification of endpoint 15.
 */
import { Type } from 'typebox';
import { RowId } from '../common/common.schemas.js';
import { COORDINATE_FORMS } from '../common/form-fields.js';
import { DEVICE_AHEAD_SECONDS, DEVICE_MAX_AGE_SECONDS, SHOWN_APART_SECONDS } from './device-time.js';
import { MAX_CONFIRMATION_LENGTH, MAX_FIELD_BYTES, MAX_SIGNATURE_BYTES, MAX_USER_AGENT_LENGTH } from './signature-form.js';
import { DEFAULT_CONFIRMATION, MAX_SIGNATURE_SIDE } from './signatures.model.js';
import { MAX_STROKE_SAMPLES, MAX_STROKES, MAX_STROKES_BYTES, STROKES_FORMAT } from './strokes.js';
import { MAX_SIGNOFF_BYTES, MAX_SIGNOFF_MATERIALS, MAX_SIGNOFF_TIMES, MAX_WORK_LENGTH, MISSING_KINDS } from './signoff.js';

export const SIGNATURE_DESCRIPTION =
  "`action=signature&bericht_id=<report>`: multipart/form-data with the customer's signature as a PNG in the field `file` " +
  `(at most ${MAX_SIGNATURE_BYTES} bytes, ${MAX_SIGNATURE_SIDE} pixels a side: 413 beyond; not a PNG by its bytes: 415; unreadable: 400 IMAGE_INVALID), ` +
  '`signer_name` (required, 1-255 characters), `gps_lat` (-90..90) and `gps_lon` (-180..180) (optional, both or neither; ' +
  COORDINATE_FORMS +
  '), `confirmation_text` ' +
  `(optional, at most ${MAX_CONFIRMATION_LENGTH} characters; default: "${DEFAULT_CONFIRMATION}"), ` +
  "`signed_at_device` (optional: the moment the customer signed, by the phone's clock, as an RFC 3339 date-time WITH its UTC offset, e.g. `2026-11-24T09:14:03.120+01:00` or `…Z`; " +
  "a signature sent from an offline queue reaches the service later) and `signed_at_device_zone` (optional, only with `signed_at_device`: the phone's IANA time zone, e.g. `Europe/Berlin`). " +
  `\`strokes\` (optional: every pointer sample of the drawing, JSON of the form \`${STROKES_FORMAT}\`: ` +
  '`{ "format", "started_at_unix_ms" (the first sample by the phone\'s clock), "pad": { "width", "height" (CSS px), "pixel_ratio" }, "sample_fields": ["x","y","t","pressure"], ' +
  '"strokes": [ { "pointer_type": "mouse"|"pen"|"touch", "samples": [[x, y, t, pressure], …] }, … ] }`; x and y in CSS pixels from the top-left corner of the pad\'s canvas, ' +
  't in ms since the first sample (0 for it, never decreasing), pressure 0..1; unknown keys and a key twice in one object are refused; a text field (of any Content-Type, application/json too), or a file part; ' +
  `at most ${MAX_STROKES_BYTES} bytes, ${MAX_STROKES} strokes and ${MAX_STROKE_SAMPLES} samples: 413 STROKES_TOO_LARGE beyond; malformed or wrong: 400 VALIDATION_FAILED naming \`body.strokes\` and where in it; ` +
  'stored byte for byte as `<image>.strokes.json` and summed up in the sealed metadata as `strokes`: `{ format, sha256, bytes, strokes, samples, duration_ms, pointer_types }`; absent: no stroke record). ' +
  '`signoff` (optional: what the customer was shown before signing, JSON, a text field or a file part: ' +
  '`{ "work": text|null, "times": [ { "arrival": Unix s, "departure": Unix s|null } ], "materials": [ { "label", "qty", "unit"|null, "note"|null } ], ' +
  '"checklist": { "items", "ok", "defects", "na", "open", "outside_limits" }|null, "pages", "photos", "missing": [ { "what", "reason" } ] }`, ' +
  `work at most ${MAX_WORK_LENGTH} characters, at most ${MAX_SIGNOFF_TIMES} times and ${MAX_SIGNOFF_MATERIALS} material lines (label 1-255, unit 32, note 2000 characters, qty 0..1e9 with at most 3 decimals), ` +
  `\`what\` one of ${MISSING_KINDS.join(', ')} with its reason (1-500 characters); unknown keys are refused; at most ${MAX_SIGNOFF_BYTES} bytes: 413 SIGNOFF_TOO_LARGE beyond; malformed: 400 VALIDATION_FAILED naming \`body.signoff\` and where in it. ` +
  'With it, the hash takes form fieldreport-pages/4 and covers the work, the times and the material lines too, and the sealed metadata keeps the whole sign-off as `signoff` (null without). ' +
  'A malformed device time (no offset, no such date) or a zone that is no IANA-style name is 400 VALIDATION_FAILED naming the field; an empty field counts as absent; ' +
  `any text field but \`strokes\` and \`signoff\` longer than ${MAX_FIELD_BYTES} bytes is 400 naming it; ` +
  'a well-formed zone this service does not know (a newer zone database on the phone, `Etc/Unknown`) is kept as sent and the time shown at the offset the phone sent. ' +
  `A well-formed device time is never refused however far off: it is kept and marked implausible when it lies more than ${DEVICE_AHEAD_SECONDS / 60} minutes after the server's time ` +
  `(reason \`ahead\`) or more than ${DEVICE_MAX_AGE_SECONDS / 86400} days before it (\`too_old\`). ` +
  'Appends a signature page (layout `signature`) whose note names the signer and the time. The image is a composite: a header with the metadata, the signature, ' +
  'a footer with the SHA-256 over all pages before it plus the report ref, the server name and time, and a QR code of the public check. ' +
  `When the device time differs from the server's by more than ${SHOWN_APART_SECONDS} s, the header shows "Unterschrieben am (Gerät)" (the phone's local time, in its zone when sent, else at its offset, naming it) ` +
  'and "Empfangen am (Server)" (the server\'s time in TIME_ZONE), with "– unplausibel: …" beside an implausible device time, and the note reads ' +
  '"Unterschrieben von <signer> am <device time> Uhr (Gerät, <zone>); empfangen am <server time> Uhr (Server, <zone>)" plus that mark; within a minute (or without a device time) ' +
  'one time, the server\'s, as "Unterschrieben von <signer> am <time> Uhr (<zone>)". Beside the image, `<image>.json` holds the metadata ' +
  '(headline, report and parent ref, customer, `server_time` and `server_time_unix`, signer, confirmation text, GPS, hash, page_count_at_signing, server name, client IP, user, and ' +
  '`signed_at_device` (as sent, with its offset), `signed_at_device_unix`, `signed_at_device_zone`, `device_time_difference_seconds` (server_time_unix − signed_at_device_unix: positive when received after signing), ' +
  "`device_time_plausible`, `device_time_implausible_reason` (null, `ahead` or `too_old`); all six null without a device time; `user_agent` (the request's User-Agent, " +
  `at most ${MAX_USER_AGENT_LENGTH} characters, control characters replaced; null without one) and \`strokes\` (above; null without strokes)) sealed with the service's Ed25519 key, so editing any of them breaks the seal. ` +
  'The device time, its zone and the plausibility are also kept in the database, and every page answer carries them in `signature`. ' +
  'A body that is no readable multipart form (no or a wrong boundary, cut off): 400 UPLOAD_MISSING. Every page image must exist, or be kept by an earlier signature of the report when Dolibarr deleted it (409 REPORT_SOURCE_MISSING); an image written to while the signature keeps its copy: 409 REPORT_SOURCE_CHANGED (sign again). Write right, a draft the caller sees (409 REPORT_FINAL otherwise). ' +
  '201 with the page (its `signature` filled) and `hash`, `page_count_at_signing` and `verify_url` (the public check; its address comes from PUBLIC_URL, else from the request). ' +
  'On any error no page and no file is left. At most two signatures are made or checked at once per process (503 SIGNATURE_BUSY beyond a short queue).';

export const VerifyQuery = Type.Object({
  id: Type.Optional(RowId('The signature page.')),
  page_id: Type.Optional(RowId('The signature page (same as id).')),
});

export const VERIFY_DESCRIPTION =
  "Verifies the signature page `id` (or `page_id`; in the query, or for POST also in a JSON body) of a report the caller sees: reads the metadata JSON beside it, checks the service's Ed25519 seal, " +
  "compares the number of pages before the signature with page_count_at_signing, and recomputes the SHA-256 over those pages plus the report ref, and the composite image's SHA-256, " +
  'and, when the metadata names a stroke record (`strokes`), the SHA-256 of `<image>.strokes.json`. ' +
  'Answers `{ verified, reason?, message, page_id, report_id, report_ref, checks, metadata }`; `checks.strokes` is null when the signature has no stroke record ' +
  '(made before they were kept, or sent without) or the check was not reached; `reason` when not verified: metadata_missing, ' +
  "key_unknown (sealed with another key than this service's SIGNING_KEY_FILE: check the key, not the report), seal_broken (the metadata was edited), " +
  'page_count_changed (pages before the signature were deleted or added), content_changed (a page, its order, a title, note, rotation or image file, or the signature image changed), ' +
  'strokes_changed (the stroke record beside the signature is gone or was edited). ' +
  '`not_covered`: for a verified signature with a sign-off (hash form 4), what of the visit changed since and the signature does not cover: ' +
  '`{ covered, work_changed, materials_added, materials_removed, times_added, times_removed }` (a line changed after signing is among both added and removed; ' +
  'an interval whose departure was recorded after signing is among both); null without a sign-off or when the check failed. ' +
  '404 PAGE_NOT_FOUND for a page that is no signature page or not visible.';

const SignedMaterial = Type.Object({
  label: Type.String(),
  qty: Type.Number(),
  unit: Type.Union([Type.String(), Type.Null()]),
  note: Type.Union([Type.String(), Type.Null()]),
});
const SignedInterval = Type.Object({
  arrival: Type.Integer({ description: 'Unix seconds.' }),
  departure: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; null: still on site.' }),
});
const Check = Type.Union([Type.Boolean(), Type.Null()], { description: 'null: not reached' });
export const VerifyResponse = Type.Object({
  verified: Type.Boolean(),
  reason: Type.Optional(
    Type.Union([
      Type.Literal('metadata_missing'),
      Type.Literal('key_unknown'),
      Type.Literal('seal_broken'),
      Type.Literal('page_count_changed'),
      Type.Literal('content_changed'),
      Type.Literal('strokes_changed'),
    ]),
  ),
  message: Type.String({ description: 'The result in German, for people.' }),
  page_id: Type.Integer(),
  report_id: Type.Integer(),
  report_ref: Type.String(),
  checks: Type.Object({
    metadata: Type.Boolean(),
    seal: Check,
    page_count: Check,
    hash: Check,
    image: Check,
    strokes: Type.Union([Type.Boolean(), Type.Null()], { description: 'null: no stroke record, or not reached' }),
  }),
  not_covered: Type.Union([
    Type.Object({
      covered: Type.Boolean({ description: 'Nothing of the visit changed since the signature.' }),
      work_changed: Type.Boolean(),
      materials_added: Type.Array(SignedMaterial),
      materials_removed: Type.Array(SignedMaterial),
      times_added: Type.Array(SignedInterval),
      times_removed: Type.Array(SignedInterval),
    }),
    Type.Null(),
  ]),
  metadata: Type.Union([
    Type.Object({}, { additionalProperties: true, description: 'The metadata JSON as stored beside the signature image.' }),
    Type.Null(),
  ]),
});
