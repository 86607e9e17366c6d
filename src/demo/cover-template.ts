/**
 * The demo's ODT cover sheet, built from scratch so the repository carries no binary. It is laid
 * out as a German business letter (DIN 5008, form B, roughly): the company logo at the top right;
 * the sender as a small return line above the customer's address where a window envelope shows it,
 * and beside it a small table (order, the customer's order reference, report and version, date,
 * technician); then the kind of document in a small line, the report's title as the one heading,
 * a short letter text, and a footer with our company's address, phone, e-mail and VAT ID and the
 * page number (in styles.xml, where Dolibarr templates keep headers and footers). All text is
 * DejaVu Sans, which LibreOffice finds on every machine that runs the tests.
 *
 * The placeholders are Dolibarr's ODT keys where Dolibarr has one (object_*, company_* for the
 * customer, mycompany_* for our company, myuser_*, current_*), and bericht_* for the report.
 */
import { strToU8, zipSync } from 'fflate';
import sharp from 'sharp';
import { makeDemoLogo } from './logo.js';

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
  mycompany_phone: 'Our company phone number (MAIN_INFO_SOCIETE_TEL)',
  mycompany_email: 'Our company e-mail address (MAIN_INFO_SOCIETE_MAIL)',
  mycompany_vatnumber: 'Our company VAT ID (MAIN_INFO_TVAINTRA); empty when none',
  myuser_fullname: 'Full name of the user who generates the document (first name and last name)',
  current_date: 'Date of generation, dd.mm.yyyy',
  current_datehour: 'Date and time of generation, dd.mm.yyyy HH:MM',
  bericht_ref: 'Report reference',
  bericht_title: 'Report title as the technician entered it',
  bericht_version: 'Report version number (1 for the first issue)',
  bericht_date: 'Report date, dd.mm.yyyy',
  bericht_page_count: "Number of the report's pages (the cover sheet not counted)",
} as const satisfies Record<string, string>;

export type CoverPlaceholder = keyof typeof COVER_PLACEHOLDERS;

/** File name under which the demo installs the template (Dolibarr's `template_` prefix). */
export const COVER_TEMPLATE_FILENAME = 'template_servicebericht.odt';

/** Where the logo sits in the ODT. */
const LOGO_ENTRY = 'Pictures/logo.png';
/** Width of the logo on the page; its height follows from the picture's proportions. */
const LOGO_WIDTH_CM = 5.6;

const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"',
  'xmlns:dc="http://purl.org/dc/elements/1.1/"',
].join(' ');

const FONT_FACES = `<office:font-face-decls>
  <style:font-face style:name="DejaVu Sans" svg:font-family="'DejaVu Sans'" style:font-family-generic="swiss" style:font-pitch="variable"/>
 </office:font-face-decls>`;

/** The blue of the logo, for the line that names the kind of document. */
const ACCENT = '#0d4a86';
const TEXT = '#222222';
const MUTED = '#666666';
const RULE = '#c8c8c8';

/** A paragraph style; `text` and `paragraph` are the attributes of its properties. */
function paragraphStyle(name: string, paragraph: string, text: string, extra = ''): string {
  return `  <style:style style:name="${name}" style:family="paragraph" style:parent-style-name="Standard"${extra}>
   <style:paragraph-properties ${paragraph}/>
   <style:text-properties ${text}/>
  </style:style>`;
}

const STYLES = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles ${NS} office:version="1.2">
 ${FONT_FACES}
 <office:styles>
  <style:default-style style:family="paragraph">
   <style:paragraph-properties fo:margin-top="0cm" fo:margin-bottom="0cm" fo:hyphenation-ladder-count="no-limit"/>
   <style:text-properties style:font-name="DejaVu Sans" fo:font-size="10pt" fo:language="de" fo:country="DE" fo:color="${TEXT}" fo:hyphenate="false"/>
  </style:default-style>
  <style:style style:name="Standard" style:family="paragraph" style:class="text"/>
