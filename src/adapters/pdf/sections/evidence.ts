/**
 * The evidence sheet at the end of the final PDF, as signing tools add an audit trail (the preview
 * shows it too, marked as a preview, so it has the final PDF's number of sheets): the seal's
 * sentence, the history (report created, report pages added and changed, each signature with the
 * phone's and the server's time, IP, browser and position, the finalization), the checksums that
 * tie it together (each signature's hash over the pages before it, each image file's SHA-256) and
 * how a customer checks it (a PDF reader shows the seal; the public check page). How to check it
 * with tools (pdfsig, openssl, sha256sum, the hash rule) is in the documentation, not in the
 * customer's document. With one page a sheet it starts a sheet of its own; compact, it follows
 * the last page on its sheet when it fits.
 *
 * Everything is blocks in the flow, so a long history or a report of 500 pages goes on over as
 * many sheets as it takes, tables under their headers again. Up to FULL_HASHES_UP_TO images each
 * gets a row with its file name and full SHA-256; more are printed as a grid of the first 16
 * characters (64 bits, enough to tell any two files apart), five or so to a line, so 500 images
 * take about a sheet and a half instead of six.
 */
import type { Block } from '../flow.js';
import {
  BODY,
  CAPTION,
  CAPTION_TITLE,
  lineHeight,
  measure,
  metrics,
  mm,
  MONO,
  SANS,
  SANS_BOLD,
  SHADE,
  SMALL,
  TITLE,
  textIn,
  type Box,
  type Doc,
  type TextStyle,
} from '../kit.js';
import type { EvidenceEvent, EvidenceImage, EvidenceInput, EvidenceSignature } from '../model.js';
import { columnsOf, PAD, tableBlocks, type TableRow, type TableStyles } from '../table.js';
import { heading, textBlocks } from '../text-blocks.js';
import type { PdfWords } from '../words.js';

/** Images listed with file name and full SHA-256 at the most; beyond, the short grid. @default 60 */
export const FULL_HASHES_UP_TO = 60;
/** Characters of a SHA-256 in the short grid. */
export const SHORT_HASH = 16;
/** A browser's identification is cut here (a request header may be kilobytes long). */
const MAX_USER_AGENT = 300;

const SMALL_TABLE: TableStyles = {
  head: { font: SANS_BOLD, size: 7.5 },
  cell: { font: SANS, size: 8 },
  bold: { font: SANS_BOLD, size: 8 },
  under: { font: SANS, size: 7.5, color: '#333333' },
  padY: mm(0.7),
};
/** 64 hex characters in 6.5 pt take 65 mm: beside a file name on A4. */
const HASH: TextStyle = { font: MONO, size: 6.5 };
const FILE: TextStyle = { font: SANS, size: 7 };
const GRID_LABEL: TextStyle = { font: SANS, size: 7, color: '#333333', align: 'right' };
const GRID_HASH: TextStyle = { font: MONO, size: 7 };
const SUBHEADING: TextStyle = CAPTION_TITLE;

export function evidenceBlocks(doc: Doc, evidence: EvidenceInput, words: PdfWords, body: Box, sheetOfItsOwn: boolean): Block[] {
  const blocks: Block[] = [];
  blocks.push(
    ...textBlocks(doc, evidence.preview ? words.evidencePreview : words.evidence, TITLE, body, {
      breakBefore: sheetOfItsOwn,
      keepWithNext: true,
    }),
  );
  blocks.push(
    ...textBlocks(
      doc,
      words.evidenceOf(evidence.report.ref, evidence.report.title, evidence.report.version),
      { ...BODY, font: SANS_BOLD },
      body,
      { keepWithNext: true },
    ),
  );
  blocks.push(
    ...joined(textBlocks(doc, evidence.preview ? words.sealedLater(evidence.sealedBy) : words.sealed(evidence.sealedBy), CAPTION, body)),
  );

  blocks.push(heading(doc, words.history, body));
  blocks.push(...joined(textBlocks(doc, words.historyNote, SMALL, body, { keepWithNext: true })));
  blocks.push(...historyBlocks(doc, evidence.events, words, body));

  blocks.push(heading(doc, words.checksums, body));
  blocks.push(...signatureBlocks(doc, evidence, words, body));
  blocks.push(...textBlocks(doc, words.images, SUBHEADING, body, { keepWithNext: true }));
  if (evidence.images.length === 0) blocks.push(...textBlocks(doc, words.noImages, CAPTION, body));
  else if (evidence.images.length <= FULL_HASHES_UP_TO) blocks.push(...imageTable(doc, evidence.images, words, body));
  else blocks.push(...imageGrid(doc, evidence.images, words, body));

  // How a customer checks it; how to with tools (pdfsig, openssl, sha256sum, the hash rule) is in the documentation.
  blocks.push(heading(doc, words.howTo, body));
  blocks.push(...textBlocks(doc, words.howCustomer(evidence.sealedBy, evidence.checkPage), CAPTION, body));
  return blocks;
}

