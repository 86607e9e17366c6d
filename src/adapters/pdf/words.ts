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
  summarySignedOff: (signer: string) =>
    `Stand bei Erstellung dieses PDFs. Die Unterschrift von ${signer} erfasst die Seiten des Berichts und die Arbeiten, die Zeiten vor Ort und das Material, wie sie bei der Unterschrift angezeigt wurden.`,
  summaryChangedSince: 'Was danach geändert wurde, ist als „nicht von der Unterschrift erfasst“ markiert.',
  notCoveredMark: 'nicht von der Unterschrift erfasst',
  workNotCovered: 'Nach der Unterschrift geändert: nicht von der Unterschrift erfasst.',
  removedSince: (lines: string) => `Nach der Unterschrift entfernt: ${lines}.`,
  missingAtSigning: 'Bei der Unterschrift noch offen',
  missingAtFinalize: 'Beim Abschluss noch offen',
  missingInPreview: 'Noch offen (vor dem Abschluss zu erledigen oder zu begründen)',
  openItems: (count: number) => (count === 1 ? '1 Prüfpunkt nicht geprüft' : `${count} Prüfpunkte nicht geprüft`),
  noReason: 'ohne Begründung',
  missingKinds: {
    open_items: 'Prüfpunkte nicht geprüft',
    no_departure: 'Abfahrt nicht erfasst',
    no_signature: 'nicht unterschrieben',
    pages_after_signature: 'Seiten nach der Unterschrift',
  } as Record<string, string>,
  reason: 'Grund',
  customer: 'Kunde',
  site: 'Einsatzort',
  order: 'Auftrag',
  intervention: 'Serviceauftrag',
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
  okDespite: '✓ OK trotz Grenzwert',
  okReason: 'Begründung',
  below: (limit: string) => `unter dem Grenzwert (${limit})`,
  above: (limit: string) => `über dem Grenzwert (${limit})`,
  checklistCount: (items: number, defects: number, open: number) =>
    [
      items === 1 ? '1 Punkt' : `${items} Punkte`,
      defects > 0 ? (defects === 1 ? '1 Mangel' : `${defects} Mängel`) : '',
      open > 0 ? `${open} nicht geprüft` : '',
    ]
      .filter(Boolean)
      .join(', '),
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
  // evidence sheet
  evidence: 'Nachweisblatt',
  evidencePreview: 'Nachweisblatt (Vorschau)',
  evidenceOf: (ref: string, title: string, version: number) => `Bericht ${ref} „${title}“${version > 1 ? `, Version ${version}` : ''}`,
  sealed: (company: string | null) =>
    `Dieses PDF ist mit dem Zertifikat ${company ? `von ${company}` : 'des Betreibers'} elektronisch versiegelt (PDF-Signatur nach PAdES). Jede Änderung an der Datei nach dem Versiegeln macht die Signatur ungültig; das Siegel deckt auch dieses Blatt.`,
  sealedLater: (company: string | null) =>
    `Vorschau: Beim Abschließen wird das PDF mit dem Zertifikat ${company ? `von ${company}` : 'des Betreibers'} elektronisch versiegelt (PDF-Signatur nach PAdES). Jede Änderung an der Datei danach macht die Signatur ungültig; das Siegel deckt auch dieses Blatt.`,
  history: 'Verlauf',
  historyNote:
    'Zeiten nach der Uhr des Servers. Erfasst sind je Berichtsseite (Seite des Berichts in seiner Reihenfolge, nicht Blatt dieses PDFs) ihr Hinzufügen und ihre letzte Änderung.',
  when: 'Zeitpunkt',
  event: 'Ereignis',
  person: 'Person',
  notRecorded: 'nicht erfasst',
  until: (when: string) => `bis ${when}`,
  created: (version: number, of: string | null) =>
    version > 1 ? `Bericht angelegt, Version ${version}${of ? ` (aus ${of})` : ''}` : 'Bericht angelegt',
  pagesAdded: (pages: string, count: number) => `${count === 1 ? 'Berichtsseite' : 'Berichtsseiten'} ${pages} hinzugefügt`,
  pagesChanged: (pages: string, count: number) => `${count === 1 ? 'Berichtsseite' : 'Berichtsseiten'} ${pages} geändert (letzte Änderung)`,
  signedEvent: (page: number) => `Unterschrift (Berichtsseite ${page})`,
  finalizedEvent: 'Bericht abgeschlossen, dieses PDF erstellt',
  previewedEvent: 'Vorschau erstellt, noch nicht abgeschlossen',
  deviceTime: (when: string) => `Gerätezeit ${when}`,
  ip: (ip: string) => `IP ${ip}`,
  userAgent: (agent: string) => `Browser: ${agent}`,
  position: (position: string) => `Position ${position}`,
  sentBy: (name: string) => `übermittelt von ${name}`,
  checksums: 'Prüfsummen',
  signatureHash: (pages: number, ref: string, form: string | null) =>
    `SHA-256 über ${pages === 1 ? 'Berichtsseite 1' : `die Berichtsseiten 1–${pages}`} und ${ref}${form ? ` (${form})` : ''}`,
  signatureOf: (signer: string, page: number) => `Unterschrift von ${signer}, Berichtsseite ${page}`,
  noMetadata: 'Die Signaturdaten fehlen.',
  noSignatures: 'Der Bericht trägt keine Unterschrift.',
  noImages: 'Der Bericht enthält keine Bilder.',
  images: 'Bilder: SHA-256 ihrer Dateien',
  imagePage: 'Seite',
  image: 'Bild',
  file: 'Datei',
  fileMissing: 'Datei fehlt',
  parts: { photo: 'Foto', before: 'Vorher', after: 'Nachher', signature: 'Unterschrift' } as Record<
    'photo' | 'before' | 'after' | 'signature',
    string
  >,
  checklistItem: (n: number) => `Prüfliste, Punkt ${n}`,
  shortParts: { photo: '', before: 'V', after: 'N', signature: 'U' } as Record<'photo' | 'before' | 'after' | 'signature', string>,
  shortChecklistItem: (n: number) => `P${n}`,
  shortHashes: (count: number) =>
    `${count} Bilder, je Bild die ersten 16 Zeichen der SHA-256 seiner Datei, nach Berichtsseite (V vorher, N nachher, U Unterschrift, P3 Prüfliste Punkt 3; ✗ Datei fehlt).`,
  howTo: 'So prüfen Sie diesen Bericht',
  howCustomer: (company: string | null, checkPage: string | null) =>
    `Öffnen Sie das PDF in einem PDF-Programm wie Adobe Acrobat Reader: Es zeigt das Siegel ${company ? `von ${company}` : 'des Betreibers'} und ob das Dokument seit dem Versiegeln verändert wurde.${checkPage ? ` Unter ${checkPage} prüfen Sie jede Unterschrift gegen die dort gespeicherten Seiten (der QR-Code der Unterschrift führt dorthin) und ob eine PDF-Datei dieser Bericht ist, unverändert.` : ''} Die Prüfsummen oben binden Unterschriften und Bilder an diesen Bericht; wie man sie mit eigenen Werkzeugen nachrechnet, beschreibt die Dokumentation von fieldreport.`,
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
  takenBoth: (camera, cameraZone, device, deviceZone) =>
    `Taken ${camera} (${cameraZone ? `${cameraZone}, ` : ''}camera), ${device} (${deviceZone}, device)`,
  place: (where) => `Place ${where}`,
  placeBoth: (camera, device) => `Place ${camera} (camera), ${device} (device)`,
  continued: (what) => `${what} (continued)`,
  notCovered: 'Not covered by the signature: added after signing',
  summary: 'Summary',
  summaryNotSigned: 'As of the making of this PDF. A signature covers the pages of the report, not this summary.',
  summarySignedOff: (signer: string) =>
    `As of the making of this PDF. The signature of ${signer} covers the pages of the report and the work, the time on site and the materials as shown at signing.`,
  summaryChangedSince: 'What changed after that is marked "not covered by the signature".',
  notCoveredMark: 'not covered by the signature',
  workNotCovered: 'Changed after signing: not covered by the signature.',
  removedSince: (lines: string) => `Removed after signing: ${lines}.`,
  missingAtSigning: 'Still missing at signing',
  missingAtFinalize: 'Still missing when finalized',
  missingInPreview: 'Still missing (to be done or explained before finalizing)',
  openItems: (count: number) => (count === 1 ? '1 checklist item not checked' : `${count} checklist items not checked`),
  noReason: 'no reason given',
  missingKinds: {
    open_items: 'checklist items not checked',
    no_departure: 'departure not recorded',
    no_signature: 'not signed',
    pages_after_signature: 'pages after the signature',
  },
  reason: 'reason',
  customer: 'Customer',
  site: 'Site',
  order: 'Order',
  intervention: 'Intervention',
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
  okDespite: '✓ OK despite the limit',
  okReason: 'Reason',
  below: (limit) => `below the limit (${limit})`,
  above: (limit) => `above the limit (${limit})`,
  checklistCount: (items, defects, open) =>
    [
      items === 1 ? '1 item' : `${items} items`,
      defects > 0 ? (defects === 1 ? '1 defect' : `${defects} defects`) : '',
      open > 0 ? `${open} not checked` : '',
    ]
      .filter(Boolean)
      .join(', '),
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
  evidence: 'Evidence sheet',
  evidencePreview: 'Evidence sheet (preview)',
  evidenceOf: (ref, title, version) => `Report ${ref} “${title}”${version > 1 ? `, version ${version}` : ''}`,
  sealed: (company) =>
    `This PDF is electronically sealed with the certificate of ${company ?? 'the operator'} (a PDF signature, PAdES). Any change to the file after sealing makes the signature invalid; the seal covers this sheet too.`,
  sealedLater: (company) =>
    `Preview: on finalizing, the PDF is electronically sealed with the certificate of ${company ?? 'the operator'} (a PDF signature, PAdES). Any change to the file after that makes the signature invalid; the seal covers this sheet too.`,
  history: 'History',
  historyNote:
    "Times by the server's clock. Recorded for each report page (a page of the report in its order, not a sheet of this PDF): when it was added and when it was last changed.",
  when: 'Time',
  event: 'Event',
  person: 'Person',
  notRecorded: 'not recorded',
  until: (when) => `until ${when}`,
  created: (version, of) => (version > 1 ? `Report created, version ${version}${of ? ` (from ${of})` : ''}` : 'Report created'),
  pagesAdded: (pages, count) => `${count === 1 ? 'Report page' : 'Report pages'} ${pages} added`,
  pagesChanged: (pages, count) => `${count === 1 ? 'Report page' : 'Report pages'} ${pages} changed (last change)`,
  signedEvent: (page) => `Signature (report page ${page})`,
  finalizedEvent: 'Report finalized, this PDF made',
  previewedEvent: 'Preview made, not finalized yet',
  deviceTime: (when) => `Device time ${when}`,
  ip: (ip) => `IP ${ip}`,
  userAgent: (agent) => `Browser: ${agent}`,
  position: (position) => `Position ${position}`,
  sentBy: (name) => `sent by ${name}`,
  checksums: 'Checksums',
  signatureHash: (pages, ref, form) =>
    `SHA-256 over ${pages === 1 ? 'report page 1' : `report pages 1–${pages}`} and ${ref}${form ? ` (${form})` : ''}`,
  signatureOf: (signer, page) => `Signature of ${signer}, report page ${page}`,
  noMetadata: 'The signature data is missing.',
  noSignatures: 'The report carries no signature.',
  noImages: 'The report holds no images.',
  images: 'Images: SHA-256 of their files',
  imagePage: 'Page',
  image: 'Image',
  file: 'File',
  fileMissing: 'file missing',
  parts: { photo: 'Photo', before: 'Before', after: 'After', signature: 'Signature' },
  checklistItem: (n) => `Checklist, item ${n}`,
  shortParts: { photo: '', before: 'B', after: 'A', signature: 'S' },
  shortChecklistItem: (n) => `I${n}`,
  shortHashes: (count) =>
    `${count} images, for each the first 16 characters of its file's SHA-256, by report page (B before, A after, S signature, I3 checklist item 3; ✗ file missing).`,
  howTo: 'How to check this report',
  howCustomer: (company, checkPage) =>
    `Open the PDF in a PDF reader such as Adobe Acrobat Reader: it shows the seal ${company ? `of ${company}` : "of the service's operator"} and whether the document was changed since it was sealed.${checkPage ? ` At ${checkPage} you check each signature against the pages stored there (the signature's QR code leads there) and whether a PDF file is this report, unchanged.` : ''} The checksums above bind the signatures and images to this report; how to recompute them with your own tools is described in fieldreport's documentation.`,
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

/** The word for a report's object: an order's, or Dolibarr's for an intervention. */
export function objectWord(words: PdfWords, elementType: string | null): string {
  return elementType === 'fichinter' ? words.intervention : words.order;
}
