/**
 * When and where a photo was taken: the EXIF GPS position read from real sharp-written EXIF blocks,
 * and the lines the PDF prints under a photo from the camera's EXIF and the phone's evidence
 * (photo-capture.ts), in German and English.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { parsePhotoExif, parseTakenWhere } from '../../src/adapters/exif.js';
import { wordsFor } from '../../src/adapters/pdf/words.js';
import type { PhotoEvidenceRow } from '../../src/modules/photo-evidence/photo-evidence.js';
import { formatPlace, metresApart, phoneTakenAt, photoCapture } from '../../src/modules/report-pdf/photo-capture.js';

const exifOf = async (exif: Record<string, Record<string, string>>) =>
  (
    await sharp(
      await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
        .jpeg()
        .withExif(exif)
        .toBuffer(),
    ).metadata()
  ).exif!;
const gps = (lat: string, latRef: string, lon: string, lonRef: string) => ({
  IFD3: { GPSLatitudeRef: latRef, GPSLatitude: lat, GPSLongitudeRef: lonRef, GPSLongitude: lon },
});

describe('EXIF GPS position', () => {
  test('degrees, minutes and seconds with their hemispheres', async () => {
    const north = parseTakenWhere(await exifOf(gps('48/1 8/1 1474/100', 'N', '11/1 34/1 3176/100', 'E')))!;
    assert.ok(Math.abs(north.lat - 48.1374278) < 1e-7 && Math.abs(north.lon - 11.5754889) < 1e-7, JSON.stringify(north));
    const south = parseTakenWhere(await exifOf(gps('33/1 52/1 768/100', 'S', '151/1 12/1 3348/100', 'W')))!;
    assert.ok(south.lat < -33.86 && south.lat > -33.87 && south.lon < -151.2 && south.lon > -151.21, JSON.stringify(south));
    // Decimal degrees in the first rational, as some phones write them.
    assert.deepEqual(parseTakenWhere(await exifOf(gps('4813743/100000 0/1 0/1', 'N', '1157549/100000 0/1 0/1', 'E'))), {
      lat: 48.13743,
      lon: 11.57549,
    });
  });

  test('none without a fix or with something malformed: 0, 0; no hemisphere; out of range; 60 minutes; a zero denominator', async () => {
    for (const [what, exif] of [
      ['0, 0 (no fix)', gps('0/1 0/1 0/1', 'N', '0/1 0/1 0/1', 'E')],
      ['no latitude ref', { IFD3: { GPSLatitude: '48/1 8/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '11/1 0/1 0/1' } }],
      ['latitude over 90', gps('91/1 0/1 0/1', 'N', '11/1 0/1 0/1', 'E')],
      ['longitude over 180', gps('48/1 0/1 0/1', 'N', '181/1 0/1 0/1', 'E')],
      ['60 minutes', gps('48/1 60/1 0/1', 'N', '11/1 0/1 0/1', 'E')],
      ['zero denominator', gps('48/0 8/1 0/1', 'N', '11/1 0/1 0/1', 'E')],
      ['no GPS at all', { IFD2: { DateTimeOriginal: '2026:11:24 09:12:33' } }],
    ] as const) {
      assert.equal(parseTakenWhere(await exifOf(exif as Record<string, Record<string, string>>)), null, what);
    }
  });

  test('time and place come from one read', async () => {
    const both = parsePhotoExif(
      await exifOf({ IFD2: { DateTimeOriginal: '2026:11:24 09:12:33' }, ...gps('48/1 0/1 0/1', 'N', '11/1 30/1 0/1', 'E') }),
    );
    assert.deepEqual(both, { takenAt: { local: '2026-11-24 09:12:33', offset: null }, where: { lat: 48, lon: 11.5 } });
    assert.deepEqual(parsePhotoExif(Buffer.from('not exif')), { takenAt: null, where: null });
  });
});

describe('the capture lines under a photo', () => {
  const de = wordsFor('de');
  const en = wordsFor('en');
  const evidence = (fields: Partial<PhotoEvidenceRow>): PhotoEvidenceRow => ({
    rowid: 1,
    entity: 1,
    filepath: 'commande/CO1',
    filename: 'a.jpg',
    sha256: 'a'.repeat(64),
    size: 1,
    exif_taken_at: null,
    exif_offset: null,
    exif_lat_e7: null,
    exif_lon_e7: null,
    device_taken_at: null,
    device_lat_e7: null,
    device_lon_e7: null,
    fk_user: null,
    datec: '2026-11-24 08:00:00',
    ...fields,
  });
  const camera = (local: string | null, offset: string | null = null, where: { lat: number; lon: number } | null = null) => ({
    takenAt: local ? { local, offset } : null,
    where,
  });

  test("the camera's time alone, as before; the phone's where the camera wrote none; both when more than five minutes apart", () => {
    assert.deepEqual(photoCapture(camera('2026-11-24 09:12:33'), undefined, 'de', de), {
      when: 'Aufgenommen 24.11.2026 09:12',
      where: null,
    });
    assert.deepEqual(photoCapture(camera(null), evidence({ device_taken_at: '2026-11-24T09:14:03.120+01:00' }), 'de', de), {
      when: 'Aufgenommen 24.11.2026 09:14 (UTC+01:00, laut Gerät)',
      where: null,
    });
    // Within five minutes (the camera's local time read at the phone's offset): the camera's alone.
    assert.deepEqual(
      photoCapture(camera('2026-11-24 09:12:33'), evidence({ device_taken_at: '2026-11-24T09:16:03+01:00' }), 'de', de)?.when,
      'Aufgenommen 24.11.2026 09:12',
    );
    assert.equal(
      photoCapture(camera('2026-11-24 09:12:33'), evidence({ device_taken_at: '2026-11-24T14:40:00+01:00' }), 'de', de)?.when,
      'Aufgenommen 24.11.2026 09:12 (Kamera), 24.11.2026 14:40 (UTC+01:00, Gerät)',
    );
    // The camera's own offset counts: 09:12 at +02:00 is 08:12 at +01:00, an hour before the phone's 09:12.
    assert.equal(
      photoCapture(camera('2026-11-24 09:12:33', '+02:00'), evidence({ device_taken_at: '2026-11-24T09:12:40+01:00' }), 'de', de)?.when,
      'Aufgenommen 24.11.2026 09:12 (UTC+02:00, Kamera), 24.11.2026 09:12 (UTC+01:00, Gerät)',
    );
    assert.equal(
      photoCapture(camera(null), evidence({ device_taken_at: '2026-11-24T08:14:03Z' }), 'en', en)?.when,
      'Taken 24 Nov 2026, 08:14 (UTC+00:00, by the device)',
    );
    assert.equal(photoCapture(camera(null), undefined, 'de', de), null);
  });

  test("the place as coordinates: the camera's, else the phone's; both when more than 100 m apart", () => {
    const phoneAt = (lat: number, lon: number) => evidence({ device_lat_e7: Math.round(lat * 1e7), device_lon_e7: Math.round(lon * 1e7) });
    assert.deepEqual(photoCapture(camera(null, null, { lat: 48.1374278, lon: 11.5754889 }), undefined, 'de', de), {
      when: null,
      where: 'Ort 48.13743, 11.57549',
    });
    assert.equal(photoCapture(camera(null), phoneAt(48.137433, 11.575494), 'de', de)?.where, 'Ort 48.13743, 11.57549');
    assert.equal(
      photoCapture(camera(null, null, { lat: 48.1374278, lon: 11.5754889 }), phoneAt(48.1375, 11.5755), 'de', de)?.where,
      'Ort 48.13743, 11.57549',
    );
    assert.equal(
      photoCapture(camera(null, null, { lat: 48.1374278, lon: 11.5754889 }), phoneAt(48.2, 11.6), 'en', en)?.where,
      'Place 48.13743, 11.57549 (camera), 48.20000, 11.60000 (device)',
    );
    assert.equal(photoCapture(camera(null), phoneAt(-33.8688, -151.2093), 'en', en)?.where, 'Place -33.86880, -151.20930');
    assert.equal(formatPlace({ lat: 0.000001, lon: -0.000001 }), '0.00000, -0.00000');
    assert.ok(Math.abs(metresApart({ lat: 48, lon: 11 }, { lat: 48.001, lon: 11 }) - 111.2) < 0.5);
  });

  test("the phone's time at the offset it sent", () => {
    assert.deepEqual(phoneTakenAt('2026-11-24T23:30:00-05:30'), {
      taken: { local: '2026-11-24 23:30:00', offset: '-05:30' },
      ms: Date.UTC(2026, 10, 25, 5, 0, 0),
    });
    assert.deepEqual(phoneTakenAt('2026-11-24T08:00:00z')?.taken, { local: '2026-11-24 08:00:00', offset: '+00:00' });
    assert.equal(phoneTakenAt('gestern'), undefined);
  });
});
