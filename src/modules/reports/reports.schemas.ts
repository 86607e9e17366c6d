/**
 * Request and response shapes of reports, pages and templates (contract endpoints 6-13, 17, 23, 24).
 * One file, longer than most: a report's answer holds its pages, and both are built from the same
 * parts (checklist items, evidence, signatures), which the routes of reports and pages share.
 */
import { Type, type Static } from 'typebox';
import { ListOf, PageQuery, PersonText, RowId, SearchText } from '../common/common.schemas.js';
import { DEFAULT_PHOTOS_PER_SHEET, PHOTOS_PER_SHEET } from './photos-per-sheet.js';
import {
  ITEM_DECIMALS,
  MAX_CHECKLIST_ITEMS,
  MAX_ITEM_LABEL,
  MAX_ITEM_MAGNITUDE,
  MAX_ITEM_NOTE,
  MAX_ITEM_PHOTOS,
  MAX_ITEM_UNIT,
} from '../pages/checklist.js';
import { PageEvidence } from '../photo-evidence/photo-evidence.schemas.js';
import { MAX_MISSING_REASON, MISSING_KINDS } from '../signatures/signoff.js';

/** Paper formats a report can be printed on, and their orientations. */
export const REPORT_FORMATS = ['A4', 'A5', 'A3', 'LETTER'] as const;
export const ORIENTATIONS = ['portrait', 'landscape'] as const;
/** Page layouts a client may choose; `signature` pages are made by the signature endpoint only. */
export const EDITABLE_LAYOUTS = ['photo', 'before_after', 'title_only', 'checklist'] as const;
export const LAYOUTS = [...EDITABLE_LAYOUTS, 'signature'] as const;
export const ROTATIONS = [0, 90, 180, 270] as const;
export const ELEMENT_TYPE_VALUES = ['commande', 'facture', 'propal', 'fichinter'] as const;
/** Most pages a report may have (docs/architecture.md: every size a user can drive is capped). */
export const MAX_REPORT_PAGES = 1000;

export type ReportFormat = (typeof REPORT_FORMATS)[number];
export type Orientation = (typeof ORIENTATIONS)[number];
export type Layout = (typeof LAYOUTS)[number];
export type Rotation = (typeof ROTATIONS)[number];

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description ? { description } : {});
const UnixOrNull = (description: string) => Nullable(Type.Integer(), description);

export const Format = Type.Union(
  REPORT_FORMATS.map((f) => Type.Literal(f)),
  { description: `Paper format: ${REPORT_FORMATS.join(', ')}.` },
);
export const OrientationSchema = Type.Union(
  ORIENTATIONS.map((o) => Type.Literal(o)),
  { description: 'portrait or landscape.' },
);
export const RotationSchema = Type.Union(
  ROTATIONS.map((r) => Type.Literal(r)),
  { description: 'Clockwise quarter turns of the page image, in degrees: 0, 90, 180 or 270.' },
);
/** What `photos_per_sheet` means, for every schema that carries it (and so for the OpenAPI document). */
export const PHOTOS_PER_SHEET_DESCRIPTION =
  `The PDF's page layout: how many photo pages go on one printed sheet, one of ${PHOTOS_PER_SHEET.join(', ')} (default ${DEFAULT_PHOTOS_PER_SHEET}). ` +
  '1: one page a sheet (a title-only page is a sheet with its title centred in large type). ' +
  "2 and 4: compact: photos 2 or 4 to a sheet, each with its caption under it; before/after pairs across the sheet's width, up to two pairs a sheet; " +
  'a title-only page becomes a section heading with its note in the flow. A signature page is always a sheet of its own.';
/** 1, 2 or 4, as a JSON integer ("4" and null are refused: bodies are checked without type coercion). */
export const PhotosPerSheetSchema = (description = PHOTOS_PER_SHEET_DESCRIPTION) =>
  Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(4)], { description });

const Title = (description: string) => PersonText({ required: true, maxLength: 255, description });
const PageTitle = Nullable(
  PersonText({ required: false, maxLength: 255, description: 'Page title (at most 255 characters); a title-only page needs one.' }),
  'Page title, or null.',
);
const Note = Nullable(
  PersonText({ required: false, maxLength: 10_000, description: 'Free text of the page (at most 10000 characters).' }),
  'Free text of the page, or null.',
);
const AttachmentName = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

