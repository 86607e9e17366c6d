/**
 * The demo's ODT cover sheet ("Servicebericht"), built from scratch so the repository carries no
 * binary: an A4 page with our company as sender, a heading, the report title and a table of
 * label/value rows, and a footer (in styles.xml, where Dolibarr templates keep headers and
 * footers). All text is DejaVu Sans, which LibreOffice finds on every machine that runs the tests.
 *
 * The placeholders are Dolibarr's ODT keys where Dolibarr has one (object_*, company_* for the
 * customer, mycompany_* for our company, myuser_*, current_*), and bericht_* for the report.
 */
import { strToU8, zipSync } from 'fflate';

/**
 * The placeholder keys the reports module fills for a cover sheet, each with its meaning. Dates
 * are formatted as Dolibarr prints them for German users (`dd.mm.yyyy`, `dd.mm.yyyy HH:MM`).
 */
export const COVER_PLACEHOLDERS = {
  object_ref: 'Order reference (llx_commande.ref), e.g. CO2401-0001',
  object_ref_customer: "The customer's own order reference (llx_commande.ref_client); empty when none",
  company_name: 'Customer name (llx_societe.nom)',
  company_address: 'Customer street address; may span several lines',
  company_zip: 'Customer postcode',
  company_town: 'Customer town',
  mycompany_name: 'Our company name (MAIN_INFO_SOCIETE_NOM)',
  mycompany_address: 'Our company street address (MAIN_INFO_SOCIETE_ADDRESS); may span several lines',
  mycompany_zip: 'Our company postcode (MAIN_INFO_SOCIETE_ZIP)',
  mycompany_town: 'Our company town (MAIN_INFO_SOCIETE_TOWN)',
  myuser_fullname: 'Full name of the user who generates the document (first name and last name)',
  current_date: 'Date of generation, dd.mm.yyyy',
  current_datehour: 'Date and time of generation, dd.mm.yyyy HH:MM',
  bericht_ref: 'Report reference',
  bericht_title: 'Report title as the technician entered it',
  bericht_version: 'Report version number (1 for the first issue)',
  bericht_date: 'Report date, dd.mm.yyyy',
  bericht_page_count: 'Number of the report\'s pages (the cover sheet not counted)',
} as const satisfies Record<string, string>;

export type CoverPlaceholder = keyof typeof COVER_PLACEHOLDERS;

/** File name under which the demo installs the template (Dolibarr's `template_` prefix). */
export const COVER_TEMPLATE_FILENAME = 'template_servicebericht.odt';

const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"',
  'xmlns:dc="http://purl.org/dc/elements/1.1/"',
].join(' ');

const FONT_FACES = `<office:font-face-decls>
  <style:font-face style:name="DejaVu Sans" svg:font-family="'DejaVu Sans'" style:font-family-generic="swiss" style:font-pitch="variable"/>
 </office:font-face-decls>`;

const STYLES = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles ${NS} office:version="1.2">
 ${FONT_FACES}
 <office:styles>
  <style:default-style style:family="paragraph">
   <style:paragraph-properties fo:margin-top="0cm" fo:margin-bottom="0cm"/>
   <style:text-properties style:font-name="DejaVu Sans" fo:font-size="10.5pt" fo:language="de" fo:country="DE" fo:color="#222222"/>
  </style:default-style>
  <style:style style:name="Standard" style:family="paragraph" style:class="text"/>
  <style:style style:name="Sender" style:family="paragraph" style:parent-style-name="Standard">
   <style:text-properties fo:font-size="9pt" fo:color="#555555"/>
  </style:style>
  <style:style style:name="Title" style:family="paragraph" style:parent-style-name="Standard" style:class="chapter" style:default-outline-level="1">
   <style:paragraph-properties fo:margin-top="2.2cm" fo:margin-bottom="0.2cm"/>
   <style:text-properties fo:font-size="24pt" fo:font-weight="bold"/>
  </style:style>
  <style:style style:name="Subtitle" style:family="paragraph" style:parent-style-name="Standard" style:class="chapter">
   <style:paragraph-properties fo:margin-bottom="0.8cm"/>
   <style:text-properties fo:font-size="14pt"/>
  </style:style>
  <style:style style:name="Label" style:family="paragraph" style:parent-style-name="Standard">
   <style:text-properties fo:font-weight="bold" fo:color="#444444"/>
  </style:style>
  <style:style style:name="Value" style:family="paragraph" style:parent-style-name="Standard"/>
  <style:style style:name="Footer" style:family="paragraph" style:parent-style-name="Standard" style:class="extra">
   <style:paragraph-properties fo:text-align="center"/>
   <style:text-properties fo:font-size="8pt" fo:color="#777777"/>
  </style:style>
 </office:styles>
 <office:automatic-styles>
  <style:page-layout style:name="A4">
   <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" style:print-orientation="portrait" fo:margin-top="2cm" fo:margin-bottom="1.2cm" fo:margin-left="2.2cm" fo:margin-right="2cm"/>
   <style:footer-style>
    <style:header-footer-properties fo:min-height="0.6cm" fo:margin-top="0.5cm"/>
   </style:footer-style>
  </style:page-layout>
 </office:automatic-styles>
 <office:master-styles>
  <style:master-page style:name="Standard" style:page-layout-name="A4">
   <style:footer>
    <text:p text:style-name="Footer">{mycompany_name} · Servicebericht {bericht_ref} · Version {bericht_version}</text:p>
   </style:footer>
  </style:master-page>
 </office:master-styles>
