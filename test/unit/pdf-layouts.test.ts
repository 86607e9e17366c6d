/**
 * The composed report PDF (src/adapters/pdf.ts with its sections) in the compact layouts, read back
 * with poppler: the visit of a technician (6 photos, a template's 2 title pages, a before/after
 * pair, one more title page, 3 material lines, a signature) fits on few sheets with everything in
 * its text, in reading order, in German and in English; PDF/A-1b by Apache PDFBox Preflight where
 * it is installed.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { renderReportPdf, type PdfDocumentInput, type PdfPage, type PhotosPerSheet } from '../../src/adapters/pdf.js';
import { NOT_COVERED } from '../../src/adapters/pdf.js';
import { hasTool, inOrder, pdfInfo, pdfText } from '../helpers/pdf-tools.js';

const popplerMissing = ['pdfinfo', 'pdftotext'].every(hasTool) ? undefined : 'poppler-utils (pdfinfo, pdftotext) not installed';
const PREFLIGHT_JARS = ['preflight', 'pdfbox2', 'fontbox2', 'xmpbox', 'commons-logging', 'javax.activation', 'jaxb-api'].map(
  (name) => `/usr/share/java/${name}.jar`,
);
const preflightMissing =
  spawnSync('java', ['-version']).status === 0 && PREFLIGHT_JARS.every((jar) => existsSync(jar))
    ? undefined
    : 'Apache PDFBox Preflight (libpdfbox2-java, default-jre-headless) not installed';

let dir: string;
let photo: string;
let signature: string;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-layouts-'));
  photo = path.join(dir, 'photo.jpg');
  signature = path.join(dir, 'signature.png');
  await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#3a6ea5' } })
    .jpeg({ quality: 80 })
    .toFile(photo);
  await sharp({ create: { width: 1600, height: 1100, channels: 3, background: '#ffffff' } })
    .png()
    .toFile(signature);
});
after(() => (process.env.KEEP_PDF ? undefined : rm(dir, { recursive: true, force: true })));

const CAPTIONS = ['Kessel vorher', 'Brenner gereinigt', 'Zündelektrode neu', 'Abgasrohr', 'Siphon gespült', 'Typenschild'];
const MATERIALS = ['Dichtungssatz Brenner', 'Zündelektrode', 'Reinigungsmittel'];

function visit(language: 'de' | 'en', perSheet: PhotosPerSheet): PdfDocumentInput {
  const shot = (index: number): PdfPage => ({
    kind: 'photo',
    title: CAPTIONS[index]!,
    note: index % 2 === 0 ? 'Zustand bei Ankunft, Belag am Wärmetauscher.' : null,
    rotation: 0,
    image: { path: photo },
    takenAt: '24.11.2026 09:1' + index,
  });
  const pages: PdfPage[] = [
    { kind: 'title_only', title: 'Sichtprüfung der Anlage', note: 'Keine Undichtigkeiten; Abgasanlage frei.' },
    shot(0),
    shot(1),
    shot(2),
    { kind: 'title_only', title: 'Reinigung und Messung', note: 'CO 12 ppm, Abgasverlust 4 %' },
    shot(3),
    shot(4),
    shot(5),
    {
      kind: 'before_after',
      title: 'Wärmetauscher',
      note: 'Vor und nach der Reinigung',
      rotation: 0,
      before: { path: photo },
      after: { path: photo },
    },
    { kind: 'title_only', title: 'Übergabe an den Kunden', note: null },
    {
      kind: 'signature',
      title: 'Unterschrift',
      note: null,
      image: { path: signature },
      facts: {
        signer: 'Erika Müller',
        receivedAt: '24.11.2026 10:02 MEZ',
        signedAtDevice: '24.11.2026 09:58 MEZ',
        devicePlausible: true,
        pagesCovered: 10,
        hash: 'ab'.repeat(32),
        verifyUrl: null,
      },
    },
  ];
  return {
    format: 'A4',
    orientation: 'portrait',
    language,
    photosPerSheet: perSheet,
    header: { logo: null, lines: ['Muster Haustechnik GmbH', 'BR2611-0001 · Wartung'] },
    cover: null,
    summary: {
      title: 'Wartung Gas-Brennwertheizung',
      customer: { name: 'Erika Müller', lines: ['Lindenweg 5', '12345 Musterstadt'] },
      facts: [{ label: 'Auftrag', value: 'CO2611-0007' }],
      workDescription: 'Jährliche Wartung der Gas-Brennwerttherme im Keller; Abgasmessung.',
      materials: MATERIALS.map((label, i) => ({ label, qty: i + 0.5, unit: i === 0 ? 'Stk' : 'l', note: null })),
      signers: [{ name: 'Erika Müller', when: '24.11.2026 09:58 MEZ' }],
    },
    pages,
    info: { title: 'BR2611-0001 Wartung' },
  };
}

async function render(name: string, input: PdfDocumentInput): Promise<string> {
  const file = path.join(dir, name);
  await renderReportPdf(input, createWriteStream(file));
  return file;
}

describe('report PDF layouts', { skip: popplerMissing }, () => {
  test('the visit in 4 to a sheet: at most 5 sheets without a cover; summary, materials, captions and signer in reading order', async () => {
    const file = await render('visit-4.pdf', visit('de', 4));
    const info = await pdfInfo(file);
    assert.ok(info.pages <= 5, `${info.pages} sheets`);
    const text = (await pdfText(file)).replace(/\s+/g, ' ');
    const order = inOrder(text, [
      'Zusammenfassung',
      'Erika Müller',
      'Arbeitsbeschreibung',
      'Jährliche Wartung',
      'Material',
      ...MATERIALS,
      'Sichtprüfung der Anlage',
      ...CAPTIONS.slice(0, 3),
      'Reinigung und Messung',
      ...CAPTIONS.slice(3),
      'Vorher',
      'Nachher',
      'Wärmetauscher',
      'Übergabe an den Kunden',
      'Unterschrift',
      'Erika Müller',
    ]);
    assert.ok(!order.includes(-1), `missing or out of order: ${JSON.stringify(order)}`);
    assert.ok(text.includes('Foto 6'), 'photos are numbered');
    assert.ok(text.includes('Aufgenommen 24.11.2026'), 'the time taken is printed');
    assert.ok(text.includes(`Seite ${info.pages} / ${info.pages}`));
  });

  test('1, 2 and 4 to a sheet: fewer sheets the more go on one; one per sheet keeps a sheet per page', async () => {
    const sheets: number[] = [];
    for (const perSheet of [1, 2, 4] as const)
      sheets.push((await pdfInfo(await render(`visit-${perSheet}.pdf`, visit('de', perSheet)))).pages);
    // One per sheet: the summary and one sheet for each of the 11 pages.
    assert.equal(sheets[0], 12);
    assert.ok(sheets[1]! < sheets[0]! && sheets[2]! < sheets[1]!, JSON.stringify(sheets));
  });

  test("in English for an English customer: fixed texts English, the person's words as typed", async () => {
    const text = (await pdfText(await render('visit-en.pdf', visit('en', 4)))).replace(/\s+/g, ' ');
    for (const word of ['Summary', 'Work description', 'Materials', 'Before', 'After', 'Photo 1', 'Signature', 'Page 1 of', 'pcs'])
      assert.ok(text.includes(word), word);
    for (const word of ['Zusammenfassung', 'Vorher', 'Seite 1', 'Foto 1']) assert.ok(!text.includes(word), `no German "${word}"`);
    assert.ok(text.includes('Sichtprüfung der Anlage'), 'titles as typed');
  });

  test("a sheet after the signature says it is not covered, in the document's language", async () => {
    const input = visit('en', 4);
    const pages = [
      ...input.pages,
      { kind: 'photo', title: 'Later', note: null, rotation: 0, image: { path: photo }, notice: NOT_COVERED } satisfies PdfPage,
    ];
    const file = await render('after.pdf', { ...input, pages });
    const last = (await pdfText(file))
      .split('\f')
      .filter((p) => p.trim())
      .at(-1)!;
    assert.ok(last.includes('Not covered by the signature') && last.includes('Later'), last);
  });

  test('nothing is lost to length: a long work description, 120 material lines, a long note under a compact photo go on over the next sheets', async () => {
    const input = visit('de', 4);
    const description = Array.from({ length: 700 }, (_, i) => `Wort${i}`).join(' ');
    const materials = Array.from({ length: 120 }, (_, i) => ({
      label: `Teil ${i}`,
      qty: 1234.567,
      unit: i === 0 ? 'constructor' : 'Stk',
      note: null,
    }));
    const longNote = Array.from({ length: 150 }, (_, i) => `Notiz${i}`).join(' ');
    const pages = input.pages.map((p, i) => (i === 1 && p.kind === 'photo' ? { ...p, note: longNote } : p));
    const file = await render('long.pdf', {
      ...input,
      format: 'A5',
      orientation: 'landscape',
      summary: { ...input.summary!, workDescription: description, materials },
      pages,
    });
    const text = (await pdfText(file)).replace(/\s+/g, ' ');
    for (const word of ['Wort0 ', 'Wort699', 'Teil 0 ', 'Teil 119', 'Notiz0 ', 'Notiz149', 'Bezeichnung (Fortsetzung)', 'constructor'])
      assert.ok(text.includes(word), word);
    assert.ok(!text.includes('1.234,5 67'), 'a quantity is not broken over two lines');
  });

  test('PDF/A-1b: Apache PDFBox Preflight accepts every layout', { skip: preflightMissing }, async () => {
    for (const perSheet of [1, 2, 4] as const) {
      const file = await render(`pdfa-${perSheet}.pdf`, visit('de', perSheet));
      const { stdout } = await promisify(execFile)('java', [
        '-cp',
        PREFLIGHT_JARS.join(':'),
        'org.apache.pdfbox.preflight.Validator_A1b',
        file,
      ]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
      assert.match(stdout, /is a valid PDF\/A-1b file/, `${perSheet} to a sheet: ${stdout}`);
    }
  });
});
