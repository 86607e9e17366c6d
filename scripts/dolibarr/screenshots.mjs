#!/usr/bin/env node
// Screenshots of the module's screens in a running Dolibarr, in Chromium (1280×800):
// the "Berichte" tab of an order (with its count) and of an intervention, the "Einsatzberichte"
// list 10 a page, and a check that the first report PDF linked in the tab opens through
// document.php with the logged-in session; then Dolibarr's own tabs of the same order: its events
// (the service's events beside Dolibarr's) and its documents (the report PDFs copied there), and
// the files Dolibarr's own "send by e-mail" form attaches.
//   DOLIBARR_URL=http://127.0.0.1:8022 DOLIBARR_LOGIN=buero DOLIBARR_PASSWORD=... ORDER_ID=1 INTERVENTION_ID=1 \
//     node scripts/dolibarr/screenshots.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const base = process.env.DOLIBARR_URL ?? 'http://127.0.0.1:8092';
const login = process.env.DOLIBARR_LOGIN ?? 'admin';
const password = process.env.DOLIBARR_PASSWORD;
const orderId = Number(process.env.ORDER_ID ?? 1);
const interventionId = Number(process.env.INTERVENTION_ID ?? 0);
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
  const badge = await page.locator('a.tab:has-text("Berichte") .badge, a.tab:has-text("Reports") .badge').first().innerText();
  console.log(`tab: ${page.url()} (${rows} reports, badge ${badge})`);

  const pdfLink = page.locator('#bericht-tab a[href*="document.php"]').first();
  if (await pdfLink.count()) {
    const href = new URL((await pdfLink.getAttribute('href')) ?? '', page.url()).toString();
    const res = await page.request.get(href);
    const body = await res.body();
    console.log(
      `pdf: ${href} -> ${res.status()} ${res.headers()['content-type']} ${body.subarray(0, 5).toString()} (${body.length} bytes)`,
    );
  }

  // The intervention's tab, from its card.
  if (interventionId > 0) {
    await page.goto(`${base}/fichinter/card.php?id=${interventionId}`);
    await Promise.all([page.waitForNavigation(), page.click('a.tab:has-text("Berichte"), a.tab:has-text("Reports")')]);
    await page.waitForSelector('#bericht-tab');
    await page.screenshot({ path: path.join(ROOT, 'docs/screenshots/dolibarr-intervention-tab.png') });
    console.log(`intervention tab: ${page.url()} (${await page.locator('#bericht-tab tr[data-rowid]').count()} reports)`);
  }

  // The list, from the left menu of the commercial area, 10 a page, on its second page.
  await page.goto(`${base}/commande/list.php?mainmenu=commercial&leftmenu=orders`);
  await Promise.all([page.waitForNavigation(), page.click('a.vmenu:has-text("Einsatzberichte"), a.vmenu:has-text("Field reports")')]);
  await page.waitForSelector('#bericht-list');
  // As wide as its columns with the navigation at the right (Dolibarr's own lists are as wide).
  await page.setViewportSize({ width: 1600, height: 800 });
  await page.goto(`${page.url().replace(/\?.*$/, '')}?limit=10&page=1`);
  await page.waitForSelector('#bericht-list');
  await page.screenshot({ path: path.join(ROOT, 'docs/screenshots/dolibarr-list.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  const nav = (await page.locator('.pagination').first().innerText()).replace(/\s+/g, ' ');
  console.log(`list: ${page.url()} (${await page.locator('#bericht-list tr[data-rowid]').count()} reports; navigation ${nav})`);

  // The order's events ("Ereignisse/Agenda"), scrolled to the list of events.
  await page.goto(`${base}/commande/agenda.php?id=${orderId}`);
  const events = page.locator('table.noborder:has(tr.liste_titre) tr.oddeven');
  await events.first().waitFor();
  await page.evaluate(() => {
    const table = [...document.querySelectorAll('table.noborder')].find((t) => t.querySelector('tr.oddeven'));
    if (table) window.scrollTo(0, table.getBoundingClientRect().top + window.scrollY - 120);
  });
  await page.screenshot({ path: path.join(ROOT, 'docs/screenshots/dolibarr-events.png') });
  for (const text of await events.allInnerTexts()) console.log(`event: ${text.replace(/\s+/g, ' ').trim()}`);

  // The order's documents ("Verknüpfte Dokumente").
  await page.goto(`${base}/commande/document.php?id=${orderId}`);
  await page.screenshot({ path: path.join(ROOT, 'docs/screenshots/dolibarr-documents.png') });
  const docs = await page.locator('#tablelines tr.oddeven a[href*="document.php"]').allInnerTexts();
  console.log(`documents: ${[...new Set(docs.map((d) => d.trim()).filter(Boolean))].join(', ')}`);

  // Dolibarr's own "send by e-mail" form of the order: the files it attaches.
  await page.goto(`${base}/commande/card.php?id=${orderId}`);
  await Promise.all([page.waitForNavigation(), page.click('a.butAction[href*="action=presend"]')]);
  await page.waitForSelector('#addedfile');
  const attached = (await page.locator('[id^="attachfile_"]').allInnerTexts()).map((t) => t.trim());
  console.log(`mail form attaches: ${attached.join(', ') || '(nothing)'}`);
} finally {
  await browser.close();
}