/** What a signature page's caption needs, from its `bericht_signature` row; null on every other page. */
export const PageSignature = Type.Union(
  [
    Type.Object({
      signer_name: Type.String({ description: 'Who signed, as typed on the phone.' }),
      signed_at: Type.Integer({ description: 'When the service received the signature (its time), Unix seconds.' }),
      signed_at_device: Nullable(
        Type.Integer(),
        "When the customer signed by the phone's clock (`signed_at_device` of the signature form), Unix seconds; null when the phone sent no time.",
      ),
      signed_at_device_zone: Nullable(Type.String(), "The phone's IANA time zone (e.g. Europe/Berlin), or null when it sent none."),
      device_time_plausible: Nullable(
        Type.Boolean(),
        "false when the phone's time lay more than 5 minutes after the service's or more than 30 days before it (kept and marked, never refused); null without a device time.",
      ),
    }),
    Type.Null(),
  ],
  {
    description:
      'For a signature page (layout `signature`): the facts a client captions it with in its own language; null for every other page ' +
      '(and for a signature page without its record, such as one made by other software). The proof itself is the sealed metadata (/ajax/verify_signature.php).',
  },
);
export type PageSignature = Static<typeof PageSignature>;

// ---- checklists --------------------------------------------------------------------------------

const ItemNumber = (description: string) =>
  Nullable(
    Type.Number({
      minimum: -MAX_ITEM_MAGNITUDE,
      maximum: MAX_ITEM_MAGNITUDE,
      description: `${description} A JSON number within ±${MAX_ITEM_MAGNITUDE}, at most ${ITEM_DECIMALS} decimal places.`,
    }),
    `${description} Or null for none.`,
  );
// Spelt out: a union mapped from the array is typed `never` (TypeBox cannot see its members).
const CheckStateSchema = Type.Union([Type.Literal('open'), Type.Literal('ok'), Type.Literal('defect'), Type.Literal('na')], {
  description: 'open (not yet checked), ok, defect (Mangel: needs a note), na (not applicable, "n. z.").',
});
/** What the check rules are, for every schema that carries items (and so for the OpenAPI document). */
export const CHECKLIST_RULES =
  `A checklist page (layout \`checklist\`) has 0 to ${MAX_CHECKLIST_ITEMS} items in order. An item: \`label\` 1-${MAX_ITEM_LABEL} characters; ` +
  `\`unit\` up to ${MAX_ITEM_UNIT} characters (bar, %, ppm, °C, N, mA…); \`lower\` and \`upper\` limits (JSON numbers within ±${MAX_ITEM_MAGNITUDE}, at most ${ITEM_DECIMALS} decimal places; ` +
  'either may be missing; lower must not lie above upper). An item with a unit or a limit is a measurement. ' +
  'The technician records `state` (open, ok, defect, na), `value` (a number like the limits: a value below the lower or above the upper limit is flagged in `deviation`, not refused; ' +
  'answered `ok` it needs `ok_reason` ("OK trotz Grenzwert", 400 naming body.ok_reason without), and `defect` says whether the item counts as a defect: marked as one, or ok outside its limits without a reason), ' +
  `\`note\` (up to ${MAX_ITEM_NOTE} characters; a defect needs one) and \`photos\` (up to ${MAX_ITEM_PHOTOS} photos of the parent object's attachments). ` +
  'The items are page content: a signature covers them with the page (its hash includes them) and they cannot change under it (409 PAGE_SIGNED). ' +
  'A refusal (400 VALIDATION_FAILED) names the item: its position from 1 and label in the message, and `item`, `label` and `field` in each entry of `details`.';

export const ChecklistItemDefinition = Type.Object(
  {
    id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'An item the page already has (its answer is kept); without it, a new item.',
      }),
    ),
    label: PersonText({ required: true, maxLength: MAX_ITEM_LABEL, description: `What is checked (1-${MAX_ITEM_LABEL} characters).` }),
    unit: Type.Optional(
      Nullable(
        PersonText({
          required: false,
          maxLength: MAX_ITEM_UNIT,
          description: `Unit of the measured value (at most ${MAX_ITEM_UNIT} characters).`,
        }),
      ),
    ),
    lower: Type.Optional(ItemNumber('Lower limit: a value below it is flagged.')),
    upper: Type.Optional(ItemNumber('Upper limit: a value above it is flagged.')),
  },
  { additionalProperties: false },
);
export const ChecklistDefinition = Type.Array(ChecklistItemDefinition, {
  maxItems: MAX_CHECKLIST_ITEMS,
  description: `The checklist's items in order (at most ${MAX_CHECKLIST_ITEMS}). On update the whole list: items named by id keep their answers, items left out are removed. ${CHECKLIST_RULES}`,
});

