/**
 * The fixed texts of the report PDF in the customer's language (Dolibarr's llx_societe.default_lang:
 * en_* gives English, anything else German, as Dolibarr's own documents fall back to the
 * installation's language). The person's own words (titles, notes, material labels) are printed
 * as typed.
 */
export type PdfLanguage = 'de' | 'en';

const DE = {
  number: (n: number) => new Intl.NumberFormat('de-DE', { maximumFractionDigits: 3 }).format(n),
  page: (n: number, total: number) => `Seite ${n} / ${total}`,
  before: 'Vorher',
  after: 'Nachher',
  missing: 'Bild fehlt',
  photo: (n: number) => `Foto ${n}`,
  taken: (when: string) => `Aufgenommen ${when}`,
  /** The phone's time only (the camera wrote none), with its zone (`UTC+01:00`). */
  takenDevice: (when: string, zone: string) => `Aufgenommen ${when} (${zone}, laut Gerät)`,
  /** Camera and phone disagree: both, each with its zone where known. */
  takenBoth: (camera: string, cameraZone: string | null, device: string, deviceZone: string) =>
    `Aufgenommen ${camera} (${cameraZone ? `${cameraZone}, ` : ''}Kamera), ${device} (${deviceZone}, Gerät)`,
  place: (where: string) => `Ort ${where}`,
  placeBoth: (camera: string, device: string) => `Ort ${camera} (Kamera), ${device} (Gerät)`,
  continued: (what: string) => `${what} (Fortsetzung)`,
  notCovered: 'Nicht von der Unterschrift erfasst: nach der Unterschrift hinzugefügt',
  // summary
  summary: 'Zusammenfassung',
  summaryNotSigned: 'Stand bei Erstellung dieses PDFs. Eine Unterschrift erfasst die Seiten des Berichts, nicht diese Zusammenfassung.',
  customer: 'Kunde',
  site: 'Einsatzort',
  order: 'Auftrag',
  customerOrder: 'Ihre Bestellung',
  report: 'Bericht',
  version: (v: number) => `Version ${v}`,
  date: 'Datum',
  technician: 'Ausgeführt von',
  made: (date: string, who: string) => `Erstellt am ${date} von ${who}`,
  work: 'Arbeitsbeschreibung',
  materials: 'Material',
  material: 'Bezeichnung',
  quantity: 'Menge',
  unit: 'Einheit',
  note: 'Bemerkung',
  noMaterials: 'Kein Material erfasst.',
  signatures: 'Unterschriften',
  signedBy: (name: string) => `Unterschrieben von ${name}`,
  notSigned: 'Noch nicht unterschrieben.',
  contents: 'Inhalt',
  contentPhotos: (n: number) => (n === 1 ? '1 Foto' : `${n} Fotos`),
  contentPairs: (n: number) => (n === 1 ? '1 Vorher-Nachher-Vergleich' : `${n} Vorher-Nachher-Vergleiche`),
  contentSections: (n: number) => (n === 1 ? '1 Abschnitt' : `${n} Abschnitte`),
  contentSignatures: (n: number) => (n === 1 ? '1 Unterschrift' : `${n} Unterschriften`),
  contentChecklists: (n: number) => (n === 1 ? '1 Prüfliste' : `${n} Prüflisten`),
  // checklists
  defects: 'Mängel und Abweichungen',
  noDefects: 'Keine Mängel und keine Messwerte außerhalb der Grenzwerte.',
  checklist: 'Prüfliste',
  checkItem: 'Prüfpunkt',
  result: 'Ergebnis',
  measured: 'Messwert',
  limit: 'Grenzwert',
  finding: 'Befund',
  photos: 'Fotos',
  /** A state in words with a sign, readable without colour. */
  states: { open: '○ nicht geprüft', ok: '✓ OK', defect: '✗ Mangel', na: '– n. z.' } as Record<'open' | 'ok' | 'defect' | 'na', string>,
  below: (limit: string) => `unter dem Grenzwert (${limit})`,
  above: (limit: string) => `über dem Grenzwert (${limit})`,
  checklistCount: (items: number, defects: number, open: number) =>
    [items === 1 ? '1 Punkt' : `${items} Punkte`, defects > 0 ? (defects === 1 ? '1 Mangel' : `${defects} Mängel`) : '', open > 0 ? `${open} nicht geprüft` : ''].filter(Boolean).join(', '),
  // time on site
  timeOnSite: 'Zeit vor Ort',
  timeWho: 'Techniker',
  timeFrom: 'Ankunft',
  timeTo: 'Abfahrt',
  timeDuration: 'Dauer',
  timeTotal: 'Gesamt',
  noTime: 'Keine Zeit vor Ort erfasst.',
  corrected: (reason: string) => `von Hand korrigiert: ${reason}`,
  manual: (reason: string) => `von Hand erfasst: ${reason}`,
  duration: (seconds: number) => {
    const minutes = Math.round(seconds / 60);
    const h = Math.floor(minutes / 60);
    return h > 0 ? `${h} h ${String(minutes % 60).padStart(2, '0')} min` : `${minutes} min`;
  },
  // signature sheet
  signature: 'Unterschrift',
  signer: 'Unterzeichner',
  signedAtDevice: 'Unterschrieben am (Gerät)',
  receivedAtServer: 'Empfangen am (Server)',
  signedAt: 'Unterschrieben am',
  implausible: 'Gerätezeit unplausibel; maßgeblich ist die Serverzeit',
  pagesCovered: 'Erfasste Berichtsseiten',
  hash: 'Prüfsumme (SHA-256)',
  check: 'Prüfen',
  /** The app's unit codes (stored as chosen); other units are printed as typed. */
  units: { Stk: 'Stk', m: 'm', 'm²': 'm²', kg: 'kg', l: 'l', h: 'h', Pkt: 'Pkt' } as Record<string, string>,
};

