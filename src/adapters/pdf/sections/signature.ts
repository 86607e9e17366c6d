/**
 * A signature sheet: one heading, the signature's facts as text (selectable, searchable: who, when
 * by the phone and when received, both in the company's time zone with the zone named, the pages
 * it covers, the checksum, where to verify it), then the signature sheet as the service burned it
 * (its bytes are what the proof covers), as large as the rest of the sheet allows. Any other
 * composite image gets a sheet of its own the same way, under its title. Compact layouts print
 * the same as a block in the flow (signatureBlock), the burned-in sheet smaller.
 */
import { wholeSheet, type Block } from '../flow.js';
import { BODY, drawImageIn, GAP, LABEL, measure, mm, rule, textIn, TITLE, type Box, type Doc } from '../kit.js';
import type { PdfPage, SignatureFacts } from '../model.js';
import type { PdfWords } from '../words.js';

type SignaturePage = Extract<PdfPage, { kind: 'signature' }>;
type ImagePage = Extract<PdfPage, { kind: 'image' }>;

/** The title the service gives a signature page when nobody named it. */
const DEFAULT_TITLES = new Set(['Unterschrift', 'Signature']);

/** Compact layouts: the burned-in sheet at most this share of the body's height, so the sheet holds more. */
const COMPACT_IMAGE_SHARE = 0.4;

/**
 * A signature in a compact layout: the same heading, facts and burned-in sheet as a block in the
 * flow, the image at most COMPACT_IMAGE_SHARE of the body tall, so it shares a sheet with what
 * comes before or after (the last photos, the evidence sheet).
 */
export function signatureBlock(doc: Doc, page: SignaturePage | ImagePage, body: Box, words: PdfWords): Block {
  const facts = page.kind === 'signature' ? page.facts : null;
  const heading = headingOf(page, words);
  const headingHeight = measure(doc, heading, body.w, TITLE, body.h * 0.1);
  const textHeight = facts
    ? factsHeight(doc, factRows(facts, words), body.w)
    : page.note
      ? measure(doc, page.note, body.w, BODY, body.h * 0.2)
      : 0;
  const imageHeight = body.h * COMPACT_IMAGE_SHARE;
  return {
    height: Math.min(body.h, headingHeight + GAP + textHeight + GAP + mm(1) + imageHeight),
    notice: page.notice ?? null,
    images: [page.image],
    draw(box, { doc, words, images }) {
      textIn(doc, heading, { ...box, h: headingHeight }, TITLE);
      let y = box.y + headingHeight + GAP;
      if (facts) y = drawFacts(doc, factRows(facts, words), { x: box.x, y, w: box.w, h: textHeight + 1 }) + GAP;
      else if (page.note) {
        textIn(doc, page.note, { x: box.x, y, w: box.w, h: textHeight }, BODY);
        y += textHeight + GAP;
      }
      rule(doc, box.x, y - GAP / 2, box.w);
      drawImageIn(doc, images[0] ?? null, { x: box.x, y: y + mm(1), w: box.w, h: box.y + box.h - y - mm(1) }, 0, words.missing);
    },
  };
}

function headingOf(page: SignaturePage | ImagePage, words: PdfWords): string {
  return page.kind === 'signature' && (!page.title || DEFAULT_TITLES.has(page.title)) ? words.signature : (page.title ?? words.signature);
}

export function signatureSheet(page: SignaturePage | ImagePage, body: Box): Block {
  const facts = page.kind === 'signature' ? page.facts : null;
  return wholeSheet(body, page.notice, [page.image], (box, { doc, words, images }) => {
    const heading = headingOf(page, words);
    const headingHeight = measure(doc, heading, box.w, TITLE, box.h * 0.1);
    textIn(doc, heading, { ...box, h: headingHeight }, TITLE);
    let y = box.y + headingHeight + GAP;
    if (facts) {
      // Every fact is printed; the burned-in sheet takes what is left.
      y = drawFacts(doc, factRows(facts, words), { x: box.x, y, w: box.w, h: box.h * 0.6 }) + GAP;
    } else if (page.note) {
      // Without facts (a signature made before they were kept) its note says who and when.
      const height = measure(doc, page.note, box.w, BODY, box.h * 0.2);
      textIn(doc, page.note, { x: box.x, y, w: box.w, h: height }, BODY);
      y += height + GAP;
    }
    rule(doc, box.x, y - GAP / 2, box.w);
    drawImageIn(doc, images[0] ?? null, { x: box.x, y: y + mm(1), w: box.w, h: box.y + box.h - y - mm(1) }, 0, words.missing);
  });
}

function factRows(facts: SignatureFacts, words: PdfWords): Array<{ label: string; value: string }> {
  const rows = [{ label: words.signer, value: facts.signer }];
  if (facts.signedAtDevice && facts.signedAtDevice !== facts.receivedAt) {
    rows.push({
      label: words.signedAtDevice,
      value: facts.devicePlausible === false ? `${facts.signedAtDevice} – ${words.implausible}` : facts.signedAtDevice,
    });
    rows.push({ label: words.receivedAtServer, value: facts.receivedAt });
  } else {
    rows.push({ label: words.signedAt, value: facts.receivedAt });
  }
  if (facts.pagesCovered !== null) rows.push({ label: words.pagesCovered, value: String(facts.pagesCovered) });
  if (facts.hash) rows.push({ label: words.hash, value: facts.hash });
  if (facts.verifyUrl) rows.push({ label: words.check, value: facts.verifyUrl });
  return rows;
}

const labelWidthOf = (width: number) => Math.min(mm(55), width * 0.35);

/** The height drawFacts takes for `rows` at `width`. */
function factsHeight(doc: Doc, rows: Array<{ label: string; value: string }>, width: number): number {
  const labelWidth = labelWidthOf(width);
  const valueWidth = width - labelWidth - mm(3);
  return rows.reduce(
    (sum, { label, value }) => sum + Math.max(measure(doc, label, labelWidth, LABEL), measure(doc, value, valueWidth, BODY)) + mm(1),
    0,
  );
}

/** Label/value rows in two columns; returns the bottom. */
function drawFacts(doc: Doc, rows: Array<{ label: string; value: string }>, box: Box): number {
  const labelWidth = labelWidthOf(box.w);
  const valueWidth = box.w - labelWidth - mm(3);
  let y = box.y;
  for (const { label, value } of rows) {
    const height = Math.max(measure(doc, label, labelWidth, LABEL), measure(doc, value, valueWidth, BODY));
    if (y + height > box.y + box.h) break;
    textIn(doc, label, { x: box.x, y: y + 1, w: labelWidth, h: height }, LABEL);
    textIn(doc, value, { x: box.x + labelWidth + mm(3), y, w: valueWidth, h: height }, BODY);
    y += height + mm(1);
  }
  return y;
}
