/**
 * preparePrintImage with real sharp: EXIF orientation applied, fitted inside 2000 px without
 * enlarging, JPEG without alpha, one cache entry per unchanged file, a new one when it changes,
 * IMAGE_INVALID for a file that is no image.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { forgetPrintImage, PRINT_IMAGE_MAX_SIDE, preparePrintImage, sweepPrintCache } from '../../src/adapters/print-image.js';
import { AppError } from '../../src/errors.js';

let dir: string;
let cache: string;

/** A 4000×3000 JPEG, left half red and right half blue, stored with EXIF orientation 6 (turn 90° clockwise to view). */
async function sidewaysPhoto(file: string): Promise<void> {
  const red = await sharp({ create: { width: 2000, height: 3000, channels: 3, background: '#d01010' } }).png().toBuffer();
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
  test('a sideways 12-megapixel photo comes out upright, inside 2000 px, as a JPEG without orientation tag', async () => {
    const source = path.join(dir, 'sideways.jpg');
    await sidewaysPhoto(source);
    const image = await preparePrintImage(source, cache);
    assert.deepEqual({ width: image.width, height: image.height }, { width: 1500, height: PRINT_IMAGE_MAX_SIDE });
    assert.equal(path.dirname(image.path), cache);
    const meta = await sharp(image.path).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.deepEqual([meta.width, meta.height], [1500, 2000]);
    assert.equal(meta.orientation, undefined);
    // Upright: the red left half of the stored image is now at the top.
    const [r1, , b1] = await pixel(image.path, 750, 100);
    const [r2, , b2] = await pixel(image.path, 750, 1900);
    assert.ok(r1 > 150 && b1 < 80, `top should be red, got ${r1},${b1}`);
    assert.ok(b2 > 150 && r2 < 80, `bottom should be blue, got ${r2},${b2}`);
  });

  test('a small PNG with transparency is not enlarged and is flattened onto white', async () => {
    const source = path.join(dir, 'clear.png');
    await sharp({ create: { width: 500, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toFile(source);
    const image = await preparePrintImage(source, cache);
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
    const [a, b] = await Promise.all([preparePrintImage(source, cache), preparePrintImage(source, cache)]);
    assert.deepEqual(a, b);
    // Reuse only touches the file (its time is its last use); a new copy would be a new file.
    const firstWrite = (await stat(a.path)).ino;
    const again = await preparePrintImage(source, cache);
    assert.deepEqual(again, a);
    assert.equal((await stat(again.path)).ino, firstWrite);
    assert.deepEqual((await readdir(cache)).filter((name) => name.endsWith('.tmp')), [], 'no temporary files left');
  });

  test('a changed source gets a new entry', async () => {
    const source = path.join(dir, 'changing.png');
    await sharp({ create: { width: 800, height: 600, channels: 3, background: '#00ff00' } }).png().toFile(source);
    const first = await preparePrintImage(source, cache);
    await sharp({ create: { width: 600, height: 800, channels: 3, background: '#0000ff' } }).png().toFile(source);
    const later = new Date(Date.now() + 5000);
    await utimes(source, later, later);
    const second = await preparePrintImage(source, cache);
    assert.notEqual(second.path, first.path);
    assert.deepEqual([second.width, second.height], [600, 800]);
  });

  test('a file that is no image is IMAGE_INVALID, and leaves nothing in the cache', async () => {
    const source = path.join(dir, 'broken.jpg');
    await writeFile(source, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('not really a JPEG')]));
    const before = await readdir(cache);
    await assert.rejects(preparePrintImage(source, cache), (error: unknown) => error instanceof AppError && error.code === 'IMAGE_INVALID');
    assert.deepEqual(await readdir(cache), before);
  });

  test('a missing source rejects with ENOENT', async () => {
    await assert.rejects(preparePrintImage(path.join(dir, 'gone.jpg'), cache), { code: 'ENOENT' });
  });

  test('forgetPrintImage removes the prepared copy of a photo, and nothing else', async () => {
    const keep = path.join(dir, 'keep.png');
    const gone = path.join(dir, 'gone.png');
    for (const file of [keep, gone]) await sharp({ create: { width: 120, height: 80, channels: 3, background: '#808080' } }).png().toFile(file);
    const kept = await preparePrintImage(keep, cache);
    const forgotten = await preparePrintImage(gone, cache);
    await forgetPrintImage(gone, cache);
    assert.equal(existsSync(forgotten.path), false);
    assert.equal(existsSync(kept.path), true);
    await forgetPrintImage(path.join(dir, 'never-there.png'), cache);
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
      assert.deepEqual([old, lru, recent, newest, other].map((f) => existsSync(f)), [false, false, true, true, true]);

      // Using a copy again makes it recent: made from a photo, aged, then prepared once more.
      const photo = path.join(dir, 'photo.jpg');
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#abc' } }).jpeg().toFile(photo);
      const made = await preparePrintImage(photo, dir);
      const aged = new Date(now - 60 * day);
      await utimes(made.path, aged, aged);
      await preparePrintImage(photo, dir);
      assert.ok(now - (await stat(made.path)).mtimeMs < day, 'reuse touched the copy');
      assert.equal((await sweepPrintCache(dir, { maxAgeDays: 30, now })).removed, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
