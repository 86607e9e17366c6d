/**
 * The summary, after the cover (first without one): who and where, the order's and the report's
 * references with who did the work, when (compact: one plain interval of time on site as a line)
 * and who signed, how the checklists came out (one page a sheet: what was found, defects and values
 * outside their limits; each checklist itself is printed once, as its page), time on site, the order's work
 * description and the material lines as a table. Each part is a block of its own in the flow, so a
 * long material list goes on over the next sheet (under its table header again). Compact layouts
 * go on with the pages on the same sheet; one page a sheet starts them on a sheet of their own.
 */
import type { Block } from '../flow.js';
import { BODY, CAPTION, LABEL, measure, metrics, mm, SANS_BOLD, SMALL, textIn, TITLE, type Box, type Doc, type TextStyle } from '../kit.js';
import type { MaterialLine, PdfPage, SummaryInput } from '../model.js';
import type { PdfWords } from '../words.js';
import { heading, textBlocks } from '../text-blocks.js';
import { checklistSummaryBlocks, timeBlocks, type ChecklistPage } from './checklist.js';
import { CELL, columnsOf, PAD, tableBlocks } from '../table.js';

export function summaryBlocks(
  doc: Doc,
  summary: SummaryInput,
  pages: readonly PdfPage[],
  words: PdfWords,
  body: Box,
  sheetOfItsOwn: boolean,
): Block[] {
  const blocks: Block[] = [];
  blocks.push(...textBlocks(doc, `${words.summary}: ${summary.title}`, TITLE, body, { breakBefore: true, keepWithNext: true }));
  // What a signature covers: the report's pages, and with a sign-off what it showed of the work, the time and the material.
  const signoff = summary.signoff;
  const covers = signoff
    ? `${words.summarySignedOff(signoff.signer)}${signoff.changed ? ` ${words.summaryChangedSince}` : ''}`
    : words.summaryNotSigned;
  blocks.push(...textBlocks(doc, covers, SMALL, body));
  // What the technician explained instead of finishing it before the customer signed.
  if (signoff && signoff.missing.length > 0) {
    const lines = signoff.missing.map((m) => `${words.missingKinds[m.what] ?? m.what} – ${words.reason}: ${m.reason}`);
    blocks.push(...textBlocks(doc, `${words.missingAtSigning}:\n${lines.join('\n')}`, BODY, body));
  }
  // What is still missing as printed: explained at finalizing (or said to be without a reason), or a preview's reminder.
  const incomplete = summary.incomplete?.items ?? [];
  if (incomplete.length > 0) {
    const named = (m: (typeof incomplete)[number]) =>
      m.what === 'open_items' ? words.openItems(m.count) : (words.missingKinds[m.what] ?? m.what);
    const lines = summary.incomplete!.final
      ? incomplete.map((m) => `${named(m)} – ${m.reason === null ? words.noReason : `${words.reason}: ${m.reason}`}`)
      : incomplete.map(named);
    const title = summary.incomplete!.final ? words.missingAtFinalize : words.missingInPreview;
    blocks.push(...textBlocks(doc, `${title}:\n${lines.join('\n')}`, BODY, body));
  }
  // Compact, one plain interval of time on site is a line among the references, not a table.
  const only = summary.time?.rows.length === 1 ? summary.time.rows[0]! : null;
  const oneLine = !sheetOfItsOwn && only && !only.manual && !only.corrected && !only.notCovered ? only : null;
  // The times name their zone; once at the end when both are in the same.
  const [fromClock, fromZone] = (oneLine?.from ?? '').split(' ');
  const sameZone = oneLine !== null && fromZone !== undefined && oneLine.to.endsWith(` ${fromZone}`);
  const timeFact = oneLine && {
    label: words.timeOnSite,
    value: `${oneLine.date}, ${sameZone ? fromClock : oneLine.from} – ${oneLine.to}\n${words.duration(oneLine.seconds)}`,
  };
  blocks.push(partiesBlock(doc, summary, words, body, timeFact ? [timeFact] : []));
  // How the checklists came out (with one page a sheet, what was found); compact, a checklist that
  // is the first page follows right here and says it itself.
  const checklists = pages.filter((p): p is ChecklistPage => p.kind === 'checklist');
  if (sheetOfItsOwn || pages[0]?.kind !== 'checklist') blocks.push(...checklistSummaryBlocks(doc, checklists, words, body, sheetOfItsOwn));
  if (summary.time && !timeFact) blocks.push(...timeBlocks(doc, summary.time, words, body));
  if (summary.workDescription) {
    blocks.push(heading(doc, words.work, body));
    blocks.push(...textBlocks(doc, summary.workDescription, BODY, body));
    if (signoff?.workChanged) blocks.push(...textBlocks(doc, words.workNotCovered, CAPTION, body));
  }
  blocks.push(heading(doc, words.materials, body));
  if (summary.materials.length === 0) blocks.push(...textBlocks(doc, words.noMaterials, CAPTION, body));
  else blocks.push(...materialBlocks(doc, summary.materials, words, body));
  if (signoff && signoff.removedMaterials.length > 0) {
    const removed = signoff.removedMaterials.map((m) => `${m.label} ${words.number(m.qty)}${m.unit ? ` ${m.unit}` : ''}`).join('; ');
    blocks.push(...textBlocks(doc, words.removedSince(removed), CAPTION, body));
  }
  // One page a sheet: the pages start on a sheet of their own; compact, they follow on the same sheet.
  if (sheetOfItsOwn) blocks[blocks.length - 1]!.breakAfter = true;
  return blocks;
}

