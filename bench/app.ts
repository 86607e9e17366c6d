/**
 * The technician's app on a slow phone: Debian's Chromium at 390 × 844 with the DevTools
 * protocol's CPU slowdown (4×) and a slow 4G line (150 ms round trip, 1.6 Mbit/s down,
 * 750 kbit/s up), against the built service in its own process on a database of 10,000 orders.
 * Each run is a cold start (a new browser profile: no cache, no service worker):
 * 1. first screen: from navigation to the login screen drawn (the app's mark
 *    `fieldreport:first-screen`); target ≤ 1.5 s;
 * 2. order list: from pressing "Anmelden" to the service's first page of orders drawn
 *    (`fieldreport:login` to `fieldreport:orders`), as the technician (2,000 of the orders) and as
 *    an administrator (all 10,000); target ≤ 1 s;
 * 3. first-screen JavaScript: every script the page loaded until the first screen, gzip-compressed
 *    (level 9, as served precompressed); target ≤ 80 kB.
 * BENCH_APP_RUNS (default 5) cold starts per user; the median is reported. Results are printed and
 * written to bench/results/app-<time>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { median, PASSWORD, ROOT, startServer } from './common.js';
import { seed } from './run.js';

const RUNS = Number(process.env.BENCH_APP_RUNS ?? 5);
const CHROMIUM = '/usr/bin/chromium';
const TARGETS = { first_screen_ms: 1500, order_list_ms: 1000, first_screen_js_gzip_kb: 80 };
const SLOW_4G = { offline: false, latency: 150, downloadThroughput: (1.6 * 1_000_000) / 8, uploadThroughput: (750 * 1000) / 8 };

async function coldStart(browser: Browser, base: string, login: string) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: 'de-DE', serviceWorkers: 'allow' });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });

    const scripts = new Map<string, Promise<Buffer>>();
    let firstScreenDone = false;
    page.on('response', (response) => {
      if (firstScreenDone || response.request().resourceType() !== 'script') return;
      scripts.set(response.url(), response.body());
    });
    await page.goto(`${base}/app/`);
    await page.getByRole('button', { name: 'Anmelden' }).waitFor();
    const mark = async (name: string) => {
      for (let i = 0; i < 200; i++) {
        const at = (await page.evaluate(`performance.getEntriesByName(${JSON.stringify(name)})[0]?.startTime ?? null`)) as number | null;
        if (at !== null) return at;
        await page.waitForTimeout(25);
      }
      throw new Error(`mark ${name} never came`);
    };
    const firstScreen = await mark('fieldreport:first-screen');
    firstScreenDone = true;
    let jsGzip = 0;
    for (const body of scripts.values()) jsGzip += gzipSync(await body, { level: 9 }).length;

    await page.getByLabel('Benutzername').fill(login);
    await page.getByLabel('Passwort').fill(PASSWORD);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('list', { name: 'Aufträge' }).getByRole('listitem').first().waitFor();
    const orderList = (await mark('fieldreport:orders')) - (await mark('fieldreport:login'));
    if (process.env.BENCH_APP_DEBUG) {
      console.log(await page.evaluate(`JSON.stringify({ login: performance.getEntriesByName('fieldreport:login')[0].startTime, orders: performance.getEntriesByName('fieldreport:orders')[0].startTime, requests: performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/')).map((e) => [e.name.slice(-40), Math.round(e.startTime), Math.round(e.responseStart), Math.round(e.responseEnd), e.transferSize]) })`));
    }
    return { firstScreen, orderList, jsGzip, scripts: scripts.size };
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-bench-app-'));
  const dataRoot = path.join(work, 'documents');
  const databaseUrl = `sqlite:${path.join(work, 'bench.sqlite')}`;
  let stop = () => {};
  let browser: Browser | undefined;
  try {
    console.log('Seeding 10,000 orders …');
    const seeded = await seed(databaseUrl, dataRoot);
    const server = await startServer({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, STATE_DIR: work });
    stop = () => server.child.kill('SIGTERM');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const users = [
      { label: `technician (${seeded.techOrders} of 10,000 orders)`, login: seeded.techLogin },
      { label: 'administrator (all 10,000 orders)', login: seeded.adminLogin },
    ];
    const perUser = [];
    for (const user of users) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await coldStart(browser, server.base, user.login));
      perUser.push({
        user: user.label,
        runs: RUNS,
        first_screen_ms: Math.round(median(runs.map((r) => r.firstScreen))),
        order_list_ms: Math.round(median(runs.map((r) => r.orderList))),
        order_list_max_ms: Math.round(Math.max(...runs.map((r) => r.orderList))),
        first_screen_js_gzip_kb: Math.round((median(runs.map((r) => r.jsGzip)) / 1000) * 10) / 10,
        first_screen_scripts: runs[0]!.scripts,
      });
    }
    const worst = {
      first_screen_ms: Math.max(...perUser.map((u) => u.first_screen_ms)),
      order_list_ms: Math.max(...perUser.map((u) => u.order_list_ms)),
      first_screen_js_gzip_kb: Math.max(...perUser.map((u) => u.first_screen_js_gzip_kb)),
    };
    const met = Object.fromEntries(Object.entries(TARGETS).map(([k, target]) => [k, worst[k as keyof typeof worst] <= target]));
    const results = {
      at: new Date().toISOString(),
      chromium: browser.version(),
      conditions: { cpu_slowdown: 4, network: 'slow 4G: 150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up', viewport: '390x844' },
      targets: TARGETS,
      results: perUser,
      met,
    };
    console.log(JSON.stringify(results, null, 2));
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `app-${results.at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(results, null, 2)}\n`);
    if (Object.values(met).includes(false)) process.exitCode = 1;
  } finally {
    await browser?.close();
    stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
