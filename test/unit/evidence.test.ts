/**
 * The evidence sheet's pure parts: page ranges, the history's grouping of pages and its order, and the file
 * digest kept while a file stays the same.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sha256OfFile } from '../../src/adapters/file-digest.js';
import { evidenceOf, ranges, type EvidenceFacts } from '../../src/modules/report-pdf/evidence.js';
import type { PageRow, ReportRow } from '../../src/modules/reports/reports.repository.js';

test('ranges: consecutive report pages as one range, in order, each once', () => {
  assert.equal(ranges([1]), '1');
  assert.equal(ranges([3, 1, 2, 5, 7, 8, 9, 9]), '1–3, 5, 7–9');
  assert.equal(ranges([]), '');
});

const report = {
  rowid: 7,
  ref: 'BR2611-0007',
  title: 'Wartung',
  version: 2,
  datec: '2026-11-24 08:00:00',
  fk_user_creat: 1,
  fk_bericht_parent: 6,
} as unknown as ReportRow;
const page = (
  id: number,
  layout: string,
  datec: string,
  tms: string,
  by: number | null,
  changedBy: number | null = null,
  source: string | null = `commande/A/${id}.jpg`,
) =>
  ({
    rowid: id,
    layout,
    datec,
    tms,
    fk_user_creat: by,
    fk_user_modif: changedBy,
    source_path: layout === 'title_only' ? null : source,
    source_path_2: layout === 'before_after' ? `commande/A/${id}b.jpg` : null,
    checklist: null,
  }) as unknown as PageRow;

function facts(pages: PageRow[], extra: Partial<EvidenceFacts> = {}): EvidenceFacts {
  return {
    report,
    pages,
    signatures: new Map(),
    userNames: new Map([
      [1, 'Anna'],
      [2, 'Bernd'],
    ]),
    versionOf: 'BR2611-0006',
    finalized: { at: Date.UTC(2026, 10, 24, 12) / 1000, by: 'Anna', ip: '198.51.100.1' },
    preview: false,
    digests: new Map(),
    file: 'BR2611-0007.pdf',
    company: 'Firma',
    checkPage: null,
    timeZone: 'UTC',
    language: 'de',
    ...extra,
  };
}

test('evidenceOf: pages added one after another by one person are one line; another person, a change or a signature between starts a new one', () => {
  const pages = [
    page(11, 'photo', '2026-11-24 08:01:00', '2026-11-24 08:01:00', 1),
    page(12, 'photo', '2026-11-24 08:02:00', '2026-11-24 09:30:00', 1, 2),
    page(13, 'before_after', '2026-11-24 08:03:00', '2026-11-24 08:03:00', 2),
    page(14, 'title_only', '2026-11-24 08:04:00', '2026-11-24 08:04:00', 2),
    page(15, 'signature', '2026-11-24 09:00:00', '2026-11-24 09:00:00', null),
    page(16, 'photo', '2026-11-24 10:00:00', '2026-11-24 10:00:00', null),
  ];
  const signature = {
    row: {
      fk_page: 15,
      signer_name: 'Erika',
      datec: '2026-11-24 09:00:00',
      signed_at_device: null,
      signed_at_device_zone: null,
      device_time_plausible: null,
      metadata_path: 'x.json',
    },
    metadata: { hash: 'ab'.repeat(32), hash_form: 'fieldreport-pages/1', page_count_at_signing: 4, client_ip: '203.0.113.5' },
  };
  const sheet = evidenceOf(
    facts(pages, {
      signatures: new Map([[15, signature]]),
      digests: new Map([
        ['commande/A/11.jpg', '11'.repeat(32)],
        ['commande/A/16.jpg', null],
      ]),
    }),
  );
  assert.deepEqual(
    sheet.events.map((e) => [
      e.kind,
      e.at,
      'by' in e ? e.by : e.kind === 'signed' ? e.signer : null,
      'pages' in e ? e.pages : null,
      'until' in e ? e.until : null,
    ]),
    [
      ['created', '24.11.2026 08:00:00 UTC', 'Anna', null, null],
      ['pages_added', '24.11.2026 08:01:00 UTC', 'Anna', '1–2', '24.11.2026 08:02:00 UTC'],
      ['pages_added', '24.11.2026 08:03:00 UTC', 'Bernd', '3–4', '24.11.2026 08:04:00 UTC'],
      ['signed', '24.11.2026 09:00:00 UTC', 'Erika', null, null],
      ['pages_changed', '24.11.2026 09:30:00 UTC', 'Bernd', '2', null],
      ['pages_added', '24.11.2026 10:00:00 UTC', null, '6', null],
      ['finalized', '24.11.2026 12:00:00 UTC', 'Anna', null, null],
    ],
  );
  assert.deepEqual(sheet.events[0], { kind: 'created', at: '24.11.2026 08:00:00 UTC', by: 'Anna', version: 2, versionOf: 'BR2611-0006' });
  assert.deepEqual(sheet.signatures, [{ page: 5, signer: 'Erika', hash: 'ab'.repeat(32), form: 'fieldreport-pages/1', pagesCovered: 4 }]);
  assert.deepEqual(
    sheet.images.map((i) => [i.page, i.part, i.name, i.sha256]),
    [
      [1, 'photo', '11.jpg', '11'.repeat(32)],
      [2, 'photo', '12.jpg', null],
      [3, 'before', '13.jpg', null],
      [3, 'after', '13b.jpg', null],
      [5, 'signature', '15.jpg', null],
      [6, 'photo', '16.jpg', null],
    ],
  );
});

test('evidenceOf for a preview: the last line is the preview made, not a finalization', () => {
  const sheet = evidenceOf(facts([page(11, 'photo', '2026-11-24 08:01:05', '2026-11-24 08:01:05', 1)], { preview: true }));
  assert.deepEqual(sheet.events.at(-1), { kind: 'previewed', at: '24.11.2026 12:00:00 UTC', by: 'Anna', ip: '198.51.100.1' });
  assert.equal(sheet.preview, true);
});

test('evidenceOf in English: times with seconds and the zone', () => {
  const sheet = evidenceOf(
    facts([page(11, 'photo', '2026-11-24 08:01:05', '2026-11-24 08:01:05', 1)], { language: 'en', timeZone: 'Europe/Berlin' }),
  );
  assert.equal(sheet.events[1]!.at, '24 Nov 2026, 09:01:05 CET');
});

test("sha256OfFile: the file's digest; a file written anew, even with its old size and time, is read again", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-digest-'));
  try {
    const file = path.join(dir, 'foto.jpg');
    await writeFile(file, 'erste Fassung');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    assert.equal(await sha256OfFile(file), sha('erste Fassung'));
    assert.equal(await sha256OfFile(file), sha('erste Fassung'));
    const when = new Date('2026-11-24T08:00:00Z');
    await utimes(file, when, when);
    const first = await sha256OfFile(file);
    await writeFile(file, 'zweite Fassu');
    await writeFile(file, 'zweite Fassun');
    await writeFile(file, 'other Fassung'); // the same size as before
    await utimes(file, when, when); // and the same modification time
    assert.equal(first, sha('erste Fassung'));
    assert.equal(await sha256OfFile(file), sha('other Fassung'));
    await assert.rejects(sha256OfFile(path.join(dir, 'fehlt.jpg')), { code: 'ENOENT' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