/**
 * The customer at the left, and under them `more` (when and who signed); the references at the
 * right; each as label/value rows.
 */
function partiesBlock(doc: Doc, summary: SummaryInput, words: PdfWords, body: Box, more: Array<{ label: string; value: string }>): Block {
  const half = (body.w - mm(8)) / 2;
  const NAME: TextStyle = { ...BODY, font: SANS_BOLD };
  const labelWidth = mm(32);
  const measured = (list: Array<{ label: string; value: string }>) =>
    list.map(({ label, value }) => ({
      label,
      value,
      height: Math.max(measure(doc, label, labelWidth, LABEL), measure(doc, value, half - labelWidth, BODY)),
    }));
  // Who signed, and when (the signatures follow with the details).
  const signers =
    summary.signers.length === 0
      ? [{ label: words.signature, value: words.notSigned }]
      : summary.signers.map((s) => ({ label: words.signature, value: `${s.name}\n${s.when}` }));
  const rows = measured(summary.facts);
  const under = measured([...more, ...signers]);
  const customer = summary.customer;
  const labelHeight = measure(doc, words.customer, half, LABEL);
  const nameHeight = customer ? measure(doc, customer.name, half, NAME) : 0;
  const rest = customer ? customer.lines.join('\n') : '';
  const restHeight = rest ? measure(doc, rest, half, BODY) : 0;
  const customerHeight = customer ? labelHeight + nameHeight + restHeight + mm(2) : 0;
  const sum = (list: Array<{ height: number }>) => list.reduce((total, r) => total + r.height + mm(0.8), 0);
  const left = customerHeight + sum(under);
  const right = sum(rows);
  const drawRows = (list: typeof rows, x: number, top: number, bottom: number) => {
    let y = top;
    for (const row of list) {
      if (y + row.height > bottom + 0.5) break;
      textIn(doc, row.label, { x, y: y + 0.5, w: labelWidth, h: row.height }, LABEL);
      textIn(doc, row.value, { x: x + labelWidth, y, w: half - labelWidth, h: row.height }, BODY);
      y += row.height + mm(0.8);
    }
  };
  return {
    // A block taller than the sheet gets a sheet of its own; what does not fit there is cut at its bottom.
    height: Math.min(Math.max(left, right), body.h),
    draw(box, { doc }) {
      const bottom = box.y + box.h;
      if (customer) {
        textIn(doc, words.customer, { x: box.x, y: box.y, w: half, h: labelHeight }, LABEL);
        textIn(
          doc,
          customer.name,
          { x: box.x, y: box.y + labelHeight, w: half, h: Math.min(nameHeight, bottom - box.y - labelHeight) },
          NAME,
        );
        const top = box.y + labelHeight + nameHeight;
        if (rest && bottom - top > 1) textIn(doc, rest, { x: box.x, y: top, w: half, h: Math.min(restHeight, bottom - top) }, BODY);
      }
      drawRows(under, box.x, box.y + customerHeight, bottom);
      drawRows(rows, box.x + half + mm(8), box.y, bottom);
    },
  };
}

function materialBlocks(doc: Doc, lines: MaterialLine[], words: PdfWords, body: Box): Block[] {
  // The quantity column as wide as its widest number (and its heading), the rest shared out.
  const quantities = lines.map((line) => words.number(line.qty));
  metrics(doc, CELL);
  const qtyWidth = Math.min(
    body.w * 0.25,
    Math.max(body.w * 0.1, ...[words.quantity, ...quantities].map((q) => doc.widthOfString(q) + 2 * PAD + 2)),
  );
  const columns = columnsOf(body.w, [{ share: 0.58 }, { fixed: qtyWidth, align: 'right' }, { fixed: body.w * 0.12 }, { share: 0.42 }]);
  const unitOf = (unit: string | null) => (unit ? (Object.hasOwn(words.units, unit) ? words.units[unit]! : unit) : '');
  const rows = lines.map((line, i) => ({
    cells: [
      line.label,
      quantities[i]!,
      unitOf(line.unit),
      [line.note, line.notCovered ? words.notCoveredMark : null].filter(Boolean).join(' · '),
    ],
    ...(line.notCovered ? { bold: true } : {}),
  }));
  return tableBlocks(doc, body, columns, [words.material, words.quantity, words.unit, words.note], rows, words);
}
