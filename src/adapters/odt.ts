/**
 * ODT templates as Dolibarr uses them (odtphp): an OpenDocument text is a zip whose `content.xml`
 * and `styles.xml` (headers and footers) hold `{key}` placeholders. Filling one replaces every
 * known placeholder with its XML-escaped value and leaves unknown ones as they are, as Dolibarr does.
 *
 * Templates come from the admin, but they are still read with caps: the file size, the unzipped
 * size and the number of entries, so a zip bomb in the templates folder cannot take the service down.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { writeFileAtomic } from './file-store.js';

/** Refuse template files above this size. @default 20 MB */
export const MAX_TEMPLATE_BYTES = 20 * 1024 * 1024;
/** Refuse templates whose entries unzip to more than this in total (zip bombs). @default 100 MB */
export const MAX_UNZIPPED_BYTES = 100 * 1024 * 1024;
/** Refuse templates with more entries than this. @default 5000 */
export const MAX_TEMPLATE_ENTRIES = 5000;

/** The const listing template folders, like Dolibarr's `COMMANDE_ADDON_PDF_ODT_PATH`. */
export const TEMPLATE_PATH_CONST = 'BERICHT_ADDON_PDF_ODT_PATH';
/** Its value when unset or blank. */
export const DEFAULT_TEMPLATE_PATH = 'DOL_DATA_ROOT/doctemplates/bericht';

const ODT_MIMETYPE = 'application/vnd.oasis.opendocument.text';

/** A template that is not a readable ODT, or is too large. The caller maps it to its own error. */
export class OdtTemplateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OdtTemplateError';
  }
}

/**
 * Fills `templatePath` with `values` and writes the result to `outPath` (atomically: a temporary
 * name, then a rename). Throws OdtTemplateError for a file that is not an ODT or exceeds the caps;
 * a missing template is the file system's ENOENT error.
 */
export async function fillOdtTemplate(templatePath: string, values: Record<string, string>, outPath: string): Promise<void> {
  const info = await stat(templatePath);
  if (!info.isFile()) throw new OdtTemplateError('The template is not a file');
  if (info.size > MAX_TEMPLATE_BYTES) throw new OdtTemplateError(`The template is larger than ${MAX_TEMPLATE_BYTES} bytes`);
  const data = await readFile(templatePath);
  // The file may have grown between stat and read.
  if (data.length > MAX_TEMPLATE_BYTES) throw new OdtTemplateError(`The template is larger than ${MAX_TEMPLATE_BYTES} bytes`);

  const { entries, stored } = unzipTemplate(data);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const encoder = new TextEncoder();
  for (const name of ['content.xml', 'styles.xml']) {
    const bytes = entries.get(name);
    if (!bytes) continue;
    let xml: string;
    try {
      xml = decoder.decode(bytes);
    } catch (error) {
      throw new OdtTemplateError(`${name} is not UTF-8 (an encrypted document?)`, { cause: error });
    }
    entries.set(name, encoder.encode(replacePlaceholders(xml, values)));
  }
  await writeFileAtomic(outPath, Buffer.from(zipOdt(entries, stored)));
}

/** The entries in archive order, and the names that were stored uncompressed (kept that way). */
function unzipTemplate(data: Uint8Array): { entries: Map<string, Uint8Array>; stored: Set<string> } {
  let count = 0;
  let total = 0;
  const stored = new Set<string>();
  const order: string[] = [];
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data, {
      // Runs before an entry is inflated: the declared size is what fflate allocates, so capping
      // it here caps the memory, whatever the compressed data would expand to.
      filter(file) {
        count += 1;
        total += file.originalSize;
        if (count > MAX_TEMPLATE_ENTRIES) throw new OdtTemplateError(`The template has more than ${MAX_TEMPLATE_ENTRIES} entries`);
        if (total > MAX_UNZIPPED_BYTES) throw new OdtTemplateError(`The template unzips to more than ${MAX_UNZIPPED_BYTES} bytes`);
        // fflate collects entries in a plain object; this name would replace its prototype.
        if (file.name === '__proto__') throw new OdtTemplateError('The template has an invalid entry name');
        if (file.compression === 0) stored.add(file.name);
        order.push(file.name);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof OdtTemplateError) throw error;
    throw new OdtTemplateError('The template is not a valid ODT (zip) file', { cause: error });
  }
  const entries = new Map<string, Uint8Array>();
  for (const name of order) {
    const bytes = files[name];
    if (bytes) entries.set(name, bytes);
  }
  const mimetype = entries.get('mimetype');
  if (!mimetype || Buffer.from(mimetype).toString('latin1') !== ODT_MIMETYPE) {
    throw new OdtTemplateError(`The template is not an OpenDocument text (mimetype ${ODT_MIMETYPE} missing)`);
  }
  if (!entries.has('content.xml')) throw new OdtTemplateError('The template has no content.xml');
  return { entries, stored };
}

