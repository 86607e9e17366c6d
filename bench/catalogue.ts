/**
 * The catalogue on a slow phone (`npm run bench:catalogue`): Debian's Chromium at 390 × 844 with
 * the DevTools protocol's CPU slowdown (4×) and a slow 4G line (150 ms round trip, 1.6 Mbit/s
 * down), as bench/app.ts loads the app, against the built service in its own process on a
 * database with BENCH_PRODUCTS products and services on sale (default 20,000; names, refs and
 * barcodes as a wholesaler's, a unit each) of which 2,000 are in the technician's van.
 * 1. First sync: from pressing "Anmelden" until the phone's copy holds every product (its
 *    IndexedDB store counted), with the bytes of the catalogue's answers on the wire (compressed, as
 *    sent) and their JSON; printed, no target.
 * 2. Search per keystroke, offline: on an order's material dialog with the network cut, a query
 *    typed one letter at a time (each after the last one's results were drawn), from the input
 *    event to the end of the frame showing that letter's results (the app's measure
 *    `fieldreport:catalogue-search`, then a message posted from the next animation frame), from
 *    the second letter on (one letter does not search); the median and the slowest; target ≤ 50 ms. BENCH_CATALOGUE_QUERIES: the queries
 *    (comma-separated).
 * Results are printed and written to bench/results/catalogue-<time>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { addProduct, addWarehouse, setStock } from '../src/demo/catalogue.js';
import { INSTANCE_ID, PASSWORD, PHONE, ROOT, SLOW_4G, median, seedTechnician, startServer, stopProcess } from './common.js';
import { productsOnPhone } from '../test/helpers/browser.js';

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 20_000);
/** The app keeps at most 20,000 parts by default (Settings): a larger catalogue would never be whole on the phone. */
if (!(PRODUCTS > 0 && PRODUCTS <= 20_000)) throw new Error(`BENCH_PRODUCTS ${PRODUCTS}: 1 to 20,000, the app's default bound`);
const IN_VAN = Math.min(2_000, PRODUCTS);
const QUERIES = (process.env.BENCH_CATALOGUE_QUERIES ?? 'kupferrohr 22,pressfitting t 15,4260').split(',');
const TARGET_KEYSTROKE_MS = 50;
const CHROMIUM = '/usr/bin/chromium';

const KINDS = [
  ['Kupferrohr', 'M', ['12 mm', '15 mm', '18 mm', '22 mm', '28 mm', '35 mm']],
  ['Pressfitting Winkel', 'P', ['15 mm', '18 mm', '22 mm', '28 mm']],
  ['Pressfitting T-Stück', 'P', ['15 mm', '18 mm', '22 mm', '28 mm']],
  ['Kugelhahn', 'P', ['1/2"', '3/4"', '1"', '5/4"']],
  ['Dichtungssatz', 'SET', ['Brenner', 'Pumpe', 'Ventil', 'Speicher']],
  ['Brennerdüse', 'P', ['0,40 gph 60° S', '0,45 gph 60° S', '0,50 gph 80° H', '0,60 gph 60° B']],
  ['Heizkörperventil', 'P', ['DN 10', 'DN 15', 'DN 20']],
  ['Frostschutzmittel', 'L', ['1 l', '5 l', '20 l']],
  ['Isolierschlauch', 'M', ['15 x 9 mm', '22 x 13 mm', '28 x 20 mm']],
  ['Schraube', 'P', ['M6 x 20', 'M8 x 30', 'M10 x 40']],
] as const;
const MAKERS = ['Viega', 'Geberit', 'Oventrop', 'Danfoss', 'Grundfos', 'Honeywell', 'Kemper', 'Sanha', 'Wilo', 'Buderus'];

/** Fills the database with the catalogue and the technician's van (his default warehouse). */
async function fillCatalogue(databaseUrl: string, loginName: string): Promise<void> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, INSTANCE_UNIQUE_ID: INSTANCE_ID });
  const handle = createDb(config, { poolSize: 1 });
  try {
    await handle.db.transaction().execute(async (trx) => {
      const user = await trx.selectFrom('user').select('rowid').where('login', '=', loginName).executeTakeFirstOrThrow();
      const van = await addWarehouse(trx, handle.dialect, { ref: 'Fahrzeug B-FR 2026', entity: 1 });
      await trx.updateTable('user').set({ fk_warehouse: van }).where('rowid', '=', user.rowid).execute();
      for (let i = 0; i < PRODUCTS; i++) {
        const [kind, unit, sizes] = KINDS[i % KINDS.length]!;
        const size = sizes[Math.floor(i / KINDS.length) % sizes.length]!;
        const maker = MAKERS[Math.floor(i / (KINDS.length * 4)) % MAKERS.length]!;
        const id = await addProduct(trx, handle.dialect, {
          ref: `A${String(100000 + i)}`,
          label: `${kind} ${size} ${maker} ${Math.floor(i / 400) + 1}`,
          price: Math.round((2 + (i % 97) * 1.37) * 100) / 100,
          unit,
          barcode: `4260${String(100000000 + i).slice(-9)}`,
          entity: 1,
        });
        if (i % Math.floor(PRODUCTS / IN_VAN) === 0) await setStock(trx, id, van, 1 + (i % 12));
      }
    });
  } finally {
    await handle.destroy();
  }
}

