/**
 * Just enough ASN.1 DER to write and read the structures of a PDF signature (CMS SignedData, an
 * X.509 certificate, an RFC 3161 time-stamp request and reply). Writing concatenates exact bytes,
 * so what is signed is byte for byte what is sent; reading walks the bytes without re-encoding.
 * Single-byte tags only (all these structures use them); lengths in definite form.
 */

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Context-specific tag `n`: constructed ([n] EXPLICIT, or IMPLICIT over a constructed type) or primitive. */
export const context = (n: number, constructed = true): number => (constructed ? 0xa0 : 0x80) | n;

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One tag-length-value: `tag` over the concatenation of `parts`. */
export function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const content = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(TAG.SEQUENCE, ...items);

/** A SET OF: DER wants its elements in the order of their encodings (X.690 11.6). */
export const setOf = (...items: Buffer[]): Buffer => tlv(TAG.SET, ...[...items].sort(Buffer.compare));

export const octetString = (data: Buffer): Buffer => tlv(TAG.OCTET_STRING, data);
export const nullValue = (): Buffer => tlv(TAG.NULL);
export const boolean = (value: boolean): Buffer => tlv(TAG.BOOLEAN, Buffer.from([value ? 0xff : 0]));
export const utf8String = (text: string): Buffer => tlv(TAG.UTF8_STRING, Buffer.from(text, 'utf8'));
/** A BIT STRING of whole bytes (no unused bits). */
export const bitString = (data: Buffer, unusedBits = 0): Buffer => tlv(TAG.BIT_STRING, Buffer.from([unusedBits]), data);

/** An INTEGER from a non-negative number or the big-endian bytes of one. */
export function integer(value: number | bigint | Buffer): Buffer {
  let bytes: Buffer;
  if (Buffer.isBuffer(value)) {
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    bytes = value.subarray(start);
  } else {
    let hex = BigInt(value).toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    bytes = Buffer.from(hex, 'hex');
  }
  if (bytes.length === 0) bytes = Buffer.from([0]);
  // Non-negative: a leading 1 bit would read as a sign.
  if (bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(TAG.INTEGER, bytes);
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map((a) => BigInt(a));
  if (arcs.length < 2) throw new Error(`not an object identifier: ${dotted}`);
  const values = [arcs[0]! * 40n + arcs[1]!, ...arcs.slice(2)];
  const out: number[] = [];
  for (const value of values) {
    const chunk: number[] = [];
    let rest = value;
    do {
      chunk.unshift(Number(rest & 0x7fn));
      rest >>= 7n;
    } while (rest > 0n);
    for (let i = 0; i < chunk.length - 1; i++) chunk[i]! |= 0x80;
    out.push(...chunk);
  }
  return tlv(TAG.OID, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime from 2050 on (RFC 5280 4.1.2.5), to the second, in UTC. */
export function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDhhmmss
  const year = date.getUTCFullYear();
  return year < 2050
    ? tlv(TAG.UTC_TIME, Buffer.from(`${iso.slice(2)}Z`, 'latin1'))
    : tlv(TAG.GENERALIZED_TIME, Buffer.from(`${iso}Z`, 'latin1'));
}

// ---- reading -------------------------------------------------------------------------------------

/** One element read from `buf`: its tag, where it starts, and where its content starts and ends. */
export interface DerNode {
  tag: number;
  start: number;
  contentStart: number;
  end: number;
  buf: Buffer;
}

export class DerError extends Error {}

/** The element at `pos` in `buf` (within `limit`). */
export function readNode(buf: Buffer, pos = 0, limit = buf.length): DerNode {
  if (pos + 2 > limit) throw new DerError(`ASN.1: truncated at ${pos}`);
  const tag = buf[pos]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError(`ASN.1: multi-byte tag at ${pos}`);
  let length = buf[pos + 1]!;
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new DerError(`ASN.1: unsupported length form at ${pos}`);
    if (pos + 2 + count > limit) throw new DerError(`ASN.1: truncated length at ${pos}`);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buf[pos + 2 + i]!;
    header += count;
  }
  const end = pos + header + length;
  if (end > limit) throw new DerError(`ASN.1: element at ${pos} runs past its container`);
  return { tag, start: pos, contentStart: pos + header, end, buf };
}

/** The elements inside a constructed element; more than `max` is a DerError. */
export function children(node: DerNode, max = 64): DerNode[] {
  const out: DerNode[] = [];
  for (let pos = node.contentStart; pos < node.end; ) {
    if (out.length >= max) throw new DerError(`ASN.1: more than ${max} elements at ${node.start}`);
    const child = readNode(node.buf, pos, node.end);
    out.push(child);
    pos = child.end;
  }
  return out;
}

/** The element's content bytes. */
export const contentOf = (node: DerNode): Buffer => node.buf.subarray(node.contentStart, node.end);
/** The element's whole encoding. */
export const rawOf = (node: DerNode): Buffer => node.buf.subarray(node.start, node.end);

/** `node` when it has tag `tag`, else a DerError naming `what`. */
export function expectTag(node: DerNode | undefined, tag: number, what: string): DerNode {
  if (!node || node.tag !== tag) throw new DerError(`ASN.1: ${what} expected`);
  return node;
}

/** The dotted form of an OBJECT IDENTIFIER element. */
export function readOid(node: DerNode): string {
  expectTag(node, TAG.OID, 'object identifier');
  const bytes = contentOf(node);
  const arcs: bigint[] = [];
  let value = 0n;
  for (const byte of bytes) {
    value = (value << 7n) | BigInt(byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(value);
      value = 0n;
    }
  }
  if (arcs.length === 0) throw new DerError('ASN.1: empty object identifier');
  const first = arcs[0]! < 80n ? arcs[0]! / 40n : 2n;
  return [first, arcs[0]! - first * 40n, ...arcs.slice(1)].join('.');
}

/** The moment of a UTCTime or GeneralizedTime element (`YYMMDDhhmmss[.f]Z` forms). */
export function readTime(node: DerNode): Date {
  const text = contentOf(node).toString('latin1');
  const match = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\.\d+)?Z$/.exec(text);
  if (!match || (node.tag !== TAG.UTC_TIME && node.tag !== TAG.GENERALIZED_TIME))
    throw new DerError(`ASN.1: time expected, got ${JSON.stringify(text)}`);
  let year = Number(match[1]);
  if (match[1]!.length === 2) year += year < 50 ? 2000 : 1900;
  const ms = match[7] ? Math.round(Number(`0${match[7]}`) * 1000) : 0;
  return new Date(Date.UTC(year, Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6]), ms));
}
