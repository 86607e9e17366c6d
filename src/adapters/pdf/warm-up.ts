/**
 * The report renderer made ready before the first finalize needs it. The first report a process
 * renders costs three to four times what the next ones cost: V8 compiles the text layout (fontkit's
 * OpenType shaping, pdfkit's line wrapping), the image embedding and the table and evidence code
 * only as they run. Measured with the outbox drain of `npm run bench` (50 photos, then finalize):
 * about 300 ms of the finalize's time was that first render's alone. So a process renders one
 * small report of every kind of block (summary, photos in a row, before/after, checklist, title,
 * signature, evidence) into nothing, once, soon after it listens, while no phone waits for it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import sharp from 'sharp';
import { renderReportPdf } from '../pdf.js';
import type { PdfDocumentInput, PdfPage } from './model.js';
import { collectNow } from '../heap.js';
import { tempDirPrefix } from '../runs.js';

/** After listening, before the warm-up: the start's own work (recovery, the first logins) goes first. @default 1500 ms */
export const WARM_UP_AFTER_MS = 1500;

/**
 * Renders sampleReport into nothing; the files it reads live in a folder of their own (in `parent`)
 * for that time, named after this run (runs.ts), so that one left by a killed process is removed
 * at the next start (recovery.ts).
 */
export async function warmUpRenderer(parent = os.tmpdir()): Promise<void> {
  const dir = await mkdtemp(tempDirPrefix('warm-up', parent));
  try {
    const photo = path.join(dir, 'photo.jpg');
    const signature = path.join(dir, 'signature.png');
    const grey = { width: 320, height: 240, channels: 3 as const, background: '#8a9ba8' };
    await writeFile(photo, await sharp({ create: grey }).jpeg({ quality: 70, mozjpeg: true }).toBuffer());
    await writeFile(
      signature,
      await sharp({ create: { ...grey, background: '#ffffff' } })
        .png()
        .toBuffer(),
    );
    const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
    await renderReportPdf(sampleReport({ path: photo }, { path: signature }), discard);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Renders the sample report once, WARM_UP_AFTER_MS from now, without holding the process open,
 * then collects the garbage; a failure is only reported through `onError` (the first real report then pays for the warm-up).
 */
export function warmUpSoon(onError: (error: unknown) => void): void {
  // What the start and the sample report leave is garbage: collected at once, while no phone waits,
  // rather than carried into the first uploads (the outbox drain started about 5 MB lower).
  setTimeout(() => void warmUpRenderer().then(collectNow, onError), WARM_UP_AFTER_MS).unref();
}

export function sampleReport(image: { path: string }, signature: { path: string }): PdfDocumentInput {
  const capture = { when: 'Aufgenommen 27.11.2026, 09:41 (Europe/Berlin)', where: '48.13743, 11.57549' };
  const photo = (n: number): PdfPage => ({
    kind: 'photo',
    title: `Foto ${n}: Prüfung der Anlage`,
    note: 'Zustand dokumentiert, Maße geprüft, Öl- und Gasleitungen dicht.',
    rotation: 0,
    image,
    capture,
  });
  const hash = 'a3f1c9e07b5d24681f0e9c3b7a5d2e4f6c8b0a1d3e5f7092b4c6d8e0f1a2b3c4';
  return {
    format: 'A4',
    orientation: 'portrait',
    photosPerSheet: 4,
    header: { logo: image, lines: ['Muster Haustechnik GmbH', 'BR2611-0001 · Wartung Heizungsanlage'] },
    cover: null,
    summary: {
      title: 'Wartung Heizungsanlage',
      customer: { name: 'Kunde GmbH', lines: ['Hauptstraße 1', '80331 München'] },
      facts: [
        { label: 'Auftrag', value: 'CO2611-0042' },
        { label: 'Datum', value: '27.11.2026' },
      ],
      workDescription: 'Brenner gereinigt, Abgaswerte gemessen, Dichtungen erneuert.',
      materials: [{ label: 'Dichtung 3/4"', qty: 2, unit: 'Stk', note: null }],
      signers: [{ name: 'Erika Mustermann', when: '27.11.2026, 10:15' }],
      time: {
        rows: [{ date: '27.11.2026', who: 'Max Techniker', from: '08:30', to: '10:15', seconds: 6300, manual: null, corrected: null }],
        totalSeconds: 6300,
      },
    },
    pages: [
      photo(1),
      photo(2),
      photo(3),
      {
        kind: 'before_after',
        title: 'Vorher/Nachher',
        note: 'Brennkammer',
        rotation: 0,
        before: image,
        after: image,
        captures: [capture, capture],
      },
      { kind: 'title_only', title: 'Abschluss', note: 'Anlage läuft einwandfrei.' },
      {
        kind: 'checklist',
        title: 'Prüfliste',
        note: null,
        items: [
          {
            position: 1,
            label: 'Abgasverlust',
            state: 'ok',
            value: 6.8,
            unit: '%',
            lower: null,
            upper: 11,
            deviation: null,
            defect: false,
            okReason: null,
            note: null,
            photos: [{ number: 1, name: 'IMG_2000.jpg' }],
          },
          {
            position: 2,
            label: 'CO-Gehalt',
            state: 'defect',
            value: 120,
            unit: 'ppm',
            lower: null,
            upper: 100,
            deviation: 'above',
            defect: true,
            okReason: null,
            note: 'Nachstellen',
            photos: [],
          },
          {
            position: 3,
            label: 'Sichtprüfung',
            state: 'na',
            value: null,
            unit: null,
            lower: null,
            upper: null,
            deviation: null,
            defect: false,
            okReason: null,
            note: null,
            photos: [],
          },
        ],
      },
      {
        kind: 'signature',
        title: 'Unterschrift',
        note: null,
        image: signature,
        facts: {
          signer: 'Erika Mustermann',
          receivedAt: '27.11.2026, 10:15:02 (Europe/Berlin)',
          signedAtDevice: '27.11.2026, 10:14:58 (+01:00)',
          devicePlausible: true,
          pagesCovered: 6,
          hash,
          verifyUrl: 'https://example.invalid/public/verify.php',
        },
      },
    ],
    evidence: {
      report: { ref: 'BR2611-0001', title: 'Wartung Heizungsanlage', version: 1 },
      file: 'BR2611-0001.pdf',
      sealedBy: 'Muster Haustechnik GmbH',
      events: [
        { kind: 'created', at: '27.11.2026, 08:31:00', by: 'Max Techniker', version: 1, versionOf: null },
        { kind: 'pages_added', at: '27.11.2026, 08:32:00', until: '27.11.2026, 10:10:00', by: 'Max Techniker', pages: '1–6', count: 6 },
        {
          kind: 'signed',
          at: '27.11.2026, 10:15:02',
          signer: 'Erika Mustermann',
          page: 7,
          deviceTime: '27.11.2026, 10:14:58',
          devicePlausible: true,
          ip: '192.0.2.10',
          userAgent: 'Mozilla/5.0 (Linux; Android 14)',
          position: '48.13743, 11.57549',
          sentBy: 'Max Techniker',
        },
        { kind: 'finalized', at: '27.11.2026, 10:16:00', by: 'Max Techniker', ip: '192.0.2.10' },
      ],
      signatures: [{ page: 7, signer: 'Erika Mustermann', hash, form: 'sha256', pagesCovered: 6 }],
      images: [1, 2, 3].map((page) => ({ page, part: 'photo' as const, name: `IMG_${1999 + page}.jpg`, sha256: hash })),
      checkPage: 'https://example.invalid/public/verify.php',
    },
    info: { title: 'Wartung Heizungsanlage', author: 'Muster Haustechnik GmbH', subject: 'Wartung' },
  };
}
