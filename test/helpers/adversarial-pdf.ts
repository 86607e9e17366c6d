/**
 * PDFs made to cost the signature check as much as possible per byte: many /ByteRange entries
 * after one large `<…>`, each naming that string (or a neighbour of it) as its signature's gap.
 */

/**
 * About `size` bytes: `%PDF-`, one hex string of most of the size, then `entries` /ByteRange
 * entries that each leave it out. `odd`: the string has an odd number of digits and each entry
 * names a different end for it, so no entry is a signature and each looks new (the form that made
 * a check scan the whole string once per entry); else all name the same gap, whose bytes are no
 * readable signature.
 */
export function adversarialPdf(options: { entries?: number; hexBytes?: number; odd?: boolean } = {}): Buffer {
  const entries = options.entries ?? 5000;
  const hexBytes = options.hexBytes ?? 1024 * 1024 - 2;
  const head = Buffer.from('%PDF-1.7\n1 0 obj\n<</Type/Sig/Contents <', 'latin1');
  const hex = Buffer.alloc(hexBytes + (options.odd ? 1 : 0), 0x30);
  // `>>>>`: with `odd`, each entry ends its gap at another `>` (only the first can close a hex string).
  const closers = Buffer.from('>'.repeat(options.odd ? 64 : 1), 'latin1');
  const b = head.length - 1;
  const firstC = head.length + hex.length + 1;
  const lines: string[] = [];
  for (let i = 0; i < entries; i++) {
    const c = firstC + (options.odd ? i % closers.length : 0);
    lines.push(`/ByteRange [0 ${b} ${c} 0]`);
  }
  const tail = Buffer.from(`>>\n${lines.join('\n')}\nendobj\n%%EOF\n`, 'latin1');
  // d = 0: each range ends within the file whatever follows.
  return Buffer.concat([head, hex, closers, tail]);
}
