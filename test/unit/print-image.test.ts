/**
 * preparePrintImage with real sharp: EXIF orientation applied, scaled to 150 dpi across the page's
 * image box without enlarging, JPEG without alpha within its size budget, one cache entry per
 * unchanged file and box, a new one when it changes, IMAGE_INVALID for a file that is no image;
 * the background queue that makes copies ahead.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { largestImageBox } from '../../src/adapters/pdf.js';
import {
  createPrintQueue,
  forgetPrintImage,
  PRINT_BITS_PER_PIXEL,
  PRINT_DPI,
  PRINT_QUALITIES,
  preparePrintImage,
  printSize,
  sweepPrintCache,
} from '../../src/adapters/print-image.js';
import { AppError } from '../../src/errors.js';

let dir: string;
let cache: string;
/** The image box of a photo page on A4 portrait: 190 × 251 mm. */
const A4 = largestImageBox('A4', 'portrait', 'photo');
const MM = 72 / 25.4;

/** A 4000×3000 JPEG, left half red and right half blue, stored with EXIF orientation 6 (turn 90° clockwise to view). */
async function sidewaysPhoto(file: string): Promise<void> {
  const red = await sharp({ create: { width: 2000, height: 3000, channels: 3, background: '#d01010' } })
    .png()
    .toBuffer();
  await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#1030d0' } })
    .composite([{ input: red, left: 0, top: 0 }])
    .jpeg({ quality: 85 })
    .withMetadata({ orientation: 6 })
    .toFile(file);
}

/** RGB of one pixel. */
async function pixel(file: string, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at]!, data[at + 1]!, data[at + 2]!];
}

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-print-'));
  cache = path.join(dir, 'cache');
});
after(() => rm(dir, { recursive: true, force: true }));

