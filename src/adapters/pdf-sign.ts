/**
 * PDF signatures as incremental updates (ISO 32000-1 12.8, 7.5.6): a signature field with an
 * invisible widget on the first page, its signature dictionary with a /Contents placeholder, the
 * catalog's /AcroForm, a new cross-reference section and trailer, appended to the file unchanged
 * before them. /ByteRange covers the whole file but the /Contents hex string; the CMS signature
 * (cms.ts) or RFC 3161 token is then written into the placeholder. An update never rewrites what is
 * there, so a document time stamp added later keeps the first signature valid.
 *
 * Reads the files pdfkit writes: classic cross-reference tables, catalog and page dictionaries as
 * plain (non-stream) objects. Whatever else it meets is an Error, never a damaged file.
 * PDF/A-1b holds: the widget prints (F 132: Print, Locked), has a zero-size empty appearance, and
 * the trailer keeps the document's /ID.
 *
 * One file, longer than most: reading the cross-reference, writing the update and finding the
 * signatures again (for the check and the time stamp) follow the same layout of the file.
 */
import { randomBytes } from 'node:crypto';
import { checkCms, checkTimestampToken, createCmsSignature, digestWith, OID, sha256, type CmsSigner, type TstInfo } from './cms.js';

const OID_SHA256 = OID.sha256;

export class PdfSignError extends Error {}

const latin1 = (buf: Buffer) => buf.toString('latin1');

// ---- reading the file's structure -----------------------------------------------------------------

interface Ref {
  num: number;
  gen: number;
}
const refText = (r: Ref) => `${r.num} ${r.gen} R`;
const parseRef = (text: string | undefined): Ref | undefined => {
  const m = text && /^(\d+)\s+(\d+)\s+R$/.exec(text.trim());
  return m ? { num: Number(m[1]), gen: Number(m[2]) } : undefined;
};

