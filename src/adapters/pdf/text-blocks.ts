/** Text in the flow: a heading kept with what follows, and a text split into blocks that go on over the next sheet. */
import type { Block } from './flow.js';
import { HEADING, measure, mm, rule, splitToHeight, textIn, type Box, type Doc, type TextStyle } from './kit.js';

/** A text as blocks measured now and drawn as measured: a text longer than a sheet goes on over the next. */
export function textBlocks(doc: Doc, text: string, textStyle: TextStyle, body: Box, extra: Partial<Block> = {}): Block[] {
  return splitToHeight(doc, text, body.w, textStyle, body.h * 0.9).map((piece, index) => ({
    height: measure(doc, piece, body.w, textStyle),
    ...(index === 0 ? extra : {}),
    draw: (box, { doc }) => textIn(doc, piece, box, textStyle),
  }));
}

export function heading(doc: Doc, text: string, body: Box): Block {
  const height = measure(doc, text, body.w, HEADING) + mm(2);
  return {
    height,
    keepWithNext: true,
    draw(box, { doc }) {
      textIn(doc, text, { ...box, y: box.y + mm(1), h: box.h - mm(1) }, HEADING);
      rule(doc, box.x, box.y + box.h, box.w, '#666666', 0.75);
    },
  };
}