type Words = typeof DE;

const EN: Words = {
  number: (n) => new Intl.NumberFormat('en-GB', { maximumFractionDigits: 3 }).format(n),
  page: (n, total) => `Page ${n} of ${total}`,
  before: 'Before',
  after: 'After',
  missing: 'Image missing',
  photo: (n) => `Photo ${n}`,
  taken: (when) => `Taken ${when}`,
  takenDevice: (when, zone) => `Taken ${when} (${zone}, by the device)`,
  takenBoth: (camera, cameraZone, device, deviceZone) => `Taken ${camera} (${cameraZone ? `${cameraZone}, ` : ''}camera), ${device} (${deviceZone}, device)`,
  place: (where) => `Place ${where}`,
  placeBoth: (camera, device) => `Place ${camera} (camera), ${device} (device)`,
  continued: (what) => `${what} (continued)`,
  notCovered: 'Not covered by the signature: added after signing',
  summary: 'Summary',
  summaryNotSigned: 'As of the making of this PDF. A signature covers the pages of the report, not this summary.',
  customer: 'Customer',
  site: 'Site',
  order: 'Order',
  customerOrder: 'Your order',
  report: 'Report',
  version: (v) => `version ${v}`,
  date: 'Date',
  technician: 'Carried out by',
  made: (date, who) => `Made on ${date} by ${who}`,
  work: 'Work description',
  materials: 'Materials',
  material: 'Item',
  quantity: 'Qty',
  unit: 'Unit',
  note: 'Note',
  noMaterials: 'No materials recorded.',
  signatures: 'Signatures',
  signedBy: (name) => `Signed by ${name}`,
  notSigned: 'Not signed yet.',
  contents: 'Contents',
  contentPhotos: (n) => (n === 1 ? '1 photo' : `${n} photos`),
  contentPairs: (n) => (n === 1 ? '1 before/after comparison' : `${n} before/after comparisons`),
  contentSections: (n) => (n === 1 ? '1 section' : `${n} sections`),
  contentSignatures: (n) => (n === 1 ? '1 signature' : `${n} signatures`),
  contentChecklists: (n) => (n === 1 ? '1 checklist' : `${n} checklists`),
  defects: 'Defects and deviations',
  noDefects: 'No defects and no measured values outside their limits.',
  checklist: 'Checklist',
  checkItem: 'Check',
  result: 'Result',
  measured: 'Measured',
  limit: 'Limit',
  finding: 'Finding',
  photos: 'Photos',
  states: { open: '○ not checked', ok: '✓ OK', defect: '✗ Defect', na: '– N/A' },
  below: (limit) => `below the limit (${limit})`,
  above: (limit) => `above the limit (${limit})`,
  checklistCount: (items, defects, open) =>
    [items === 1 ? '1 item' : `${items} items`, defects > 0 ? (defects === 1 ? '1 defect' : `${defects} defects`) : '', open > 0 ? `${open} not checked` : ''].filter(Boolean).join(', '),
  timeOnSite: 'Time on site',
  timeWho: 'Technician',
  timeFrom: 'Arrived',
  timeTo: 'Left',
  timeDuration: 'Duration',
  timeTotal: 'Total',
  noTime: 'No time on site recorded.',
  corrected: (reason) => `corrected by hand: ${reason}`,
  manual: (reason) => `entered by hand: ${reason}`,
  duration: (seconds) => {
    const minutes = Math.round(seconds / 60);
    const h = Math.floor(minutes / 60);
    return h > 0 ? `${h} h ${String(minutes % 60).padStart(2, '0')} min` : `${minutes} min`;
  },
  signature: 'Signature',
  signer: 'Signed by',
  signedAtDevice: 'Signed on (device)',
  receivedAtServer: 'Received on (server)',
  signedAt: 'Signed on',
  implausible: "Device time implausible; the server's time applies",
  pagesCovered: 'Report pages covered',
  hash: 'Checksum (SHA-256)',
  check: 'Verify',
  units: { Stk: 'pcs', m: 'm', 'm²': 'm²', kg: 'kg', l: 'l', h: 'h', Pkt: 'pkg' },
};

export type PdfWords = Words;

/** The language of a Dolibarr language code (en_US, en_GB, de_DE …); German when unset. */
export function pdfLanguageOf(defaultLang: string | null | undefined): PdfLanguage {
  return /^en([_-]|$)/i.test(defaultLang ?? '') ? 'en' : 'de';
}

export function wordsFor(language: PdfLanguage): PdfWords {
  return language === 'en' ? EN : DE;
}
