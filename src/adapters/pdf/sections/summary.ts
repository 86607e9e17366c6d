/**
 * The summary sheet, after the cover (first without one): who and where, the order's and the
 * report's references, who did the work, the order's work description, the material lines as a
 * table, the signers, and what follows. Each part is a block of its own in the flow, so a long
 * material list goes on over the next sheet (under its table header again), and more parts of a
 * visit (checklists, time on site) are more blocks here.
 */
import type { Block } from '../flow.js';
import {
  BODY,
  CAPTION,
  HEADING,
  LABEL,
  measure,
  metrics,
  mm,
  rule,
  SANS_BOLD,
  SHADE,
  SMALL,
  splitToHeight,
  textIn,
  TITLE,
  type Box,
  type Doc,
  type TextStyle,
} from '../kit.js';
import type { MaterialLine, PdfPage, SummaryInput } from '../model.js';
import type { PdfWords } from '../words.js';
import { heading, textBlocks } from '../text-blocks.js';
import { checklistSummaryBlocks, timeBlocks, type ChecklistPage } from './checklist.js';
import { CELL, columnsOf, PAD, tableBlocks } from '../table.js';

export function summaryBlocks(doc: Doc, summary: SummaryInput, pages: readonly PdfPage[], words: PdfWords, body: Box): Block[] {
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
  blocks.push(partiesBlock(doc, summary, words, body));
  // What was found first (defects, values outside their limits), then the checklists, then the time on site.
  blocks.push(
    ...checklistSummaryBlocks(
      doc,
      pages.filter((p): p is ChecklistPage => p.kind === 'checklist'),
      words,
      body,
    ),
  );
  if (summary.time) blocks.push(...timeBlocks(doc, summary.time, words, body));
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
  blocks.push(heading(doc, words.signatures, body));
  blocks.push(
    ...textBlocks(
      doc,
      summary.signers.length === 0 ? words.notSigned : summary.signers.map((s) => `${words.signedBy(s.name)} · ${s.when}`).join('\n'),
      BODY,
      body,
    ),
  );
  const following = contents(pages, words);
  if (following) {
    blocks.push(heading(doc, words.contents, body));
    blocks.push(...textBlocks(doc, following, BODY, body));
  }
  blocks[blocks.length - 1]!.breakAfter = true;
  return blocks;
}

/** The customer at the left; the references at the right, as label/value rows. */
function partiesBlock(doc: Doc, summary: SummaryInput, words: PdfWords, body: Box): Block {
  const half = (body.w - mm(8)) / 2;
  const NAME: TextStyle = { ...BODY, font: SANS_BOLD };
  const labelWidth = mm(32);
  const rows = summary.facts.map(({ label, value }) => ({
    label,
    value,
    height: Math.max(measure(doc, label, labelWidth, LABEL), measure(doc, value, half - labelWidth, BODY)),
  }));
  const customer = summary.customer;
  const labelHeight = measure(doc, words.customer, half, LABEL);
  const nameHeight = customer ? measure(doc, customer.name, half, NAME) : 0;
  const rest = customer ? customer.lines.join('\n') : '';
  const restHeight = rest ? measure(doc, rest, half, BODY) : 0;
  const left = customer ? labelHeight + nameHeight + restHeight : 0;
  const right = rows.reduce((sum, r) => sum + r.height + mm(0.8), 0);
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
      const x = box.x + half + mm(8);
      let y = box.y;
      for (const row of rows) {
        if (y + row.height > bottom + 0.5) break;
        textIn(doc, row.label, { x, y: y + 0.5, w: labelWidth, h: row.height }, LABEL);
        textIn(doc, row.value, { x: x + labelWidth, y, w: half - labelWidth, h: row.height }, BODY);
        y += row.height + mm(0.8);
      }
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

/** What follows: how many photos, pairs, sections and signatures, and the sections' titles in order. */
function contents(pages: readonly PdfPage[], words: PdfWords): string {
  const count = (kind: PdfPage['kind']) => pages.filter((p) => p.kind === kind).length;
  const parts = [
    count('photo') > 0 ? words.contentPhotos(count('photo')) : '',
    count('before_after') > 0 ? words.contentPairs(count('before_after')) : '',
    count('title_only') > 0 ? words.contentSections(count('title_only')) : '',
    count('checklist') > 0 ? words.contentChecklists(count('checklist')) : '',
    count('signature') > 0 ? words.contentSignatures(count('signature')) : '',
  ].filter(Boolean);
  const titles = pages.filter((p) => (p.kind === 'title_only' || p.kind === 'checklist') && p.title).map((p) => `– ${p.title}`);
  return [parts.join(', '), ...titles].filter(Boolean).join('\n');
}