export const ChecklistPhoto = Type.Object({
  name: Type.String({ description: "File name in the parent object's attachments." }),
  source_path: Type.String(),
  url: Type.String(),
  thumb_url: Type.String(),
});
export const ChecklistItem = Type.Object({
  id: Type.Integer({ description: 'The item, unique within its page.' }),
  label: Type.String(),
  unit: Nullable(Type.String()),
  lower: Nullable(Type.Number()),
  upper: Nullable(Type.Number()),
  state: CheckStateSchema,
  value: Nullable(Type.Number()),
  deviation: Nullable(
    Type.Union([Type.Literal('below'), Type.Literal('above')]),
    'below: the value lies under the lower limit; above: over the upper; null: within, or no value or limit.',
  ),
  note: Nullable(Type.String()),
  photos: Type.Array(ChecklistPhoto),
  checked_at: Nullable(Type.Integer(), "When it was last answered (the phone's time when it sent one), Unix seconds."),
  checked_by: Nullable(Type.Integer(), 'Who answered it last.'),
  ok_reason: Nullable(
    Type.String(),
    '"OK trotz Grenzwert": why an item answered ok keeps a value outside its limits; null otherwise. Such an item without one (answered before the reason was asked for) counts as a defect.',
  ),
  defect: Type.Boolean({
    description: 'Whether the item counts as a defect: marked as one, or ok with a value outside its limits and no ok_reason.',
  }),
});
export type ChecklistItemResponse = Static<typeof ChecklistItem>;

