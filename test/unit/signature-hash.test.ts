/**
 * The canonical byte form a signature's hash is taken of (signature-hash.ts), byte for byte:
 * forms 1 and 2 give exactly the hashes they gave before photo evidence existed (the constants
 * below were computed with that code), also when an evidence lookup is given but finds nothing
 * for the bytes; form 3 adds `evidence`/`evidence_2` to every page, with the recorded fields in
 * fixed forms (places as seven-decimal texts).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { e7Text, hashedEvidence, type PhotoEvidenceRow } from '../../src/modules/photo-evidence/photo-evidence.js';
import {
  HASH_FORM_EVIDENCE,
  pagesCanonical,
  pagesDigest,
  pagesHash,
  type HashedEvidence,
  type HashedPage,
} from '../../src/modules/signatures/signature-hash.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The pages and image digests the constants were computed for (a missing image hashes as "missing"). */
const digest = async (p: string) => (p.endsWith('gone.jpg') ? undefined : 'd'.repeat(63) + String(p.length % 10));
const PAGES: HashedPage[] = [
  {
    layout: 'photo',
    title: 'Kessel – vorher',
    note: 'Belag „außen“ 😀',
    rotation: 90,
    source_path: 'commande/CO2611-0001/IMG_1.jpg',
    source_path_2: null,
  },
  {
    layout: 'before_after',
    title: null,
    note: null,
    rotation: 0,
    source_path: 'commande/CO2611-0001/a.jpg',
    source_path_2: 'commande/CO2611-0001/gone.jpg',
  },
  { layout: 'title_only', title: 'Abschluss', note: null, rotation: 0, source_path: null, source_path_2: null },
];
const CHECKLIST: HashedPage = {
  layout: 'checklist',
  title: 'Prüfung',
  note: null,
  rotation: 0,
  source_path: null,
  source_path_2: null,
  checklist: JSON.stringify([
    {
      id: 1,
      label: 'Druck',
      unit: 'bar',
      lower: 1,
      upper: 2,
      state: 'ok',
      value: 1.5,
      note: null,
      photos: ['commande/CO2611-0001/IMG_1.jpg'],
      checked_at: 1,
      checked_by: 2,
    },
  ]),
};
const FORM_1 = '8abdf87d21c12dd7e5a9800404a4347502b5b6e9c660861ea2a2eeb9bbc137a8';
const FORM_2 = '44c134c80370b95d5fc4436b2961e1b816d47906f70277345ae388e9e9e3777f';

const row = (fields: Partial<PhotoEvidenceRow>): PhotoEvidenceRow => ({
  rowid: 1,
  entity: 1,
  filepath: 'commande/CO1',
  filename: 'IMG_1.jpg',
  sha256: 'a'.repeat(64),
  size: 1234,
  exif_taken_at: '2026-11-24 09:12:33',
  exif_offset: '+01:00',
  exif_lat_e7: 481374278,
  exif_lon_e7: 115754889,
  device_taken_at: '2026-11-24T09:14:03.120+01:00',
  device_lat_e7: -338688000,
  device_lon_e7: -10,
  fk_user: 7,
  datec: '2026-11-24 08:15:00',
  ...fields,
});