${[
  paragraphStyle('Letterhead', 'fo:text-align="end"', ''),
  paragraphStyle(
    'Return_20_Address',
    'fo:margin-bottom="0.3cm" fo:padding-bottom="0.05cm" fo:border-bottom="0.5pt solid #999999"',
    `fo:font-size="7pt" fo:color="${MUTED}"`,
    ' style:display-name="Return Address"',
  ),
  paragraphStyle('Address', '', 'fo:font-size="10pt"'),
  paragraphStyle('Info_20_Label', '', `fo:font-size="8pt" fo:color="${MUTED}"`, ' style:display-name="Info Label"'),
  paragraphStyle('Info_20_Value', '', 'fo:font-size="8pt"', ' style:display-name="Info Value"'),
  paragraphStyle(
    'Kind',
    'fo:margin-top="2.2cm" fo:margin-bottom="0.15cm"',
    `fo:font-size="9pt" fo:font-weight="bold" fo:letter-spacing="0.04cm" fo:color="${ACCENT}"`,
  ),
  paragraphStyle(
    'Title',
    'fo:margin-bottom="0.9cm" fo:padding-bottom="0.25cm" fo:border-bottom="0.75pt solid ' + ACCENT + '"',
    'fo:font-size="20pt" fo:font-weight="bold"',
    ' style:class="chapter" style:default-outline-level="1"',
  ),
  paragraphStyle('Text_20_Body', 'fo:margin-bottom="0.35cm" fo:line-height="140%"', '', ' style:display-name="Text Body"'),
  paragraphStyle('Closing', 'fo:margin-top="0.3cm" fo:margin-bottom="1.0cm"', ''),
  paragraphStyle('Signer', '', ''),
  paragraphStyle('Signer_20_Company', '', `fo:font-size="9pt" fo:color="${MUTED}"`, ' style:display-name="Signer Company"'),
  paragraphStyle('Footer', '', `fo:font-size="7pt" fo:color="${MUTED}"`, ' style:class="extra"'),
  paragraphStyle(
    'Footer_20_Strong',
    '',
    `fo:font-size="7pt" fo:font-weight="bold" fo:color="#444444"`,
    ' style:class="extra" style:display-name="Footer Strong"',
  ),
  paragraphStyle(
    'Page_20_Number',
    'fo:text-align="center" fo:margin-top="0.25cm"',
    `fo:font-size="8pt" fo:color="${MUTED}"`,
    ' style:class="extra" style:display-name="Page Number"',
  ),
].join('\n')}
 </office:styles>
 <office:automatic-styles>
  <style:page-layout style:name="A4">
   <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" style:print-orientation="portrait" fo:margin-top="1.2cm" fo:margin-bottom="0.6cm" fo:margin-left="2.5cm" fo:margin-right="2cm"/>
   <style:footer-style>
    <style:header-footer-properties fo:min-height="1.2cm" fo:margin-top="0.4cm"/>
   </style:footer-style>
  </style:page-layout>
  <style:style style:name="Foot" style:family="table">
   <style:table-properties style:width="16.5cm" table:align="left"/>
  </style:style>
  <style:style style:name="Foot.A" style:family="table-column">
   <style:table-column-properties style:column-width="4.6cm"/>
  </style:style>
  <style:style style:name="Foot.B" style:family="table-column">
   <style:table-column-properties style:column-width="6.4cm"/>
  </style:style>
  <style:style style:name="Foot.C" style:family="table-column">
   <style:table-column-properties style:column-width="5.5cm"/>
  </style:style>
  <style:style style:name="Foot.Cell" style:family="table-cell">
   <style:table-cell-properties fo:padding-top="0.15cm" fo:padding-bottom="0cm" fo:padding-left="0cm" fo:padding-right="0.2cm" fo:border-top="0.5pt solid ${RULE}" fo:border-bottom="none" fo:border-left="none" fo:border-right="none"/>
  </style:style>
 </office:automatic-styles>
 <office:master-styles>
  <style:master-page style:name="Standard" style:page-layout-name="A4">
   <style:footer>
    <table:table table:name="Fusszeile" table:style-name="Foot">
     <table:table-column table:style-name="Foot.A"/>
     <table:table-column table:style-name="Foot.B"/>
     <table:table-column table:style-name="Foot.C"/>
     <table:table-row>
      <table:table-cell table:style-name="Foot.Cell" office:value-type="string">
       <text:p text:style-name="Footer_20_Strong">{mycompany_name}</text:p>
       <text:p text:style-name="Footer">{mycompany_address}</text:p>
       <text:p text:style-name="Footer">{mycompany_zip} {mycompany_town}</text:p>
      </table:table-cell>
      <table:table-cell table:style-name="Foot.Cell" office:value-type="string">
       <text:p text:style-name="Footer">Telefon {mycompany_phone}</text:p>
       <text:p text:style-name="Footer">E-Mail {mycompany_email}</text:p>
      </table:table-cell>
      <table:table-cell table:style-name="Foot.Cell" office:value-type="string">
       <text:p text:style-name="Footer">USt-IdNr. {mycompany_vatnumber}</text:p>
       <text:p text:style-name="Footer">Bericht {bericht_ref} · Version {bericht_version}</text:p>
      </table:table-cell>
     </table:table-row>
    </table:table>
    <text:p text:style-name="Page_20_Number">Seite <text:page-number text:select-page="current">1</text:page-number></text:p>
   </style:footer>
  </style:master-page>
 </office:master-styles>
