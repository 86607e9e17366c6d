/**
 * The report PDF's flow (src/adapters/pdf/flow.ts): blocks of known height placed on sheets before
 * drawing; and the EXIF capture time the captions print (src/adapters/exif.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { parseTakenAt } from '../../src/adapters/exif.js';
import { htmlToText } from '../../src/dolibarr/html.js';
import { paginate, type Block } from '../../src/adapters/pdf/flow.js';
import { GAP } from '../../src/adapters/pdf/kit.js';

const block = (name: string, height: number, extra: Partial<Block> = {}): Block & { name: string } => ({
  name,
  height,
  draw: () => undefined,
  ...extra,
});
const names = (sheets: ReturnType<typeof paginate>) => sheets.map((s) => s.blocks.map((p) => (p.block as Block & { name: string }).name));

describe('paginate', () => {
  test('blocks go on a sheet while they fit, GAP apart; the next sheet takes the rest', () => {
    const sheets = paginate([block('a', 40), block('b', 40), block('c', 40)], 100);
    assert.deepEqual(names(sheets), [['a', 'b'], ['c']]);
    assert.deepEqual(
      sheets[0]!.blocks.map((p) => p.y),
      [0, 40 + GAP],
    );
  });

  test('a heading keeps with what follows it: it is not left alone at the bottom of a sheet', () => {
    assert.deepEqual(names(paginate([block('a', 60), block('h', 10, { keepWithNext: true }), block('b', 40)], 100)), [['a'], ['h', 'b']]);
    // A chain of headings goes along too.
    assert.deepEqual(
      names(
        paginate([block('a', 50), block('h1', 5, { keepWithNext: true }), block('h2', 5, { keepWithNext: true }), block('b', 40)], 100),
      ),
      [['a'], ['h1', 'h2', 'b']],
    );
  });

  test('a sheet of its own: nothing before it on its sheet, nothing after it', () => {
    assert.deepEqual(names(paginate([block('a', 10), block('s', 100, { breakBefore: true, breakAfter: true }), block('b', 10)], 100)), [
      ['a'],
      ['s'],
      ['b'],
    ]);
  });

  test('a table goes on under its header on the next sheet', () => {
    const header = block('head', 10, { keepWithNext: true });
    const rows = Array.from({ length: 6 }, (_, i) => block(`r${i}`, 20, { repeatOnBreak: header }));
    assert.deepEqual(names(paginate([header, ...rows], 100)), [
      ['head', 'r0', 'r1', 'r2'],
      ['head', 'r3', 'r4', 'r5'],
    ]);
  });

  test('a sheet carries the notice of a block on it; a block taller than a sheet gets a whole one', () => {
    const sheets = paginate([block('a', 30), block('late', 30, { breakBefore: true, notice: 'not covered' }), block('huge', 500)], 100);
    assert.deepEqual(names(sheets), [['a'], ['late'], ['huge']]);
    assert.deepEqual(
      sheets.map((s) => s.notice),
      [null, 'not covered', null],
    );
  });
});

describe('parseTakenAt', () => {
  const withExif = (exif: Record<string, Record<string, string>>) =>
    sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
      .jpeg()
      .withExif(exif)
      .toBuffer();
  const exifOf = async (jpeg: Buffer) => (await sharp(jpeg).metadata()).exif!;

  test("DateTimeOriginal with its offset; DateTimeDigitized when there is no original; never the file's DateTime", async () => {
    assert.deepEqual(
      parseTakenAt(
        await exifOf(
          await withExif({
            IFD0: { DateTime: '2026:01:01 08:00:00' },
            IFD2: { DateTimeOriginal: '2026:11:24 09:12:33', OffsetTimeOriginal: '+01:00' },
          }),
        ),
      ),
      { local: '2026-11-24 09:12:33', offset: '+01:00' },
    );
    assert.deepEqual(parseTakenAt(await exifOf(await withExif({ IFD2: { DateTimeDigitized: '2026:03:02 07:00:00' } }))), {
      local: '2026-03-02 07:00:00',
      offset: null,
    });
    assert.equal(
      parseTakenAt(await exifOf(await withExif({ IFD0: { DateTime: '2026:01:01 08:00:00' } }))),
      null,
      'when the file was changed is no time taken',
    );
    assert.equal(parseTakenAt(await exifOf(await withExif({ IFD0: { Make: 'Kamera' } }))), null);
  });

  test('an offset no place uses (+99:99, beyond ±14:00, minutes of 60 or more, malformed) is dropped; the time stays, as without an offset', async () => {
    for (const offset of ['+99:99', '+14:30', '-15:00', '+01:60', '+1:00', '01:00', 'Z']) {
      assert.deepEqual(
        parseTakenAt(await exifOf(await withExif({ IFD2: { DateTimeOriginal: '2026:11:24 09:12:33', OffsetTimeOriginal: offset } }))),
        { local: '2026-11-24 09:12:33', offset: null },
        offset,
      );
    }
    for (const offset of ['+14:00', '-12:00', '+05:45', '-09:30', '+00:00', '-00:00']) {
      assert.deepEqual(
        parseTakenAt(await exifOf(await withExif({ IFD2: { DateTimeOriginal: '2026:11:24 09:12:33', OffsetTimeOriginal: offset } }))),
        { local: '2026-11-24 09:12:33', offset },
        offset,
      );
    }
  });

  test('a zero date, a malformed date and bytes that are no EXIF give nothing', async () => {
    assert.equal(parseTakenAt(await exifOf(await withExif({ IFD2: { DateTimeOriginal: '0000:00:00 00:00:00' } }))), null);
    assert.equal(parseTakenAt(await exifOf(await withExif({ IFD2: { DateTimeOriginal: 'gestern' } }))), null);
    for (const impossible of ['2024:13:45 10:00:00', '2024:02:30 10:00:00', '2024:00:10 10:00:00', '2024:05:05 24:00:00']) {
      assert.equal(parseTakenAt(await exifOf(await withExif({ IFD2: { DateTimeOriginal: impossible } }))), null, impossible);
    }
    assert.equal(parseTakenAt(Buffer.from('Exif\0\0XXXX')), null);
    assert.equal(parseTakenAt(Buffer.alloc(0)), null);
    // An IFD pointing past the end is read as far as it goes.
    const cut = await exifOf(await withExif({ IFD2: { DateTimeOriginal: '2026:11:24 09:12:33' } }));
    assert.doesNotThrow(() => parseTakenAt(cut.subarray(0, 30)));
  });
});

describe('htmlToText (a Dolibarr note as text)', () => {
  test('plain text stays as it is; markup becomes lines, entities characters', () => {
    assert.equal(htmlToText('  Wartung & Prüfung\nzweite Zeile '), 'Wartung & Prüfung\nzweite Zeile');
    assert.equal(
      htmlToText(
        '<p>Jährliche&nbsp;Wartung<br>Abgas&shy;messung</p><ul><li>Brenner</li><li>Zünd&amp;Ion</li></ul><p>&auml;&#246;&#xFC; &lt;ok&gt;</p>',
      ),
      'Jährliche Wartung\nAbgasmessung\n\n– Brenner\n– Zünd&Ion\n\näöü <ok>',
    );
    assert.equal(htmlToText('<script>alert(1)</script>Text'), 'Text');
  });
});
