/**
 * The warning at start when the process is not the owner of Dolibarr's documents folder (its web
 * server could not write into the folders the service makes there).
 */
import assert from 'node:assert/strict';
import { chownSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { documentsOwnerWarning } from '../../src/documents-owner.js';

test('the owner of the documents folder is not warned; another user is, with both ids; a missing folder says nothing', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-owner-'));
  try {
    const owner = statSync(dir).uid;
    assert.equal(documentsOwnerWarning(dir, owner), null);
    const warning = documentsOwnerWarning(dir, owner + 1);
    assert.match(warning ?? '', new RegExp(`belongs to user ${owner}, this process runs as user ${owner + 1}`));
    assert.match(warning ?? '', /run the service as the owner of the documents folder/);
    assert.equal(documentsOwnerWarning(path.join(dir, 'missing'), owner + 1), null);
    assert.equal(documentsOwnerWarning(dir, undefined), null);
    if (process.getuid?.() === 0) {
      // As root, with a folder of the web server's user (www-data is 33 on Debian): warned.
      chownSync(dir, 33, 33);
      assert.match(documentsOwnerWarning(dir) ?? '', /belongs to user 33, this process runs as user 0/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