export const CheckBody = Type.Object(
  {
    item: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'The item (its id on the page).' }),
    state: Type.Optional(CheckStateSchema),
    value: Type.Optional(ItemNumber('The measured value.')),
    note: Type.Optional(
      Nullable(
        PersonText({
          required: false,
          maxLength: MAX_ITEM_NOTE,
          description: `Note (at most ${MAX_ITEM_NOTE} characters); a defect needs one.`,
        }),
      ),
    ),
    photos: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: MAX_ITEM_PHOTOS,
        description: `Photos of the parent object's attachments (file names as action=photos lists them), at most ${MAX_ITEM_PHOTOS}; the whole list.`,
      }),
    ),
    checked_at: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 4_102_444_800,
        description:
          "When the person answered, by the phone's clock (Unix seconds); a time in the future or more than 30 days back is replaced by the service's.",
      }),
    ),
    ok_reason: Type.Optional(
      Nullable(
        PersonText({
          required: false,
          maxLength: MAX_ITEM_NOTE,
          description: `"OK trotz Grenzwert": why the value may lie outside its limits (at most ${MAX_ITEM_NOTE} characters). state ok with a value outside the limits needs one (400 naming body.ok_reason otherwise); kept only while both hold.`,
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type CheckBody = Static<typeof CheckBody>;

export const CheckAllBody = Type.Object(
  {
    state: Type.Literal('ok', { description: 'Only ok: "alle übrigen OK".' }),
    checked_at: CheckBody.properties.checked_at,
  },
  { additionalProperties: false },
);
export type CheckAllBody = Static<typeof CheckAllBody>;

export const Page = Type.Object({
  id: Type.Integer(),
  fk_bericht: Type.Integer({ description: 'The report.' }),
  page_order: Type.Integer({ description: 'Position in the report, from 1.' }),
  title: Nullable(Type.String()),
  note: Nullable(Type.String()),
  prompt: Nullable(
    Type.String(),
    "What the page's template asks for (the template's note): the app shows it as the note's placeholder; never printed. Null for none.",
  ),
  rotation: Type.Integer({ description: 'Degrees clockwise: 0, 90, 180, 270.' }),
  layout: Type.String({ description: `One of ${LAYOUTS.join(', ')}.` }),
  source_path: Nullable(
    Type.String(),
    'The image, relative to the documents root: `commande/<ref>/<name>` (an attachment) or `bericht/<report ref>/<name>` (the work area).',
  ),
  source_path_2: Nullable(Type.String(), 'The second image of a before/after page (the "Nachher" image).'),
  url: Nullable(Type.String(), 'File endpoint link of source_path.'),
  thumb_url: Nullable(Type.String(), 'Its small thumbnail.'),
  url_2: Nullable(Type.String(), 'File endpoint link of source_path_2.'),
  thumb_url_2: Nullable(Type.String()),
  signature: PageSignature,
  checklist: Nullable(Type.Array(ChecklistItem), `A checklist page's items in order; null on every other page. ${CHECKLIST_RULES}`),
  evidence: PageEvidence("the page's image (`source_path`): what the service recorded when the photo was uploaded"),
  evidence_2: PageEvidence('the second image of a before/after page (`source_path_2`)'),
});
export type PageResponse = Static<typeof Page>;

/** A signature page just made, with what the client shows or keeps of its proof. */
export const SignedPage = Type.Object({
  ...Page.properties,
  hash: Type.String({ description: 'SHA-256 (hex) over the pages before the signature and the report ref.' }),
  page_count_at_signing: Type.Integer(),
  verify_url: Type.String({ description: 'The public check of this signature (also in the QR code on the page).' }),
});
export type SignedPageResponse = Static<typeof SignedPage>;

const ReportFields = {
  id: Type.Integer(),
  ref: Type.String({ description: 'Report number BR<yy><mm>-<nnnn>, counted per month.' }),
  title: Type.String(),
  element_type: Nullable(Type.String(), 'The parent object: commande, facture, propal or fichinter (null for a template).'),
  fk_element: Nullable(Type.Integer(), "The parent object's id."),
  parent_ref: Nullable(Type.String(), "The parent object's ref."),
  format: Type.String(),
  orientation: Type.String(),
  odt_template: Nullable(Type.String(), 'Cover-sheet template (file name in the template folder), or null for none.'),
  status: Type.Union([Type.Literal('draft'), Type.Literal('final')]),
  version: Type.Integer(),
  fk_bericht_parent: Nullable(Type.Integer(), 'The report this one is a new version of.'),
  is_template: Type.Boolean(),
  template_label: Nullable(Type.String()),
  final_pdf_path: Nullable(Type.String(), 'After finalizing: the PDF, relative to the documents root (`bericht/<ref>/<ref>.pdf`).'),
  photos_per_sheet: PhotosPerSheetSchema(),
  fk_user_creat: Type.Integer(),
  page_count: Type.Integer(),
  datec: UnixOrNull('Creation time, Unix seconds.'),
  tms: UnixOrNull('Last change, Unix seconds.'),
  pdf_url: Type.String({ description: 'The PDF endpoint: the final PDF, or a preview of a draft.' }),
};
export const ReportListItem = Type.Object(ReportFields);
export type ReportListItem = Static<typeof ReportListItem>;
export const ReportList = ListOf(ReportListItem);

export const VersionLink = Type.Object({
  id: Type.Integer(),
  ref: Type.String(),
  version: Type.Integer(),
  status: Type.Union([Type.Literal('draft'), Type.Literal('final')]),
  datec: UnixOrNull('Creation time.'),
});

export const ReportDetail = Type.Object({
  ...ReportFields,
  pages: Type.Array(Page, { description: 'In page_order.' }),
  versions: Type.Array(VersionLink, { description: 'Every version of this report (this one included), by version number.' }),
  material_reports: Type.Optional(
    Type.Array(Type.Integer(), {
      description:
        "The reports whose settled material lines (their `fk_bericht`) this report lists: its own and those of the versions it descends from; a draft also lists the lines no report settled yet. A report finalized before reports listed only their own visit's lines (and a new version of one) also lists those of the earlier reports of its object from before. Absent only in an answer stored before these fields (an idempotent repeat).",
    }),
  ),
  material_unknown: Type.Optional(
    Type.Boolean({
      description:
        'The report also lists the settled lines whose report is not known (`fk_bericht` null on a settled line: settled before lines knew their report).',
    }),
  ),
});
export type ReportDetail = Static<typeof ReportDetail>;

export const ReportsQuery = Type.Object({
  id: Type.Optional(RowId('Report id: detail, or with `action` an operation on it.')),
  action: Type.Optional(Type.String({ maxLength: 64, description: '`create` (no id); `update`, `finalize`, `new_version` (with id).' })),
  q: Type.Optional(SearchText('report ref, title and parent ref (list only)')),
  element_type: Type.Optional(
    Type.Union(
      ELEMENT_TYPE_VALUES.map((t) => Type.Literal(t)),
      { description: 'List only reports of this kind of parent.' },
    ),
  ),
  fk_element: Type.Optional(RowId('List only reports of this parent object (with element_type; commande when not given).')),
  status: Type.Optional(
    Type.Union([Type.Literal('draft'), Type.Literal('final')], { description: 'List only drafts or only final reports.' }),
  ),
  ...PageQuery,
});
export type ReportsQuery = Static<typeof ReportsQuery>;

const ReportOptions = {
  title: Type.Optional(Title('Report title (at most 255 characters).')),
  format: Type.Optional(Format),
  orientation: Type.Optional(OrientationSchema),
  odt_template: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 255 }), 'Cover sheet: a name from /api/odt_templates.php, or null for none.'),
  ),
  photos_per_sheet: Type.Optional(
    PhotosPerSheetSchema(
      `${PHOTOS_PER_SHEET_DESCRIPTION} Not given: the template's (or the copied report's) choice, else ${DEFAULT_PHOTOS_PER_SHEET}.`,
    ),
  ),
};

