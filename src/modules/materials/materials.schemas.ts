/** Request and response shapes of /api/materials.php (contract endpoint 22, docs/api-contract.md). */
import { Type, type Static } from 'typebox';
import { ListOf, PageQuery, PersonText, RowId } from '../common/common.schemas.js';

export const MATERIAL_ELEMENT_TYPES = ['commande', 'facture', 'propal', 'fichinter'] as const;
/** Quantities are kept to this many decimal places (grams of a kilogram, millimetres of a metre). */
export const QTY_DECIMALS = 3;
export const MAX_QTY = 1_000_000_000;

// Spelt out: a union mapped from the array is typed `never` (TypeBox cannot see its members).
const ElementType = Type.Union([Type.Literal('commande'), Type.Literal('facture'), Type.Literal('propal'), Type.Literal('fichinter')], {
  description: 'Kind of object: commande (order), facture (invoice), propal (proposal), fichinter (intervention).',
});

export const MaterialsQuery = Type.Object({
  id: Type.Optional(RowId('A material line (DELETE).')),
  element_type: Type.Optional(ElementType),
  fk_element: Type.Optional(RowId('The object whose lines are listed.')),
  ...PageQuery,
});
export type MaterialsQuery = Static<typeof MaterialsQuery>;

export const CreateMaterialBody = Type.Object(
  {
    element_type: ElementType,
    fk_element: RowId('The object the line belongs to.'),
    label: PersonText({ required: true, maxLength: 255, description: 'What was used (1-255 characters).' }),
    qty: Type.Number({ minimum: 0, maximum: MAX_QTY, description: `Quantity, at least 0, at most ${QTY_DECIMALS} decimal places.` }),
    unit: Type.Optional(
      Type.Union([
        PersonText({ required: false, maxLength: 32, description: 'Unit as free text, e.g. Stk, m, kg, h (at most 32 characters).' }),
        Type.Null(),
      ]),
    ),
    note: Type.Optional(
      Type.Union([PersonText({ required: false, maxLength: 2000, description: 'Remark (at most 2000 characters).' }), Type.Null()]),
    ),
    fk_product: Type.Optional(
      Type.Union([
        RowId('The product or service of the catalogue (GET /api/products.php), on sale; none: a line of free text.'),
        Type.Null(),
      ]),
    ),
    batch: Type.Optional(
      Type.Union([
        PersonText({
          required: false,
          maxLength: 128,
          description: 'Lot or serial number: required for a product that keeps them (`needs_batch`), refused for any other line.',
        }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);
export type CreateMaterialBody = Static<typeof CreateMaterialBody>;

export const Material = Type.Object({
  id: Type.Integer(),
  element_type: Type.String(),
  fk_element: Type.Integer(),
  label: Type.String(),
  qty: Type.Number(),
  unit: Type.Union([Type.String(), Type.Null()]),
  note: Type.Union([Type.String(), Type.Null()]),
  fk_user_creat: Type.Integer({ description: 'Who added the line.' }),
  datec: Type.Union([Type.Integer(), Type.Null()], { description: 'When, Unix seconds.' }),
  fk_product: Type.Union([Type.Integer(), Type.Null()], { description: "The catalogue's product or service; null: free text." }),
  fk_unit: Type.Union([Type.Integer(), Type.Null()], { description: "The quantity's unit as Dolibarr's (llx_c_units), the product's." }),
  batch: Type.Union([Type.String(), Type.Null()], { description: 'Lot or serial number.' }),
  fk_stock_mouvement: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "Out of the van: the stock movement (llx_stock_mouvement) that took the line out of its author's van when a report was finalized; 0: settled without one (free text, a service, no van, or a Dolibarr rule takes it when the office validates); null: not yet settled. A line taken out is not deleted (409 MATERIAL_TAKEN).",
  }),
  fk_bericht: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "The final report that settled the line (its PDF lists it; a new version of that report lists it too); null on a line not yet settled (the object's next report lists it), or on one settled before lines knew their report. A later visit's report does not list a line an earlier visit's report settled.",
  }),
});
export type Material = Static<typeof Material>;
export const MaterialList = ListOf(Material);
export const DeletedMaterial = Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) });
