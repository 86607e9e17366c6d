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
import { INTERNAL_CONTACT_TYPES } from '../../src/db/migrations/0019-standalone-assigned-work.js';
import { MODULE_NUMBER, RIGHTS_MODULE, RIGHT_DEFINITIONS } from '../../src/dolibarr/rights.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DESCRIPTOR = path.join(ROOT, 'dolibarr/bericht/core/modules/modBericht.class.php');

const php = spawnSync('php', ['--version'], { encoding: 'utf8' });
const reason = php.status === 0 ? undefined : 'php is not installed (apt-get install php-cli; .ci/run does)';
if (reason) console.log(`# Dolibarr module tests skipped: ${reason}`);

(reason ? describe.skip : describe)('the Dolibarr module descriptor', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-dolibarr-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A stand-in for Dolibarr's base class: what the descriptor sets, and _init/_remove. */
  function baseClass() {
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
  }

  test('passes php -l', () => {
    const lint = spawnSync('php', ['-l', DESCRIPTOR], { encoding: 'utf8' });
    assert.equal(lint.status, 0, `${lint.stdout}${lint.stderr}`);
    assert.match(lint.stdout, /No syntax errors detected/);
  });

  test("registers exactly the service's module number and rights", () => {
    baseClass();
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

  test('activation adds the TECHNICIAN contact type for orders once, at the next free rowid, as the standalone schema has it', () => {
    baseClass();
    // Dolibarr's DoliDB as far as the descriptor uses it, on an SQLite table shaped like llx_c_type_contact.
    const script = `
      define('DOL_DOCUMENT_ROOT', ${JSON.stringify(root)});
      define('MAIN_DB_PREFIX', 'llx_');
      error_reporting(E_ALL);
      class Db {
        public $pdo;
        public function __construct() {
          $this->pdo = new PDO('sqlite::memory:');
          $this->pdo->exec("create table llx_c_type_contact (rowid integer primary key, element varchar(64) not null, source varchar(8) not null default 'external', code varchar(32) not null, libelle varchar(128) not null, active tinyint not null default 1, module varchar(32), position integer not null default 0, unique (element, source, code))");
          $this->pdo->exec("insert into llx_c_type_contact (rowid, element, source, code, libelle) values (91, 'commande', 'internal', 'SALESREPFOLL', 'Responsable suivi de la commande'), (102, 'commande', 'external', 'SHIPPING', 'Customer shipping contact')");
        }
        public function query($sql) { return $this->pdo->query($sql); }
        public function fetch_object($st) { return $st->fetch(PDO::FETCH_OBJ); }
        public function escape($s) { return str_replace("'", "''", $s); }
      }
      require ${JSON.stringify(DESCRIPTOR)};
      $db = new Db();
      $m = new modBericht($db);
      $first = $m->init();
      $second = $m->init();
      $rows = $db->pdo->query("select rowid, element, source, code, libelle, active, module, position from llx_c_type_contact where code = 'TECHNICIAN'")->fetchAll(PDO::FETCH_ASSOC);
      echo json_encode(array('init' => array($first, $second), 'rows' => $rows), JSON_UNESCAPED_UNICODE);
    `;
    const run = spawnSync('php', ['-r', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '', 'no notice or warning');
    const result = JSON.parse(run.stdout) as { init: number[]; rows: Record<string, unknown>[] };
    assert.deepEqual(result.init, [1, 1]);
    const standalone = INTERNAL_CONTACT_TYPES.find((t) => t.code === 'TECHNICIAN')!;
    assert.deepEqual(
      result.rows.map((r) => ({ ...r, rowid: Number(r.rowid), active: Number(r.active), position: Number(r.position) })),
      [
        {
          rowid: 103,
          element: standalone.element,
          source: standalone.source,
          code: standalone.code,
          libelle: standalone.libelle,
          active: 1,
          module: standalone.module,
          position: 0,
        },
      ],
    );
  });
});