export const CreateReportBody = Type.Object(
  {
    element_type: Type.Optional(
      Type.Union(
        ELEMENT_TYPE_VALUES.map((t) => Type.Literal(t)),
        { description: 'Kind of parent object. @default commande' },
      ),
    ),
    fk_element: RowId('Id of the order, invoice or proposal the report belongs to.'),
    ...ReportOptions,
    template_id: Type.Optional(
      RowId(
        'A template whose pages (and, unless given here, title, format, orientation, cover sheet and photos_per_sheet) the report starts with.',
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateReportBody = Static<typeof CreateReportBody>;

export const CreateTemplateBody = Type.Object(
  {
    template_label: Title('Name of the template in lists.'),
    from_report: Type.Optional(RowId('A report whose pages the template copies (its images are copied into the template).')),
    ...ReportOptions,
  },
  { additionalProperties: false },
);
export type CreateTemplateBody = Static<typeof CreateTemplateBody>;

export const FromTemplateBody = Type.Object(
  {
    template_id: RowId('The template.'),
    element_type: CreateReportBody.properties.element_type,
    fk_element: CreateReportBody.properties.fk_element,
    ...ReportOptions,
  },
  { additionalProperties: false },
);
export type FromTemplateBody = Static<typeof FromTemplateBody>;

/** What a draft (or a template) may change after it was made. */
export const UpdateReportBody = Type.Object(
  {
    photos_per_sheet: PhotosPerSheetSchema(),
  },
  { additionalProperties: false },
);
export type UpdateReportBody = Static<typeof UpdateReportBody>;

/**
 * `action=finalize`: what the technician explains instead of finishing it (each kind at most once,
 * with its reason); the PDF prints it. An empty body is a finalize without explanations.
 */
export const FinalizeReportBody = Type.Object(
  {
    missing: Type.Optional(
      Type.Array(
        Type.Object(
          {
            what: Type.Union(
              MISSING_KINDS.map((kind) => Type.Literal(kind)),
              { description: 'What is missing: open_items, no_departure, no_signature or pages_after_signature.' },
            ),
            reason: PersonText({ required: true, maxLength: MAX_MISSING_REASON, description: 'Why it is finalized without it.' }),
          },
          { additionalProperties: false },
        ),
        { maxItems: MISSING_KINDS.length, uniqueItems: true },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FinalizeReportBody = Static<typeof FinalizeReportBody>;

export const TemplatesQuery = Type.Object({
  id: Type.Optional(RowId('Template id.')),
  action: Type.Optional(Type.String({ maxLength: 64, description: '`create_from_template` or `create`.' })),
  q: Type.Optional(SearchText('template label, title and ref')),
  ...PageQuery,
});

export const TemplateItem = Type.Object({
  id: Type.Integer(),
  ref: Type.String(),
  template_label: Nullable(Type.String()),
  title: Type.String(),
  format: Type.String(),
  orientation: Type.String(),
  odt_template: Nullable(Type.String()),
  photos_per_sheet: PhotosPerSheetSchema(
    `${PHOTOS_PER_SHEET_DESCRIPTION} A report made from the template takes it unless its request gives one.`,
  ),
  page_count: Type.Integer(),
  fk_user_creat: Type.Integer(),
  datec: UnixOrNull('Creation time.'),
});
export type TemplateItem = Static<typeof TemplateItem>;
export const TemplateList = ListOf(TemplateItem);

export const OdtTemplateItem = Type.Object({
  name: Type.String({ description: 'File name; pass it as odt_template.' }),
  title: Nullable(Type.String(), "The document's title (File ▸ Properties in LibreOffice), for people; null when it has none."),
  size: Type.Integer(),
  mtime: Type.Integer({ description: 'Unix seconds.' }),
});
export const OdtTemplateList = ListOf(OdtTemplateItem);

export const DeletedReport = Type.Object({ id: Type.Integer(), ref: Type.String(), deleted: Type.Literal(true) });

// ---- pages ----------------------------------------------------------------------------------

export const PagesQuery = Type.Object({
  id: Type.Optional(RowId('Page id (update, delete).')),
  bericht_id: Type.Optional(RowId('Report id (add, reorder, signature).')),
  action: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        '`add`, `reorder`, `signature` (with bericht_id); `check`, `check_all` (with id); none with `id`: update (or delete with delete=1).',
    }),
  ),
  delete: Type.Optional(
    Type.Union([Type.Literal('1'), Type.Literal(1), Type.Literal('true'), Type.Boolean()], {
      description: '1: delete the page `id` (POST instead of DELETE).',
    }),
  ),
});
export type PagesQuery = Static<typeof PagesQuery>;

export const AddPageBody = Type.Object(
  {
    layout: Type.Optional(
      Type.Union(
        EDITABLE_LAYOUTS.map((l) => Type.Literal(l)),
        {
          description:
            'photo (one image; default when `source` is given), before_after (two), title_only (none; default without `source`), checklist (items, no image; see `checklist`).',
        },
      ),
    ),
    title: Type.Optional(PageTitle),
    note: Type.Optional(Note),
    rotation: Type.Optional(RotationSchema),
    source: Type.Optional(
      AttachmentName(
        'The image: the name of a photo in the parent object\'s attachments (as listed by action=photos), e.g. IMG_1.jpg. For before_after the "Vorher" image.',
      ),
    ),
    source_2: Type.Optional(AttachmentName('before_after: the "Nachher" image, likewise.')),
    checklist: Type.Optional(ChecklistDefinition),
  },
  { additionalProperties: false },
);
export type AddPageBody = Static<typeof AddPageBody>;

export const UpdatePageBody = Type.Object(
  {
    title: Type.Optional(PageTitle),
    note: Type.Optional(Note),
    rotation: Type.Optional(RotationSchema),
    layout: Type.Optional(AddPageBody.properties.layout),
    source: Type.Optional(AddPageBody.properties.source),
    source_2: Type.Optional(AddPageBody.properties.source_2),
    checklist: Type.Optional(ChecklistDefinition),
  },
  { additionalProperties: false },
);
export type UpdatePageBody = Static<typeof UpdatePageBody>;

export const ReorderBody = Type.Object(
  {
    order: Type.Array(RowId('Page id.'), {
      maxItems: MAX_REPORT_PAGES,
      description: 'Every page id of the report, each once, in the new order.',
    }),
    bericht_id: Type.Optional(RowId('The report (also accepted in the query).')),
  },
  { additionalProperties: false },
);
export type ReorderBody = Static<typeof ReorderBody>;

export const DeletedPage = Type.Object({
  id: Type.Integer(),
  fk_bericht: Type.Integer(),
  deleted: Type.Literal(true),
  files_deleted: Type.Array(Type.String(), { description: 'source paths removed with the page (work-area files no other page shows).' }),
});

export const PdfQuery = Type.Object({
  id: RowId('Report id.'),
  preview: Type.Optional(
    Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Boolean(), Type.Literal(0), Type.Literal(1)], {
      description: '1: a preview made now, even for a final report. Default: the final PDF, or a preview for a draft.',
    }),
  ),
  download: Type.Optional(
    Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Boolean(), Type.Literal(0), Type.Literal(1)], {
      description: '1: served as an attachment (download) instead of inline.',
    }),
  ),
  jwt: Type.Optional(Type.String({ maxLength: 4096, description: 'The token, for a link or a frame that cannot send a header.' })),
});
export type PdfQuery = Static<typeof PdfQuery>;