describe('preparePrintImage', () => {
  test('the page boxes: 190 × 251 mm on A4 portrait, a column of 92 mm beside a 6 mm gutter, sides swapped by a quarter turn', () => {
    assert.deepEqual(
      [A4.width / MM, A4.height / MM].map((v) => Math.round(v * 10) / 10),
      [190, 251],
    );
    const column = largestImageBox('A4', 'portrait', 'before_after');
    assert.deepEqual(
      [column.width / MM, column.height / MM].map((v) => Math.round(v * 10) / 10),
      [92, 251],
    );
    const turned = largestImageBox('A4', 'landscape', 'photo', 90);
    assert.deepEqual(
      [turned.width / MM, turned.height / MM].map((v) => Math.round(v * 10) / 10),
      [164, 277],
    );
  });

  test('printSize fills the box at 150 dpi and never enlarges', () => {
    // 251 mm at 150 dpi = 1482 px high; the 3:4 photo is then 1112 px wide (inside 190 mm = 1122 px).
    assert.deepEqual(printSize(3000, 4000, A4), { width: 1112, height: 1482 });
    assert.deepEqual(printSize(4000, 3000, A4), { width: 1122, height: 842 });
    assert.deepEqual(printSize(400, 300, A4), { width: 400, height: 300 });
    assert.deepEqual(printSize(3000, 4000, A4, 300), { width: 2223, height: 2965 });
    assert.equal(PRINT_DPI, 150);
  });

  test('a sideways 12-megapixel photo comes out upright, at 150 dpi across an A4 page, as a JPEG without orientation tag', async () => {
    const source = path.join(dir, 'sideways.jpg');
    await sidewaysPhoto(source);
    const image = await preparePrintImage(source, cache, A4);
    assert.deepEqual({ width: image.width, height: image.height }, { width: 1112, height: 1482 });
    assert.equal(path.dirname(image.path), cache);
    const meta = await sharp(image.path).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.deepEqual([meta.width, meta.height], [1112, 1482]);
    assert.equal(meta.orientation, undefined);
    assert.equal(meta.chromaSubsampling, '4:2:0');
    // Upright: the red left half of the stored image is now at the top.
    const [r1, , b1] = await pixel(image.path, 556, 100);
    const [r2, , b2] = await pixel(image.path, 556, 1400);
    assert.ok(r1 > 150 && b1 < 80, `top should be red, got ${r1},${b1}`);
    assert.ok(b2 > 150 && r2 < 80, `bottom should be blue, got ${r2},${b2}`);
  });

  test('a JPEG whose name has brackets is read as itself when decoded at a reduced size', async () => {
    const source = path.join(dir, 'Foto [1] (links).jpg');
    await sidewaysPhoto(source);
    const image = await preparePrintImage(source, cache, A4);
    assert.deepEqual([image.width, image.height], [1112, 1482]);
    const [r, , b] = await pixel(image.path, 556, 100);
    assert.ok(r > 150 && b < 80, `top should be red, got ${r},${b}`);
  });

  test('a small PNG with transparency is not enlarged and is flattened onto white', async () => {
    const source = path.join(dir, 'clear.png');
    await sharp({ create: { width: 500, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toFile(source);
    const image = await preparePrintImage(source, cache, A4);
    assert.deepEqual([image.width, image.height], [500, 300]);
    const meta = await sharp(image.path).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.equal(meta.hasAlpha, false);
    const [r, g, b] = await pixel(image.path, 10, 10);
    assert.ok(r > 245 && g > 245 && b > 245, `expected white, got ${r},${g},${b}`);
  });

  test('a second call reuses the prepared file; concurrent calls share one result', async () => {
    const source = path.join(dir, 'again.jpg');
    await sidewaysPhoto(source);
    const [a, b] = await Promise.all([preparePrintImage(source, cache, A4), preparePrintImage(source, cache, A4)]);
    assert.deepEqual(a, b);
    // Reuse only touches the file (its time is its last use); a new copy would be a new file.
    const firstWrite = (await stat(a.path)).ino;
    const again = await preparePrintImage(source, cache, A4);
    assert.deepEqual(again, a);
    assert.equal((await stat(again.path)).ino, firstWrite);
    assert.deepEqual(
      (await readdir(cache)).filter((name) => name.endsWith('.tmp')),
      [],
      'no temporary files left',
    );
  });

  test('a changed source gets a new entry', async () => {
    const source = path.join(dir, 'changing.png');
    await sharp({ create: { width: 800, height: 600, channels: 3, background: '#00ff00' } })
      .png()
      .toFile(source);
    const first = await preparePrintImage(source, cache, A4);
    await sharp({ create: { width: 600, height: 800, channels: 3, background: '#0000ff' } })
      .png()
      .toFile(source);
    const later = new Date(Date.now() + 5000);
    await utimes(source, later, later);
    const second = await preparePrintImage(source, cache, A4);
    assert.notEqual(second.path, first.path);
    assert.deepEqual([second.width, second.height], [600, 800]);
  });

  test('a file that is no image is IMAGE_INVALID, and leaves nothing in the cache', async () => {
    const source = path.join(dir, 'broken.jpg');
    await writeFile(source, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('not really a JPEG')]));
    const before = await readdir(cache);
    await assert.rejects(
      preparePrintImage(source, cache, A4),
      (error: unknown) => error instanceof AppError && error.code === 'IMAGE_INVALID',
    );
    assert.deepEqual(await readdir(cache), before);
  });

  test('a missing source rejects with ENOENT', async () => {
    await assert.rejects(preparePrintImage(path.join(dir, 'gone.jpg'), cache, A4), { code: 'ENOENT' });
  });

  test('each box has its own copy: a before/after column gets a smaller one', async () => {
    const source = path.join(dir, 'boxes.jpg');
    await sidewaysPhoto(source);
    const page = await preparePrintImage(source, cache, A4);
    const column = await preparePrintImage(source, cache, largestImageBox('A4', 'portrait', 'before_after'));
    assert.notEqual(column.path, page.path);
    // 92 mm at 150 dpi = 543 px wide.
    assert.deepEqual([column.width, column.height], [543, 724]);
    assert.ok(existsSync(page.path) && existsSync(column.path));
  });

  test('a copy for a smaller box is made from a larger copy of the same photo, not from the original', async () => {
    const source = path.join(dir, 'derived.jpg');
    await sidewaysPhoto(source);
    const page = await preparePrintImage(source, cache, A4);
    // The larger copy made recognisable: what is derived from it is green all over.
    await sharp({ create: { width: page.width, height: page.height, channels: 3, background: '#00c000' } })
      .jpeg()
      .toFile(`${page.path}.new`);
    await rename(`${page.path}.new`, page.path);
    const small = await preparePrintImage(source, cache, { width: A4.width / 3, height: A4.height / 3 });
    const [r, g, b] = await pixel(small.path, Math.floor(small.width / 2), Math.floor(small.height / 2));
    assert.ok(g > 150 && r < 60 && b < 60, `derived from the larger copy: rgb(${r}, ${g}, ${b})`);
    // A copy for a box larger than any made is made from the original.
    const twice = await preparePrintImage(source, cache, { width: A4.width * 1.2, height: A4.height * 1.2 });
    const [r2, g2] = await pixel(twice.path, Math.floor(twice.width / 2), Math.floor(twice.height / 4));
    assert.ok(!(g2 > 150 && r2 < 60), `from the original: rgb(${r2}, ${g2})`);
  });

  test('the quality is the highest that keeps the copy within its budget: high for a plain photo, lower for a grainy one', async () => {
    const box = { width: 100 * MM, height: 100 * MM }; // 591 px at 150 dpi
    const encodings = async (file: string, width: number, height: number) =>
      Promise.all(
        PRINT_QUALITIES.map(
          async (quality) =>
            (
              await sharp(file)
                .rotate()
                .resize(width, height, { fit: 'fill' })
                .flatten({ background: '#ffffff' })
                .jpeg({ quality, mozjpeg: true, quantisationTable: 2, chromaSubsampling: '4:2:0' })
                .toBuffer()
            ).length,
        ),
      );
    const chosen = async (file: string) => {
      const copy = await preparePrintImage(file, cache, box);
      const sizes = await encodings(file, copy.width, copy.height);
      const budget = (copy.width * copy.height * PRINT_BITS_PER_PIXEL) / 8;
      const expected = sizes.findIndex((size) => size <= budget);
      return { bytes: (await stat(copy.path)).size, sizes, budget, expected: expected === -1 ? sizes.length - 1 : expected };
    };
    // Gaussian grain at print size, as a phone at high ISO: the hardest case for JPEG.
    const grain = path.join(dir, 'grain.png');
    await sharp({
      create: { width: 560, height: 420, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 12 } },
    })
      .png()
      .toFile(grain);
    const plain = path.join(dir, 'plain.png');
    await sharp({ create: { width: 560, height: 420, channels: 3, background: '#3070a0' } })
      .png()
      .toFile(plain);
    const grainy = await chosen(grain);
    const clean = await chosen(plain);
    assert.equal(clean.expected, 0, `a plain picture keeps quality ${PRINT_QUALITIES[0]}`);
    assert.equal(clean.bytes, clean.sizes[0]);
    assert.ok(grainy.expected > 0, `grain needs a lower quality (sizes ${grainy.sizes.join(', ')}, budget ${Math.round(grainy.budget)})`);
    assert.equal(grainy.bytes, grainy.sizes[grainy.expected], `quality ${PRINT_QUALITIES[grainy.expected]} expected`);
  });

  test('forgetPrintImage removes the prepared copy of a photo, and nothing else', async () => {
    const keep = path.join(dir, 'keep.png');
    const gone = path.join(dir, 'gone.png');
    for (const file of [keep, gone])
      await sharp({ create: { width: 120, height: 80, channels: 3, background: '#808080' } })
        .png()
        .toFile(file);
    const kept = await preparePrintImage(keep, cache, A4);
    const forgotten = await preparePrintImage(gone, cache, A4);
    const forgottenSmall = await preparePrintImage(gone, cache, { width: 40, height: 40 });
    await forgetPrintImage(gone, cache);
    assert.equal(existsSync(forgotten.path), false);
    assert.equal(existsSync(forgottenSmall.path), false, 'every box of the photo goes');
    assert.equal(existsSync(kept.path), true);
    await forgetPrintImage(path.join(dir, 'never-there.png'), cache);
  });
});