/**
 * Zips an ODT: `mimetype` first and stored, without extra fields, as the OpenDocument spec asks
 * (readers sniff the type at a fixed offset); other entries in their order, compressed unless the
 * template had them stored (pictures, usually).
 */
function zipOdt(entries: ReadonlyMap<string, Uint8Array>, stored: ReadonlySet<string> = new Set()): Uint8Array {
  const zippable: Zippable = {};
  const mimetype = entries.get('mimetype');
  if (mimetype) zippable['mimetype'] = [mimetype, { level: 0 }];
  for (const [name, bytes] of entries) {
    if (name === 'mimetype') continue;
    zippable[name] = [bytes, { level: stored.has(name) ? 0 : 6 }];
  }
  return zipSync(zippable);
}

// ---------------------------------------------------------------------------------------------
// Placeholders

/** An element tag; quoted attribute values may hold `>`. */
const ELEMENT = String.raw`<(?:[^>"']|"[^"]*"|'[^']*')*>`;
/** Any markup: a comment, a CDATA section or an element tag. */
const TAG = String.raw`<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|${ELEMENT}`;
const KEY_CHAR = String.raw`[A-Za-z0-9_.\-]`;
/**
 * One pass over the XML: either a whole tag (so braces inside attribute values are not taken
 * for text), or `{…}` made of key characters and tags (a placeholder LibreOffice may have split).
 * The branches start with different characters and the inside is capped at 500 pieces, so a
 * document of tags without any space cannot make each `{` scan to its end.
 */
const TOKEN = new RegExp(String.raw`(${TAG})|\{((?:${KEY_CHAR}|${ELEMENT}){1,500})\}`, 'g');
const INNER_PARTS = new RegExp(`(${ELEMENT})`);
const ATTRIBUTE_PLACEHOLDER = new RegExp(String.raw`\{(${KEY_CHAR}+)\}`, 'g');

