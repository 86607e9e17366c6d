/**
 * Checklists and time on site on paper.
 * - A checklist page prints as a table in the flow (number, item, result, measured value, limit),
 *   each item's note and photos under its row; a long list goes on over the next sheet under its
 *   header again. One page a sheet: it starts a sheet of its own.
 * - The summary gives each checklist's counts; with one page a sheet it lists the defects too
 *   (every item marked as a defect and every value outside its limits: the item, the value against
 *   its limit, the note, the photos' numbers). The list itself is printed once, as its page.
 * The result column is a word with a sign (✓ OK, ✗ Mangel, – n. z., ○ nicht geprüft), readable
 * in black and white; a defect's row is bold.
 */
import type { Block } from '../flow.js';
import { BODY, CAPTION, mm, type Box, type Doc } from '../kit.js';
import type { ChecklistLine, PdfPage, SummaryInput } from '../model.js';
import { columnsOf, tableBlocks, type TableRow } from '../table.js';
import { heading, textBlocks } from '../text-blocks.js';
import type { PdfWords } from '../words.js';

export type ChecklistPage = Extract<PdfPage, { kind: 'checklist' }>;

const withUnit = (text: string, unit: string | null) => (unit ? `${text} ${unit}` : text);

export function formatValue(words: PdfWords, line: Pick<ChecklistLine, 'value' | 'unit'>): string {
  return line.value === null ? '' : withUnit(words.number(line.value), line.unit);
}

/** `≤ 10 %`, `≥ 1 bar`, `1 – 2 bar`; '' without limits. */
export function formatLimit(words: PdfWords, line: Pick<ChecklistLine, 'lower' | 'upper' | 'unit'>): string {
  const { lower, upper, unit } = line;
  if (lower !== null && upper !== null) return withUnit(`${words.number(lower)} – ${words.number(upper)}`, unit);
  if (upper !== null) return withUnit(`≤ ${words.number(upper)}`, unit);
  if (lower !== null) return withUnit(`≥ ${words.number(lower)}`, unit);
  return '';
}

/** The value with what it means against the limit: `12,5 % – über dem Grenzwert (≤ 10 %)`. */
function valueAgainstLimit(words: PdfWords, line: ChecklistLine): string {
  const value = formatValue(words, line);
  if (!line.deviation) return value;
  const limit = formatLimit(words, line);
  return `${value} – ${line.deviation === 'below' ? words.below(limit) : words.above(limit)}`;
}

const photoList = (words: PdfWords, line: ChecklistLine) =>
  line.photos.map((p) => (p.number !== null ? words.photo(p.number) : p.name)).join(', ');

/** What to print under an item's row: why it is OK despite its limit, its note and its photos. */
function under(words: PdfWords, line: ChecklistLine): string | null {
  const photos = photoList(words, line);
  return (
    [line.okReason ? `${words.okReason}: ${line.okReason}` : '', line.note ?? '', photos ? `${words.photos}: ${photos}` : '']
      .filter(Boolean)
      .join('\n') || null
  );
}

const isFinding = (line: ChecklistLine) => line.defect || line.deviation !== null;

/** The result in words: "OK trotz Grenzwert" for an OK with a reason, a value outside its limits without one is a defect. */
const resultOf = (words: PdfWords, line: ChecklistLine) =>
  line.state === 'ok' && line.deviation !== null ? (line.okReason ? words.okDespite : words.states.defect) : words.states[line.state];

export function countLine(words: PdfWords, items: ChecklistLine[]): string {
  return words.checklistCount(items.length, items.filter((i) => i.defect).length, items.filter((i) => i.state === 'open').length);
}