/** A dictionary's top-level entries in order, each value as its source text. */
export function parseDict(text: string): Map<string, string> {
  const body = text.trim();
  if (!body.startsWith('<<') || !body.endsWith('>>')) throw new PdfSignError('PDF: dictionary expected');
  const entries = new Map<string, string>();
  let i = 2;
  const end = body.length - 2;
  const skipSpace = () => {
    while (i < end && /[\s]/.test(body[i]!)) i++;
    if (body[i] === '%') while (i < end && body[i] !== '\n' && body[i] !== '\r') i++;
  };
  const readName = () => {
    const start = i++;
    while (i < end && !/[\s/<>[\]()%{}]/.test(body[i]!)) i++;
    return body.slice(start, i);
  };
  const readValue = (): string => {
    const start = i;
    const c = body[i];
    if (c === '/') return readName();
    if (c === '(') {
      let depth = 0;
      for (; i < end; i++) {
        if (body[i] === '\\') i++;
        else if (body[i] === '(') depth++;
        else if (body[i] === ')' && --depth === 0) break;
      }
      i++;
      return body.slice(start, i);
    }
    if (c === '<' && body[i + 1] === '<') {
      let depth = 0;
      for (; i < end; ) {
        if (body.startsWith('<<', i)) {
          depth++;
          i += 2;
        } else if (body.startsWith('>>', i)) {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else if (body[i] === '(' || body[i] === '<') readValue();
        else i++;
      }
      return body.slice(start, i);
    }
    if (c === '<') {
      i = body.indexOf('>', i) + 1;
      if (i === 0) throw new PdfSignError('PDF: unterminated hex string');
      return body.slice(start, i);
    }
    if (c === '[') {
      let depth = 0;
      for (; i < end; ) {
        if (body[i] === '[') {
          depth++;
          i++;
        } else if (body[i] === ']') {
          depth--;
          i++;
          if (depth === 0) break;
        } else if (body[i] === '(' || body[i] === '<') readValue();
        else i++;
      }
      return body.slice(start, i);
    }
    // A number, boolean, null, or an indirect reference `n g R`.
    const ref = /^(\d+\s+\d+\s+R)\b/.exec(body.slice(i, i + 40));
    if (ref) {
      i += ref[1]!.length;
      return ref[1]!;
    }
    while (i < end && !/[\s/<>[\]()%]/.test(body[i]!)) i++;
    return body.slice(start, i);
  };
  for (skipSpace(); i < end; skipSpace()) {
    if (body[i] !== '/') throw new PdfSignError(`PDF: name expected in dictionary at ${i}`);
    const key = readName();
    skipSpace();
    entries.set(key, readValue());
  }
  return entries;
}

const dictText = (entries: Map<string, string>) => `<<\n${[...entries].map(([k, v]) => `${k} ${v}`).join('\n')}\n>>`;

interface Structure {
  /** Object number → byte offset, the newest revision's. */
  offsets: Map<number, number>;
  trailer: Map<string, string>;
  startxref: number;
}

function readStructure(pdf: Buffer): Structure {
  const tail = latin1(pdf.subarray(Math.max(0, pdf.length - 2048)));
  const m = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!m) throw new PdfSignError('PDF: no startxref at the end of the file');
  const startxref = Number(m[1]);
  const offsets = new Map<number, number>();
  let trailer: Map<string, string> | undefined;
  const seen = new Set<number>();
  for (let at: number | undefined = startxref; at !== undefined; ) {
    if (seen.has(at) || at >= pdf.length) throw new PdfSignError('PDF: broken cross-reference chain');
    seen.add(at);
    const text = latin1(pdf.subarray(at, Math.min(pdf.length, at + 64)));
    if (!text.startsWith('xref')) throw new PdfSignError('PDF: only classic cross-reference tables are supported');
    const trailerAt = pdf.indexOf('trailer', at, 'latin1');
    if (trailerAt < 0) throw new PdfSignError('PDF: no trailer');
    const lines = latin1(pdf.subarray(at + 4, trailerAt))
      .split(/\r\n|\r|\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    for (let li = 0; li < lines.length; ) {
      const [first, count] = lines[li++]!.split(/\s+/).map(Number) as [number, number];
      for (let k = 0; k < count; k++) {
        const entry = /^(\d{10}) (\d{5}) ([nf])$/.exec(lines[li++] ?? '');
        if (!entry) throw new PdfSignError('PDF: malformed cross-reference entry');
        if (entry[3] === 'n' && !offsets.has(first + k)) offsets.set(first + k, Number(entry[1]));
      }
    }
    const endTrailer = pdf.indexOf('startxref', trailerAt, 'latin1');
    const dict = parseDict(latin1(pdf.subarray(trailerAt + 7, endTrailer < 0 ? pdf.length : endTrailer)));
    trailer ??= dict;
    at = dict.has('/Prev') ? Number(dict.get('/Prev')) : undefined;
  }
  return { offsets, trailer: trailer!, startxref };
}

function readObject(pdf: Buffer, s: Structure, ref: Ref): string {
  const at = s.offsets.get(ref.num);
  if (at === undefined) throw new PdfSignError(`PDF: object ${ref.num} not found`);
  const end = pdf.indexOf('endobj', at, 'latin1');
  const text = latin1(pdf.subarray(at, end));
  const m = /^(\d+)\s+(\d+)\s+obj\b/.exec(text);
  if (!m || Number(m[1]) !== ref.num) throw new PdfSignError(`PDF: object ${ref.num} is not where the cross-reference table says`);
  const body = text.slice(m[0].length).trim();
  if (/\bstream\s*$/.test(body) || body.includes('\nstream')) throw new PdfSignError(`PDF: object ${ref.num} is a stream`);
  return body;
}

/** A PDF text string any reader shows: UTF-16BE with its byte-order mark, as hex. */
export function pdfText(text: string): string {
  const utf16 = Buffer.from(text, 'utf16le');
  utf16.swap16();
  return `<FEFF${utf16.toString('hex').toUpperCase()}>`;
}

/** A PDF date, `D:YYYYMMDDHHmmss+00'00'` (UTC). */
export const pdfDate = (date: Date) => `(D:${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}+00'00')`;

// ---- appending a signature field -----------------------------------------------------------------

const BYTE_RANGE_PLACEHOLDER = '/ByteRange [0 0000000000 0000000000 0000000000]';

interface Prepared {
  pdf: Buffer;
  contentsStart: number;
  contentsEnd: number;
}

/** `pdf` with an incremental update adding a signature field whose value is `sigEntries` plus /ByteRange and a /Contents of `reserve` bytes. */
function prepare(pdf: Buffer, sigEntries: string[], fieldName: string, reserve: number): Prepared {
  const s = readStructure(pdf);
  const rootRef = parseRef(s.trailer.get('/Root'));
  if (!rootRef) throw new PdfSignError('PDF: the trailer names no catalog');
  let next = Number(s.trailer.get('/Size'));
  if (!Number.isInteger(next) || next <= 0) throw new PdfSignError('PDF: the trailer has no /Size');
  const objects = new Map<number, string>();
  const sigNum = next++;
  const fieldNum = next++;
  const apNum = next++;

  const root = parseDict(readObject(pdf, s, rootRef));
  let acroRef = parseRef(root.get('/AcroForm'));
  let acro: Map<string, string>;
  if (acroRef) acro = parseDict(readObject(pdf, s, acroRef));
  else {
    acro = root.has('/AcroForm') ? parseDict(root.get('/AcroForm')!) : new Map();
    acroRef = { num: next++, gen: 0 };
    root.set('/AcroForm', refText(acroRef));
    objects.set(rootRef.num, dictText(root));
  }
  const fields = acro.get('/Fields');
  if (fields !== undefined && !/^\[[\d\sR]*\]$/.test(fields)) throw new PdfSignError("PDF: the form's /Fields is not a plain array");
  const names = new Set<string>();
  for (const f of (fields ?? '[]').slice(1, -1).match(/\d+\s+\d+\s+R/g) ?? []) {
    const t = parseDict(readObject(pdf, s, parseRef(f)!)).get('/T');
    if (t) names.add(t);
  }
  let name = fieldName;
  for (let n = 2; names.has(pdfText(name)); n++) name = `${fieldName} ${n}`;
  acro.set('/Fields', `[${[(fields ?? '[]').slice(1, -1).trim(), `${fieldNum} 0 R`].filter(Boolean).join(' ')}]`);
  acro.set('/SigFlags', '3');
  objects.set(acroRef.num, dictText(acro));

  // The first page, down the page tree.
  let pageRef = parseRef(root.get('/Pages'));
  for (let depth = 0; pageRef && depth < 32; depth++) {
    const node = parseDict(readObject(pdf, s, pageRef));
    if (node.get('/Type') !== '/Pages') break;
    pageRef = parseRef(/^\[\s*(\d+\s+\d+\s+R)/.exec(node.get('/Kids') ?? '')?.[1]);
  }
  if (!pageRef) throw new PdfSignError('PDF: no first page');
  const page = parseDict(readObject(pdf, s, pageRef));
  const annots = page.get('/Annots');
  const annotsRef = parseRef(annots);
  const widget = `${fieldNum} 0 R`;
  if (annotsRef) objects.set(annotsRef.num, `[${readObject(pdf, s, annotsRef).slice(1, -1).trim()} ${widget}]`);
  else {
    page.set('/Annots', annots ? `[${annots.slice(1, -1).trim()} ${widget}]` : `[${widget}]`);
    objects.set(pageRef.num, dictText(page));
  }

  objects.set(sigNum, `<<\n${[...sigEntries, BYTE_RANGE_PLACEHOLDER, `/Contents <${'0'.repeat(reserve * 2)}>`].join('\n')}\n>>`);
  objects.set(
    fieldNum,
    dictText(
      new Map([
        ['/Type', '/Annot'],
        ['/Subtype', '/Widget'],
        ['/FT', '/Sig'],
        ['/T', pdfText(name)],
        ['/V', `${sigNum} 0 R`],
        ['/F', '132'],
        ['/Rect', '[0 0 0 0]'],
        ['/P', refText(pageRef)],
        ['/AP', `<< /N ${apNum} 0 R >>`],
      ]),
    ),
  );
  objects.set(apNum, '<<\n/Type /XObject\n/Subtype /Form\n/BBox [0 0 0 0]\n/Resources << >>\n/Length 0\n>>\nstream\n\nendstream');

  // The update: objects, a cross-reference section for them, the trailer.
  const chunks: Buffer[] = [pdf];
  let offset = pdf.length;
  const push = (text: string) => {
    const b = Buffer.from(text, 'latin1');
    chunks.push(b);
    offset += b.length;
  };
  if (pdf[pdf.length - 1] !== 0x0a) push('\n');
  const placed = new Map<number, number>();
  let contentsStart = -1;
  for (const num of [...objects.keys()].sort((a, b) => a - b)) {
    placed.set(num, offset);
    const text = `${num} 0 obj\n${objects.get(num)}\nendobj\n`;
    if (num === sigNum) contentsStart = offset + text.indexOf('/Contents <') + '/Contents '.length;
    push(text);
  }
  const xrefAt = offset;
  const numbers = [...placed.keys()].sort((a, b) => a - b);
  let xref = 'xref\n';
  for (let k = 0; k < numbers.length; ) {
    let run = 1;
    while (numbers[k + run] === numbers[k]! + run) run++;
    xref += `${numbers[k]} ${run}\n`;
    for (let r = 0; r < run; r++) xref += `${String(placed.get(numbers[k + r]!)).padStart(10, '0')} 00000 n\r\n`;
    k += run;
  }
  const trailer = new Map<string, string>([
    ['/Size', String(Math.max(next, Number(s.trailer.get('/Size'))))],
    ['/Root', refText(rootRef)],
  ]);
  for (const key of ['/Info', '/ID']) if (s.trailer.has(key)) trailer.set(key, s.trailer.get(key)!);
  trailer.set('/Prev', String(s.startxref));
  push(`${xref}trailer\n${dictText(trailer)}\nstartxref\n${xrefAt}\n%%EOF\n`);
  return { pdf: Buffer.concat(chunks), contentsStart, contentsEnd: contentsStart + reserve * 2 + 2 };
}

/** Fills /ByteRange; answers the two covered ranges. */
function fixByteRange(p: Prepared): Buffer[] {
  const range = `/ByteRange [0 ${p.contentsStart} ${p.contentsEnd} ${p.pdf.length - p.contentsEnd}]`;
  const at = p.pdf.lastIndexOf(BYTE_RANGE_PLACEHOLDER, p.contentsStart, 'latin1');
  if (at < 0) throw new PdfSignError('PDF: byte range placeholder lost');
  p.pdf.write(range.padEnd(BYTE_RANGE_PLACEHOLDER.length, ' '), at, 'latin1');
  return [p.pdf.subarray(0, p.contentsStart), p.pdf.subarray(p.contentsEnd)];
}

function fillContents(p: Prepared, der: Buffer): Buffer {
  const room = p.contentsEnd - p.contentsStart - 2;
  if (der.length * 2 > room)
    throw new PdfSignError(`PDF: the signature (${der.length} bytes) does not fit its placeholder (${room / 2} bytes)`);
  p.pdf.write(der.toString('hex').toUpperCase(), p.contentsStart + 1, 'latin1');
  return p.pdf;
}

export interface SealOptions {
  signer: CmsSigner;
  /** The field's name (a second field of the same name gets a number). */
  fieldName: string;
  /** /Name, /Reason, /Location, /ContactInfo of the signature dictionary (text). */
  name?: string;
  reason?: string;
  location?: string;
  contactInfo?: string;
  date: Date;
  /** Asks an RFC 3161 authority for a token over the signature value's SHA-256; undefined: none. */
  timestamp?: (imprint: Buffer) => Promise<Buffer | undefined>;
}

/** Room for the CMS signature besides its certificates, and for a time-stamp token. */
const SIGNATURE_ROOM = 3072;
const TIMESTAMP_ROOM = 12288;

/**
 * `pdf` signed (PAdES B-B; B-T when `timestamp` answers a token). Answers the signed file and
 * the SHA-256 of the bytes the signature covers.
 */
export async function sealPdf(pdf: Buffer, options: SealOptions): Promise<{ pdf: Buffer; timestamped: boolean; digest: Buffer }> {
  const entries = ['/Type /Sig', '/Filter /Adobe.PPKLite', '/SubFilter /ETSI.CAdES.detached', `/M ${pdfDate(options.date)}`];
  if (options.name) entries.push(`/Name ${pdfText(options.name)}`);
  if (options.reason) entries.push(`/Reason ${pdfText(options.reason)}`);
  if (options.location) entries.push(`/Location ${pdfText(options.location)}`);
  if (options.contactInfo) entries.push(`/ContactInfo ${pdfText(options.contactInfo)}`);
  entries.push('/Prop_Build << /App << /Name /fieldreport >> >>');
  const certificates = [options.signer.certificate, ...options.signer.chain].reduce((n, c) => n + c.length, 0);
  const reserve = SIGNATURE_ROOM + certificates + (options.timestamp ? TIMESTAMP_ROOM : 0);
  const prepared = prepare(pdf, entries, options.fieldName, reserve);
  const ranges = fixByteRange(prepared);
  const digest = sha256(Buffer.concat(ranges));
  let { der, timestamped } = await createCmsSignature(options.signer, digest, options.timestamp);
  if (der.length * 2 > reserve * 2) ({ der, timestamped } = await createCmsSignature(options.signer, digest)); // a token too large: go without it
  return { pdf: fillContents(prepared, der), timestamped, digest };
}

/**
 * `pdf` with a document time stamp (ETSI.RFC3161) from `stamp`, which gets the covered bytes'
 * SHA-256 and answers the token. A token larger than the room made for it (an authority sending a
 * long certificate chain) is asked for once more with room for its size.
 */
export async function addDocumentTimestamp(pdf: Buffer, fieldName: string, stamp: (imprint: Buffer) => Promise<Buffer>): Promise<Buffer> {
  let room = TIMESTAMP_ROOM;
  for (let attempt = 0; ; attempt++) {
    const prepared = prepare(pdf, ['/Type /DocTimeStamp', '/Filter /Adobe.PPKLite', '/SubFilter /ETSI.RFC3161'], fieldName, room);
    const ranges = fixByteRange(prepared);
    const token = await stamp(sha256(Buffer.concat(ranges)));
    if (token.length <= room || attempt > 0) return fillContents(prepared, token);
    room = token.length + 1024;
  }
}

// ---- reading signatures back ---------------------------------------------------------------------

export interface FoundSignature {
  kind: 'signature' | 'timestamp';
  subFilter: string | undefined;
  byteRange: [number, number, number, number];
  /** The signature covers every byte of the file but its own /Contents. */
  coversWholeFile: boolean;
  valid: boolean;
  /** Why not valid: the signature cannot be read, names no certificate, or the content changed. */
  problem?: 'unreadable' | 'no_certificate' | 'digest_mismatch' | 'signature_invalid' | 'byte_range';
  certificate?: Buffer;
  /** SHA-256 of the signed bytes (what the seal's record keeps). */
  digest?: Buffer;
  /** The time stamp in a signature (B-T) or of a document time stamp: valid, and when. */
  timestamp?: { valid: boolean; info?: TstInfo };
  /** /M, as written. */
  signedAt?: string;
}

/** Signatures checked in one file at most: each hashes up to the whole file. */
const MAX_SIGNATURES = 8;
/**
 * Byte ranges looked at in one file at most, whether they turn out to be a signature or not (a gap
 * that is no hex string, a signature that cannot be read): each may hash up to the whole file.
 */
const MAX_CANDIDATES = 16;
/** The largest /Contents read as a signature (hex digits): far beyond any placeholder this service writes. */
const MAX_CONTENTS_HEX = 1024 * 1024;

const byteRangePattern = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g;

const isHexByte = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** What the object around a /ByteRange says of its signature. */
interface SignatureDict {
  kind: FoundSignature['kind'];
  subFilter: string | undefined;
  signedAt: string | undefined;
}

/**
 * Every signature and document time stamp in `pdf`, in file order, each checked against the bytes
 * it covers. Only a /ByteRange that can be one counts: it starts at 0, leaves out exactly a hex
 * string of a sane size, lies outside that gap and ends within the file; text that merely looks
 * like one (in a title, say) is passed over, a gap named twice is read once.
 *
 * The work is linear in the file's size whatever the file holds: the file is read front to back
 * once for the /ByteRange entries, once for the objects around them and once for the hex strings
 * they leave out (each string's end is found once, and strings after different `<` never overlap);
 * a gap named again is passed over before anything else is read; and at most MAX_CANDIDATES
 * distinct gaps are looked at (readable or not), at most MAX_SIGNATURES of them checked.
 */
export function findSignatures(pdf: Buffer): FoundSignature[] {
  const text = latin1(pdf);
  const found: FoundSignature[] = [];
  const seen = new Set<string>();
  let candidates = 0;
  // The end of the hex digits after each `<` (first non-hex byte, at most just past the largest gap).
  const hexEnds = new Map<number, number>();
  const hexEnd = (lt: number) => {
    let end = hexEnds.get(lt);
    if (end === undefined) {
      const limit = Math.min(pdf.length, lt + 2 + MAX_CONTENTS_HEX);
      for (end = lt + 1; end < limit && isHexByte(pdf[end]!); ) end++;
      hexEnds.set(lt, end);
    }
    return end;
  };
  // The objects around each entry, by cursors that only move forward (entries come in file order).
  let objBefore = -1;
  let objAfter = text.indexOf(' obj');
  let endAfter = -2; // not searched yet
  const dicts = new Map<number, SignatureDict>();
  const dictAround = (at: number): SignatureDict => {
    while (objAfter >= 0 && objAfter <= at) {
      objBefore = objAfter;
      objAfter = text.indexOf(' obj', objAfter + 1);
    }
    // Entries in one object share what it says; its text ends at its `endobj` or the next object.
    const known = dicts.get(objBefore);
    if (known) return known;
    if (endAfter !== -1 && endAfter < at) endAfter = text.indexOf('endobj', at);
    const ends = [endAfter, objAfter].filter((e) => e >= 0);
    const dict = text.slice(Math.max(0, objBefore), ends.length > 0 ? Math.min(...ends) : text.length);
    const subFilter = /\/SubFilter\s*\/([A-Za-z0-9.#_-]{1,127})/.exec(dict)?.[1];
    const info: SignatureDict = {
      kind: /\/Type\s*\/DocTimeStamp\b/.test(dict) || subFilter === 'ETSI.RFC3161' ? 'timestamp' : 'signature',
      subFilter,
      signedAt: /\/M\s*\(([^)]{0,64})\)/.exec(dict)?.[1],
    };
    dicts.set(objBefore, info);
    return info;
  };
  for (const m of text.matchAll(byteRangePattern)) {
    if (found.length >= MAX_SIGNATURES || candidates >= MAX_CANDIDATES) break;
    const byteRange = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] as [number, number, number, number];
    const [a, b, c, d] = byteRange;
    if (
      a !== 0 ||
      b <= 0 ||
      c <= b ||
      c - b > MAX_CONTENTS_HEX + 2 ||
      c + d > pdf.length ||
      pdf[b] !== 0x3c ||
      pdf[c - 1] !== 0x3e ||
      (m.index >= b && m.index < c)
    )
      continue;
    const gap = `${b}:${c}`;
    if (seen.has(gap)) continue;
    seen.add(gap);
    candidates++;
    if (hexEnd(b) !== c - 1 || (c - b - 2) % 2) continue;
    const { kind, subFilter, signedAt } = dictAround(m.index);
    const base: FoundSignature = { kind, subFilter, byteRange, coversWholeFile: c + d === pdf.length, valid: false, signedAt };
    const der = Buffer.from(text.slice(b + 1, c - 1), 'hex');
    const ranges = [pdf.subarray(0, b), pdf.subarray(c, c + d)];
    const digest = digestWith(OID_SHA256, ...ranges);
    if (kind === 'timestamp') {
      const check = checkTimestampToken(der, ranges);
      found.push({
        ...base,
        valid: check.valid,
        problem: check.valid ? undefined : 'digest_mismatch',
        certificate: check.certificate,
        digest,
        timestamp: { valid: check.valid, info: check.info },
      });
      continue;
    }
    const check = checkCms(der, (alg) => (alg === OID_SHA256 ? digest : digestWith(alg, ...ranges)));
    const token = check.parsed?.timestampToken;
    found.push({
      ...base,
      valid: check.valid,
      problem: check.valid ? undefined : check.reason,
      certificate: check.certificate,
      digest,
      timestamp: token && check.parsed ? checkTimestampToken(token, [check.parsed.signature]) : undefined,
    });
  }
  return found;
}

/** The first element of the trailer's /ID, hex lowercase: the document's permanent identifier. */
export function documentId(pdf: Buffer): string | undefined {
  const tail = latin1(pdf.subarray(Math.max(0, pdf.length - 4096)));
  const ids = [...tail.matchAll(/\/ID\s*\[\s*<([0-9A-Fa-f]+)>/g)];
  return ids.at(-1)?.[1]?.toLowerCase();
}

/** A nonce for time-stamp requests. */
export const nonce = (): Buffer => randomBytes(8);