describe('createPrintQueue', () => {
  test('makes the copies in the background, once per photo and box, and goes idle', async () => {
    const queueDir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-print-queue-'));
    const errors: unknown[] = [];
    const queue = createPrintQueue(path.join(queueDir, 'cache'), { onError: (_source, error) => errors.push(error) });
    try {
      const photos = [];
      for (let i = 0; i < 3; i++) {
        const photo = path.join(queueDir, `p${i}.jpg`);
        await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#a0b0c0' } })
          .jpeg()
          .toFile(photo);
        photos.push(photo);
      }
      for (const photo of photos) {
        queue.add(photo, A4);
        queue.add(photo, A4); // the same again waits once
      }
      const broken = path.join(queueDir, 'broken.jpg');
      await writeFile(broken, 'no image');
      queue.add(broken, A4);
      queue.add(path.join(queueDir, 'deleted-meanwhile.jpg'), A4);
      assert.deepEqual(await readdir(path.join(queueDir, 'cache')).catch(() => []), [], 'nothing is made before the caller goes on');
      await queue.idle();
      const made = (await readdir(path.join(queueDir, 'cache'))).filter((n) => n.endsWith('.jpg'));
      assert.equal(made.length, 3);
      assert.ok(
        made.every((n) => /^[0-9a-f]{64}-1122x842\.jpg$/.test(n)),
        made.join(', '),
      );
      // The unreadable photo is reported; the deleted one is no error.
      assert.equal(errors.length, 1);
      assert.ok(errors[0] instanceof AppError && errors[0].code === 'IMAGE_INVALID');
    } finally {
      await queue.close();
      await rm(queueDir, { recursive: true, force: true });
    }
  });

  test('a full queue drops what does not fit; close drops what waits and waits for the copy being made', async () => {
    const queueDir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-print-queue-'));
    const queue = createPrintQueue(path.join(queueDir, 'cache'), { maxWaiting: 2, concurrency: 1 });
    try {
      const photos = [];
      for (let i = 0; i < 4; i++) {
        const photo = path.join(queueDir, `p${i}.jpg`);
        await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#405060' } })
          .jpeg()
          .toFile(photo);
        photos.push(photo);
      }
      for (const photo of photos) queue.add(photo, A4); // the third and fourth find the queue full
      await queue.idle();
      assert.equal((await readdir(path.join(queueDir, 'cache'))).length, 2);

      for (const photo of photos) queue.add(photo, { width: 200, height: 200 });
      await new Promise((resolve) => setImmediate(resolve)); // the first starts
      await queue.close();
      const after = (await readdir(path.join(queueDir, 'cache'))).length;
      assert.equal(after, 3, 'the copy being made is finished, the one waiting is dropped');
      queue.add(photos[3]!, A4);
      await queue.idle();
      assert.equal((await readdir(path.join(queueDir, 'cache'))).length, after, 'a closed queue takes nothing');
    } finally {
      await queue.close();
      await rm(queueDir, { recursive: true, force: true });
    }
  });
});

