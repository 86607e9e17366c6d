/**
 * The copies a signature keeps (kept-copies.ts) on a real file system: the hash handed back is the
 * copy's, an original written to while it is copied is refused (a torn copy is never signed), an
 * earlier signature's copy with the same bytes is hard-linked instead of copied again, and a file
 * already under the copy's name (two source paths naming one copy, as on a case-insensitive file
 * system) is never overwritten with other bytes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { keepCopies, keptCopyPath, keptFolderOf } from '../../src/modules/reports/kept-copies.js';
import { fileSha256 } from '../../src/modules/signatures/signature-hash.js';

describe('the copies a signature keeps', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-kept-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  /** A data root with the order's photo `commande/CO1/<name>` holding `bytes`. */
  function setup(name: string, bytes: Buffer) {
    const dataRoot = path.join(root, String(++n));
    mkdirSync(path.join(dataRoot, 'commande/CO1'), { recursive: true });
    mkdirSync(path.join(dataRoot, 'bericht/BR1'), { recursive: true });
    writeFileSync(path.join(dataRoot, 'commande/CO1', name), bytes);
    return dataRoot;
  }
  const signature = (k: number) => `bericht/BR1/unterschrift_${k}.png`;

  test("hands back the copy's real path and hash; the copy holds the original's bytes", async () => {
    const bytes = randomBytes(50_000);
    const dataRoot = setup('a.jpg', bytes);
    const copies = await keepCopies(dataRoot, 1, 'BR1', signature(1), ['commande/CO1/a.jpg', 'bericht/BR1/own.jpg']);
    const copy = copies.get('commande/CO1/a.jpg')!;
    assert.equal(copy.path, path.join(dataRoot, keptCopyPath(signature(1), 'commande/CO1/a.jpg')));
    assert.deepEqual(readFileSync(copy.path), bytes);
    assert.equal(copy.sha256, await fileSha256(path.join(dataRoot, 'commande/CO1/a.jpg')));
    assert.equal(copies.has('bericht/BR1/own.jpg'), false, "the report's own files need no copy");
  });

  test('an original written to while it is copied is refused, and no half copy is left under a name', async () => {
    const size = 48 * 1024 * 1024;
    const dataRoot = setup('big.jpg', Buffer.alloc(size, 1));
    const file = path.join(dataRoot, 'commande/CO1/big.jpg');
    const handle = await open(file, 'r+');
    let writing = true;
    // Dolibarr's image tools (or anything) rewriting the photo in place, over and over.
    const writer = (async () => {
      let i = 0;
      while (writing) await handle.write(Buffer.alloc(65536, i++ % 250), 0, 65536, (i * 65536) % (size - 65536));
    })();
    try {
      await assert.rejects(
        keepCopies(dataRoot, 1, 'BR1', signature(1), ['commande/CO1/big.jpg']),
        (error: { code?: string }) => error.code === 'REPORT_SOURCE_CHANGED',
      );
    } finally {
      writing = false;
      await writer;
      await handle.close();
    }
    const folder = path.join(dataRoot, keptFolderOf(signature(1)), 'commande/CO1');
    assert.deepEqual(readdirSync(folder), [], 'neither the copy nor its temporary file');
  });

  test("an earlier signature's copy with the same bytes is hard-linked; one with other bytes is not", async () => {
    const bytes = randomBytes(20_000);
    const dataRoot = setup('a.jpg', bytes);
    const first = await keepCopies(dataRoot, 1, 'BR1', signature(1), ['commande/CO1/a.jpg']);
    const earlier = new Map([['commande/CO1/a.jpg', [keptCopyPath(signature(1), 'commande/CO1/a.jpg')]]]);
    const second = await keepCopies(dataRoot, 1, 'BR1', signature(2), ['commande/CO1/a.jpg'], earlier);
    assert.equal(statSync(second.get('commande/CO1/a.jpg')!.path).ino, statSync(first.get('commande/CO1/a.jpg')!.path).ino);
    assert.equal(second.get('commande/CO1/a.jpg')!.sha256, first.get('commande/CO1/a.jpg')!.sha256);
    // The photo was replaced since (same size, other bytes): the third signature keeps the new bytes.
    const other = randomBytes(20_000);
    writeFileSync(path.join(dataRoot, 'commande/CO1/a.jpg'), other);
    const third = await keepCopies(dataRoot, 1, 'BR1', signature(3), ['commande/CO1/a.jpg'], earlier);
    assert.notEqual(statSync(third.get('commande/CO1/a.jpg')!.path).ino, statSync(first.get('commande/CO1/a.jpg')!.path).ino);
    assert.deepEqual(readFileSync(third.get('commande/CO1/a.jpg')!.path), other);
    assert.deepEqual(readFileSync(first.get('commande/CO1/a.jpg')!.path), bytes, "the first signature's copy is untouched");
    // The photo is gone: the earlier copy is what there is.
    rmSync(path.join(dataRoot, 'commande/CO1/a.jpg'));
    const fourth = await keepCopies(dataRoot, 1, 'BR1', signature(4), ['commande/CO1/a.jpg'], earlier);
    assert.deepEqual(readFileSync(fourth.get('commande/CO1/a.jpg')!.path), bytes);
    assert.equal(fourth.get('commande/CO1/a.jpg')!.sha256, first.get('commande/CO1/a.jpg')!.sha256);
  });

  test("a file already under the copy's name is kept when it holds the same bytes and never overwritten with others", async () => {
    const bytes = randomBytes(10_000);
    const dataRoot = setup('a.jpg', bytes);
    const target = path.join(dataRoot, keptCopyPath(signature(1), 'commande/CO1/a.jpg'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, bytes);
    const same = await keepCopies(dataRoot, 1, 'BR1', signature(1), ['commande/CO1/a.jpg']);
    assert.deepEqual(readFileSync(same.get('commande/CO1/a.jpg')!.path), bytes);
    const taken = path.join(dataRoot, keptCopyPath(signature(2), 'commande/CO1/a.jpg'));
    mkdirSync(path.dirname(taken), { recursive: true });
    writeFileSync(taken, 'another photo of the same name');
    await assert.rejects(
      keepCopies(dataRoot, 1, 'BR1', signature(2), ['commande/CO1/a.jpg']),
      (error: { code?: string }) => error.code === 'REPORT_SOURCE_CHANGED',
    );
    assert.equal(readFileSync(taken, 'utf8'), 'another photo of the same name');
    assert.deepEqual(readdirSync(path.dirname(taken)), ['a.jpg'], 'no temporary file left');
  });
});