/** In the page from its start: each input of the material field, and when its results were drawn. */
const WATCH = `
  window.__keys = [];
  document.addEventListener('input', (e) => {
    if (e.target && e.target.id === 'material-label') window.__keys.push({ at: e.timeStamp, drawn: 0 });
  }, true);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name !== 'fieldreport:catalogue-search') continue;
      const key = window.__keys[window.__keys.length - 1];
      if (!key) continue;
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => { key.drawn = performance.now(); };
        channel.port2.postMessage(0);
      });
    }
  }).observe({ type: 'measure' });
`;

async function measure(browser: Browser, base: string, login: string, orderId: number) {
  const context = await browser.newContext(PHONE);
  await context.addInitScript(WATCH);
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    const wire = new Map<string, number>();
    cdp.on('Network.loadingFinished', (e) => wire.set(e.requestId, e.encodedDataLength));
    const catalogueRequests = new Map<string, string>();
    cdp.on('Network.requestWillBeSent', (e) => {
      if (e.request.url.includes('/api/products.php')) catalogueRequests.set(e.requestId, e.request.url);
    });

    await page.goto(`${base}/app/`);
    await page.getByLabel('Benutzername').fill(login);
    await page.getByLabel('Passwort').fill(PASSWORD);
    const pressed = Date.now();
    await page.getByRole('button', { name: 'Anmelden' }).click();
    const count = () => productsOnPhone(page);
    const deadline = Date.now() + 600_000;
    while ((await count()) < PRODUCTS) {
      if (Date.now() > deadline) throw new Error(`the copy holds ${await count()} of ${PRODUCTS} after 10 minutes`);
      await page.waitForTimeout(250);
    }
    const syncMs = Date.now() - pressed;
    const catalogueIds = [...catalogueRequests.keys()];
    const wireBytes = catalogueIds.reduce((sum, id) => sum + (wire.get(id) ?? 0), 0);
    const jsonBytes = (await page.evaluate(
      `performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/products.php')).reduce((s, e) => s + e.decodedBodySize, 0)`,
    )) as number;

    await page.goto(`${base}/app/#/order/${orderId}`);
    await page.getByRole('button', { name: 'Material hinzufügen' }).click();
    await cdp.send('Network.emulateNetworkConditions', { ...SLOW_4G, offline: true });
    const field = page.getByLabel('Bezeichnung');
    const perQuery = [];
    for (const query of QUERIES) {
      await field.fill('');
      await page.evaluate('window.__keys = []');
      for (const letter of query) {
        const before = (await page.evaluate('window.__keys.length')) as number;
        await field.press(letter === ' ' ? 'Space' : letter);
        const end = Date.now() + 10_000;
        while (!((await page.evaluate(`(window.__keys[${before}] ?? { drawn: 0 }).drawn > 0`)) as boolean)) {
          if (Date.now() > end) throw new Error(`no results drawn for "${query}" at "${letter}"`);
          await page.waitForTimeout(5);
        }
      }
      // A letter that makes the query 2 characters long or more searches; the first alone does not.
      const keys = ((await page.evaluate('window.__keys.map((k) => k.drawn - k.at)')) as number[]).slice(1);
      const hits = await page
        .getByRole('list', { name: /Artikel im Katalog/ })
        .getByRole('listitem')
        .count();
      perQuery.push({ query, keys: keys.map((k) => Math.round(k)), hits });
    }
    return { syncMs, requests: catalogueIds.length, wireBytes, jsonBytes, perQuery };
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-catalogue-'));
  const dataRoot = path.join(work, 'documents');
  const databaseUrl = `sqlite:${path.join(work, 'bench.sqlite')}`;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let browser: Browser | undefined;
  try {
    const seeded = await seedTechnician(databaseUrl, dataRoot, { loginName: 'bench_catalogue', orderRef: 'CO2611-0042' });
    console.log(`Filling the catalogue: ${PRODUCTS} products, ${IN_VAN} of them in the technician's van …`);
    await fillCatalogue(databaseUrl, seeded.loginName);
    server = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
    });
    const r = await measure(browser, server.base, seeded.loginName, seeded.orderId);
    const all = r.perQuery.flatMap((q) => q.keys);
    const result = {
      at: new Date().toISOString(),
      products: PRODUCTS,
      in_van: IN_VAN,
      first_sync_ms: r.syncMs,
      first_sync_requests: r.requests,
      first_sync_wire_kb: Math.round(r.wireBytes / 1024),
      first_sync_json_kb: Math.round(r.jsonBytes / 1024),
      keystroke_median_ms: Math.round(median(all)),
      keystroke_max_ms: Math.max(...all),
      queries: r.perQuery,
    };
    console.log(JSON.stringify(result, null, 2));
    const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(
      [
        '',
        `Catalogue of ${PRODUCTS} products on a slow phone (CPU 4×, slow 4G):`,
        `  first sync after the login: ${(r.syncMs / 1000).toFixed(1)} s, ${r.requests} requests, ${result.first_sync_wire_kb} KiB on the wire (${result.first_sync_json_kb} KiB of JSON) (no target)`,
        `  search per keystroke, offline: median ${result.keystroke_median_ms} ms, slowest ${result.keystroke_max_ms} ms over ${all.length} letters (target ≤ ${TARGET_KEYSTROKE_MS} ms: ${mark(result.keystroke_median_ms <= TARGET_KEYSTROKE_MS)})`,
        ...r.perQuery.map((q) => `    "${q.query}": ${q.keys.join(', ')} ms; ${q.hits} shown`),
      ].join('\n'),
    );
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `catalogue-${result.at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await browser?.close();
    await stopProcess(server?.child);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
