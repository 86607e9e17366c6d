/**
 * Text of a Dolibarr note for a document. Dolibarr keeps `note_public` as HTML when its WYSIWYG
 * editor is on (`<p>`, `<br>`, `&nbsp;`, `&auml;` …) and as plain text otherwise; its own PDFs
 * print either as text. Line breaks stay line breaks, list items a dash, everything else of the
 * markup goes.
 */
const NAMED: Record<string, string> = {
  nbsp: ' ',
  shy: '',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  euro: '€',
  szlig: 'ß',
  auml: 'ä',
  ouml: 'ö',
  uuml: 'ü',
  Auml: 'Ä',
  Ouml: 'Ö',
  Uuml: 'Ü',
  eacute: 'é',
  egrave: 'è',
  agrave: 'à',
  ccedil: 'ç',
  deg: '°',
  sup2: '²',
  sup3: '³',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  laquo: '«',
  raquo: '»',
  bdquo: '„',
  ldquo: '“',
  rdquo: '”',
  lsquo: '‘',
  rsquo: '’',
  middot: '·',
  times: '×',
  copy: '©',
  reg: '®',
};

export function htmlToText(value: string): string {
  if (!/[<&]/.test(value)) return value.trim();
  const text = value
    .replace(/\r\n?/g, '\n')
    // Markup's own line breaks are no breaks; its elements make them.
    .replace(/\n/g, /<(br|p|div|li)\b/i.test(value) ? ' ' : '\n')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<(ul|ol)\b[^>]*>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '– ')
    .replace(/<\/(p|div|li|h[1-6]|tr|ul|ol|table)>/gi, '\n')
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d?);/gi, (entity, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return NAMED[name] ?? entity;
    });
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