function historyBlocks(doc: Doc, events: EvidenceEvent[], words: PdfWords, body: Box): Block[] {
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch covers every kind of event, as TypeScript checks
  const rows = events.map((event): TableRow => {
    const who = (name: string | null) => name ?? words.notRecorded;
    switch (event.kind) {
      case 'created':
        return { cells: [event.at, words.created(event.version, event.versionOf), who(event.by)] };
      case 'pages_added':
      case 'pages_changed': {
        const what =
          event.kind === 'pages_added' ? words.pagesAdded(event.pages, event.count) : words.pagesChanged(event.pages, event.count);
        return { cells: [event.until ? `${event.at}\n${words.until(event.until)}` : event.at, what, who(event.by)] };
      }
      case 'signed': {
        const details = [
          event.deviceTime
            ? `${words.deviceTime(event.deviceTime)}${event.devicePlausible === false ? ` – ${words.implausible}` : ''}`
            : '',
          event.ip ? words.ip(event.ip) : '',
          event.position ? words.position(event.position) : '',
          event.sentBy ? words.sentBy(event.sentBy) : '',
          event.userAgent ? words.userAgent(cut(event.userAgent, MAX_USER_AGENT)) : '',
        ].filter(Boolean);
        return { cells: [event.at, words.signedEvent(event.page), event.signer], bold: true, under: details.join(' · ') || null };
      }
      case 'finalized':
      case 'previewed':
        return {
          cells: [event.at, event.kind === 'finalized' ? words.finalizedEvent : words.previewedEvent, event.by],
          bold: true,
          under: event.ip ? words.ip(event.ip) : null,
        };
    }
  });
  // As wide as the longest time on one line (in bold, the wider), the person beside the event.
  metrics(doc, SMALL_TABLE.bold);
  const times = rows.flatMap((row) => row.cells[0]!.split('\n'));
  const whenWidth = Math.min(body.w * 0.35, Math.max(...[words.when, ...times].map((line) => doc.widthOfString(line))) + 2 * PAD + 2);
  const columns = columnsOf(body.w, [{ fixed: whenWidth }, { share: 0.6 }, { share: 0.4 }]);
  return tableBlocks(doc, body, columns, [words.when, words.event, words.person], rows, words, SMALL_TABLE);
}

/** Per signature: whose, on which report page, and its hash over the pages before it, in full. */
function signatureBlocks(doc: Doc, evidence: EvidenceInput, words: PdfWords, body: Box): Block[] {
  const blocks: Block[] = [];
  if (evidence.signatures.length === 0) {
    blocks.push(...textBlocks(doc, words.noSignatures, CAPTION, body));
    return blocks;
  }
  for (const signature of evidence.signatures) blocks.push(signatureBlock(doc, signature, evidence.report.ref, words, body));
  return blocks;
}

function signatureBlock(doc: Doc, signature: EvidenceSignature, ref: string, words: PdfWords, body: Box): Block {
  const NAME: TextStyle = { ...CAPTION, font: SANS_BOLD };
  const lines: Array<[string, TextStyle]> = [[words.signatureOf(signature.signer, signature.page), NAME]];
  if (signature.hash) {
    lines.push([words.signatureHash(signature.pagesCovered ?? signature.page - 1, ref, signature.form), CAPTION]);
    lines.push([signature.hash, { ...HASH, size: 8 }]);
  } else {
    lines.push([words.noMetadata, CAPTION]);
  }
  const heights = lines.map(([text, style]) => measure(doc, text, body.w - mm(4), style));
  return {
    height: Math.min(heights.reduce((a, b) => a + b, 0) + mm(1), body.h),
    draw(box, { doc }) {
      let y = box.y;
      lines.forEach(([text, style], i) => {
        textIn(doc, text, { x: box.x + (i === 0 ? 0 : mm(4)), y, w: box.w - mm(4), h: heights[i]! }, style);
        y += heights[i]!;
      });
    },
  };
}

function partOf(image: EvidenceImage, words: PdfWords): string {
  return typeof image.part === 'object' ? words.checklistItem(image.part.checklistItem) : words.parts[image.part];
}

