/**
 * The Dolibarr module's pages (dolibarr/bericht: the "Berichte" tab, the reports list, the
 * document hook) run with Debian's PHP against stand-ins of Dolibarr's main.inc.php, DoliDB
 * (SQLite through PDO), User and the object classes (test/dolibarr/stubs), on the service's report
 * tables filled from test/dolibarr/fixtures.sql. Without PHP the tests are skipped with the reason;
 * PHP without pdo_sqlite (Debian: php-sqlite3) is a failure, not a skip.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODULE = path.join(ROOT, 'dolibarr/bericht');
const STUBS = path.join(ROOT, 'test/dolibarr/stubs');

const php = spawnSync('php', ['--version'], { encoding: 'utf8' });
const reason = php.status === 0 ? undefined : 'php is not installed (apt-get install php-cli php-sqlite3)';
if (reason) console.log(`# Dolibarr module page tests skipped: ${reason}`);

function phpFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) phpFiles(full, out);
    else if (name.endsWith('.php')) out.push(full);
  }
  return out;
}

interface FakeUser {
  id: number;
  socid?: number;
  rights: string[];
}
const ALL = ['bericht.read', 'commande.lire', 'facture.lire', 'propal.lire', 'ficheinter.lire', 'societe.client.voir'];
const office: FakeUser = { id: 20, rights: ALL };
const noReportRight: FakeUser = { id: 21, rights: ALL.filter((r) => r !== 'bericht.read') };
const ordersOnly: FakeUser = { id: 22, rights: ['bericht.read', 'commande.lire', 'societe.client.voir'] };
const external: FakeUser = { id: 23, socid: 2, rights: ['bericht.read', 'commande.lire', 'facture.lire', 'propal.lire'] };
// Sales representative of third party 2 only, without the right to see all customers.
const salesRep: FakeUser = { id: 11, rights: ['bericht.read', 'commande.lire', 'facture.lire', 'propal.lire'] };

(reason ? describe.skip : describe)('the Dolibarr module pages', () => {
  let root = '';
  let htdocs = '';
  let dbFile = '';
  let docs = '';

  before(() => {
    const pdo = spawnSync('php', ['-r', 'echo extension_loaded("pdo_sqlite") ? "yes" : "no";'], { encoding: 'utf8' });
    assert.equal(pdo.stdout, 'yes', 'PHP has no pdo_sqlite: apt-get install php-sqlite3');
    root = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-dolibarr-pages-'));
    htdocs = path.join(root, 'htdocs');
    cpSync(STUBS, htdocs, { recursive: true });
    cpSync(MODULE, path.join(htdocs, 'custom/bericht'), { recursive: true });
    dbFile = path.join(root, 'dolibarr.sqlite');
    const seed = spawnSync('php', [path.join(htdocs, 'seed.php'), dbFile, path.join(ROOT, 'test/dolibarr/fixtures.sql')], {
      encoding: 'utf8',
    });
    assert.equal(seed.status, 0, seed.stderr + seed.stdout);
    docs = path.join(root, 'documents');
    for (const ref of ['BR2611-0001', 'BR2611-0003', 'BR2611-0010']) {
      mkdirSync(path.join(docs, 'bericht', ref), { recursive: true });
      writeFileSync(path.join(docs, 'bericht', ref, `${ref}.pdf`), '%PDF-1.4\n');
    }
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  type Get = Record<string, string | number | (string | number)[]>;
  function run(
    page: 'tab.php' | 'list.php',
    user: FakeUser,
    get: Get,
    consts: Record<string, string> = {},
    opts: { db?: string; post?: boolean; fail?: string } = {},
  ) {
    const log = path.join(root, `queries-${process.hrtime.bigint()}.log`);
    writeFileSync(log, '');
    const result = spawnSync('php', ['-d', 'display_errors=stderr', path.join(htdocs, 'custom/bericht', page)], {
      encoding: 'utf8',
      env: {
        ...process.env,
        FAKE_DB: opts.db ?? dbFile,
        FAKE_DOCS: docs,
        FAKE_QUERY_LOG: log,
        FAKE_USER: JSON.stringify(user),
        FAKE_GET: JSON.stringify(get),
        FAKE_CONST: JSON.stringify(consts),
        ...(opts.post ? { FAKE_METHOD: 'POST' } : {}),
        ...(opts.fail ? { FAKE_FAIL: opts.fail } : {}),
      },
    });
    const html = result.stdout;
    const rows = new Map<number, string>();
    for (const m of html.matchAll(/<tr class="oddeven" data-rowid="(\d+)"[^>]*>([\s\S]*?)<\/tr>/g)) rows.set(Number(m[1]), m[2]!);
    return { status: result.status, stderr: result.stderr, html, ids: [...rows.keys()], rows, queries: readFileSync(log, 'utf8') };
  }
  const text = (html: string) =>
    html
      .replace(/<br>/g, ' ')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  function ok(r: ReturnType<typeof run>) {
    assert.equal(r.status, 0, `exit ${r.status}: ${r.html.slice(0, 300)} ${r.stderr}`);
    assert.equal(r.stderr, '', 'no PHP notice or warning');
    return r;
  }

  test('every PHP file of the module passes php -l', () => {
    const files = phpFiles(MODULE);
    assert.ok(files.length >= 6, `found ${files.length} files`);
    for (const file of files) {
      const lint = spawnSync('php', ['-l', file], { encoding: 'utf8' });
      assert.equal(lint.status, 0, `${file}: ${lint.stdout}${lint.stderr}`);
    }
  });

  test("the order's tab lists its reports, newest first, without templates or other entities' rows", () => {
    const r = ok(run('tab.php', office, { element: 'commande', id: 1 }));
    assert.deepEqual(r.ids, [7, 2, 1]);
    assert.match(r.html, /data-active="bericht"/);
    assert.match(r.html, /<div class="banner">CO2611-0001<\/div>/);
  });

  test('a final report shows status, pages, author, dates, signer, the newest mail and its PDF through document.php', () => {
    const row = ok(run('tab.php', office, { element: 'commande', id: 1 })).rows.get(1)!;
    const t = text(row);
    assert.match(t, /BR2611-0001/);
    assert.match(t, /Jahreswartung Kühlzelle/);
    assert.match(t, /Abgeschlossen 02\.11\.2026 09:30/, 'final, with its last change as the moment of finalizing');
    assert.match(row, /<td class="right">3<\/td>/, 'three pages');
    assert.match(t, /Max Müller 02\.11\.2026 08:00/);
    assert.match(t, /Anna Krüger 02\.11\.2026 09:15/);
    assert.match(t, /gesendet 02\.11\.2026 11:01 an einkauf@sonnenschein\.example/, 'the newest mail job, sent');
    assert.doesNotMatch(t, /fehlgeschlagen|alt@sonnenschein/, 'the older failed job is not shown');
    assert.match(row, /href="\/document\.php\?modulepart=bericht&amp;entity=1&amp;file=BR2611-0001%2FBR2611-0001\.pdf"/);
    assert.match(t, /ersetzt durch BR2611-0007/);
  });

  test("with the service's address set, each signature links to the service's public check", () => {
    const without = ok(run('tab.php', office, { element: 'commande', id: 1 })).rows.get(1)!;
    assert.doesNotMatch(without, /verify_signature/);
    const row = ok(
      run('tab.php', office, { element: 'commande', id: 1 }, { BERICHT_SERVICE_URL: 'https://berichte.example.com/' }),
    ).rows.get(1)!;
    assert.match(
      row,
      /<a class="small" rel="noopener" target="_blank" href="https:\/\/berichte\.example\.com\/public\/verify_signature\.php\?code=v1" title="Prüfen, ob der Bericht seit der Unterschrift unverändert ist[^"]*">prüfen<\/a>/,
    );
    const odd = ok(run('tab.php', office, { element: 'commande', id: 1 }, { BERICHT_SERVICE_URL: 'javascript:alert(1)' })).rows.get(1)!;
    assert.doesNotMatch(odd, /verify_signature|javascript:/, 'only an http(s) address is linked');
  });

  test('a draft: not signed, not sent, no PDF; its title is escaped; a newer version says so', () => {
    const r = ok(run('tab.php', office, { element: 'commande', id: 1 }));
    const draft = r.rows.get(2)!;
    assert.match(text(draft), /Entwurf/);
    assert.match(text(draft), /nicht unterschrieben/);
    assert.match(text(draft), /nicht versendet/);
    assert.doesNotMatch(draft, /document\.php/);
    assert.match(draft, /Tür &lt;b&gt;Dichtung&lt;\/b&gt; &amp; Co/);
    assert.doesNotMatch(draft, /<b>Dichtung<\/b>/);
    assert.match(text(r.rows.get(7)!), /Version 2/);
  });

  test('a failed mail shows its reason; a missing PDF file is named, not linked', () => {
    const order = ok(run('tab.php', office, { element: 'commande', id: 2 }));
    assert.deepEqual(order.ids, [3, 12]);
    assert.match(text(order.rows.get(3)!), /fehlgeschlagen 10\.11\.2026 09:00 an huber@metzgerei\.example 550 mailbox unavailable/);
    assert.match(text(order.rows.get(3)!), /Hans Huber/);
    const proposal = ok(run('tab.php', office, { element: 'propal', id: 1 }));
    assert.deepEqual(proposal.ids, [5]);
    assert.match(text(proposal.rows.get(5)!), /PDF-Datei fehlt/);
    assert.doesNotMatch(proposal.rows.get(5)!, /document\.php/);
    assert.deepEqual(ok(run('tab.php', office, { element: 'facture', id: 1 })).ids, [4]);
  });

  test("the report's ref on the tab opens its PDF; a draft's ref is no link", () => {
    const r = ok(run('tab.php', office, { element: 'commande', id: 1 }));
    assert.match(
      r.rows.get(1)!,
      /<a class="bericht-ref" href="\/document\.php\?modulepart=bericht&amp;entity=1&amp;file=BR2611-0001%2FBR2611-0001\.pdf"[^>]*><img data-picto="technic"><strong>BR2611-0001<\/strong><\/a>/,
    );
    assert.doesNotMatch(r.rows.get(2)!, /class="bericht-ref"/);
    assert.match(r.html, /<tr class="oddeven" data-rowid="1" id="bericht-1">/, 'the anchor the list links to');
  });

  test('the tab refuses users without the read right, without the right on the object, or of another third party', () => {
    for (const [user, get] of [
      [noReportRight, { element: 'commande', id: 1 }],
      [ordersOnly, { element: 'facture', id: 1 }],
      [ordersOnly, { element: 'fichinter', id: 1 }],
      [external, { element: 'commande', id: 1 }],
      // Without the right on the object type, a missing object is refused too (nothing learned about ids).
      [ordersOnly, { element: 'facture', id: 999 }],
    ] as const) {
      const r = run('tab.php', user, get);
      assert.equal(r.status, 3, `user ${user.id} on ${get.element}: ${r.html.slice(0, 200)}`);
      assert.equal(r.html, 'ACCESSFORBIDDEN');
      assert.equal(r.ids.length, 0);
    }
    const bad = run('tab.php', office, { element: 'societe', id: 1 });
    assert.equal(bad.status, 4);
  });

  test("a missing object shows Dolibarr's record-not-found page with HTTP 404", () => {
    for (const element of ['commande', 'fichinter']) {
      const r = run('tab.php', office, { element, id: 999 });
      assert.equal(r.status, 0, r.html);
      assert.equal(r.stderr, '');
      assert.match(
        r.html,
        /<html><head><title><\/title><\/head><body>\n<div class="error">ErrorRecordNotFound<\/div><\/body><\/html>\nHTTP 404$/,
      );
    }
  });

  test('an external user sees only the final reports of their own third party, in the list and on the tab', () => {
    // Third party 2 has the final BR2611-0003 and the draft BR2611-0012 on order 2.
    assert.deepEqual(
      ok(run('tab.php', external, { element: 'commande', id: 2 })).ids,
      [3],
      "the external user's own order, without its draft",
    );
    assert.deepEqual(ok(run('tab.php', office, { element: 'commande', id: 2 })).ids, [3, 12], 'the office sees both');
    assert.deepEqual(ok(run('list.php', external, {})).ids, [5, 3]);
    assert.deepEqual(ok(run('list.php', external, { search_status: '0' })).ids, [], 'not even when filtering for drafts');
    const withInterventions = { ...external, rights: [...external.rights, 'ficheinter.lire'] };
    assert.deepEqual(ok(run('list.php', withInterventions, {})).ids, [5, 3, 10], 'the final report of its intervention, not the draft');
    assert.deepEqual(ok(run('tab.php', withInterventions, { element: 'fichinter', id: 1 })).ids, [10]);
  });

  test("the intervention's tab lists its reports; the list shows interventions as parents", () => {
    const r = ok(run('tab.php', office, { element: 'fichinter', id: 1 }));
    assert.deepEqual(r.ids, [11, 10]);
    assert.match(r.html, /data-active="bericht"/);
    assert.match(r.html, /<div class="banner">FI2611-0001<\/div>/);
    assert.match(text(r.rows.get(10)!), /Einsatz Kältetechnik/);
    assert.match(r.rows.get(10)!, /document\.php\?modulepart=bericht&amp;entity=1&amp;file=BR2611-0010%2FBR2611-0010\.pdf/);
    assert.deepEqual(ok(run('tab.php', office, { element: 'fichinter', id: 2 })).ids, []);
    const list = ok(run('list.php', office, { search_element: 'fichinter' }));
    assert.deepEqual(list.ids, [11, 10]);
    assert.match(
      list.rows.get(10)!,
      /<a class="nomurl" href="\/fichinter\/card\.php\?id=1"><img data-picto="intervention">FI2611-0001<\/a>/,
    );
    assert.match(text(list.rows.get(10)!), /SA-2026-5/);
  });

  test("the tab's badge counts the reports the user sees (Dolibarr's Label,Class,File,Method tab title)", () => {
    const count = (user: FakeUser, method: string, id: number) => {
      const res = spawnSync(
        'php',
        [
          '-r',
          `putenv('FAKE_DB=${dbFile}'); putenv('FAKE_DOCS=${docs}'); putenv('FAKE_USER=' . ${JSON.stringify(JSON.stringify(user))});
        require ${JSON.stringify(path.join(htdocs, 'main.inc.php'))};
        require ${JSON.stringify(path.join(htdocs, 'custom/bericht/class/berichtreports.class.php'))};
        $classtoload = 'BerichtReports'; $obj = new $classtoload($db); $function = ${JSON.stringify(method)};
        echo $obj->$function(${id}, $obj);`,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(res.stderr, '');
      return res.stdout;
    };
    assert.equal(count(office, 'countCommande', 1), '3');
    assert.equal(count(office, 'countCommande', 2), '2');
    assert.equal(count(external, 'countCommande', 2), '1', 'an external user: final reports only');
    assert.equal(count(office, 'countFichinter', 1), '2');
    assert.equal(count(office, 'countFacture', 1), '1');
    assert.equal(count(office, 'countPropal', 1), '1');
    assert.equal(count(ordersOnly, 'countFacture', 1), '0');
  });

  test('the list shows every report the user may see, by object rights, third party and sales representative', () => {
    const all = ok(run('list.php', office, {}));
    assert.deepEqual(all.ids, [7, 5, 4, 3, 2, 1, 12, 11, 10]);
    assert.match(all.html, /data-total="9"/);
    const row = text(all.rows.get(5)!);
    assert.match(row, /PR2611-0001/);
    assert.match(row, /Metzgerei Huber/);
    // The object as Dolibarr links it (getNomUrl with its picto), the customer likewise.
    assert.match(all.rows.get(5)!, /<a class="nomurl" href="\/comm\/propal\/card\.php\?id=1"><img data-picto="propal">PR2611-0001<\/a>/);
    assert.match(all.rows.get(4)!, /<a class="nomurl" href="\/compta\/facture\/card\.php\?id=1"><img data-picto="bill">FA2611-0001<\/a>/);
    assert.match(all.rows.get(1)!, /<a class="nomurl" href="\/commande\/card\.php\?id=1"><img data-picto="order">CO2611-0001<\/a>/);
    assert.match(
      all.rows.get(1)!,
      /<a class="soc" href="\/societe\/card\.php\?socid=1"><img data-picto="company">Bäckerei Sonnenschein KG<\/a>/,
    );
    assert.match(text(all.rows.get(1)!), /Bestellung 4711/, "the customer's order number");
    // The report's ref links to the report on its object's tab.
    assert.match(
      all.rows.get(1)!,
      /<a class="bericht-ref" href="\/custom\/bericht\/tab\.php\?element=commande&amp;id=1#bericht-1"[^>]*><img data-picto="technic"><strong>BR2611-0001<\/strong><\/a>/,
    );
    assert.match(all.rows.get(1)!, /document\.php\?modulepart=bericht/);
    assert.deepEqual(ok(run('list.php', ordersOnly, {})).ids, [7, 3, 2, 1, 12]);
    assert.deepEqual(ok(run('list.php', salesRep, {})).ids, [5, 3, 12]);
    const refused = run('list.php', noReportRight, {});
    assert.equal(refused.status, 3);
    assert.equal(refused.html, 'ACCESSFORBIDDEN');
  });

  test("the filters are the row of inputs in the list's title, with Dolibarr's day selectors for the date range", () => {
    const r = ok(run('list.php', office, { search_date_startday: 10, search_date_startmonth: 11, search_date_startyear: 2026 }));
    const filterRow = /<tr class="liste_titre_filter">([\s\S]*?)<\/tr>/.exec(r.html)?.[1] ?? '';
    for (const name of [
      'search_ref',
      'search_parent',
      'search_element',
      'search_ref_client',
      'search_societe',
      'search_user',
      'search_status',
    ]) {
      assert.match(filterRow, new RegExp(`name="${name}"`), name);
    }
    assert.match(
      filterRow,
      /<span class="selectdate" data-prefix="search_date_start" data-placeholder="From"><input type="text" name="search_date_startday" value="10">/,
    );
    assert.match(filterRow, /data-prefix="search_date_end"/);
    assert.doesNotMatch(r.html, /type="date"/, 'no browser date fields');
    assert.match(filterRow, /name="button_removefilter_x"/);
  });

  test('filters narrow the list: status, object type, technician, customer, ref/title, date range', () => {
    const ids = (get: Get) => ok(run('list.php', office, get)).ids;
    assert.deepEqual(ids({ search_status: '1' }), [5, 3, 1, 10]);
    assert.deepEqual(ids({ search_status: '0' }), [7, 4, 2, 12, 11]);
    assert.deepEqual(ids({ search_status: '-1' }), [7, 5, 4, 3, 2, 1, 12, 11, 10], "Dolibarr's empty choice");
    assert.deepEqual(ids({ search_element: 'facture' }), [4]);
    assert.deepEqual(ids({ search_user: 11 }), [3, 2, 12, 11]);
    assert.deepEqual(ids({ search_societe: 'Huber' }), [5, 3, 12, 11, 10]);
    assert.deepEqual(ids({ search_ref: 'Jahreswartung' }), [7, 1]);
    assert.deepEqual(ids({ search_ref: 'BR2611-0004' }), [4]);
    const range = {
      search_date_startday: 10,
      search_date_startmonth: 11,
      search_date_startyear: 2026,
      search_date_endday: 15,
      search_date_endmonth: 11,
      search_date_endyear: 2026,
    };
    assert.deepEqual(ids(range), [5, 4, 3]);
    assert.deepEqual(ids({ search_status: '1', search_societe: 'Sonnenschein' }), [1]);
    const filtered = ok(run('list.php', office, { search_status: '1' }));
    assert.match(filtered.html, /data-total="4"/);
    assert.match(filtered.html, /<option value="1" selected>/);
  });

  test("the search finds the object's ref and the customer's order number (natural_search), also through search_all", () => {
    const ids = (get: Get) => ok(run('list.php', office, get)).ids;
    assert.deepEqual(ids({ search_parent: 'CO2611-0002' }), [3, 12]);
    assert.deepEqual(ids({ search_parent: 'FI2611' }), [11, 10], "an intervention's ref");
    assert.deepEqual(ids({ search_ref_client: 'PO-HUBER' }), [3, 12]);
    assert.deepEqual(ids({ search_ref_client: '4711' }), [7, 2, 1]);
    assert.deepEqual(ids({ search_ref_client: 'SA-2026' }), [11, 10]);
    // Dolibarr's search in all fields: report, title, object, order number, customer; words must all match.
    assert.deepEqual(ids({ search_all: 'CO2611-0002' }), [3, 12]);
    assert.deepEqual(ids({ search_all: 'PO-HUBER-77' }), [3, 12]);
    assert.deepEqual(ids({ search_all: '4711 Jahreswartung' }), [7, 1]);
    assert.deepEqual(ids({ search_all: 'PR2611|FA2611' }), [5, 4], '"|" is either');
    const r = ok(run('list.php', office, { search_all: 'CO2611-0002' }));
    assert.match(r.html, /<div class="divsearchfieldfilter">/);
    assert.match(
      r.queries,
      / OR co\.ref LIKE '%CO2611-0002%' OR fa\.ref LIKE '%CO2611-0002%' OR pr\.ref LIKE '%CO2611-0002%' OR fi\.ref LIKE '%CO2611-0002%' OR co\.ref_client LIKE /,
    );
  });

  test('an emoji in the search answers with the list (and, on MariaDB, is compared in utf8mb4 on both sides)', () => {
    const searches: Record<string, string>[] = [
      { search_all: 'Kühlzelle 😀' },
      { search_ref: '😀' },
      { search_parent: '🔧' },
      { search_societe: '😀' },
      { search_ref_client: '😀' },
    ];
    for (const get of searches) {
      const r = ok(run('list.php', office, get));
      assert.deepEqual(r.ids, [], JSON.stringify(get));
      assert.match(r.html, /NoRecordFound/);
    }
    // The SQL the module writes for MariaDB (FAKE_DB_TYPE mysqli: only written, SQLite cannot run it).
    const sql = (type: string, value: string) => {
      const res = spawnSync(
        'php',
        [
          '-r',
          `putenv('FAKE_DB=${dbFile}'); putenv('FAKE_DOCS=${docs}'); putenv('FAKE_DB_TYPE=${type}'); putenv('FAKE_USER=' . ${JSON.stringify(JSON.stringify(office))});
        require ${JSON.stringify(path.join(htdocs, 'main.inc.php'))};
        require ${JSON.stringify(path.join(htdocs, 'custom/bericht/class/berichtreports.class.php'))};
        $r = new BerichtReports($db, 1); echo $r->filterSql(array('all' => ${JSON.stringify(value)}));`,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(res.stderr, '');
      return res.stdout;
    };
    const emoji = sql('mysqli', 'Kühlzelle 😀');
    assert.match(
      emoji,
      /\(CONVERT\(b\.ref USING utf8mb4\) LIKE _utf8mb4'%Kühlzelle%' OR CONVERT\(b\.title USING utf8mb4\) LIKE _utf8mb4'%Kühlzelle%' OR CONVERT\(s\.nom USING utf8mb4\)/,
    );
    assert.match(emoji, /CONVERT\(fi\.ref_client USING utf8mb4\) LIKE _utf8mb4'%😀%'\)\)$/);
    assert.doesNotMatch(emoji, /berichtsearchcolumn/);
    assert.match(
      sql('mysqli', '!😀'),
      /\(CONVERT\(b\.ref USING utf8mb4\) NOT LIKE _utf8mb4'%😀%' OR CONVERT\(b\.ref USING utf8mb4\) IS NULL\)/,
    );
    // Without such a character, and on PostgreSQL, Dolibarr's natural_search as it is.
    assert.match(sql('mysqli', 'Kühlzelle'), /^ AND \(\(b\.ref LIKE '%Kühlzelle%' OR b\.title LIKE '%Kühlzelle%' OR s\.nom LIKE/);
    assert.match(sql('pgsql', '😀'), /^ AND \(\(b\.ref LIKE '%😀%' OR b\.title LIKE '%😀%'/);
  });

  test('sorting and paging as Dolibarr lists do', () => {
    assert.deepEqual(ok(run('list.php', office, { sortfield: 'b.ref', sortorder: 'ASC' })).ids, [1, 2, 3, 4, 5, 7, 10, 11, 12]);
    const second = ok(run('list.php', office, { limit: 2, page: 1 }));
    assert.deepEqual(second.ids, [4, 3]);
    assert.match(second.html, /data-page="1" data-num="3" data-total="9"/, 'one row more than the page, as Dolibarr fetches');
    assert.match(second.queries, / LIMIT 3 OFFSET 2/);
    assert.deepEqual(ok(run('list.php', office, { limit: 2, pageplusone: 3 })).ids, [2, 1]);
    assert.deepEqual(ok(run('list.php', office, { limit: 2, page: 9 })).ids, [7, 5], 'a page beyond the end shows the first');
  });

  test("paging 25 reports 10 at a time shows Dolibarr's navigation and its 3 pages", () => {
    const db = path.join(root, 'paging.sqlite');
    cpSync(dbFile, db);
    const seed = spawnSync(
      'php',
      [
        '-r',
        `$pdo = new PDO('sqlite:'.${JSON.stringify(db)});
      $pdo->exec("INSERT INTO llx_commande VALUES (4, 'CO2611-0004', 1, 1, 'Rahmenvertrag 25', 1)");
      for ($i = 1; $i <= 25; $i++) {
        $pdo->exec(sprintf("INSERT INTO llx_bericht (rowid, ref, entity, element_type, fk_element, title, status, fk_user_creat, datec, tms) VALUES (%d, 'BR2612-%04d', 1, 'commande', 4, 'Wartung %d', %d, 10, '2026-12-%02d 08:00:00', '2026-12-%02d 08:00:00')", 100 + $i, $i, $i, $i % 2, $i, $i));
      }`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(seed.status, 0, seed.stderr);
    const page = (n: number) => ok(run('list.php', office, { search_parent: 'CO2611-0004', limit: 10, page: n }, {}, { db }));
    const first = page(0);
    assert.equal(first.ids.length, 10);
    assert.deepEqual(first.ids.slice(0, 2), [125, 124], 'newest first');
    assert.match(first.html, /data-page="0" data-num="11" data-total="25"/);
    assert.match(first.html, /<span class="totalnboflines">\(25\)<\/span>/);
    assert.match(
      first.html,
      /<input type="text" name="pageplusone" value="1"><\/li>\/<li class="pagination paginationlastpage"><a href="[^"]*\?page=2[^"]*">3<\/a>/,
    );
    assert.match(
      first.html,
      /class="paginationnext" href="\/custom\/bericht\/list\.php\?page=1&limit=10&search_parent=CO2611-0004&sortfield=b\.datec&sortorder=DESC"/,
    );
    assert.doesNotMatch(first.html, /paginationprevious/);
    const second = page(1);
    assert.deepEqual(second.ids, [115, 114, 113, 112, 111, 110, 109, 108, 107, 106]);
    assert.match(second.html, /paginationprevious/);
    assert.match(second.html, /paginationnext/);
    const third = page(2);
    assert.deepEqual(third.ids, [105, 104, 103, 102, 101]);
    assert.match(third.html, /data-page="2" data-num="5" data-total="25"/);
    assert.match(third.html, /paginationprevious/);
    assert.doesNotMatch(third.html, /paginationnext/, 'no next page after the last');
  });

  test("the column chooser saves the user's columns as Dolibarr saves them (MAIN_SELECTEDFIELDS_berichtlist)", () => {
    const db = path.join(root, 'columns.sqlite');
    cpSync(dbFile, db);
    const before = ok(run('list.php', office, {}, {}, { db }));
    assert.match(before.html, /data-selectedfields="selectedfields"/);
    assert.match(before.html, /<th data-field="parent_ref">/);
    assert.doesNotMatch(before.html, /<th data-field="b\.title">|<th data-field="b\.tms">/, 'title and change date are off by default');
    const saved = ok(
      run(
        'list.php',
        office,
        { formfilteraction: 'listafterchangingselectedfields', selectedfields: 'b.ref,parent_ref,b.tms,b.status' },
        {},
        { db },
      ),
    );
    assert.match(saved.html, /<th data-field="b\.tms">/);
    const after = ok(run('list.php', office, {}, {}, { db }));
    const fields = [...after.html.matchAll(/<th data-field="([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(fields, ['b.ref', 'parent_ref', 'b.tms', 'b.status', ''], 'the chosen columns and the checkbox column');
    assert.equal((after.rows.get(1)!.match(/<td/g) ?? []).length, 5);
    const other = ok(run('list.php', { ...office, id: 21 }, {}, {}, { db }));
    assert.match(other.html, /<th data-field="u\.lastname">/, "another user's list keeps its columns");
  });

  test('mass actions: a checkbox a row, download the selected final PDFs as one ZIP file', () => {
    const r = ok(run('list.php', office, {}));
    assert.match(r.html, /<select class="flat massaction" name="massaction">/);
    assert.match(r.html, /<option value="bericht_pdfs">/);
    assert.doesNotMatch(r.html, /value="predelete"/, 'deleting drafts needs the delete right');
    assert.match(r.rows.get(1)!, /<input id="cb1" class="flat checkforselect" type="checkbox" name="toselect\[\]" value="1">/);
    const zip = spawnSync('php', ['-d', 'display_errors=stderr', path.join(htdocs, 'custom/bericht/list.php')], {
      env: {
        ...process.env,
        FAKE_DB: dbFile,
        FAKE_DOCS: docs,
        FAKE_USER: JSON.stringify(office),
        FAKE_GET: JSON.stringify({ massaction: 'bericht_pdfs', confirmmassaction: 'Confirm', toselect: [1, 2, 3, 10, 9] }),
      },
    });
    assert.equal(zip.stderr.toString(), '');
    const body = zip.stdout;
    assert.equal(body.subarray(0, 2).toString(), 'PK');
    const names = [...body.toString('latin1').matchAll(/(BR\d{4}-\d{4}\.pdf)/g)].map((m) => m[1]);
    assert.deepEqual(
      [...new Set(names)].sort(),
      ['BR2611-0001.pdf', 'BR2611-0003.pdf', 'BR2611-0010.pdf'],
      "finals only; not the other entity's BR2611-0009",
    );
    const none = ok(run('list.php', office, { massaction: 'bericht_pdfs', confirmmassaction: 'Confirm', toselect: [2, 4] }));
    assert.match(none.html, /EVENT warnings: Keiner der ausgewählten Berichte hat ein PDF/);
  });

  test("mass actions: delete the selected drafts, after Dolibarr's confirm box, with the delete right; final reports stay", () => {
    const db = path.join(root, 'massdelete.sqlite');
    cpSync(dbFile, db);
    const deleter: FakeUser = { id: 20, rights: [...ALL, 'bericht.delete'] };
    const listed = ok(run('list.php', deleter, {}, {}, { db }));
    assert.match(listed.html, /<option value="predelete">/);
    const confirm = ok(run('list.php', deleter, { massaction: 'predelete', toselect: [2, 3] }, {}, { db }));
    assert.match(confirm.html, /<div class="formconfirm" data-action="delete"[^>]*><b>ConfirmMassDraftDeletion<\/b>/);
    assert.match(confirm.rows.get(2)!, /name="toselect\[\]" value="2" checked="checked"/, 'the selection stays checked under the box');
    mkdirSync(path.join(docs, 'bericht/BR2611-0002'), { recursive: true });
    writeFileSync(path.join(docs, 'bericht/BR2611-0002/seite1.jpg'), 'x');
    const done = ok(run('list.php', deleter, { action: 'delete', confirm: 'yes', toselect: [2, 3] }, {}, { db }));
    assert.match(done.html, /EVENT mesgs: RecordsDeleted/);
    assert.match(done.html, /EVENT warnings: Nicht gelöscht \(abgeschlossen, oder andere Berichte zeigen ihre Bilder\): BR2611-0003/);
    assert.deepEqual(done.ids, [7, 5, 4, 3, 1, 12, 11, 10]);
    assert.ok(!existsSync(path.join(docs, 'bericht/BR2611-0002')), "the draft's work folder is gone");
    const pages = spawnSync(
      'php',
      [
        '-r',
        `$p = new PDO('sqlite:'.${JSON.stringify(db)}); echo $p->query('SELECT COUNT(*) FROM llx_bericht_page WHERE fk_bericht = 2')->fetchColumn();`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(pages.stdout, '0');
    // Without the delete right the confirmed action does nothing.
    const db2 = path.join(root, 'massdelete2.sqlite');
    cpSync(dbFile, db2);
    assert.deepEqual(
      ok(run('list.php', office, { action: 'delete', confirm: 'yes', toselect: [2] }, {}, { db: db2 })).ids,
      [7, 5, 4, 3, 2, 1, 12, 11, 10],
    );
  });

  test('search input is escaped in SQL; unknown sort fields and malformed values are ignored', () => {
    const quote = ok(run('list.php', office, { search_ref: "x' OR '1'='1" }));
    assert.deepEqual(quote.ids, []);
    assert.match(quote.queries, /b\.ref LIKE '%x''%'/);
    assert.doesNotMatch(quote.queries, /LIKE '%x' OR/);
    // As in Dolibarr's lists, % and * are wildcards of the search.
    assert.deepEqual(ok(run('list.php', office, { search_societe: 'Metz*Huber' })).ids, [5, 3, 12, 11, 10]);
    const sort = ok(run('list.php', office, { sortfield: 'b.ref;DELETE FROM llx_bericht', sortorder: 'ASC;--' }));
    assert.deepEqual(sort.ids, [7, 5, 4, 3, 2, 1, 12, 11, 10]);
    assert.match(sort.queries, /ORDER BY b\.datec DESC, b\.rowid DESC/);
    assert.doesNotMatch(sort.queries, /DELETE/);
    const notANumber = ok(run('list.php', office, { search_user: '10 OR 1=1' }));
    assert.deepEqual(notANumber.ids, [7, 5, 4, 1, 10]);
    assert.match(notANumber.queries, /b\.fk_user_creat = 10(?! OR)/);
    assert.deepEqual(
      ok(
        run('list.php', office, {
          search_status: "1' OR '1'='1",
          search_element: "x' OR 1=1",
          search_date_startmonth: 13,
          search_date_startday: 45,
          search_date_startyear: 2026,
        }),
      ).ids,
      [7, 5, 4, 3, 2, 1, 12, 11, 10],
    );
    assert.deepEqual(ok(run('tab.php', office, { element: 'commande', id: '1 OR 1=1' })).ids, [7, 2, 1]);
  });

  /**
   * What Dolibarr's document.php delivers for a request (viewimage.php decides the same way), run
   * through the stand-in of its decision (stubs/document.php) with the module's hook registered:
   * the file's bytes, or a refusal.
   */
  function download(user: FakeUser, get: Record<string, string | number>, opts: { multidir?: Record<number, string> } = {}) {
    const res = spawnSync('php', ['-d', 'display_errors=stderr', path.join(htdocs, 'document.php')], {
      encoding: 'utf8',
      env: {
        ...process.env,
        FAKE_DB: dbFile,
        FAKE_DOCS: docs,
        FAKE_USER: JSON.stringify(user),
        FAKE_GET: JSON.stringify(get),
        FAKE_MULTIDIR: JSON.stringify(opts.multidir ?? {}),
      },
    });
    assert.equal(res.stderr, '', `no PHP notice or warning for ${JSON.stringify(get)}`);
    assert.ok([0, 3, 4].includes(res.status ?? -1), `exit ${res.status} for ${JSON.stringify(get)}: ${res.stdout.slice(0, 200)}`);
    return { served: res.status === 0 && res.stdout.startsWith('CONTENT '), body: res.stdout, status: res.status };
  }
  /** Every file below bericht/, its bytes saying which it is. */
  function writeDocuments() {
    const files: Record<string, string> = {
      'bericht/BR2611-0001/BR2611-0001.pdf': 'CONTENT A pdf',
      'bericht/BR2611-0001/Unterschrift_1.png': 'CONTENT A signature',
      'bericht/BR2611-0001/Unterschrift_1.png.json': 'CONTENT A metadata',
      'bericht/BR2611-0001/Unterschrift_1.png.strokes.json': 'CONTENT A strokes',
      'bericht/BR2611-0001/thumbs/Unterschrift_1_small.png': 'CONTENT A thumbnail',
      'bericht/BR2611-0003/BR2611-0003.pdf': 'CONTENT B pdf',
      'bericht/BR2611-0003/Unterschrift_1.png': 'CONTENT B signature',
      'bericht/BR2611-0003/thumbs/Unterschrift_1_small.png': 'CONTENT B thumbnail',
      'bericht/BR2611-0003/Unterschrift_1.png.json': 'CONTENT B metadata',
      'bericht/BR2611-0003/Unterschrift_1.png.strokes.json': 'CONTENT B strokes',
      // Folders the database would take for a report's (MariaDB compares refs case-insensitively, ignoring trailing spaces).
      'bericht/br2611-0003/BR2611-0003.pdf': 'CONTENT lower-case folder',
      'bericht/BR2611-0003 /BR2611-0003.pdf': 'CONTENT folder with a trailing space',
      'bericht/BR2611-0003/.copy.0123456789ab.0123456789ab.tmp': 'CONTENT B half-written copy',
      'bericht/BR2611-0006/Vorlage.jpg': 'CONTENT template image',
      'bericht/temp/print/0123abcd.jpg': 'CONTENT print copy',
      'bericht/temp/runs/run1.json': 'CONTENT run marker',
      'bericht/temp/massgeneration/23/x.pdf': 'CONTENT mass generation',
      'bericht/temp/23/x.pdf': 'CONTENT user temp',
      'bericht/23/x.pdf': 'CONTENT user folder',
      'bericht/BR2611-0003/BR2611-0001/BR2611-0001.pdf': 'CONTENT nested',
      '2/bericht/BR2611-0008/BR2611-0008.pdf': 'CONTENT other entity',
    };
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(docs, rel)), { recursive: true });
      writeFileSync(path.join(docs, rel), content);
    }
  }

  test("document.php: an external user gets only the files of their own third party's reports, whatever the path's spelling", () => {
    writeDocuments();
    // Customer A (third party 1): BR2611-0001; customer B (third party 2, the external user's): BR2611-0003.
    const refusedForB = [
      'BR2611-0001/BR2611-0001.pdf',
      'BR2611-0001/./BR2611-0001.pdf',
      './BR2611-0001/BR2611-0001.pdf',
      'BR2611-0001//BR2611-0001.pdf',
      '/BR2611-0001/BR2611-0001.pdf',
      'BR2611-0001/BR2611-0001.pdf/.',
      'BR2611-0001/./././BR2611-0001.pdf',
      'BR2611-0001/.//./BR2611-0001.pdf',
      'BR2611-0001/../BR2611-0001/BR2611-0001.pdf',
      'BR2611-0003/../BR2611-0001/BR2611-0001.pdf',
      'BR2611-0003/..././BR2611-0001/BR2611-0001.pdf',
      'BR2611-0003/..\\BR2611-0001/BR2611-0001.pdf',
      'BR2611-0003/BR2611-0001/BR2611-0001.pdf',
      'BR2611-0001\\BR2611-0001.pdf',
      'BR2611-0001\\.\\BR2611-0001.pdf',
      '.\\BR2611-0001\\BR2611-0001.pdf',
      'BR2611-0001%2fBR2611-0001.pdf',
      'BR2611-0001%2FBR2611-0001.pdf',
      'BR2611-0001/%2e/BR2611-0001.pdf',
      '%2e/BR2611-0001/BR2611-0001.pdf',
      'BR2611-0001%252fBR2611-0001.pdf',
      'BR2611-0001/%252e/BR2611-0001.pdf',
      'BR2611-0001%5cBR2611-0001.pdf',
      'BR2611-0001/&#46;/BR2611-0001.pdf',
      'BR2611-0001&#47;BR2611-0001.pdf',
      'BR2611-0001/&period;/BR2611-0001.pdf',
      'BR2611-0001/&amp;#46;/BR2611-0001.pdf',
      'br2611-0001/BR2611-0001.pdf',
      'Br2611-0001/./BR2611-0001.pdf',
      'BR2611-0001 /BR2611-0001.pdf',
      'BR2611-0001./BR2611-0001.pdf',
      'BR2611-0001/Unterschrift_1.png',
      'BR2611-0001/./Unterschrift_1.png',
      'BR2611-0001/Unterschrift_1.png.json',
      'BR2611-0001/./Unterschrift_1.png.json',
      'BR2611-0001/Unterschrift_1.png.strokes.json',
      'BR2611-0001//Unterschrift_1.png.strokes.json',
      'BR2611-0001/thumbs/Unterschrift_1_small.png',
      'BR2611-0001/thumbs/./Unterschrift_1_small.png',
      'BR2611-0001/<b>/BR2611-0001.pdf',
      'BR2611-9999/BR2611-9999.pdf',
      "BR'x/BR'x.pdf",
      'BR2611-0006/Vorlage.jpg',
      'BR2611-0003/.copy.0123456789ab.0123456789ab.tmp',
      'BR2611-0003/./.copy.0123456789ab.0123456789ab.tmp',
      'temp/print/0123abcd.jpg',
      './temp/print/0123abcd.jpg',
      'temp//print/0123abcd.jpg',
      'temp/./runs/run1.json',
      'TEMP/print/0123abcd.jpg',
      'temp\\print\\0123abcd.jpg',
      'temp/runs/run1.json',
      'temp/massgeneration/23/x.pdf',
      'temp/23/x.pdf',
      '23/x.pdf',
      '.',
      './',
      '/',
      'BR2611-0003',
      'BR2611-0003/',
      'BR2611-0003/.',
    ];
    for (const file of refusedForB) {
      const r = download(external, { modulepart: 'bericht', entity: 1, file });
      assert.equal(r.served, false, `served ${file}: ${r.body}`);
      assert.doesNotMatch(r.body, /CONTENT/, file);
    }
    // The module's other moduleparts lead to its work folders.
    for (const get of [
      { modulepart: 'bericht_temp', file: 'print/0123abcd.jpg' },
      { modulepart: 'bericht-temp', file: 'print/0123abcd.jpg' },
      { modulepart: 'bericht-temp', file: 'runs/run1.json' },
      { modulepart: 'bericht_user_temp', file: 'x.pdf' },
      { modulepart: 'bericht_user', file: 'x.pdf' },
      { modulepart: 'massfilesarea_bericht', file: 'x.pdf' },
      { modulepart: 'bericht-BR2611-0001', file: 'BR2611-0001.pdf' },
      { modulepart: 'bericht-BR2611-0001', file: './BR2611-0001.pdf' },
    ]) {
      const r = download(external, { ...get, entity: 1 });
      assert.equal(r.served, false, `${JSON.stringify(get)}: ${r.body}`);
    }
    // The customer's own report, in every spelling that names its files; what is delivered is the named file.
    for (const [file, content] of [
      ['BR2611-0003/BR2611-0003.pdf', 'CONTENT B pdf'],
      ['BR2611-0003/./BR2611-0003.pdf', 'CONTENT B pdf'],
      ['BR2611-0003//BR2611-0003.pdf', 'CONTENT B pdf'],
      ['BR2611-0003\\BR2611-0003.pdf', 'CONTENT B pdf'],
      ['BR2611-0003/Unterschrift_1.png', 'CONTENT B signature'],
      ['BR2611-0003/thumbs/Unterschrift_1_small.png', 'CONTENT B thumbnail'],
    ] as const) {
      const r = download(external, { modulepart: 'bericht', entity: 1, file });
      assert.equal(r.body, content, file);
    }
    // Dolibarr turns bericht-BR2611-0003 into the folder BR2611/ (it splits at the first '-'): no report's.
    assert.equal(download(external, { modulepart: 'bericht-BR2611-0003', entity: 1, file: 'BR2611-0003.pdf' }).served, false);
    // Folders that only the database's comparison takes for its report are not the report's.
    for (const file of ['br2611-0003/BR2611-0003.pdf', 'BR2611-0003 /BR2611-0003.pdf']) {
      const r = download(external, { modulepart: 'bericht', entity: 1, file });
      assert.equal(r.status, 4, `${file}: ${r.body}`);
      assert.doesNotMatch(r.body, /CONTENT/, file);
    }
    // Its own report's signature metadata (IP address, position, verify code) and strokes are the office's.
    for (const file of [
      'BR2611-0003/Unterschrift_1.png.json',
      'BR2611-0003/Unterschrift_1.png.strokes.json',
      'BR2611-0003/./Unterschrift_1.png.JSON',
    ]) {
      const r = download(external, { modulepart: 'bericht', entity: 1, file });
      assert.equal(r.status, 4, `${file}: ${r.body}`);
      assert.doesNotMatch(r.body, /CONTENT/, file);
    }
    // Its own report, but the link names another entity.
    assert.equal(download(external, { modulepart: 'bericht', entity: 2, file: 'BR2611-0003/BR2611-0003.pdf' }).served, false);
  });

  test("document.php: office users get the reports they may see, never work files, never another entity's", () => {
    writeDocuments();
    const admin: FakeUser & { admin: number } = { id: 1, admin: 1, rights: ALL };
    const served = (user: FakeUser, file: string, entity = 1, multidir?: Record<number, string>) =>
      download(user, { modulepart: 'bericht', entity, file }, { multidir });
    for (const user of [office, admin]) {
      assert.equal(served(user, 'BR2611-0001/BR2611-0001.pdf').body, 'CONTENT A pdf');
      assert.equal(served(user, 'BR2611-0001/Unterschrift_1.png.json').body, 'CONTENT A metadata');
      assert.equal(served(user, 'BR2611-0006/Vorlage.jpg').body, 'CONTENT template image', "a template's image, for the office");
      for (const file of [
        'temp/print/0123abcd.jpg',
        './temp/print/0123abcd.jpg',
        'temp/runs/run1.json',
        'BR2611-0003/.copy.0123456789ab.0123456789ab.tmp',
        'BR2611-9999/x.pdf',
        'BR2611-0001/./BR2611-0001.pdf/..',
      ]) {
        assert.equal(served(user, file).served, false, `user ${user.id}: ${file}`);
      }
      for (const modulepart of ['bericht_temp', 'bericht-temp']) {
        assert.equal(download(user, { modulepart, entity: 1, file: 'print/0123abcd.jpg' }).served, false, modulepart);
      }
      // Another entity: without Multicompany Dolibarr resolves it into this entity's folder; with it, the user does not work there.
      assert.equal(served(user, 'BR2611-0001/BR2611-0001.pdf', 2).served, false);
      assert.equal(served(user, 'BR2611-0008/BR2611-0008.pdf', 2, { 2: path.join(docs, '2/bericht') }).served, false);
      assert.equal(served(user, 'BR2611-0008/BR2611-0008.pdf', 1, { 2: path.join(docs, '2/bericht') }).served, false);
    }
    // Without the module's right; a sales representative of B only; orders only (A's report is on an order, B's PR on a proposal).
    assert.equal(served(noReportRight, 'BR2611-0001/BR2611-0001.pdf').served, false);
    assert.equal(served(salesRep, 'BR2611-0001/BR2611-0001.pdf').served, false);
    assert.equal(served(salesRep, 'BR2611-0001/./BR2611-0001.pdf').served, false);
    assert.equal(served(salesRep, 'BR2611-0003/BR2611-0003.pdf').body, 'CONTENT B pdf');
    assert.equal(served(ordersOnly, 'BR2611-0001/BR2611-0001.pdf').body, 'CONTENT A pdf');
    assert.equal(
      served(office, 'BR2611-0003/Unterschrift_1.png.strokes.json').body,
      'CONTENT B strokes',
      'the office keeps the signature files',
    );
    for (const file of ['br2611-0003/BR2611-0003.pdf', 'BR2611-0003 /BR2611-0003.pdf']) {
      const r = served(office, file);
      assert.equal(r.status, 4, `${file}: ${r.body}`);
      assert.doesNotMatch(r.body, /CONTENT/, file);
    }
  });

  test("the REST API's documents: a report's files are only read, never deleted or written, whoever asks", () => {
    writeDocuments();
    const admin: FakeUser & { admin: number } = { id: 1, admin: 1, rights: ALL };
    const api = (user: FakeUser, method: string, mode: string, file: string, name = '') => {
      const res = spawnSync('php', ['-d', 'display_errors=stderr', path.join(htdocs, 'document.php')], {
        encoding: 'utf8',
        env: {
          ...process.env,
          FAKE_DB: dbFile,
          FAKE_DOCS: docs,
          FAKE_USER: JSON.stringify(user),
          FAKE_GET: JSON.stringify({ modulepart: 'bericht', entity: 1, file }),
          FAKE_API: JSON.stringify({ method, mode, name }),
          FAKE_API_CONTENT: 'CONTENT uploaded',
        },
      });
      assert.equal(res.stderr, '', `no PHP notice or warning for ${method} ${file}`);
      return { status: res.status, body: res.stdout };
    };
    // GET /documents/download: as document.php.
    assert.deepEqual(api(external, 'GET', 'read', 'BR2611-0003/BR2611-0003.pdf'), { status: 0, body: 'CONTENT B pdf' });
    assert.equal(api(external, 'GET', 'read', 'BR2611-0001/BR2611-0001.pdf').status, 4);
    // DELETE /documents checks with mode 'read' and unlinks: refused for the customer, the office and the admin.
    for (const user of [external, office, admin]) {
      for (const file of ['BR2611-0003/BR2611-0003.pdf', 'BR2611-0003/Unterschrift_1.png', 'BR2611-0003/thumbs/Unterschrift_1_small.png']) {
        const r = api(user, 'DELETE', 'read', file);
        assert.equal(r.status, 4, `user ${user.id} DELETE ${file}: ${r.body}`);
        assert.match(r.body, /^FORBIDDEN 403 /);
        assert.ok(existsSync(path.join(docs, 'bericht', file)), `user ${user.id}: ${file} is still there`);
      }
    }
    // POST /documents/upload checks with mode 'write' and writes whatever the answer: the hook ends the request.
    for (const user of [external, office, admin]) {
      for (const [folder, name] of [
        ['BR2611-0003/thumbs', 'x.png'],
        ['BR2611-0003/x', 'y.png'],
        ['BR2611-0003', 'BR2611-0003.pdf'],
      ] as const) {
        const r = api(user, 'POST', 'write', folder, name);
        assert.equal(r.status, 4, `user ${user.id} upload into ${folder}: ${r.body}`);
        assert.notEqual(readFileSync(path.join(docs, 'bericht', 'BR2611-0003/BR2611-0003.pdf'), 'utf8'), 'CONTENT uploaded');
        assert.ok(
          !existsSync(path.join(docs, 'bericht', folder, name)) || name === 'BR2611-0003.pdf',
          `user ${user.id}: nothing written into ${folder}`,
        );
      }
    }
  });

  test('the hook leaves other moduleparts alone, refuses with 403, and hands back the file it checked', () => {
    const script = (user: FakeUser, modulepart: string, file: string) => `
      putenv('FAKE_DB=${dbFile}'); putenv('FAKE_DOCS=${docs}'); putenv('FAKE_USER=' . ${JSON.stringify(JSON.stringify(user))});
      require ${JSON.stringify(path.join(htdocs, 'main.inc.php'))};
      require ${JSON.stringify(path.join(htdocs, 'custom/bericht/class/actions_bericht.class.php'))};
      $hookmanager->hooks[] = new ActionsBericht($db); $o = null; $a = '';
      $r = $hookmanager->executeHooks('checkSecureAccess', array('modulepart' => ${JSON.stringify(modulepart)}, 'original_file' => ${JSON.stringify(docs)}.'/'.${JSON.stringify(file)}, 'entity' => 1, 'fuser' => $user), $o, $a);
      echo json_encode(array('r' => $r, 'res' => $hookmanager->resArray));
    `;
    const check = (user: FakeUser, modulepart: string, file: string) => {
      const res = spawnSync('php', ['-r', script(user, modulepart, file)], { encoding: 'utf8' });
      assert.equal(res.stderr, '');
      return { status: res.status, out: res.stdout };
    };
    assert.deepEqual(check(office, 'commande', 'commande/CO2611-0001/CO2611-0001.pdf'), { status: 0, out: '{"r":0,"res":[]}' });
    // Another module whose name holds the word keeps its downloads.
    for (const modulepart of ['arbeitsbericht', 'berichte', 'arbeitsbericht_temp', 'massfilesarea_arbeitsbericht']) {
      assert.deepEqual(check(office, modulepart, `${modulepart}/AB-0001/AB-0001.pdf`), { status: 0, out: '{"r":0,"res":[]}' }, modulepart);
    }
    // The module's own moduleparts, wherever they point, are refused.
    for (const modulepart of ['bericht_temp', 'bericht_user', 'bericht_user_temp', 'massfilesarea_bericht']) {
      assert.equal(check(office, modulepart, 'elsewhere/x.pdf').status, 4, modulepart);
    }
    // A refusal ends the request with 403, as document.php ends one.
    const refused = check(external, 'bericht', 'bericht/BR2611-0001/./BR2611-0001.pdf');
    assert.equal(refused.status, 4);
    assert.equal(refused.out, 'FORBIDDEN 403 Zugriff auf diese Datei verweigert: sie gehört zu keinem Bericht, den Sie lesen dürfen.');
    const allowed = JSON.parse(check(external, 'bericht', 'bericht/BR2611-0003/./BR2611-0003.pdf').out) as {
      r: number;
      res: { original_file: string; sqlprotectagainstexternals: string };
    };
    assert.equal(allowed.res.original_file, path.join(docs, 'bericht/BR2611-0003/BR2611-0003.pdf'));
    assert.match(
      allowed.res.sqlprotectagainstexternals,
      /SELECT COALESCE\(co\.fk_soc, fa\.fk_soc, pr\.fk_soc, fi\.fk_soc, 0\) as fk_soc FROM llx_bericht as b/,
    );
  });

  test("the trash icon of an order's documents does not delete a photo a signed report shows, and names the report", () => {
    const deleting = (file: string, get: Record<string, string> = { action: 'confirm_deletefile', confirm: 'yes' }) => {
      const res = spawnSync(
        'php',
        [
          '-r',
          `
        putenv('FAKE_DB=${dbFile}'); putenv('FAKE_DOCS=${docs}'); putenv('FAKE_USER=' . ${JSON.stringify(JSON.stringify(office))}); putenv('FAKE_GET=' . ${JSON.stringify(JSON.stringify(get))});
        require ${JSON.stringify(path.join(htdocs, 'main.inc.php'))};
        require ${JSON.stringify(path.join(htdocs, 'custom/bericht/class/actions_bericht.class.php'))};
        $hookmanager->hooks[] = new ActionsBericht($db); $o = null; $a = '';
        $r = $hookmanager->executeHooks('deleteFile', array('file' => ${JSON.stringify(docs)}.'/'.${JSON.stringify(file)}, 'disableglob' => 0, 'nophperrors' => 0), $o, $a);
        echo 'RESULT '.$r;`,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(res.status, 0, res.stdout + res.stderr);
      assert.equal(res.stderr, '');
      return res.stdout.trim();
    };
    // dol_delete_file deletes nothing when the hooks answer < 0, and the page shows the message.
    const refused = deleting('commande/CO2611-0001/Heizung vorher.jpg');
    assert.equal(
      refused,
      'EVENT errors: Die Datei Heizung vorher.jpg wird nicht gelöscht: sie gehört zum unterschriebenen Bericht BR2611-0001 (die Unterschrift deckt sie ab).\nRESULT -1',
    );
    assert.match(
      deleting('commande/CO2611-0001/Dichtung.jpg'),
      /^EVENT errors: Die Datei Dichtung\.jpg wird nicht gelöscht: sie gehört zum unterschriebenen Bericht BR2611-0001/,
      "a checklist's photo",
    );
    assert.match(deleting('commande/CO2611-0002/Tiefkühler 2.jpg'), /Bericht BR2611-0003 /, 'the second image of a before/after page');
    for (const file of [
      'commande/CO2611-0001/Entwurf.jpg', // only a draft shows it
      'commande/CO2611-0001/Heizung nachher.jpg', // only an unsigned new version shows it
      'commande/CO2611-0002/Nach der Unterschrift.jpg', // a page after the signature
      'commande/CO2611-0001/anderes.jpg',
      'commande/CO2611-0001/Dichtung.jp',
      'bericht/BR2611-0001/BR2611-0001.pdf',
    ]) {
      assert.equal(deleting(file), 'RESULT 0', file);
    }
    // The Documents block of the order's card (actions_builddoc.inc.php) deletes through remove_file.
    assert.equal(
      deleting('commande/CO2611-0001/Heizung vorher.jpg', { action: 'remove_file', file: 'Heizung vorher.jpg' }),
      'EVENT errors: Die Datei Heizung vorher.jpg wird nicht gelöscht: sie gehört zum unterschriebenen Bericht BR2611-0001 (die Unterschrift deckt sie ab).\nRESULT -1',
    );
    assert.equal(deleting('commande/CO2611-0001/anderes.jpg', { action: 'remove_file', file: 'anderes.jpg' }), 'RESULT 0');
    assert.equal(
      deleting('commande/CO2611-0001/Heizung vorher.jpg', {}),
      'RESULT 0',
      'deleting the whole order (no confirm_deletefile) is left alone',
    );
    assert.equal(
      deleting('commande/CO2611-0001/Heizung vorher.jpg', { action: 'confirm_delete', confirm: 'yes' }),
      'RESULT 0',
      'deleting the whole order is left alone',
    );
  });

  test('the descriptor registers the tabs with their badge, the menu entry with its picto, the hooks, the triggers and the export', () => {
    const base = path.join(root, 'descriptor');
    mkdirSync(path.join(base, 'core/modules'), { recursive: true });
    writeFileSync(
      path.join(base, 'core/modules/DolibarrModules.class.php'),
      '<?php\n#[\\AllowDynamicProperties]\nclass DolibarrModules {}\n',
    );
    const res = spawnSync(
      'php',
      [
        '-r',
        `define('DOL_DOCUMENT_ROOT', ${JSON.stringify(base)});
      function img_picto($titlealt, $picto, $moreatt = '') { return '<img data-picto="'.$picto.'" '.$moreatt.'>'; }
      require ${JSON.stringify(path.join(MODULE, 'core/modules/modBericht.class.php'))};
      $m = new modBericht(null); echo json_encode(array('tabs' => $m->tabs, 'menu' => $m->menu, 'parts' => $m->module_parts,
        'export' => array($m->export_code, $m->export_permission, array_keys($m->export_fields_array[1]), $m->export_sql_end)));`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    const d = JSON.parse(res.stdout) as {
      tabs: { data: string }[];
      menu: Record<string, unknown>[];
      parts: { hooks: { data: string[] }; triggers: number };
      export: [Record<string, string>, Record<string, string[][]>, string[], Record<string, string>];
    };
    // "Label,Class,File,Method": Dolibarr's tabs call BerichtReports::count<Class>(id) for the badge.
    assert.deepEqual(
      d.tabs.map((t) => t.data),
      [
        'order:+bericht:BerichtTab,BerichtReports,/bericht/class/berichtreports.class.php,countCommande:bericht@bericht:$user->hasRight("bericht","read"):/bericht/tab.php?element=commande&id=__ID__',
        'invoice:+bericht:BerichtTab,BerichtReports,/bericht/class/berichtreports.class.php,countFacture:bericht@bericht:$user->hasRight("bericht","read"):/bericht/tab.php?element=facture&id=__ID__',
        'propal:+bericht:BerichtTab,BerichtReports,/bericht/class/berichtreports.class.php,countPropal:bericht@bericht:$user->hasRight("bericht","read"):/bericht/tab.php?element=propal&id=__ID__',
        'intervention:+bericht:BerichtTab,BerichtReports,/bericht/class/berichtreports.class.php,countFichinter:bericht@bericht:$user->hasRight("bericht","read"):/bericht/tab.php?element=fichinter&id=__ID__',
      ],
    );
    assert.equal(d.menu.length, 1);
    assert.equal(d.menu[0]!.url, '/bericht/list.php');
    assert.equal(d.menu[0]!.fk_menu, 'fk_mainmenu=commercial');
    assert.equal(d.menu[0]!.perms, '$user->hasRight("bericht","read")');
    assert.equal(d.menu[0]!.titre, 'BerichtMenu', 'not "Berichte", the agenda\'s entry');
    assert.equal(d.menu[0]!.prefix, '<img data-picto="technic" class="paddingright pictofixedwidth">');
    const lang = (l: string) => readFileSync(path.join(MODULE, `langs/${l}/bericht.lang`), 'utf8');
    assert.match(lang('de_DE'), /^BerichtMenu = Einsatzberichte$/m);
    assert.match(lang('en_US'), /^BerichtMenu = Field reports$/m);
    assert.ok(d.parts.hooks.data.includes('main'));
    assert.ok(d.parts.hooks.data.includes('formmail'), "the hook of Dolibarr's e-mail form");
    assert.ok(d.parts.hooks.data.includes('api'), 'the access hook in the REST API too');
    assert.ok(d.parts.hooks.data.includes('fileslib'), "the hook of Dolibarr's file deletion");
    assert.equal(d.parts.triggers, 1);
    assert.ok(existsSync(path.join(MODULE, 'core/triggers/interface_99_modBericht_BerichtTriggers.class.php')));
    const [codes, perms, fields, sqlEnd] = d.export;
    assert.deepEqual(codes, { 1: 'bericht_1' });
    assert.deepEqual(perms, { 1: [['bericht', 'read']] });
    assert.ok(
      fields.includes('b.ref') && fields.includes('s.nom') && fields.includes('COALESCE(co.ref, fa.ref, pr.ref, fi.ref) as parent_ref'),
    );
    assert.equal(sqlEnd[1], ' FROM llx_bericht as b WHERE 1 = 0', 'without a user (switching the module on) the export finds nothing');
  });

  test("switching the module on warns when Dolibarr's SOAP webservices (getDocument, no hooks) are on", () => {
    const base = path.join(root, 'descriptor-init');
    mkdirSync(path.join(base, 'core/modules'), { recursive: true });
    writeFileSync(
      path.join(base, 'core/modules/DolibarrModules.class.php'),
      '<?php\n#[\\AllowDynamicProperties]\nclass DolibarrModules { public function _init($sql, $options = "") { return 1; } }\n',
    );
    const init = (enabled: string[]) =>
      spawnSync(
        'php',
        [
          '-r',
          `define('DOL_DOCUMENT_ROOT', ${JSON.stringify(base)});
      function isModEnabled($m) { return in_array($m, ${JSON.stringify(JSON.stringify(enabled))} === '' ? array() : json_decode(${JSON.stringify(JSON.stringify(enabled))}, true), true); }
      function setEventMessages($m, $ms, $style = 'mesgs') { echo 'EVENT '.$style.': '.$m."\\n"; }
      class Translate { public $tab = array(); public function loadLangs($l) { foreach (file(${JSON.stringify(path.join(MODULE, 'langs/de_DE/bericht.lang'))}) as $line) { if (preg_match('/^(\\w+)\\s*=\\s*(.*)$/', trim($line), $m)) { $this->tab[$m[1]] = $m[2]; } } } public function trans($k) { return $this->tab[$k] ?? $k; } }
      $langs = new Translate();
      require ${JSON.stringify(path.join(MODULE, 'core/modules/modBericht.class.php'))};
      $m = new modBericht(null); echo 'RESULT '.$m->init();`,
        ],
        { encoding: 'utf8' },
      );
    const on = init(['webservices', 'bericht']);
    assert.equal(on.stderr, '');
    assert.equal(
      on.stdout,
      'EVENT warnings: Das Modul Webservices (SOAP) ist eingeschaltet: seine Funktion getDocument liefert Dateien ohne die Zugriffsprüfung dieses Moduls, auch Berichte und Unterschriftsdaten. Schalten Sie es aus, wenn Sie es nicht brauchen.\nRESULT 1',
    );
    const off = init(['bericht']);
    assert.equal(off.stdout, 'RESULT 1');
  });

  test("Dolibarr's e-mail form of an order, proposal or intervention attaches its final reports (their copies in the object's documents)", () => {
    for (const [folder, ref] of [
      ['commande/CO2611-0001', 'BR2611-0001'],
      ['propale/PR2611-0001', 'BR2611-0005'],
      ['ficheinter/FI2611-0001', 'BR2611-0010'],
      ['commande/CO2611-0001', 'BR2611-0013'],
      ['commande/CO2611-0001', 'BR2611-0014'],
    ] as const) {
      mkdirSync(path.join(docs, folder), { recursive: true });
      writeFileSync(path.join(docs, folder, `${ref}.pdf`), '%PDF-1.4\n');
    }
    // A second report of order 1 with two final versions (13, then 14 made from it).
    const db = path.join(root, 'formmail.sqlite');
    cpSync(dbFile, db);
    const seeded = spawnSync(
      'php',
      [
        '-r',
        `$p = new PDO('sqlite:'.${JSON.stringify(db)});
      $p->exec("INSERT INTO llx_bericht (rowid, ref, entity, element_type, fk_element, title, status, version, fk_bericht_parent, final_pdf_path, fk_user_creat, datec, tms) VALUES (13, 'BR2611-0013', 1, 'commande', 1, 'Abnahme', 1, 1, NULL, 'bericht/BR2611-0013/BR2611-0013.pdf', 10, '2026-11-23 08:00:00', '2026-11-23 08:00:00'), (14, 'BR2611-0014', 1, 'commande', 1, 'Abnahme', 1, 2, 13, 'bericht/BR2611-0014/BR2611-0014.pdf', 10, '2026-11-24 08:00:00', '2026-11-24 08:00:00')");`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(seeded.status, 0, seeded.stderr);
    const attached = (user: FakeUser, trackid: string, get: Record<string, string> = { mode: 'init' }, database = dbFile) => {
      const res = spawnSync(
        'php',
        [
          '-r',
          `
        putenv('FAKE_DB=${database}'); putenv('FAKE_DOCS=${docs}'); putenv('FAKE_USER=' . ${JSON.stringify(JSON.stringify(user))}); putenv('FAKE_GET=' . ${JSON.stringify(JSON.stringify(get))});
        require ${JSON.stringify(path.join(htdocs, 'main.inc.php'))};
        require ${JSON.stringify(path.join(htdocs, 'custom/bericht/class/actions_bericht.class.php'))};
        class FormMail { public $trackid; public $files = array(); public function add_attached_files($path, $file = '', $type = '') { $this->files[] = array($path, $file, $type); } }
        $form = new FormMail(); $form->trackid = ${JSON.stringify(trackid)}; $a = '';
        $hookmanager->hooks[] = new ActionsBericht($db);
        $r = $hookmanager->executeHooks('getFormMail', array('trackid' => ${JSON.stringify(trackid)}), $form, $a);
        echo json_encode(array('r' => $r, 'files' => $form->files));`,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(res.status, 0, res.stdout + res.stderr);
      assert.equal(res.stderr, '');
      const out = JSON.parse(res.stdout) as { r: number; files: string[][] };
      assert.equal(out.r, 0, "the form stays Dolibarr's own");
      return out.files.map(([file, name, type]) => [path.relative(docs, file!), name, type]);
    };
    assert.deepEqual(
      attached(office, 'ord1'),
      [['commande/CO2611-0001/BR2611-0001.pdf', 'BR2611-0001.pdf', 'application/pdf']],
      'the final report, not the newer draft',
    );
    assert.deepEqual(attached(office, 'pro1'), [['propale/PR2611-0001/BR2611-0005.pdf', 'BR2611-0005.pdf', 'application/pdf']]);
    assert.deepEqual(attached(office, 'ord1', {}), [], 'only when the form opens, not when it is sent or reloaded');
    assert.deepEqual(attached(office, 'inv1'), [], 'an invoice with only a draft report');
    assert.deepEqual(attached(office, 'ord2'), [], 'a final report whose copy is not in the documents');
    assert.deepEqual(attached(noReportRight, 'ord1'), [], "without the module's read right");
    assert.deepEqual(attached(office, "ord1' OR 1=1"), [], 'a trackid of another form');
    assert.deepEqual(
      attached(office, 'int1'),
      [['ficheinter/FI2611-0001/BR2611-0010.pdf', 'BR2611-0010.pdf', 'application/pdf']],
      "an intervention's form",
    );
    assert.deepEqual(
      attached(office, 'ord1', { mode: 'init' }, db),
      [
        ['commande/CO2611-0001/BR2611-0001.pdf', 'BR2611-0001.pdf', 'application/pdf'],
        ['commande/CO2611-0001/BR2611-0014.pdf', 'BR2611-0014.pdf', 'application/pdf'],
      ],
      'every final report of the order, each in its newest final version (14, not 13 it was made from)',
    );
  });

  /** Runs the module's trigger as Dolibarr's run_triggers does, on an object of the test database. */
  function trigger(db: string, code: string, objectClass: string, file: string, id: number, set: Record<string, unknown> = {}) {
    const res = spawnSync(
      'php',
      [
        '-d',
        'display_errors=stderr',
        '-r',
        `putenv('FAKE_DB=${db}'); putenv('FAKE_DOCS=${docs}'); putenv('FAKE_USER=' . ${JSON.stringify(JSON.stringify({ ...office, id: 10 }))});
      require ${JSON.stringify(path.join(htdocs, 'main.inc.php'))};
      require_once DOL_DOCUMENT_ROOT.'/core/lib/files.lib.php';
      require_once DOL_DOCUMENT_ROOT.${JSON.stringify(file)};
      require ${JSON.stringify(path.join(htdocs, 'custom/bericht/core/triggers/interface_99_modBericht_BerichtTriggers.class.php'))};
      $object = new ${objectClass}($db); $object->fetch(${id});
      foreach (json_decode(${JSON.stringify(JSON.stringify(set))}, true) as $k => $v) { $object->$k = $v; }
      $db->begin();
      $t = new InterfaceBerichtTriggers($db);
      $r = $t->runTrigger(${JSON.stringify(code)}, $object, $user, $langs, $conf);
      if ($r < 0) { $db->rollback(); } else { $db->commit(); }
      echo json_encode(array('r' => $r, 'errors' => $t->errors), JSON_UNESCAPED_UNICODE);`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(res.stderr, '', res.stdout);
    assert.equal(res.status, 0, res.stdout);
    return JSON.parse(res.stdout) as { r: number; errors: string[] };
  }
  const query = (db: string, sql: string) =>
    JSON.parse(
      spawnSync(
        'php',
        [
          '-r',
          `$p = new PDO('sqlite:'.${JSON.stringify(db)}); echo json_encode($p->query(${JSON.stringify(sql)})->fetchAll(PDO::FETCH_ASSOC));`,
        ],
        {
          encoding: 'utf8',
        },
      ).stdout,
    ) as Record<string, unknown>[];

  test("a report sent with Dolibarr's own e-mail form is recorded as sent (ORDER_SENTBYMAIL, FICHINTER_SENTBYMAIL) and shows as sent", () => {
    const db = path.join(root, 'sentbymail.sqlite');
    cpSync(dbFile, db);
    for (const [folder, ref] of [
      ['commande/CO2611-0002', 'BR2611-0003'],
      ['ficheinter/FI2611-0001', 'BR2611-0010'],
    ] as const) {
      mkdirSync(path.join(docs, folder), { recursive: true });
      writeFileSync(path.join(docs, folder, `${ref}.pdf`), '%PDF-1.4\n');
    }
    spawnSync('php', [
      '-r',
      `$p = new PDO('sqlite:'.${JSON.stringify(db)}); $p->exec("INSERT INTO llx_actioncomm (id, elementtype, fk_element, email_msgid, code) VALUES (77, 'order', 2, '<msg-1@dolibarr>', 'AC_ORDER_SENTBYMAIL')");`,
    ]);
    assert.deepEqual(
      ok(run('tab.php', office, { element: 'commande', id: 2 }, {}, { db }))
        .rows.get(3)!
        .match(/fehlgeschlagen/)?.[0],
      'fehlgeschlagen',
    );
    const mail = (paths: string[]) => ({
      attachedfiles: { paths, names: paths.map((p) => path.basename(p)), mimes: paths.map(() => 'application/pdf') },
      email_to: 'Hans Huber <huber@metzgerei.example>',
      email_tocc: 'buero@metzgerei.example',
      email_tobcc: '',
      email_subject: 'Auftrag CO2611-0002 und Bericht',
      email_msgid: '<msg-1@dolibarr>',
      actionmsg: 'Guten Tag, anbei der Bericht.',
    });
    // The order's own PDF only: nothing to record.
    assert.deepEqual(
      trigger(
        db,
        'ORDER_SENTBYMAIL',
        'Commande',
        '/commande/class/commande.class.php',
        2,
        mail([path.join(docs, 'commande/CO2611-0002/CO2611-0002.pdf')]),
      ),
      { r: 0, errors: [] },
    );
    const sent = trigger(
      db,
      'ORDER_SENTBYMAIL',
      'Commande',
      '/commande/class/commande.class.php',
      2,
      mail([path.join(docs, 'commande/CO2611-0002/CO2611-0002.pdf'), path.join(docs, 'commande/CO2611-0002/BR2611-0003.pdf')]),
    );
    assert.deepEqual(sent, { r: 1, errors: [] });
    const rows = query(
      db,
      "SELECT fk_bericht, entity, state, mail_to, mail_cc, mail_bcc, subject, body, attempts, message_id, fk_actioncomm, fk_user_author, ip, datec = date_sent as same, next_attempt_at IS NOT NULL as due, expires_at IS NOT NULL as expires FROM llx_bericht_mail WHERE state = 'sent' AND fk_bericht = 3",
    );
    assert.deepEqual(rows, [
      {
        fk_bericht: 3,
        entity: 1,
        state: 'sent',
        mail_to: 'Hans Huber <huber@metzgerei.example>',
        mail_cc: 'buero@metzgerei.example',
        mail_bcc: null,
        subject: 'Auftrag CO2611-0002 und Bericht',
        body: 'Guten Tag, anbei der Bericht.',
        attempts: 1,
        message_id: '<msg-1@dolibarr>',
        fk_actioncomm: 77,
        fk_user_author: 10,
        ip: '192.0.2.1',
        same: 1,
        due: 1,
        expires: 1,
      },
    ]);
    const tab = ok(run('tab.php', office, { element: 'commande', id: 2 }, {}, { db }));
    assert.match(
      text(tab.rows.get(3)!),
      /gesendet \d\d\.\d\d\.\d{4} \d\d:\d\d an Hans Huber &lt;huber@metzgerei\.example&gt;/,
      "Dolibarr's recipients, escaped",
    );
    assert.doesNotMatch(text(tab.rows.get(3)!), /fehlgeschlagen|nicht versendet/);
    assert.match(text(ok(run('list.php', office, { search_parent: 'CO2611-0002' }, {}, { db })).rows.get(3)!), /gesendet/);
    // The report's own PDF attached by hand counts too; an intervention's form likewise.
    const inter = trigger(db, 'FICHINTER_SENTBYMAIL', 'Fichinter', '/fichinter/class/fichinter.class.php', 1, {
      ...mail([path.join(docs, 'bericht/BR2611-0010/BR2611-0010.pdf')]),
      email_msgid: '',
    });
    assert.deepEqual(inter, { r: 1, errors: [] });
    assert.deepEqual(query(db, 'SELECT fk_bericht, state, fk_actioncomm FROM llx_bericht_mail WHERE fk_bericht = 10'), [
      { fk_bericht: 10, state: 'sent', fk_actioncomm: null },
    ]);
    assert.match(text(ok(run('tab.php', office, { element: 'fichinter', id: 1 }, {}, { db })).rows.get(10)!), /gesendet/);
    // A draft's or another object's file is no report of this mail.
    assert.deepEqual(
      trigger(
        db,
        'ORDER_SENTBYMAIL',
        'Commande',
        '/commande/class/commande.class.php',
        1,
        mail([path.join(docs, 'commande/CO2611-0002/BR2611-0003.pdf')]),
      ),
      { r: 0, errors: [] },
    );
  });

  test('deleting an order, invoice or intervention deletes its draft reports with their pages and files, and is refused while it has final ones', () => {
    const db = path.join(root, 'delete.sqlite');
    cpSync(dbFile, db);
    spawnSync('php', [
      '-r',
      `$p = new PDO('sqlite:'.${JSON.stringify(db)}); $p->exec("INSERT INTO llx_bericht_page (fk_bericht, page_order, layout, source_path) VALUES (4, 1, 'photo', 'bericht/BR2611-0004/a.jpg'), (11, 1, 'photo', 'bericht/BR2611-0011/b.jpg')"); $p->exec("INSERT INTO llx_ecm_files (entity, filepath, filename) VALUES (1, 'bericht/BR2611-0004', 'a.jpg'), (1, 'bericht/BR2611-0004x', 'keep.jpg')"); $p->exec("INSERT INTO llx_bericht_photo_evidence (entity, filepath, filename) VALUES (1, 'bericht/BR2611-0004', 'a.jpg')");`,
    ]);
    for (const ref of ['BR2611-0004', 'BR2611-0011', 'BR2611-0012']) {
      mkdirSync(path.join(docs, 'bericht', ref), { recursive: true });
      writeFileSync(path.join(docs, 'bericht', ref, 'a.jpg'), 'x');
    }
    // Order 2 has the final BR2611-0003 (and the draft BR2611-0012): refused, nothing deleted.
    const refused = trigger(db, 'ORDER_DELETE', 'Commande', '/commande/class/commande.class.php', 2);
    assert.equal(refused.r, -1);
    assert.deepEqual(refused.errors, [
      'CO2611-0002 wird nicht gelöscht: es hat abgeschlossene Berichte (BR2611-0003). Ein abgeschlossener, unterschriebener Bericht wird nicht mit seinem Objekt gelöscht; stornieren Sie das Objekt statt es zu löschen, oder lassen Sie die Berichte zuerst von einem Administrator löschen.',
    ]);
    assert.deepEqual(
      query(db, "SELECT rowid FROM llx_bericht WHERE fk_element = 2 AND element_type = 'commande' ORDER BY rowid").map((r) => r.rowid),
      [3, 12],
    );
    assert.ok(existsSync(path.join(docs, 'bericht/BR2611-0012/a.jpg')));
    // The invoice has only the draft BR2611-0004: deleted with its pages, index rows, evidence and folder.
    assert.deepEqual(trigger(db, 'BILL_DELETE', 'Facture', '/compta/facture/class/facture.class.php', 1), { r: 1, errors: [] });
    assert.deepEqual(query(db, 'SELECT rowid FROM llx_bericht WHERE rowid = 4'), []);
    assert.deepEqual(query(db, 'SELECT rowid FROM llx_bericht_page WHERE fk_bericht = 4'), []);
    assert.deepEqual(query(db, 'SELECT filepath FROM llx_ecm_files'), [{ filepath: 'bericht/BR2611-0004x' }]);
    assert.deepEqual(query(db, 'SELECT rowid FROM llx_bericht_photo_evidence'), []);
    assert.ok(!existsSync(path.join(docs, 'bericht/BR2611-0004')), "the draft's work folder");
    // The intervention 1 has a final report: refused. Intervention 2 has none: nothing to do.
    assert.equal(trigger(db, 'FICHINTER_DELETE', 'Fichinter', '/fichinter/class/fichinter.class.php', 1).r, -1);
    assert.ok(existsSync(path.join(docs, 'bericht/BR2611-0011/a.jpg')));
    assert.deepEqual(trigger(db, 'FICHINTER_DELETE', 'Fichinter', '/fichinter/class/fichinter.class.php', 2), { r: 0, errors: [] });
    // Order 1: the draft BR2611-0002 and BR2611-0007 (a draft version of the final BR2611-0001): refused for the final one.
    assert.equal(trigger(db, 'ORDER_DELETE', 'Commande', '/commande/class/commande.class.php', 1).r, -1);
  });

  test('a draft deleted with its object keeps its files when Dolibarr rolls the deletion back', () => {
    const db = path.join(root, 'rollback.sqlite');
    cpSync(dbFile, db);
    mkdirSync(path.join(docs, 'bericht/BR2611-0004'), { recursive: true });
    writeFileSync(path.join(docs, 'bericht/BR2611-0004/a.jpg'), 'x');
    // As Commande::delete after a trigger when the object cannot be deleted (shipments): rollback.
    const res = spawnSync(
      'php',
      [
        '-r',
        `putenv('FAKE_DB=${db}'); putenv('FAKE_DOCS=${docs}'); putenv('FAKE_USER=' . ${JSON.stringify(JSON.stringify(office))});
      require ${JSON.stringify(path.join(htdocs, 'main.inc.php'))};
      require_once DOL_DOCUMENT_ROOT.'/core/lib/files.lib.php';
      require_once DOL_DOCUMENT_ROOT.'/compta/facture/class/facture.class.php';
      require ${JSON.stringify(path.join(htdocs, 'custom/bericht/core/triggers/interface_99_modBericht_BerichtTriggers.class.php'))};
      $object = new Facture($db); $object->fetch(1); $db->begin();
      $t = new InterfaceBerichtTriggers($db); echo $t->runTrigger('BILL_DELETE', $object, $user, $langs, $conf);
      $db->rollback();`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(res.stderr, '');
    assert.equal(res.stdout, '1');
    assert.deepEqual(query(db, 'SELECT rowid FROM llx_bericht WHERE rowid = 4'), [{ rowid: 4 }]);
    assert.ok(existsSync(path.join(docs, 'bericht/BR2611-0004/a.jpg')), 'the draft came back, and so did its files');
  });
  describe('the draft invoice made from the tab (BERICHT_INVOICE_FROM_REPORT 0)', () => {
    const clerk: FakeUser = { id: 20, rights: [...ALL, 'facture.creer'] };
    const byClerk: Record<string, string> = {
      BERICHT_INVOICE_FROM_REPORT: '0',
      BERICHT_LABOUR_SERVICE: 'ARBEIT-STD',
      FACTURE_ADDON_PDF: 'sponge',
    };
    let n = 0;
    /** A copy of the test database, with SQL of the test's own applied. */
    function fresh(...statements: string[]) {
      const db = path.join(root, `invoice-${++n}.sqlite`);
      cpSync(dbFile, db);
      for (const sql of statements) query(db, `${sql}; SELECT 1`);
      return db;
    }
    const make = (db: string, user: FakeUser, report: number, consts = byClerk, opts: { token?: boolean; fail?: string } = {}) =>
      run(
        'tab.php',
        user,
        { element: 'commande', id: 1, action: 'makeinvoice', report, ...(opts.token === false ? {} : { token: 'token' }) },
        consts,
        { db, post: true, fail: opts.fail },
      );
    const invoices = (db: string) =>
      query(
        db,
        'SELECT rowid, ref, ref_ext, type, fk_statut, fk_soc, ref_client, model_pdf, fk_user_author FROM llx_facture WHERE rowid > 2 ORDER BY rowid',
      );
    const linesOf = (db: string, invoice: number) =>
      query(
        db,
        `SELECT description, subprice, qty, tva_tx, fk_product, remise_percent, product_type, fk_unit FROM llx_facturedet WHERE fk_facture = ${invoice} ORDER BY rowid`,
      );

    test('a final report of an order offers the button to a clerk who may create invoices, only when the service leaves the draft to the clerk', () => {
      const db = fresh();
      const row = ok(run('tab.php', clerk, { element: 'commande', id: 1 }, byClerk, { db })).rows.get(1)!;
      assert.match(row, /<form method="POST" action="\/custom\/bericht\/tab\.php\?element=commande&id=1"/);
      assert.match(row, /name="token" value="token"/);
      assert.match(row, /name="action" value="makeinvoice"/);
      assert.match(row, /name="report" value="1"/);
      assert.match(row, /value="Rechnungsentwurf erstellen"/);
      const page = ok(run('tab.php', clerk, { element: 'commande', id: 1 }, byClerk, { db }));
      assert.doesNotMatch(page.rows.get(2)!, /makeinvoice/, 'a draft report is not billed');
      assert.match(page.html, /<th class="wrapcolumntitle">Rechnung<\/th>/);
      // The service makes the draft itself (the default): no button.
      assert.doesNotMatch(ok(run('tab.php', clerk, { element: 'commande', id: 1 }, {}, { db })).rows.get(1)!, /makeinvoice/);
      // Without the right to create invoices, or as a customer's login: no button.
      assert.doesNotMatch(ok(run('tab.php', office, { element: 'commande', id: 1 }, byClerk, { db })).rows.get(1)!, /makeinvoice/);
      const customer: FakeUser = { id: 23, socid: 1, rights: [...external.rights, 'facture.creer'] };
      assert.doesNotMatch(ok(run('tab.php', customer, { element: 'commande', id: 1 }, byClerk, { db })).rows.get(1)!, /makeinvoice/);
      // A report already on an invoice links to it with its status; a proposal's tab has no invoice column.
      const billed = ok(run('tab.php', clerk, { element: 'commande', id: 2 }, byClerk, { db })).rows.get(3)!;
      assert.match(
        billed,
        /href="\/compta\/facture\/card\.php\?id=2"><img data-picto="bill">FA2611-0002<\/a> <span class="badge status1">/,
      );
      assert.doesNotMatch(ok(run('tab.php', clerk, { element: 'propal', id: 1 }, byClerk, { db })).html, /Rechnung<\/th>/);
    });

    test("the button puts the report's time and parts on a new draft invoice of the order, through Dolibarr's Facture, once", () => {
      const db = fresh(
        'UPDATE llx_bericht SET fk_fichinter = 2 WHERE rowid = 1',
        "UPDATE llx_bericht_material SET note = 'alte Pumpe <img src=x onerror=alert(1)> & entsorgt' WHERE label = 'Umwälzpumpe'",
      );
      const r = make(db, clerk, 1);
      assert.equal(r.status, 0, r.html + r.stderr);
      assert.equal(r.stderr, '');
      assert.match(r.html, /EVENT mesgs: Zeit und Material des Berichts BR2611-0001 stehen auf dem Rechnungsentwurf\./);
      const [inv, ...more] = invoices(db);
      assert.equal(more.length, 0);
      assert.deepEqual(inv, {
        rowid: 3,
        ref: '(PROV3)',
        ref_ext: 'fieldreport:BR2611-0001',
        type: 0,
        fk_statut: 0,
        fk_soc: 1,
        ref_client: 'Bestellung 4711',
        model_pdf: 'sponge',
        fk_user_author: 20,
      });
      assert.deepEqual(
        query(db, "SELECT fk_source, sourcetype FROM llx_element_element WHERE fk_target = 3 AND targettype = 'facture' ORDER BY rowid"),
        [
          { fk_source: 1, sourcetype: 'commande' },
          { fk_source: 2, sourcetype: 'fichinter' },
        ],
      );
      // Labour per technician (hours / the service's 1 h, 2 decimals), the part on the order at its
      // price and discount, the pump at the price Dolibarr picks (given formatted, 1.289,50) with its
      // serial and note (the technician's markup escaped), free text at 0;
      // the line no final report took (Schrauben) and report 7's interval stay off.
      assert.deepEqual(linesOf(db, 3), [
        {
          description: 'Zeitaufwand Max Müller : 02:15',
          subprice: 65,
          qty: 2.25,
          tva_tx: 19,
          fk_product: 1,
          remise_percent: 0,
          product_type: 1,
          fk_unit: null,
        },
        {
          description: 'Zeitaufwand Lena Schmidt : 00:45',
          subprice: 65,
          qty: 0.75,
          tva_tx: 19,
          fk_product: 1,
          remise_percent: 0,
          product_type: 1,
          fk_unit: null,
        },
        { description: '', subprice: 11.9, qty: 2, tva_tx: 19, fk_product: 2, remise_percent: 10, product_type: 0, fk_unit: 28 },
        {
          description: 'Charge/Serie: UPM3-0042<br>\nalte Pumpe &lt;img src=x onerror=alert(1)&gt; &amp; entsorgt',
          subprice: 1289.5,
          qty: 1,
          tva_tx: 19,
          fk_product: 3,
          remise_percent: 0,
          product_type: 0,
          fk_unit: null,
        },
        {
          description: 'Kleinteile\n(Freitext: Preis und USt. prüfen)',
          subprice: 0,
          qty: 1,
          tva_tx: 0,
          fk_product: null,
          remise_percent: 0,
          product_type: 0,
          fk_unit: null,
        },
      ]);
      assert.deepEqual(query(db, 'SELECT fk_facture FROM llx_bericht WHERE rowid = 1'), [{ fk_facture: 3 }]);
      // The tab now links the invoice; a second post (a double click) makes nothing.
      assert.match(ok(run('tab.php', clerk, { element: 'commande', id: 1 }, byClerk, { db })).rows.get(1)!, />\(PROV3\)<\/a>/);
      const again = make(db, clerk, 1);
      assert.equal(again.status, 0);
      assert.doesNotMatch(again.html, /EVENT/);
      assert.equal(invoices(db).length, 1);
      assert.equal(linesOf(db, 3).length, 5);
    });

    test("an order's draft invoice of the visits not yet validated is completed, not doubled", () => {
      const db = fresh(
        "INSERT INTO llx_facture (rowid, ref, fk_soc, entity, fk_statut, ref_ext, type) VALUES (7, '(PROV7)', 1, 1, 0, 'fieldreport:BR2611-0099', 0)",
        "INSERT INTO llx_element_element (fk_source, sourcetype, fk_target, targettype) VALUES (1, 'commande', 7, 'facture')",
        "INSERT INTO llx_facturedet (fk_facture, description, subprice, qty, tva_tx) VALUES (7, 'vorher', 10, 1, 19)",
      );
      assert.equal(make(db, clerk, 1).status, 0);
      assert.deepEqual(
        invoices(db).map((i) => i.rowid),
        [7],
      );
      assert.equal(linesOf(db, 7).length, 6);
      assert.deepEqual(query(db, 'SELECT fk_facture FROM llx_bericht WHERE rowid = 1'), [{ fk_facture: 7 }]);
      // A validated one is the clerk's: a new draft is made beside it.
      const other = fresh(
        "INSERT INTO llx_facture (rowid, ref, fk_soc, entity, fk_statut, ref_ext, type) VALUES (7, 'FA2611-0007', 1, 1, 1, 'fieldreport:BR2611-0099', 0)",
        "INSERT INTO llx_element_element (fk_source, sourcetype, fk_target, targettype) VALUES (1, 'commande', 7, 'facture')",
      );
      assert.equal(make(other, clerk, 1).status, 0);
      assert.deepEqual(
        invoices(other).map((i) => [i.rowid, i.fk_statut]),
        [
          [7, 1],
          [8, 0],
        ],
      );
    });

    test('refused and rolled back: without the token, without the right, a report not offered, Dolibarr refusing a line', () => {
      const db = fresh();
      const noToken = make(db, clerk, 1, byClerk, { token: false });
      assert.equal(noToken.status, 6, 'Dolibarr refuses the post');
      for (const [user, report, consts] of [
        [office, 1, byClerk],
        [clerk, 2, byClerk],
        [clerk, 1, {}],
        [clerk, 3, byClerk],
        [clerk, 999, byClerk],
      ] as const) {
        const r = make(db, user, report, consts);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.html, /EVENT errors: Für diesen Bericht wird hier kein Rechnungsentwurf erstellt/, `${user.id} ${report}`);
      }
      // A report finalized before reports said what they billed (0): neither a button nor a post bills it.
      const older = fresh('UPDATE llx_bericht SET fk_facture = 0 WHERE rowid = 1');
      const olderRow = ok(run('tab.php', clerk, { element: 'commande', id: 1 }, byClerk, { db: older })).rows.get(1)!;
      assert.doesNotMatch(olderRow, /makeinvoice|facture\/card/);
      assert.match(make(older, clerk, 1).html, /EVENT errors: Für diesen Bericht wird hier kein Rechnungsentwurf erstellt/);
      assert.deepEqual(invoices(older), []);
      const failing = make(db, clerk, 1, byClerk, { fail: 'facture_addline' });
      assert.match(failing.html, /EVENT errors: ErrorFakeAddline/);
      assert.deepEqual(invoices(db), []);
      assert.deepEqual(query(db, 'SELECT count(*) AS n FROM llx_facturedet'), [{ n: 0 }]);
      assert.deepEqual(query(db, "SELECT count(*) AS n FROM llx_element_element WHERE targettype = 'facture'"), [{ n: 0 }]);
      assert.deepEqual(query(db, 'SELECT fk_facture FROM llx_bericht WHERE rowid = 1'), [{ fk_facture: null }]);
    });

    test('an invoice or intervention deleted in Dolibarr: its reports are on none any more, and the button is back', () => {
      const db = fresh('UPDATE llx_bericht SET fk_fichinter = 2, fk_facture = 2 WHERE rowid = 1');
      assert.deepEqual(trigger(db, 'BILL_DELETE', 'Facture', '/compta/facture/class/facture.class.php', 2), { r: 0, errors: [] });
      assert.deepEqual(query(db, 'SELECT rowid, fk_facture FROM llx_bericht WHERE rowid IN (1, 3) ORDER BY rowid'), [
        { rowid: 1, fk_facture: null },
        { rowid: 3, fk_facture: null },
      ]);
      assert.match(ok(run('tab.php', clerk, { element: 'commande', id: 1 }, byClerk, { db })).rows.get(1)!, /makeinvoice/);
      assert.deepEqual(trigger(db, 'FICHINTER_DELETE', 'Fichinter', '/fichinter/class/fichinter.class.php', 2), { r: 0, errors: [] });
      assert.deepEqual(query(db, 'SELECT fk_fichinter FROM llx_bericht WHERE rowid = 1'), [{ fk_fichinter: null }]);
    });

    test("an invoice's and an intervention's tab list the reports of visits on orders that went on them, with their order, as the order allows", () => {
      const db = fresh('UPDATE llx_bericht SET fk_fichinter = 2 WHERE rowid = 1');
      const invoiceTab = ok(run('tab.php', office, { element: 'facture', id: 2 }, {}, { db }));
      assert.deepEqual(invoiceTab.ids, [3]);
      assert.match(
        invoiceTab.rows.get(3)!,
        /<a class="nomurl" href="\/commande\/card\.php\?id=2"><img data-picto="order">CO2611-0002<\/a>/,
      );
      assert.doesNotMatch(invoiceTab.html, /Rechnung<\/th>/, 'no invoice column on an invoice');
      const interventionTab = ok(run('tab.php', office, { element: 'fichinter', id: 2 }, {}, { db }));
      assert.deepEqual(interventionTab.ids, [1]);
      // Without the right to read orders, an order's report stays hidden on the invoice too.
      const invoicesOnly: FakeUser = { id: 24, rights: ['bericht.read', 'facture.lire', 'societe.client.voir'] };
      assert.deepEqual(ok(run('tab.php', invoicesOnly, { element: 'facture', id: 2 }, {}, { db })).ids, []);
      // The invoice's own reports are still there: FA2611-0001 has BR2611-0004.
      assert.deepEqual(ok(run('tab.php', office, { element: 'facture', id: 1 }, {}, { db })).ids, [4]);
    });

    test('without a labour service a report with time is refused, nothing billed; a report that took nothing makes no invoice', () => {
      const db = fresh();
      const r = make(db, clerk, 1, { BERICHT_INVOICE_FROM_REPORT: '0' });
      assert.match(r.html, /EVENT errors: Arbeitszeit nicht berechnet: keine Dienstleistung „“/);
      assert.deepEqual(invoices(db), []);
      assert.deepEqual(query(db, 'SELECT fk_facture FROM llx_bericht WHERE rowid = 1'), [{ fk_facture: null }]);
      const noDuration = fresh("UPDATE llx_product SET duration = NULL WHERE ref = 'ARBEIT-STD'");
      assert.match(
        make(noDuration, clerk, 1).html,
        /EVENT errors: Arbeitszeit nicht berechnet: die Dienstleistung ARBEIT-STD hat keine Dauer/,
      );
      assert.deepEqual(invoices(noDuration), []);
      const nothing = fresh("UPDATE llx_bericht SET status = 1, final_pdf_path = 'x' WHERE rowid = 2");
      const none = make(nothing, clerk, 2);
      assert.match(none.html, /EVENT errors: Der Bericht hat weder Zeit vor Ort noch Material: kein Rechnungsentwurf\./);
      assert.deepEqual(invoices(nothing), []);
    });
  });
});
