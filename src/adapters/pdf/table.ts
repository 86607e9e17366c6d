/**
 * Tables in the flow (materials, checklists, time on site): a shaded header row kept with the
 * first row, then one block per row, joined without gaps; on the next sheet the table goes on under
 * its header again, marked as continued. A row may carry a text under it across the columns from
 * the second on (a checklist item's note): that text is split into blocks of its own, so a long one
 * goes on over the next sheet instead of being cut.
 */
import type { Block } from './flow.js';
import { BODY, measure, mm, rule, SANS_BOLD, SHADE, splitToHeight, textIn, type Box, type Doc, type TextStyle } from './kit.js';
import type { PdfWords } from './words.js';

export const TABLE_HEAD: TextStyle = { font: SANS_BOLD, size: 9 };
export const CELL: TextStyle = { font: BODY.font, size: 9.5 };
export const CELL_BOLD: TextStyle = { font: SANS_BOLD, size: 9.5 };
const UNDER: TextStyle = { font: BODY.font, size: 9, color: '#222222' };
export const PAD = mm(1);

export interface TableColumn {
  width: number;
  align?: 'left' | 'right';
  /** The column's cells in this style instead of the table's (a checksum in a fixed-width font). */
  style?: TextStyle;
}

/** A table's text styles. @default the report's: 9 pt headings, 9.5 pt cells, 9 pt text under a row */
export interface TableStyles {
  head: TextStyle;
  cell: TextStyle;
  bold: TextStyle;
  under: TextStyle;
  /** Space above and below a cell's text. @default PAD */
  padY?: number;
}

const DEFAULT_STYLES: TableStyles = { head: TABLE_HEAD, cell: CELL, bold: CELL_BOLD, under: UNDER };

export interface TableRow {
  cells: string[];
  /** Bold cells (a defect, the total). */
  bold?: boolean;
  shaded?: boolean;
  /** A text under the row, from the second column to the right edge. */
  under?: string | null;
}

/** The widths of `fractions` of `width` (fractions of the rest after fixed widths). */
export function columnsOf(
  width: number,
  specs: Array<{ fixed?: number; share?: number; align?: 'left' | 'right'; style?: TextStyle }>,
): TableColumn[] {
  const fixed = specs.reduce((sum, s) => sum + (s.fixed ?? 0), 0);
  const shares = specs.reduce((sum, s) => sum + (s.share ?? 0), 0) || 1;
  return specs.map((s) => ({
    width: s.fixed ?? ((width - fixed) * (s.share ?? 0)) / shares,
    align: s.align ?? 'left',
    ...(s.style ? { style: s.style } : {}),
  }));
}

/** A row's cells; `head`: a heading row, whose cells keep the heading style in every column. */
function rowBlock(
  doc: Doc,
  columns: TableColumn[],
  cells: string[],
  rowStyle: TextStyle,
  shaded: boolean,
  body: Box,
  extra: Partial<Block> = {},
  ruled = true,
  head = false,
  padY = PAD,
): Block {
  const styleOf = (i: number): TextStyle => (head ? rowStyle : (columns[i]!.style ?? rowStyle));
  const height = Math.min(
    Math.max(...cells.map((text, i) => measure(doc, text, columns[i]!.width - 2 * PAD, styleOf(i)))) + 2 * padY,
    body.h / 2,
  );
  return {
    height,
    ...extra,
    draw(box, { doc }) {
      if (shaded) doc.save().rect(box.x, box.y, box.w, box.h).fill(SHADE).restore();
      let x = box.x;
      cells.forEach((text, i) => {
        const column = columns[i]!;
        textIn(
          doc,
          text,
          { x: x + PAD, y: box.y + padY, w: column.width - 2 * PAD, h: box.h - 2 * padY },
          { ...styleOf(i), align: column.align ?? 'left' },
        );
        x += column.width;
      });
      if (ruled) rule(doc, box.x, box.y + box.h, box.w, '#cccccc', 0.4);
    },
  };
}

/** The blocks of a table with `headings` over `columns` and its `rows`. */
export function tableBlocks(
  doc: Doc,
  body: Box,
  columns: TableColumn[],
  headings: string[],
  rows: TableRow[],
  words: PdfWords,
  styles: TableStyles = DEFAULT_STYLES,
): Block[] {
  const padY = styles.padY ?? PAD;
  const header = rowBlock(doc, columns, headings, styles.head, true, body, { keepWithNext: true }, true, true, padY);
  const continued = rowBlock(
    doc,
    columns,
    // "(Fortsetzung)" beside the first heading that has a name (a number column has none).
    headings.map((h, i) => (i === Math.max(0, headings.findIndex(Boolean)) ? words.continued(h) : h)),
    styles.head,
    true,
    body,
    { keepWithNext: true },
    true,
    true,
    padY,
  );
  const indent = columns[0]!.width;
  const blocks: Block[] = [header];
  for (const row of rows) {
    const pieces = row.under ? splitToHeight(doc, row.under, body.w - indent - 2 * PAD, styles.under, body.h * 0.8) : [];
    // A row with a text under it keeps with the text's first piece; the rule goes under the text.
    blocks.push(
      rowBlock(
        doc,
        columns,
        row.cells,
        row.bold ? styles.bold : styles.cell,
        Boolean(row.shaded),
        body,
        { repeatOnBreak: continued, joined: true, keepWithNext: pieces.length > 0 },
        pieces.length === 0,
        false,
        padY,
      ),
    );
    pieces.forEach((piece, index) => {
      const height = measure(doc, piece, body.w - indent - 2 * PAD, styles.under) + 2 * padY;
      blocks.push({
        height,
        joined: true,
        repeatOnBreak: continued,
        draw(box, { doc }) {
          textIn(doc, piece, { x: box.x + indent + PAD, y: box.y + padY, w: box.w - indent - 2 * PAD, h: box.h - 2 * padY }, styles.under);
          if (index === pieces.length - 1) rule(doc, box.x, box.y + box.h, box.w, '#cccccc', 0.4);
        },
      });
    });
  }
  return blocks;
}