/**
 * One row per image: report page, what it is, file name, SHA-256 in full; where the sheet is too
 * narrow for the checksum beside the file name (A5), the checksum goes under the row.
 */
function imageTable(doc: Doc, images: EvidenceImage[], words: PdfWords, body: Box): Block[] {
  metrics(doc, HASH);
  const hashWidth = doc.widthOfString('0'.repeat(64)) + 2 * PAD + 1;
  metrics(doc, SMALL_TABLE.head);
  const pageWidth = Math.max(doc.widthOfString(words.imagePage), doc.widthOfString('000')) + 2 * PAD + 2;
  const parts = images.map((image) => partOf(image, words));
  metrics(doc, SMALL_TABLE.cell);
  const partWidth = Math.min(body.w * 0.25, Math.max(...[words.image, ...parts].map((p) => doc.widthOfString(p))) + 2 * PAD + 2);
  const missing = `✗ ${words.fileMissing}`;
  if (body.w - pageWidth - partWidth - hashWidth >= mm(45)) {
    const columns = columnsOf(body.w, [
      { fixed: pageWidth, align: 'right' },
      { fixed: partWidth },
      { share: 1, style: FILE },
      { fixed: hashWidth, style: HASH },
    ]);
    const rows = images.map((image, i): TableRow => ({ cells: [String(image.page), parts[i]!, image.name, image.sha256 ?? missing] }));
    return tableBlocks(doc, body, columns, [words.imagePage, words.image, words.file, 'SHA-256'], rows, words, SMALL_TABLE);
  }
  const columns = columnsOf(body.w, [{ fixed: pageWidth, align: 'right' }, { fixed: partWidth }, { share: 1, style: FILE }]);
  const rows = images.map((image, i): TableRow => ({ cells: [String(image.page), parts[i]!, image.name], under: image.sha256 ?? missing }));
  return tableBlocks(doc, body, columns, [words.imagePage, words.image, `${words.file}, SHA-256`], rows, words, {
    ...SMALL_TABLE,
    under: HASH,
  });
}

/** Many images: a grid of "page+part  first 16 hex characters", as many to a line as fit, a line a block. */
function imageGrid(doc: Doc, images: EvidenceImage[], words: PdfWords, body: Box): Block[] {
  const labels = images.map(
    (image) =>
      `${image.page}${typeof image.part === 'object' ? ` ${words.shortChecklistItem(image.part.checklistItem)}` : words.shortParts[image.part] ? ` ${words.shortParts[image.part]}` : ''}`,
  );
  metrics(doc, GRID_LABEL);
  const labelWidth = Math.max(...labels.map((l) => doc.widthOfString(l))) + mm(1.5);
  metrics(doc, GRID_HASH);
  const hashWidth = doc.widthOfString('0'.repeat(SHORT_HASH));
  const cell = labelWidth + hashWidth + mm(4);
  const across = Math.max(1, Math.floor(body.w / cell));
  const rowHeight = Math.max(lineHeight(doc, GRID_HASH), lineHeight(doc, GRID_LABEL)) + 1.5;
  const blocks: Block[] = [...textBlocks(doc, words.shortHashes(images.length), SMALL, body, { keepWithNext: true })];
  // On the next sheet the grid goes on under its heading, marked as continued.
  const continued = textBlocks(doc, words.continued(words.images), SUBHEADING, body)[0]!;
  for (let start = 0; start < images.length; start += across) {
    const line = images
      .slice(start, start + across)
      .map((image, i) => ({ label: labels[start + i]!, hash: image.sha256?.slice(0, SHORT_HASH) ?? null }));
    const shaded = (start / across) % 2 === 1;
    blocks.push({
      height: rowHeight,
      joined: true,
      repeatOnBreak: continued,
      draw(box, { doc }) {
        if (shaded) doc.save().rect(box.x, box.y, box.w, box.h).fill(SHADE).restore();
        line.forEach(({ label, hash }, i) => {
          const x = box.x + i * cell;
          const y = box.y + 0.75;
          textIn(doc, label, { x, y, w: labelWidth - mm(1), h: rowHeight }, GRID_LABEL);
          textIn(
            doc,
            hash ?? '✗',
            { x: x + labelWidth, y, w: hashWidth + 1, h: rowHeight },
            hash ? GRID_HASH : { ...GRID_HASH, font: SANS },
          );
        });
      },
    });
  }
  return blocks;
}

function joined(blocks: Block[]): Block[] {
  if (blocks[0]) blocks[0] = { ...blocks[0], joined: true };
  return blocks;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