</office:document-styles>
`;

/** One label/value row of the cover table; each line of `lines` is a paragraph of the value. */
function row(label: string, ...lines: string[]): string {
  const paragraphs = lines.map((line) => `<text:p text:style-name="Value">${line}</text:p>`).join('');
  return `    <table:table-row>
     <table:table-cell table:style-name="Cover.Cell" office:value-type="string"><text:p text:style-name="Label">${label}</text:p></table:table-cell>
     <table:table-cell table:style-name="Cover.Cell" office:value-type="string">${paragraphs}</table:table-cell>
    </table:table-row>`;
}

const CONTENT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${NS} office:version="1.2">
 ${FONT_FACES}
 <office:automatic-styles>
  <style:style style:name="Cover" style:family="table">
   <style:table-properties style:width="16.8cm" table:align="left"/>
  </style:style>
  <style:style style:name="Cover.A" style:family="table-column">
   <style:table-column-properties style:column-width="4.8cm"/>
  </style:style>
  <style:style style:name="Cover.B" style:family="table-column">
   <style:table-column-properties style:column-width="12cm"/>
  </style:style>
  <style:style style:name="Cover.Cell" style:family="table-cell">
   <style:table-cell-properties fo:padding-top="0.18cm" fo:padding-bottom="0.18cm" fo:padding-left="0.1cm" fo:padding-right="0.1cm" fo:border-top="none" fo:border-left="none" fo:border-right="none" fo:border-bottom="0.5pt solid #bbbbbb"/>
  </style:style>
 </office:automatic-styles>
 <office:body>
  <office:text>
   <text:p text:style-name="Sender">{mycompany_name}</text:p>
   <text:p text:style-name="Sender">{mycompany_address}</text:p>
   <text:p text:style-name="Sender">{mycompany_zip} {mycompany_town}</text:p>
   <text:h text:style-name="Title" text:outline-level="1">Servicebericht</text:h>
   <text:p text:style-name="Subtitle">{bericht_title}</text:p>
   <table:table table:name="Deckblatt" table:style-name="Cover">
    <table:table-column table:style-name="Cover.A"/>
    <table:table-column table:style-name="Cover.B"/>
${[
  row('Bericht-Nr.', '{bericht_ref}'),
  row('Version', '{bericht_version}'),
  row('Berichtsdatum', '{bericht_date}'),
  row('Auftrag', '{object_ref}'),
  row('Ihre Bestellnummer', '{object_ref_customer}'),
  row('Kunde', '{company_name}', '{company_address}', '{company_zip} {company_town}'),
  row('Erstellt von', '{myuser_fullname}'),
  row('Erstellt am', '{current_date}'),
].join('\n')}
   </table:table>
  </office:text>
 </office:body>
</office:document-content>
`;

const META = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-meta ${NS} office:version="1.2">
 <office:meta>
  <meta:generator>fieldreport</meta:generator>
  <dc:title>Servicebericht</dc:title>
  <dc:language>de-DE</dc:language>
 </office:meta>
</office:document-meta>
`;

const MANIFEST = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
 <manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>
 <manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/>
</manifest:manifest>
`;

/** A fixed time for the zip entries, so the same code always builds the same bytes. */
const ENTRY_TIME = new Date('2024-01-01T00:00:00Z');

/** The cover template as ODT bytes: `mimetype` first and stored, as the OpenDocument spec asks. */
export function makeCoverTemplateOdt(): Uint8Array {
  return zipSync(
    {
      mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
      'META-INF/manifest.xml': strToU8(MANIFEST),
      'content.xml': strToU8(CONTENT),
      'styles.xml': strToU8(STYLES),
      'meta.xml': strToU8(META),
    },
    { level: 6, mtime: ENTRY_TIME },
  );
}