describe('sweepPrintCache', () => {
  test('removes copies unused for the age limit, then the ones unused longest beyond the size limit; a reused copy counts as used', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-print-sweep-'));
    try {
      const day = 86_400_000;
      const now = Date.now();
      const copy = async (n: number, ageDays: number, bytes: number) => {
        const file = path.join(dir, `${String(n).repeat(64).slice(0, 64)}.jpg`);
        await writeFile(file, Buffer.alloc(bytes));
        const at = new Date(now - ageDays * day);
        await utimes(file, at, at);
        return file;
      };
      const old = await copy(1, 40, 10);
      const lru = await copy(2, 5, 600);
      const recent = await copy(3, 1, 600);
      const newest = await copy(4, 0, 300);
      const other = path.join(dir, 'notes.txt');
      await writeFile(other, 'x');
      const result = await sweepPrintCache(dir, { maxAgeDays: 30, maxBytes: 1000, now });
      assert.deepEqual(result, { removed: 2, kept: 2, bytes: 900 });
      assert.deepEqual(
        [old, lru, recent, newest, other].map((f) => existsSync(f)),
        [false, false, true, true, true],
      );

      // Using a copy again makes it recent: made from a photo, aged, then prepared once more.
      const photo = path.join(dir, 'photo.jpg');
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#abc' } })
        .jpeg()
        .toFile(photo);
      const made = await preparePrintImage(photo, dir, A4);
      const aged = new Date(now - 60 * day);
      await utimes(made.path, aged, aged);
      await preparePrintImage(photo, dir, A4);
      assert.ok(now - (await stat(made.path)).mtimeMs < day, 'reuse touched the copy');
      assert.equal((await sweepPrintCache(dir, { maxAgeDays: 30, now })).removed, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