describe("the signature hash's canonical form", () => {
  test('forms 1 and 2 are byte for byte what they were, with or without an evidence lookup that finds nothing for these bytes', async () => {
    assert.equal(await pagesHash('BR2611-0001', PAGES, digest), FORM_1);
    assert.equal(await pagesHash('BR2611-0001', [...PAGES, CHECKLIST], digest), FORM_2);
    // Evidence for other bytes (a file replaced outside the service), or for a missing image, does not count.
    const stale = (): HashedEvidence => ({ ...(hashedEvidence(row({ sha256: 'b'.repeat(64) })) as HashedEvidence) });
    assert.deepEqual(await pagesDigest('BR2611-0001', PAGES, digest, stale), { hash: FORM_1, form: 'fieldreport-pages/1' });
    assert.deepEqual(await pagesDigest('BR2611-0001', [...PAGES, CHECKLIST], digest, () => undefined), {
      hash: FORM_2,
      form: 'fieldreport-pages/2',
    });
    const { canonical } = await pagesCanonical('BR2611-0001', PAGES, digest, () => undefined);
    assert.doesNotMatch(canonical, /evidence/);
    assert.equal(sha(canonical), FORM_1);
  });

  test('form 3: every page gets evidence and evidence_2 (null where none), keys sorted, places as seven-decimal texts', async () => {
    const pages: HashedPage[] = [
      { layout: 'photo', title: 'Kessel', note: null, rotation: 0, source_path: 'commande/CO1/IMG_1.jpg', source_path_2: null },
      { layout: 'title_only', title: 'Ende', note: null, rotation: 0, source_path: null, source_path_2: null },
    ];
    const evidence = (relPath: string) => (relPath === 'commande/CO1/IMG_1.jpg' ? (hashedEvidence(row({})) as HashedEvidence) : undefined);
    const { canonical, form } = await pagesCanonical('BR2611-0002', pages, async () => 'a'.repeat(64), evidence);
    assert.equal(form, HASH_FORM_EVIDENCE);
    const a64 = 'a'.repeat(64);
    assert.equal(
      canonical,
      '{"form":"fieldreport-pages/3","pages":[' +
        '{"evidence":{"exif_gps_lat":"48.1374278","exif_gps_lon":"11.5754889","exif_offset":"+01:00","exif_taken_at":"2026-11-24 09:12:33",' +
        '"gps_lat":"-33.8688000","gps_lon":"-0.0000010","received_at":1795508100,' +
        `"sha256":"${a64}","size":1234,"taken_at_device":"2026-11-24T09:14:03.120+01:00"},` +
        `"evidence_2":null,"image":"${a64}","image_2":null,"layout":"photo","note":null,"position":1,"rotation":0,"title":"Kessel"},` +
        '{"evidence":null,"evidence_2":null,"image":null,"image_2":null,"layout":"title_only","note":null,"position":2,"rotation":0,"title":"Ende"}' +
        '],"report":"BR2611-0002"}',
    );
    const digested = await pagesDigest('BR2611-0002', pages, async () => 'a'.repeat(64), evidence);
    assert.deepEqual(digested, { hash: sha(canonical), form: HASH_FORM_EVIDENCE });
    // A field that changes changes the hash; a field the hash does not name (who uploaded it) does not.
    const other = (fields: Partial<PhotoEvidenceRow>) =>
      pagesDigest(
        'BR2611-0002',
        pages,
        async () => 'a'.repeat(64),
        () => hashedEvidence(row(fields)) as HashedEvidence,
      );
    for (const fields of [
      { device_taken_at: '2026-11-24T09:14:03.121+01:00' },
      { device_lat_e7: -338688001 },
      { exif_offset: null },
      { datec: '2026-11-24 08:15:01' },
      { size: 1235 },
    ]) {
      assert.notEqual((await other(fields)).hash, digested.hash, JSON.stringify(fields));
    }
    assert.equal((await other({ fk_user: 99, rowid: 5 })).hash, digested.hash);
  });

  test("form 3 keeps a checklist page's items as form 2 has them; the second image of a pair has its own evidence", async () => {
    const pair: HashedPage = {
      layout: 'before_after',
      title: null,
      note: null,
      rotation: 0,
      source_path: 'commande/CO1/v.jpg',
      source_path_2: 'commande/CO1/n.jpg',
    };
    const evidence = (relPath: string) =>
      relPath.endsWith('n.jpg')
        ? (hashedEvidence(row({ sha256: 'n'.repeat(64), exif_lat_e7: null, exif_lon_e7: null })) as HashedEvidence)
        : undefined;
    const images = async (relPath: string) => (relPath.endsWith('n.jpg') ? 'n'.repeat(64) : 'v'.repeat(64));
    const { canonical, form } = await pagesCanonical('BR1', [pair, CHECKLIST], images, evidence);
    assert.equal(form, 'fieldreport-pages/3');
    const parsed = JSON.parse(canonical) as { pages: Array<Record<string, unknown>> };
    assert.equal(parsed.pages[0]!.evidence, null);
    assert.deepEqual(parsed.pages[0]!.evidence_2, {
      exif_gps_lat: null,
      exif_gps_lon: null,
      exif_offset: '+01:00',
      exif_taken_at: '2026-11-24 09:12:33',
      gps_lat: '-33.8688000',
      gps_lon: '-0.0000010',
      received_at: 1795508100,
      sha256: 'n'.repeat(64),
      size: 1234,
      taken_at_device: '2026-11-24T09:14:03.120+01:00',
    });
    const formTwo = JSON.parse((await pagesCanonical('BR1', [pair, CHECKLIST], images)).canonical) as {
      pages: Array<Record<string, unknown>>;
    };
    assert.deepEqual(parsed.pages[1]!.checklist, formTwo.pages[1]!.checklist);
    assert.ok(Array.isArray(parsed.pages[1]!.checklist));
  });

  test('places as seven-decimal texts: signs, small values, the extremes', () => {
    assert.deepEqual(
      [
        e7Text(0),
        e7Text(1),
        e7Text(-1),
        e7Text(-10),
        e7Text(481374278),
        e7Text('-338688000'),
        e7Text(900000000),
        e7Text(-1800000000),
        e7Text(null),
      ],
      ['0.0000000', '0.0000001', '-0.0000001', '-0.0000010', '48.1374278', '-33.8688000', '90.0000000', '-180.0000000', null],
    );
  });
});
