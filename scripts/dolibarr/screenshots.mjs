#!/usr/bin/env node
// Screenshots of the module's screens in a running Dolibarr, in Chromium (1280×800):
// the "Berichte" tab of an order and the reports list, and a check that the first report PDF
// linked in the tab opens through document.php with the logged-in session.
//   DOLIBARR_URL=http://127.0.0.1:8092 DOLIBARR_LOGIN=admin DOLIBARR_PASSWORD=... ORDER_ID=1 \
//     node scripts/dolibarr/screenshots.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const base = process.env.DOLIBARR_URL ?? 'http://127.0.0.1:8092';
const login = process.env.DOLIBARR_LOGIN ?? 'admin';
const password = process.env.DOLIBARR_PASSWORD;
const orderId = Number(process.env.ORDER_ID ?? 1);
if (!password) throw new Error('DOLIBARR_PASSWORD is not set');

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${base}/index.php`);
  await page.fill('#username', login);
  await page.fill('#password', password);
  await Promise.all([page.waitForNavigation(), page.click('input[type=submit], button[type=submit]')]);

  // The tab, reached as the clerk reaches it: from the order card.
  await page.goto(`${base}/commande/card.php?id=${orderId}`);
  await Promise.all([page.waitForNavigation(), page.click('a.tab:has-text("Berichte"), a.tab:has-text("Reports")')]);
  await page.waitForSelector('#bericht-tab');
  const rows = await page.locator('#bericht-tab tr[data-rowid]').count();
  await page.screenshot({ path: path.join(ROOT, 'docs/screenshots/dolibarr-tab.png') });
  console.log(`tab: ${page.url()} (${rows} reports)`);

  const pdfLink = page.locator('#bericht-tab a[href*="document.php"]').first();
  if (await pdfLink.count()) {
    const href = new URL((await pdfLink.getAttribute('href')) ?? '', page.url()).toString();
    const res = await page.request.get(href);
    const body = await res.body();
    console.log(`pdf: ${href} -> ${res.status()} ${res.headers()['content-type']} ${body.subarray(0, 5).toString()} (${body.length} bytes)`);
  }

  // The list, from the left menu of the commercial area.
  await page.goto(`${base}/commande/list.php?mainmenu=commercial&leftmenu=orders`);
  await Promise.all([page.waitForNavigation(), page.click('a.vmenu:has-text("Berichte"), a.vmenu:has-text("Reports")')]);
  await page.waitForSelector('#bericht-list');
  await page.screenshot({ path: path.join(ROOT, 'docs/screenshots/dolibarr-list.png') });
  console.log(`list: ${page.url()} (${await page.locator('#bericht-list tr[data-rowid]').count()} reports)`);
} finally {
  await browser.close();
}
