/** Request and response shapes of /api/times.php: time on site (arrival and departure) at an object. */
import { Type, type Static } from 'typebox';
import { PageQuery, PersonText, RowId } from '../common/common.schemas.js';
import { Nullable } from '../reports/reports.schemas.js';

/** Longest interval: a visit longer than a day is a forgotten departure, corrected by hand. */
export const MAX_INTERVAL_SECONDS = 24 * 3600;
/** A tap's time by the phone may lie at most this far ahead of the service's clock. */
export const MAX_AHEAD_SECONDS = 5 * 60;
/** … and at most this far back (a phone offline for a month). */
export const MAX_BACK_SECONDS = 30 * 86_400;
export const MAX_REASON = 500;
/** Corrections kept per interval; more is refused. */
export const MAX_CORRECTIONS = 50;

// Spelt out: a union mapped from an array is typed `never`.
const ElementType = Type.Union([Type.Literal('commande'), Type.Literal('facture'), Type.Literal('propal'), Type.Literal('fichinter')], {
  description: 'Kind of object: commande (order), facture (invoice), propal (proposal), fichinter (intervention).',
});
const Instant = (description: string) => Type.Integer({ minimum: 0, maximum: 4_102_444_800, description: `${description} Unix seconds.` });
const Reason = PersonText({
  required: true,
  maxLength: MAX_REASON,
  description: `Why the times are set by hand (1-${MAX_REASON} characters); kept with the times before the change.`,
});

export const TIME_RULES =
  'Time on site: intervals of arrival and departure of a technician at an order, invoice, proposal or intervention; several a day. ' +
  `A tap's time (\`at\`) is the phone's, sent when the person tapped (also offline): at most ${MAX_AHEAD_SECONDS / 60} minutes ahead of the service's clock and at most ${MAX_BACK_SECONDS / 86_400} days back (400 otherwise); ` +
  `without \`at\`, the service's time. A time set by hand (\`action=add\`, a correction) lies within the same window: not in the future, at most ${MAX_BACK_SECONDS / 86_400} days back (400 naming \`body.arrival\` or \`body.departure\`). An interval lasts at most ${MAX_INTERVAL_SECONDS / 3600} hours, the departure is not before the arrival, and a technician's intervals at one object do not overlap (409 TIME_OVERLAP). ` +
  'A correction by hand needs a reason; each is kept with the times before it, and the first recorded times stay in `arrival_tapped`/`departure_tapped`. ' +
  'An interval is taken by the report finalized after it (`fk_bericht`), shown in its PDF, and no longer changes (409 TIME_REPORTED). ' +
  'Changes take an Idempotency-Key (the app sends them from its offline queue): a repeat gets the first answer.';

export const TimesQuery = Type.Object({
  id: Type.Optional(RowId('An interval (correction).')),
  action: Type.Optional(
    Type.String({
      maxLength: 64,
      description: '`arrive`, `leave`, `add`; `undo` with `id`: a tap taken back; none with `id`: a correction.',
    }),
  ),
  element_type: Type.Optional(ElementType),
  fk_element: Type.Optional(RowId('The object whose intervals are listed.')),
  bericht_id: Type.Optional(
    RowId('A report: the intervals its PDF shows (taken by it or an earlier version, and for a draft those not yet taken).'),
  ),
  ...PageQuery,
});
export type TimesQuery = Static<typeof TimesQuery>;

export const TapBody = Type.Object(
  {
    element_type: ElementType,
    fk_element: RowId('The object.'),
    at: Type.Optional(Instant("When the person tapped, by the phone's clock.")),
  },
  { additionalProperties: false },
);
export type TapBody = Static<typeof TapBody>;

/** How long after a tap it can be taken back (`action=undo`): the app offers it for a minute, the rest is for the way there. */
export const UNDO_SECONDS = 120;

export const UndoTimeBody = Type.Object(
  {
    tap: Type.Union([Type.Literal('arrive'), Type.Literal('leave')], {
      description: '`arrive`: the interval goes (it must still be open); `leave`: the interval is open again.',
    }),
  },
  { additionalProperties: false },
);
export type UndoTimeBody = Static<typeof UndoTimeBody>;

export const AddTimeBody = Type.Object(
  {
    element_type: ElementType,
    fk_element: RowId('The object.'),
    arrival: Instant('Arrival.'),
    departure: Instant('Departure.'),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type AddTimeBody = Static<typeof AddTimeBody>;

export const CorrectTimeBody = Type.Object(
  {
    arrival: Type.Optional(Instant('Arrival.')),
    departure: Type.Optional(Instant('Departure (also of an interval still open).')),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type CorrectTimeBody = Static<typeof CorrectTimeBody>;

export const Correction = Type.Object({
  at: Type.Integer({ description: 'When it was corrected, Unix seconds.' }),
  by: Type.Integer({ description: 'Who corrected it.' }),
  reason: Type.String(),
  arrival: Nullable(Type.Integer(), 'The arrival before the correction (null for an interval entered by hand).'),
  departure: Nullable(Type.Integer(), 'The departure before the correction.'),
});
export type Correction = Static<typeof Correction>;

export const TimeInterval = Type.Object({
  id: Type.Integer(),
  element_type: Type.String(),
  fk_element: Type.Integer(),
  fk_user: Type.Integer({ description: 'The technician.' }),
  user_name: Type.String({ description: "The technician's name (first and last name, else the login)." }),
  fk_bericht: Nullable(Type.Integer(), 'The final report that took it, or null.'),
  arrival: Type.Integer({ description: 'Unix seconds.' }),
  departure: Nullable(Type.Integer(), 'Unix seconds; null while on site.'),
  seconds: Nullable(Type.Integer(), 'departure - arrival; null while on site.'),
  arrival_tapped: Nullable(Type.Integer(), 'The arrival as first recorded.'),
  departure_tapped: Nullable(Type.Integer(), 'The departure as first recorded.'),
  manual: Type.Boolean({ description: 'Entered by hand (action=add), not tapped.' }),
  corrections: Type.Array(Correction, { description: 'Every correction by hand, oldest first.' }),
});
export type TimeInterval = Static<typeof TimeInterval>;

export const UndoneTime = Type.Object({
  id: Type.Integer({ description: 'The interval.' }),
  tap: Type.Union([Type.Literal('arrive'), Type.Literal('leave')]),
  interval: Type.Union([TimeInterval, Type.Null()], { description: 'The interval open again (`leave`); null when it went (`arrive`).' }),
});
export type UndoneTime = Static<typeof UndoneTime>;

export const TimeList = Type.Object({
  items: Type.Array(TimeInterval, { description: 'By arrival.' }),
  total: Type.Integer({ minimum: 0 }),
  total_seconds: Type.Integer({ description: 'The sum of every closed interval listed (all pages of the list).' }),
  open: Nullable(TimeInterval, "The caller's interval still open at this object (arrived, not left), or null."),
});
export type TimeList = Static<typeof TimeList>;
