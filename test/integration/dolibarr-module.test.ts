/**
 * The Dolibarr module in `dolibarr/bericht/` (copied into Dolibarr's `custom/` folder): its
 * descriptor is valid PHP, and the module number and rights it registers on activation are
 * exactly the service's (src/dolibarr/rights.ts). It runs with Debian's PHP against a stand-in for
 * Dolibarr's DolibarrModules base class; without PHP the test is skipped with the reason (.ci/run
 * installs php-cli).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MODULE_NUMBER, RIGHTS_MODULE, RIGHT_DEFINITIONS } from '../../src/dolibarr/rights.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DESCRIPTOR = path.join(ROOT, 'dolibarr/bericht/core/modules/modBericht.class.php');

const php = spawnSync('php', ['--version'], { encoding: 'utf8' });
const reason = php.status === 0 ? undefined : 'php is not installed (apt-get install php-cli; .ci/run does)';
if (reason) console.log(`# Dolibarr module tests skipped: ${reason}`);

(reason ? describe.skip : describe)('the Dolibarr module descriptor', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-dolibarr-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  test('passes php -l', () => {
    const lint = spawnSync('php', ['-l', DESCRIPTOR], { encoding: 'utf8' });
    assert.equal(lint.status, 0, `${lint.stdout}${lint.stderr}`);
    assert.match(lint.stdout, /No syntax errors detected/);
  });

  test("registers exactly the service's module number and rights", () => {
    // A stand-in for Dolibarr's base class: what the descriptor sets, and _init/_remove.
    mkdirSync(path.join(root, 'core/modules'), { recursive: true });
    writeFileSync(
      path.join(root, 'core/modules/DolibarrModules.class.php'),
      `<?php
#[\\AllowDynamicProperties]
class DolibarrModules {
  public $db; public $numero; public $rights_class; public $rights = array(); public $name;
  public function _init($sql, $options = '') { return 1; }
  public function _remove($sql, $options = '') { return 1; }
}
`,
    );
    const script = `
      define('DOL_DOCUMENT_ROOT', ${JSON.stringify(root)});
      error_reporting(E_ALL);
      require ${JSON.stringify(DESCRIPTOR)};
      $m = new modBericht(null);
      echo json_encode(array('numero' => $m->numero, 'rights_class' => $m->rights_class, 'name' => $m->name, 'const_name' => $m->const_name,
        'rights' => $m->rights, 'init' => $m->init(), 'remove' => $m->remove()), JSON_UNESCAPED_UNICODE);
    `;
    const run = spawnSync('php', ['-r', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '', 'no notice or warning');
    const module = JSON.parse(run.stdout) as {
      numero: number;
      rights_class: string;
      name: string;
      const_name: string;
      rights: unknown[][];
      init: number;
      remove: number;
    };
    assert.equal(module.numero, MODULE_NUMBER);
    assert.equal(module.rights_class, RIGHTS_MODULE);
    assert.equal(module.name, 'Bericht');
    assert.equal(module.const_name, 'MAIN_MODULE_BERICHT');
    assert.deepEqual(
      module.rights.map((r) => ({ id: r[0], label: r[1], type: r[2], bydefault: r[3], perms: r[4], subperms: r[5] })),
      RIGHT_DEFINITIONS.map((d) => ({ id: d.id, label: d.label, type: d.type, bydefault: 0, perms: d.right, subperms: '' })),
    );
    assert.deepEqual([module.init, module.remove], [1, 1]);
  });
});