/** Tags that may sit inside a split placeholder and vanish with it: they carry no text. */
const SPAN_OPEN = /^<text:span(?:\s(?:[^>"'/]|"[^"]*"|'[^']*')*)?>$/;
const SPAN_CLOSE = /^<\/text:span\s*>$/;
const EMPTY_TAG = /^<(?:text:span|text:soft-page-break|text:bookmark)(?:\s(?:[^>"']|"[^"]*"|'[^']*')*)?\/>$/;

/** Characters XML 1.0 does not allow (a value from the database may hold them): dropped. */
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escapeXml(value: string): string {
  return value
    .replace(XML_INVALID, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A value as ODF text: escaped, line breaks and tabs as ODF elements (plain ones would collapse). */
function textValue(value: string): string {
  return escapeXml(value.replace(/\r\n?/g, '\n')).replace(/\n/g, '<text:line-break/>').replace(/\t/g, '<text:tab/>');
}

/** A value inside an attribute (a link target, say): escaped, line breaks as character references. */
function attributeValue(value: string): string {
  return escapeXml(value.replace(/\r\n?/g, '\n')).replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

/**
 * The key of a placeholder's inside, or undefined when the tags in it are not only whole text:span
 * pairs (balanced, in order) and empty content-free tags: anything else means the braces are not a
 * placeholder LibreOffice split, and removing the tags could break the document.
 */
function placeholderKey(inner: string): string | undefined {
  let key = '';
  let depth = 0;
  for (const part of inner.split(INNER_PARTS)) {
    if (!part.startsWith('<')) {
      key += part;
    } else if (SPAN_CLOSE.test(part)) {
      depth -= 1;
      if (depth < 0) return undefined;
    } else if (EMPTY_TAG.test(part)) {
      // nothing: carries no text
    } else if (SPAN_OPEN.test(part)) {
      depth += 1;
    } else {
      return undefined;
    }
  }
  return depth === 0 && key !== '' ? key : undefined;
}

/** Replaces the `{key}` placeholders of one XML part; see the module comment. */
export function replacePlaceholders(xml: string, values: Record<string, string>): string {
  const has = (key: string) => Object.hasOwn(values, key) && values[key] !== undefined && values[key] !== null;
  return xml.replace(TOKEN, (match: string, tag: string | undefined, inner: string | undefined) => {
    if (tag !== undefined) {
      if (!tag.includes('{') || tag.startsWith('<!')) return tag;
      return tag.replace(ATTRIBUTE_PLACEHOLDER, (whole: string, key: string) => (has(key) ? attributeValue(String(values[key])) : whole));
    }
    const key = placeholderKey(inner ?? '');
    return key !== undefined && has(key) ? textValue(String(values[key])) : match;
  });
}

// ---------------------------------------------------------------------------------------------
// Template folders

export interface OdtTemplateFile {
  /** File name, e.g. `template_bericht.odt`. */
  name: string;
  /** The folder it was found in, as given. */
  dir: string;
  size: number;
  /** Last modification, milliseconds since the epoch. */
  mtime: number;
}

/**
 * The `*.odt` files directly in each folder: regular files, or links to files that stay inside the
 * folder; hidden names, subfolders and links leading out are skipped. A missing folder lists
 * nothing. Sorted by name (code point order); equal names keep the order of `dirs`.
 */
/** Template files larger than this are listed without reading their title. */
const TITLE_READ_LIMIT = 16 * 1024 * 1024;

/**
 * The document's title (`dc:title` in its meta.xml, as LibreOffice's File ▸ Properties sets it),
 * or null: none, empty, or not a readable ODF file.
 */
export async function odtTitle(file: string): Promise<string | null> {
  try {
    const info = await stat(file);
    if (info.size > TITLE_READ_LIMIT) return null;
    const entries = unzipSync(await readFile(file), { filter: (entry) => entry.name === 'meta.xml' && entry.originalSize < 1 << 20 });
    const meta = entries['meta.xml'];
    if (!meta) return null;
    const match = /<dc:title>([^<]*)<\/dc:title>/.exec(new TextDecoder().decode(meta));
    const title = match ? decodeXmlText(match[1]!).replace(/\s+/g, ' ').trim() : '';
    return title ? title.slice(0, 200) : null;
  } catch {
    return null;
  }
}

/** XML character data with its five named entities and numeric references resolved. */
function decodeXmlText(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[ref] ?? whole;
  });
}

export async function listOdtTemplates(dirs: string[]): Promise<OdtTemplateFile[]> {
  const found: OdtTemplateFile[] = [];
  const seen = new Set<string>();
  for (const dir of dirs) {
    const key = path.resolve(dir);
    if (seen.has(key)) continue;
    seen.add(key);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw error;
    }
    let realDir: string | undefined;
    for (const entry of entries) {
      if (entry.name.startsWith('.') || !/\.odt$/i.test(entry.name)) continue;
      const full = path.join(dir, entry.name);
      let target = full;
      if (entry.isSymbolicLink()) {
        realDir ??= await realpath(dir);
        try {
          target = await realpath(full);
        } catch {
          continue; // dangling link
        }
        if (!target.startsWith(realDir + path.sep)) continue;
      } else if (!entry.isFile()) {
        continue;
      }
      try {
        const info = await stat(target);
        if (!info.isFile()) continue;
        found.push({ name: entry.name, dir, size: info.size, mtime: Math.floor(info.mtimeMs) });
      } catch {}
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The template folders named by the const `BERICHT_ADDON_PDF_ODT_PATH` (`constValue`), read as
 * Dolibarr reads `COMMANDE_ADDON_PDF_ODT_PATH`: comma- or newline-separated, each trimmed, the
 * literal `DOL_DATA_ROOT` replaced by the documents root. Unset or blank means
 * `DOL_DATA_ROOT/doctemplates/bericht`. Absolute folders outside the documents root are kept
 * (only the admin can set the const, and Dolibarr allows them); relative ones mean nothing
 * defined and are dropped. Duplicates are dropped, the order kept.
 */
export function templateDirs(dataRootOfEntity: string, constValue: string | undefined): string[] {
  const root = dataRootOfEntity.replace(/(.)\/+$/, '$1');
  const value = constValue?.trim() ? constValue : DEFAULT_TEMPLATE_PATH;
  const dirs: string[] = [];
  for (const item of value.split(/[\r\n,]+/)) {
    const dir = item.trim().replaceAll('DOL_DATA_ROOT', () => root);
    if (!dir || !path.isAbsolute(dir)) continue;
    const resolved = path.resolve(dir);
    if (!dirs.includes(resolved)) dirs.push(resolved);
  }
  return dirs;
}