/** A checklist page: heading, note, count, then the table of its items. */
export function checklistBlocks(doc: Doc, page: ChecklistPage, body: Box, words: PdfWords, sheetOfItsOwn: boolean): Block[] {
  const title = heading(doc, page.title || words.checklist, body);
  const blocks: Block[] = [{ ...title, breakBefore: sheetOfItsOwn, notice: page.notice ?? null }];
  if (page.note) blocks.push(...textBlocks(doc, page.note, CAPTION, body, { keepWithNext: true }));
  blocks.push(...textBlocks(doc, countLine(words, page.items), CAPTION, body, { keepWithNext: true }));
  const columns = columnsOf(body.w, [
    { fixed: mm(8), align: 'right' },
    { share: 1 },
    { fixed: mm(27) },
    { fixed: mm(23), align: 'right' },
    { fixed: mm(25), align: 'right' },
  ]);
  const rows: TableRow[] = page.items.map((line) => ({
    cells: [
      `${line.position}.`,
      line.label,
      resultOf(words, line),
      formatValue(words, line) + (line.deviation ? (line.deviation === 'below' ? ' ▼' : ' ▲') : ''),
      formatLimit(words, line),
    ],
    bold: isFinding(line),
    under: under(words, line),
  }));
  const table = tableBlocks(doc, body, columns, ['', words.checkItem, words.result, words.measured, words.limit], rows, words);
  // The sheet's notice (not covered by a signature) on every sheet the table reaches.
  return [...blocks, ...table].map((block) => (page.notice ? { ...block, notice: page.notice } : block));
}

/**
 * The summary's checklist part: each checklist's counts, then (`withFindings`: one page a sheet,
 * where the checklist comes on a later sheet) the defects and values outside their limits. Compact,
 * the checklist follows on the same sheet or the next, its defects bold with their notes.
 */
export function checklistSummaryBlocks(
  doc: Doc,
  checklists: Array<{ title: string | null; items: ChecklistLine[] }>,
  words: PdfWords,
  body: Box,
  withFindings: boolean,
): Block[] {
  if (checklists.length === 0) return [];
  // How each checklist came out, in one line; the list itself is its page.
  const counts = checklists.map((c) => `${c.title || words.checklist}: ${countLine(words, c.items)}`).join('\n');
  if (!withFindings) return [heading(doc, words.result, body), ...textBlocks(doc, counts, BODY, body)];
  const blocks: Block[] = [heading(doc, words.defects, body)];
  blocks.push(...textBlocks(doc, counts, CAPTION, body, { keepWithNext: true }));
  const findings = checklists.flatMap((c) => c.items.filter(isFinding).map((line) => ({ line, title: c.title })));
  if (findings.length === 0) {
    blocks.push(...textBlocks(doc, words.noDefects, CAPTION, body));
  } else {
    const columns = columnsOf(body.w, [{ share: 0.45 }, { share: 0.55 }]);
    const several = checklists.length > 1;
    const rows: TableRow[] = findings.map(({ line, title }) => ({
      cells: [
        `${several && title ? `${title}: ` : ''}${line.position}. ${line.label}`,
        [resultOf(words, line), valueAgainstLimit(words, line)].filter(Boolean).join(' · '),
      ],
      bold: true,
      under: under(words, line),
    }));
    blocks.push(...tableBlocks(doc, body, columns, [words.checkItem, words.finding], rows, words));
  }
  return blocks;
}

/** Time on site: one row per interval, the total last; a note under an interval entered or corrected by hand. */
export function timeBlocks(doc: Doc, time: NonNullable<SummaryInput['time']>, words: PdfWords, body: Box): Block[] {
  const blocks: Block[] = [heading(doc, words.timeOnSite, body)];
  if (time.rows.length === 0) return [...blocks, ...textBlocks(doc, words.noTime, CAPTION, body)];
  const columns = columnsOf(body.w, [
    { share: 0.3 },
    { share: 0.7 },
    { fixed: mm(22), align: 'right' },
    { fixed: mm(22), align: 'right' },
    { fixed: mm(26), align: 'right' },
  ]);
  const rows: TableRow[] = time.rows.map((row) => ({
    cells: [row.date, row.who, row.from, row.to, words.duration(row.seconds)],
    under:
      [
        row.manual ? words.manual(row.manual) : row.corrected ? words.corrected(row.corrected) : null,
        row.notCovered ? words.notCoveredMark : null,
      ]
        .filter(Boolean)
        .join(' · ') || null,
    ...(row.notCovered ? { bold: true } : {}),
  }));
  rows.push({ cells: [words.timeTotal, '', '', '', words.duration(time.totalSeconds)], bold: true, shaded: true });
  blocks.push(
    ...tableBlocks(doc, body, columns, [words.date, words.timeWho, words.timeFrom, words.timeTo, words.timeDuration], rows, words),
  );
  return blocks;
}
