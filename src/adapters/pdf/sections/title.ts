/**
 * A title-only page. One per sheet: the title centred on the sheet in large type, the note centred
 * below it (the contract's title page). In the compact layouts it is a section heading in the flow: a
 * rule, the title, its note, kept on the sheet of what follows it.
 */
import type { Block } from '../flow.js';
import { BODY, GAP, HEADING, measure, mm, rule, SANS, SANS_BOLD, textIn, type Box, type Doc, type TextStyle } from '../kit.js';

const SHEET_TITLE: TextStyle = { font: SANS_BOLD, size: 24, align: 'center' };
const SHEET_NOTE: TextStyle = { font: SANS, size: 12, align: 'center', color: '#333333' };

export function titleSheet(title: string | null, note: string | null, body: Box): Block {
  return {
    height: body.h,
    breakBefore: true,
    breakAfter: true,
    draw(box, { doc }) {
      const titleHeight = title ? measure(doc, title, box.w, SHEET_TITLE, box.h * 0.6) : 0;
      const noteHeight = note ? measure(doc, note, box.w, SHEET_NOTE, box.h * 0.35) : 0;
      const gap = title && note ? mm(6) : 0;
      let y = box.y + (box.h - titleHeight - gap - noteHeight) / 2;
      if (title) textIn(doc, title, { ...box, y, h: titleHeight }, SHEET_TITLE);
      y += titleHeight + gap;
      if (note) textIn(doc, note, { ...box, y, h: noteHeight }, SHEET_NOTE);
    },
  };
}

/** A section heading: its height measured with `doc` (the document's fonts), capped at a third of the body. */
export function sectionHeading(doc: Doc, title: string | null, note: string | null, body: Box): Block {
  const top = mm(2);
  const titleHeight = title ? measure(doc, title, body.w, HEADING, body.h / 6) : 0;
  const noteHeight = note ? measure(doc, note, body.w, BODY, body.h / 6) : 0;
  const between = title && note ? mm(1) : 0;
  return {
    height: top + titleHeight + between + noteHeight + GAP / 2,
    keepWithNext: true,
    draw(box, { doc }) {
      rule(doc, box.x, box.y, box.w, '#666666', 0.75);
      let y = box.y + top;
      if (title) textIn(doc, title, { ...box, y, h: titleHeight }, HEADING);
      y += titleHeight + between;
      if (note) textIn(doc, note, { ...box, y, h: noteHeight }, BODY);
    },
  };
}
