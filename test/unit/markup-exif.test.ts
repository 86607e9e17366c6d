/**
 * The EXIF block of a photo marked up on the phone (web/src/lib/photos/exif.ts, withMarkupExif): a JPEG
 * that libvips opens and keeps the block of; the original named in ImageDescription (ASCII, umlauts
 * spelt out) and exactly, any name, in the UserComment; Software `fieldreport`; the original's capture
 * time and its offset as the service reads them for the PDF; no orientation tag.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { parseTakenAt } from '../../src/adapters/exif.js';
import { asciiOnly, readCaptureOffset, readCaptureTime, readMarkupSource, withMarkupExif } from '../../web/src/lib/photos/exif.js';
import { asciiTag, exifTags, userComment } from '../helpers/exif-tags.js';

const plain = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
const arrayBuffer = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
async function marked(source: string, facts: { taken?: string; offset?: string } = {}): Promise<Buffer> {
  return Buffer.from(await withMarkupExif(arrayBuffer(await plain()), { source, ...facts }).arrayBuffer());
}

test('names the original, keeps its capture time and offset, says which software, and has no orientation', async () => {
  const name = 'Zählerschrank Straße 5.jpg';
  const jpeg = await marked(name, { taken: '2026:11:20 09:15:00', offset: '+01:00' });
  const meta = await sharp(jpeg).metadata();
  assert.equal(meta.format, 'jpeg');
  assert.deepEqual([meta.width, meta.height], [64, 48]);
  assert.equal(meta.orientation, undefined);
  const tags = exifTags(meta.exif!);
  assert.equal(asciiTag(tags.ifd0.get(0x010e)), 'Markiert aus Zaehlerschrank Strasse 5.jpg');
  assert.equal(asciiTag(tags.ifd0.get(0x0131)), 'fieldreport');
  assert.equal(tags.ifd0.get(0x0112), undefined, 'no orientation tag');
  assert.equal(asciiTag(tags.exif.get(0x9003)), '2026:11:20 09:15:00');
  assert.equal(userComment(tags, meta.exif!), `Markiert aus ${name}`);
  // As the service reads it for the PDF's caption.
  assert.deepEqual(parseTakenAt(meta.exif!), { local: '2026-11-20 09:15:00', offset: '+01:00' });
  // And as the app reads it (a marked photo marked again keeps the first capture time).
  assert.equal(readMarkupSource(arrayBuffer(jpeg)), name);
  assert.equal(readCaptureTime(arrayBuffer(jpeg)), '2026:11:20 09:15:00');
  assert.equal(readCaptureOffset(arrayBuffer(jpeg)), '+01:00');
});

test('any name comes back exactly from the UserComment, also after libvips re-encodes the photo with its EXIF', async () => {
  for (const name of ['Keller_Nord.jpg', 'Ölfleck – Décor №3 😀.jpeg', 'x', 'Schaden "A" 100 % / 2.JPG', 'Фото_7.jpg']) {
    const jpeg = await marked(name);
    const again = await sharp(jpeg).keepExif().jpeg().toBuffer();
    for (const bytes of [jpeg, again]) {
      const meta = await sharp(bytes).metadata();
      assert.ok(meta.exif, `${name}: an EXIF block`);
      const tags = exifTags(meta.exif);
      assert.equal(userComment(tags, meta.exif), `Markiert aus ${name}`, name);
      assert.equal(asciiTag(tags.ifd0.get(0x010e)), `Markiert aus ${asciiOnly(name)}`, name);
      assert.match(asciiTag(tags.ifd0.get(0x010e))!, /^[\x20-\x7e]+$/);
      assert.equal(readMarkupSource(arrayBuffer(bytes)), name);
    }
  }
});

test('without a capture time of the original, none is made up', async () => {
  const jpeg = await marked('ohne-zeit.jpg');
  const meta = await sharp(jpeg).metadata();
  const tags = exifTags(meta.exif!);
  assert.equal(tags.exif.get(0x9003), undefined);
  assert.equal(tags.ifd0.get(0x0132), undefined);
  assert.equal(parseTakenAt(meta.exif!), null);
  assert.equal(readCaptureTime(arrayBuffer(jpeg)), undefined);
});