</office:document-styles>
`;

/** One row of the small table beside the address. */
function infoRow(label: string, value: string): string {
  return `        <table:table-row>
         <table:table-cell table:style-name="Info.Cell" office:value-type="string"><text:p text:style-name="Info_20_Label">${label}</text:p></table:table-cell>
         <table:table-cell table:style-name="Info.Cell" office:value-type="string"><text:p text:style-name="Info_20_Value">${value}</text:p></table:table-cell>
        </table:table-row>`;
}

function content(logoHeightCm: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${NS} office:version="1.2">
 ${FONT_FACES}
 <office:automatic-styles>
  <style:style style:name="Logo" style:family="graphic">
   <style:graphic-properties style:vertical-pos="top" style:vertical-rel="baseline" style:horizontal-pos="center" style:horizontal-rel="paragraph" fo:border="none" fo:padding="0cm" style:wrap="none"/>
  </style:style>
  <style:style style:name="Head" style:family="table">
   <style:table-properties style:width="16.5cm" fo:margin-top="2cm" table:align="left"/>
  </style:style>
  <style:style style:name="Head.Address" style:family="table-column">
   <style:table-column-properties style:column-width="8.5cm"/>
  </style:style>
  <style:style style:name="Head.Gap" style:family="table-column">
   <style:table-column-properties style:column-width="1.5cm"/>
  </style:style>
  <style:style style:name="Head.Info" style:family="table-column">
   <style:table-column-properties style:column-width="6.5cm"/>
  </style:style>
  <style:style style:name="Head.Cell" style:family="table-cell">
   <style:table-cell-properties style:vertical-align="top" fo:padding="0cm" fo:border="none"/>
  </style:style>
  <style:style style:name="Info" style:family="table">
   <style:table-properties style:width="6.5cm" table:align="left"/>
  </style:style>
  <style:style style:name="Info.A" style:family="table-column">
   <style:table-column-properties style:column-width="2.6cm"/>
  </style:style>
  <style:style style:name="Info.B" style:family="table-column">
   <style:table-column-properties style:column-width="3.9cm"/>
  </style:style>
  <style:style style:name="Info.Cell" style:family="table-cell">
   <style:table-cell-properties fo:padding-top="0.07cm" fo:padding-bottom="0.07cm" fo:padding-left="0cm" fo:padding-right="0.1cm" fo:border-top="none" fo:border-left="none" fo:border-right="none" fo:border-bottom="0.5pt solid ${RULE}"/>
  </style:style>
 </office:automatic-styles>
 <office:body>
  <office:text>
   <text:p text:style-name="Letterhead"><draw:frame draw:style-name="Logo" draw:name="Logo" text:anchor-type="as-char" svg:width="${LOGO_WIDTH_CM}cm" svg:height="${logoHeightCm}cm" draw:z-index="0"><draw:image xlink:href="${LOGO_ENTRY}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/><svg:title>Logo</svg:title></draw:frame></text:p>
   <table:table table:name="Anschrift" table:style-name="Head">
    <table:table-column table:style-name="Head.Address"/>
    <table:table-column table:style-name="Head.Gap"/>
    <table:table-column table:style-name="Head.Info"/>
    <table:table-row>
     <table:table-cell table:style-name="Head.Cell" office:value-type="string">
      <text:p text:style-name="Return_20_Address">{mycompany_name} · {mycompany_address} · {mycompany_zip} {mycompany_town}</text:p>
      <text:p text:style-name="Address">{company_name}</text:p>
      <text:p text:style-name="Address">{company_address}</text:p>
      <text:p text:style-name="Address">{company_zip} {company_town}</text:p>
     </table:table-cell>
     <table:table-cell table:style-name="Head.Cell" office:value-type="string"><text:p text:style-name="Standard"/></table:table-cell>
     <table:table-cell table:style-name="Head.Cell" office:value-type="string">
      <table:table table:name="Angaben" table:style-name="Info">
       <table:table-column table:style-name="Info.A"/>
       <table:table-column table:style-name="Info.B"/>
${[
  infoRow('Auftrag', '{object_ref}'),
  infoRow('Ihre Bestellung', '{object_ref_customer}'),
  infoRow('Bericht / Version', '{bericht_ref} / {bericht_version}'),
  infoRow('Datum', '{bericht_date}'),
  infoRow('Techniker', '{myuser_fullname}'),
].join('\n')}
      </table:table>
     </table:table-cell>
    </table:table-row>
   </table:table>
   <text:p text:style-name="Kind">Servicebericht</text:p>
   <text:h text:style-name="Title" text:outline-level="1">{bericht_title}</text:h>
   <text:p text:style-name="Text_20_Body">Sehr geehrte Damen und Herren,</text:p>
   <text:p text:style-name="Text_20_Body">vielen Dank für Ihren Auftrag. Auf den folgenden Seiten dokumentieren wir die ausgeführten Arbeiten. Bei Fragen zu diesem Bericht sind wir gern für Sie da.</text:p>
   <text:p text:style-name="Closing">Mit freundlichen Grüßen</text:p>
   <text:p text:style-name="Signer">{myuser_fullname}</text:p>
   <text:p text:style-name="Signer_20_Company">{mycompany_name}</text:p>
  </office:text>
 </office:body>
</office:document-content>
`;
}

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
 <manifest:file-entry manifest:full-path="${LOGO_ENTRY}" manifest:media-type="image/png"/>
</manifest:manifest>
`;

/** A fixed time for the zip entries, so the same code always builds the same bytes. */
const ENTRY_TIME = new Date('2024-01-01T00:00:00Z');

/**
 * The cover template as ODT bytes: `mimetype` first and stored, as the OpenDocument spec asks.
 * `logo` is a PNG for the letterhead (the demo company's logo unless given); it is stored as it is.
 */
export async function makeCoverTemplateOdt(logo?: Uint8Array): Promise<Uint8Array> {
  const picture = logo ?? (await makeDemoLogo());
  const { width, height } = await sharp(picture).metadata();
  if (!width || !height) throw new Error('makeCoverTemplateOdt: the logo has no size');
  const logoHeightCm = Math.round((LOGO_WIDTH_CM * height * 1000) / width) / 1000;
  return zipSync(
    {
      mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
      'META-INF/manifest.xml': strToU8(MANIFEST),
      'content.xml': strToU8(content(logoHeightCm)),
      'styles.xml': strToU8(STYLES),
      'meta.xml': strToU8(META),
      [LOGO_ENTRY]: [picture, { level: 0 }],
    },
    { level: 6, mtime: ENTRY_TIME },
  );
}
