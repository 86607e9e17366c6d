import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDigestCache } from '../../src/modules/signatures/fingerprint.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the file hashes a signature check remembers', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-digest-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  test('a file just written is hashed every time; one left alone is hashed once; a change is hashed afresh; a missing file rejects', async () => {
    const cache = createDigestCache(10);
    const fresh = path.join(dir, 'fresh.jpg');
    await writeFile(fresh, 'eins');
    assert.equal(await cache.sha256(fresh), sha('eins'));
    assert.equal(await cache.sha256(fresh), sha('eins'));
    assert.equal(cache.hashes, 2, 'changed within the settling time: not remembered');
    // Left alone past the settling time (2 s; a file's change time cannot be set back).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    assert.equal(await cache.sha256(fresh), sha('eins'));
    assert.equal(await cache.sha256(fresh), sha('eins'));
    assert.equal(cache.hashes, 3, 'read once more, then remembered');
    await writeFile(fresh, 'zwei');
    assert.equal(await cache.sha256(fresh), sha('zwei'));
    assert.equal(cache.hashes, 4);
    await assert.rejects(cache.sha256(path.join(dir, 'missing.jpg')), { code: 'ENOENT' });
  });
});
