/**
 * File names as Dolibarr makes them (functions.lib.php dol_sanitizeFileName, files.lib.php
 * dol_add_file_process): accents transliterated, the characters forbidden in file names or special
 * to shells replaced by '_', '--' runs replaced (they could pass options to commands), ' -x' turned
 * into ' _x', a trailing ' -' dropped, every '..' removed. For uploads also: control characters
 * removed, the name trimmed, the extension lower-cased, no leading dot.
 */
const FORBIDDEN = /[<>/\\?*|":°$;`]/g;

/** dol_string_unaccent: letters with accents to their base letter; ß, æ, œ, ø spelt out. */
export function unaccent(text: string): string {
  return text
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae')
    .replace(/Æ/g, 'AE')
    .replace(/œ/g, 'oe')
    .replace(/Œ/g, 'OE')
    .replace(/ø/g, 'o')
    .replace(/Ø/g, 'O')
    .replace(/đ/g, 'd')
    .replace(/Đ/g, 'D')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '');
}

export function dolSanitizeFileName(name: string, replacement = '_'): string {
  let out = unaccent(name).replace(FORBIDDEN, replacement);
  out = out.replace(/--+/g, '_');
  out = out.replace(/\s+-([^\s])/g, ' _$1');
  out = out.replace(/\s+-$/, '');
  return out.split('..').join('');
}

/**
 * Longest file name we write, in UTF-8 bytes: file systems count bytes (255 on most), and a
 * `_NNNN` suffix for a free name must still fit.
 */
export const MAX_FILE_NAME_BYTES = 200;

/** `text` cut to at most `max` UTF-8 bytes, never inside a character. */
export function cutToBytes(text: string, max: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > max) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/**
 * What goes from a client's file name: control characters (C0, DEL, C1) and direction embeddings,
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069; `rapport\u202Efdp.exe` would show as
 * `rapportexe.pdf`), as text a person types refuses them (FORBIDDEN_TEXT_CHARACTERS of the
 * validation plugin; here tab and line breaks go too).
 */
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_FILE_NAMES = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The name an uploaded file is stored under, from the client's name and the extension its bytes show. */
export function uploadFileName(original: string, extension: string): string {
  let name = original
    .replace(FORBIDDEN_IN_FILE_NAMES, '')
    .replace(/<[^>]*>/g, '')
    .trim();
  name = name.split(/[\\/]/).pop() ?? '';
  const dot = name.lastIndexOf('.');
  let base = dot > 0 ? name.slice(0, dot) : name;
  // Characters beyond the Basic Multilingual Plane (emoji) do not fit Dolibarr's utf8mb3 tables.
  base = dolSanitizeFileName(base)
    .replace(/[\u{10000}-\u{10FFFF}]/gu, '_')
    .trim()
    .replace(/^\.+/, '');
  if (!base) base = 'datei';
  const ext = `.${extension.toLowerCase()}`;
  return `${cutToBytes(base, MAX_FILE_NAME_BYTES - Buffer.byteLength(ext) - 8).trimEnd()}${ext}`;
}

/** `name`, or `name_2`, `name_3`, … before the extension: the first that `taken` does not hold. */
export function firstFreeName(name: string, taken: (candidate: string) => boolean): string {
  if (!taken(name)) return name;
  const dot = name.lastIndexOf('.');
  const [base, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; n < 10_000; n++) {
    const candidate = `${base}_${n}${ext}`;
    if (!taken(candidate)) return candidate;
  }
  throw new Error(`no free name for ${name}`);
}
