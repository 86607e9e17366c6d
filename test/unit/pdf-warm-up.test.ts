/**
 * The renderer's warm-up (adapters/pdf/warm-up.ts): the sample report goes through every kind of
 * block the real ones have, renders without error, and the warm-up leaves no file behind.
 */
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { renderReportPdf } from '../../src/adapters/pdf.js';
import { sampleReport, warmUpRenderer } from '../../src/adapters/pdf/warm-up.js';
import { hasTool, pdfText } from '../helpers/pdf-tools.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-warm-up-test-'));
});
after(() => rm(dir, { recursive: true, force: true }));

test('the sample report has every kind of page and a summary and an evidence sheet; it renders', async (t) => {
  const image = path.join(dir, 'photo.jpg');
  await writeFile(
    image,
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer(),
  );
  const input = sampleReport({ path: image }, { path: image });
  const kinds = new Set(input.pages.map((p) => p.kind));
  for (const kind of ['photo', 'before_after', 'title_only', 'checklist', 'signature'] as const)
    assert.ok(kinds.has(kind), `a ${kind} page`);
  assert.ok(input.summary && input.evidence, 'a summary and an evidence sheet');
  const file = path.join(dir, 'sample.pdf');
  const { pageCount } = await renderReportPdf(input, createWriteStream(file));
  assert.equal(pageCount, 4, 'the summary, the pages of every kind, the signature and the evidence, flowing over 4 sheets');
  if (!hasTool('pdftotext')) return t.skip('poppler-utils (pdftotext) not installed: the text is not read back');
  const text = await pdfText(file);
  for (const words of ['Zusammenfassung', 'Prüfliste', 'Unterschrift', 'Nachweisblatt']) assert.match(text, new RegExp(words));
});

test('the warm-up renders and removes its folder', async () => {
  const parent = await mkdtemp(path.join(dir, 'parent-'));
  await warmUpRenderer(parent);
  assert.deepEqual(await readdir(parent), []);
});
