/** Request and response shapes of GET /api/interventions.php: Dolibarr's interventions (llx_fichinter). */
import { Type, type Static } from 'typebox';
import { ListOf, PageQuery, SearchText } from '../common/common.schemas.js';
import { OrderCustomer, OrderReport } from '../orders/orders.schemas.js';

/** Dolibarr's intervention states (llx_fichinter.fk_statut, Fichinter::STATUS_*): draft, validated, billed, closed. */
export const INTERVENTION_STATUSES = [0, 1, 2, 3] as const;

export const InterventionsQuery = Type.Object({
  id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: 'Intervention id (llx_fichinter.rowid): detail, or with `action` an operation on it.',
    }),
  ),
  action: Type.Optional(Type.String({ maxLength: 64, description: 'Operation on the intervention `id`: `photos` (its attachments).' })),
  q: Type.Optional(SearchText('ref, ref_client, description and customer name (list only)')),
  status: Type.Optional(
    Type.String({
      pattern: '^[0-3](,[0-3])*$',
      maxLength: 64,
      description:
        'List only: interventions whose fk_statut is one of these, comma-separated, each of 0 (draft), 1 (validated), 2 (billed), 3 (closed); ' +
        'e.g. `0,1` for those not yet billed or closed. Anything else is 400 VALIDATION_FAILED naming `status`. Not given: every status.',
    }),
  ),
  visit_records: Type.Optional(
    Type.Union([Type.Literal('0'), Type.Literal('1')], {
      description:
        'List only: `0` leaves out the records of visits (those the service made from a report on an order, `visit_record` set): done work for the office to validate, not work to do. `1` (the default) lists them.',
    }),
  ),
  ...PageQuery,
});
export type InterventionsQuery = Static<typeof InterventionsQuery>;

const UnixOrNull = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

const InterventionFields = {
  id: Type.Integer(),
  ref: Type.String({ description: 'Intervention number, e.g. FI2401-0001; drafts `(PROV<id>)`.' }),
  ref_client: Type.Union([Type.String(), Type.Null()], { description: "Customer's own number for it." }),
  status: Type.Integer({ description: 'fk_statut: 0 draft, 1 validated, 2 billed, 3 closed.' }),
  description: Type.Union([Type.String(), Type.Null()], { description: 'What is to be done (Dolibarr may hold HTML here).' }),
  date_start: UnixOrNull('Planned first day (dateo: midnight where Dolibarr is, TIME_ZONE), Unix seconds.'),
  date_end: UnixOrNull('Planned last day (datee), Unix seconds.'),
  date_creation: UnixOrNull('Creation time (datec), Unix seconds.'),
  duration: Type.Integer({ minimum: 0, description: 'Total time of its lines (duree), seconds.' }),
  visit_record: Type.Union([Type.String(), Type.Null()], {
    description:
      'The report this intervention is the record of (the service made it when that report, on an order, was finalized; `ref_ext` `fieldreport:<ref>`), else null.',
  }),
};

export const InterventionListItem = Type.Object({
  ...InterventionFields,
  customer: Type.Union([Type.Object({ id: Type.Integer(), name: Type.Union([Type.String(), Type.Null()]) }), Type.Null()], {
    description: 'The customer it is for; null when its third party is no customer (client 0), as in the detail.',
  }),
});
export type InterventionListItem = Static<typeof InterventionListItem>;
export const InterventionList = ListOf(InterventionListItem);

export const InterventionDetail = Type.Object({
  ...InterventionFields,
  note_public: Type.Union([Type.String(), Type.Null()]),
  customer: Type.Union([OrderCustomer, Type.Null()], { description: 'null when the third party is no customer (client 0) or gone.' }),
  reports: Type.Array(OrderReport, { description: 'Reports of the intervention (templates left out), newest first; at most 500.' }),
});
export type InterventionDetail = Static<typeof InterventionDetail>;
