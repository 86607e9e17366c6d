/**
 * A report's page layout in its PDF: how many photo pages go on one printed sheet.
 * - 1: one page a sheet, as a report always was (a title-only page is a sheet with its title
 *   centred in large type, as the contract says);
 * - 2 and 4: compact: photos 2 or 4 to a sheet, each with its caption under it; before/after pairs
 *   across the sheet's width, up to two pairs a sheet; a title-only page becomes a section heading
 *   with its note in the flow.
 * A signature page is always a sheet of its own.
 */
import { PHOTOS_PER_SHEET, type PhotosPerSheet } from '../../adapters/pdf.js';

export { PHOTOS_PER_SHEET, type PhotosPerSheet };

/** @default 4: what a report gets when nobody chose (also every report made before the choice existed). */
export const DEFAULT_PHOTOS_PER_SHEET: PhotosPerSheet = 4;

/** The choice of a report row; a value outside 1, 2, 4 (written by other software) reads as the default. */
export function photosPerSheetOf(row: { photos_per_sheet?: number | string | null }): PhotosPerSheet {
  const value = Number(row.photos_per_sheet);
  return (PHOTOS_PER_SHEET as readonly number[]).includes(value) ? (value as PhotosPerSheet) : DEFAULT_PHOTOS_PER_SHEET;
}
