/**
 * The technician's app in a real browser: the service on a fresh SQLite database with the demo data
 * (logins techniker/meister/… with password demo), listening on 127.0.0.1 and serving the built app
 * (dist/app, made by `npm run build:app`, which `npm test` runs first); Debian's Chromium driven by
 * playwright-core at a phone's viewport (390 × 844, touch, German); axe-core for accessibility;
 * screenshots into docs/screenshots (the README and docs/ show them).
 * `skipReason()` says why a browser test cannot run here (no Chromium, app not built), so that the
 * test is reported as skipped with that reason instead of passing.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Config, Dialect } from '../../src/config.js';
import { DEMO_PASSWORD, seedDemo } from '../../src/demo/seed.js';
import { createTestContext, type TestContext } from './build-app.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const APP_DIR = path.join(ROOT, 'dist/app');
export const SCREENSHOTS = path.join(ROOT, 'docs/screenshots');
export const PHONE = { width: 390, height: 844 };
export const WAIT = 30_000;
export { DEMO_PASSWORD };

/** Chromium as the tests run it: headless, as root, and quiet on this machine's closed network. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const FLAGS = [
  ...CHROMIUM_FLAGS,
  // A microphone for MediaRecorder: Chromium's fake device (a tone), allowed without a prompt.
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];

export function skipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `chromium not installed (${CHROMIUM} missing; Debian package chromium)`;
  if (!existsSync(path.join(APP_DIR, 'index.html'))) return 'the app is not built (dist/app/index.html missing; run npm run build:app)';
  return undefined;
}

export interface AppWorld {
  ctx: TestContext;
  origin: string;
  browser: Browser;
  close(): Promise<void>;
}

/** The service with the demo data and the built app, and a browser. */
export async function startWorld(overrides: Partial<Config> = {}, dialect: Dialect = 'sqlite'): Promise<AppWorld> {
  const ctx = await createTestContext(dialect, { appDir: APP_DIR, ...overrides } as Partial<Config>);
  await seedDemo(ctx.handle, ctx.config);
  const origin = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: WAIT });
  return {
    ctx,
    origin,
    browser,
    async close() {
      await browser.close();
      await ctx.close();
    },
  };
}

/** A new phone: its own storage (IndexedDB, service worker), touch, German, light or dark. */
export async function phone(
  world: AppWorld,
  options: { colorScheme?: 'light' | 'dark'; locale?: string } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await world.browser.newContext({
    viewport: PHONE,
    hasTouch: true,
    isMobile: true,
    deviceScaleFactor: 1,
    locale: options.locale ?? 'de-DE',
    timezoneId: 'Europe/Berlin',
    colorScheme: options.colorScheme ?? 'light',
    permissions: ['microphone'],
    baseURL: world.origin,
  });
  context.setDefaultTimeout(WAIT);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, errors };
}

/**
 * Opens the app at `address` and waits until its first screen is drawn (the app's own mark): the
 * page's load event comes before that (the app's main part is loaded by its first script).
 */
export async function openApp(page: Page, address = '/app/'): Promise<void> {
  await page.goto(address);
  await page.waitForFunction(() => performance.getEntriesByName('fieldreport:first-screen').length > 0);
}

/** Logs in through the login screen and waits for the order list. */
export async function logIn(page: Page, login = 'techniker', password = DEMO_PASSWORD): Promise<void> {
  if (!page.url().includes('/app/')) await page.goto('/app/');
  await page.getByLabel('Benutzername').fill(login);
  await page.getByLabel('Passwort').fill(password);
  await page.getByRole('button', { name: 'Anmelden' }).click();
  await page.getByRole('list', { name: 'Aufträge', exact: true }).waitFor();
}

/** The phone's outbox as it is (ids and kinds, oldest first), read from the app's IndexedDB. */
export async function outboxRecords(page: Page): Promise<Array<{ id: string; kind: string; createdAt: number }>> {
  const records = (await page.evaluate(`new Promise((resolve, reject) => {
    const open = indexedDB.open('fieldreport');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const all = open.result.transaction('outbox').objectStore('outbox').getAll();
      all.onsuccess = () => resolve(all.result.map((r) => ({ id: r.id, kind: r.kind, createdAt: r.createdAt })));
      all.onerror = () => reject(all.error);
    };
  })`)) as Array<{ id: string; kind: string; createdAt: number }>;
  return records.sort((a, b) => a.createdAt - b.createdAt);
}

/** Logs in with the English texts (a phone set to en-GB), as `login`. */
export async function logInEnglish(page: Page, login = 'techniker', password = DEMO_PASSWORD): Promise<void> {
  await page.goto('/app/');
  await page.getByLabel('User name').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('list', { name: 'Orders' }).waitFor();
}

/**
 * No network for anything the phone sends, the service worker's own requests included (offline
 * emulation alone does not cover them), and back.
 */
export async function goOffline(context: BrowserContext): Promise<void> {
  await context.setOffline(true);
  await context.route('**/*', (route) => route.abort('internetdisconnected'));
}

export async function goOnline(context: BrowserContext): Promise<void> {
  await context.unrouteAll({ behavior: 'wait' });
  await context.setOffline(false);
}

/**
 * Waits until the app's service worker controls `page`: from then on the app works offline (its
 * screens, loaded when first opened, come from the worker's cache). A phone cut off before that has
 * only what it loaded so far.
 */
export async function untilOfflineReady(page: Page): Promise<void> {
  await until(
    'the service worker controls the page',
    async () => (await page.evaluate('navigator.serviceWorker.controller !== null')) === true,
  );
}

/** Waits until `check` holds (polling), or fails naming `what` and, with `seen`, what there was instead. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000, seen?: () => unknown): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end)
      assert.fail(
        `timed out waiting for ${what}${seen ? `; instead: ${JSON.stringify(await Promise.resolve(seen()).catch(String))}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * A screenshot of what the person sees, at the page's viewport (390 × 844 unless a test changed
 * it), into docs/screenshots/<name>.png; with `small`, also at 360 × 640 into <name>-360.png.
 */
export async function screenshot(page: Page, name: string, options: { small?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // The note that the app now works offline shows for a few seconds after the first visit: not in the pictures.
  await page.getByText('Die App funktioniert jetzt auch offline.').waitFor({ state: 'detached', timeout: 10_000 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), animations: 'disabled' });
  if (!options.small) return;
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 360, height: 640 });
  try {
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-360.png`), animations: 'disabled' });
  } finally {
    if (viewport) await page.setViewportSize(viewport);
  }
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is: no serious or critical violation of WCAG 2.1 A/AA. */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  // Through DevTools, not a <script> tag: the app's Content-Security-Policy rightly refuses inline scripts.
  if (!(await page.evaluate('"axe" in window'))) await page.evaluate(AXE_SOURCE);
  const violations = await page
    .evaluate(async () => {
      type Rule = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };
      const axe = (
        globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Rule[]; passes: Rule[] }> } }
      ).axe;
      const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      });
      return {
        passes: result.passes.map((p) => p.id),
        violations: result.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          targets: v.nodes.map((n) => JSON.stringify(n.target)).slice(0, 5),
        })),
      };
    })
    .then(({ passes, violations }) => {
      // axe really looked: contrast and names were checked on this screen.
      assert.ok(
        passes.includes('color-contrast') && passes.includes('button-name'),
        `${screen}: axe-core checked too little (${passes.join(', ')})`,
      );
      return violations;
    });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${screen}: axe-core found serious or critical violations:\n${JSON.stringify(serious, null, 2)}`);
}

/**
 * Made for one thumb on a small phone: at 360 × 640 the page does not scroll sideways, every
 * control the person can touch (buttons, links, fields) is at least 44 × 44 px, no control's text
 * leaves it (its content is not wider or taller than its box, and every line of its text lies
 * inside it), and no word of a control breaks across two lines ("Vorher/Nac|hher"). The page is
 * put back to its viewport afterwards.
 */
export async function assertPhoneFriendly(page: Page, screen: string): Promise<void> {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 360, height: 640 });
  try {
    const found = (await page.evaluate(`(() => {
      const doc = { scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth), clientWidth: document.documentElement.clientWidth };
      const small = [...document.querySelectorAll('button, a[href], input:not([type=hidden]), select, textarea, [role=button]')]
        .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
        .map((el) => ({ el, box: el.getBoundingClientRect() }))
        .filter(({ box }) => box.width < 44 || box.height < 44)
        // A checkbox is also touched through its label.
        .filter(({ el }) => ![...(el.labels || [])].some((label) => { const b = label.getBoundingClientRect(); return b.width >= 44 && b.height >= 44; }))
        .map(({ el, box }) => (el.getAttribute('aria-label') || el.textContent || el.outerHTML).trim().slice(0, 60) + ' ' + Math.round(box.width) + 'x' + Math.round(box.height));
      ${TEXT_IN_CONTROLS}
      return { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, small, ...textInControls() };
    })()`)) as { scrollWidth: number; clientWidth: number; small: string[]; overflowing: string[]; brokenWords: string[]; checked: number };
    assert.ok(
      found.scrollWidth <= found.clientWidth,
      `${screen}: scrolls sideways at 360 px (${found.scrollWidth} > ${found.clientWidth})`,
    );
    assert.deepEqual(found.small, [], `${screen}: touch targets under 44 px`);
    assert.ok(found.checked > 0, `${screen}: no control was measured`);
    assert.deepEqual(found.overflowing, [], `${screen}: text leaves its control at 360 px`);
    assert.deepEqual(found.brokenWords, [], `${screen}: a word breaks inside a control at 360 px`);
  } finally {
    if (viewport) await page.setViewportSize(viewport);
  }
}

/**
 * In the page: every visible control with text, measured. `overflowing`: its content is wider or
 * taller than its box, or a line of its text lies outside it; `brokenWords`: a run of letters or
 * digits whose characters stand on two lines. Text cut on purpose (an ellipsis) is not counted.
 */
const TEXT_IN_CONTROLS = `
function textInControls() {
  const visible = [...document.querySelectorAll('button, a[href], [role=button], label, summary')]
    .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden');
  const controls = visible.filter((el) => (el.textContent || '').trim());
  const overflowing = [];
  const brokenWords = [];
  const name = (el) => (el.getAttribute('aria-label') || el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 50);
  for (const el of controls) {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (style.overflow === 'visible' && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
      overflowing.push(name(el) + ' (content ' + el.scrollWidth + 'x' + el.scrollHeight + ' in ' + el.clientWidth + 'x' + el.clientHeight + ')');
      continue;
    }
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('[aria-hidden=true]') || !node.textContent.trim()) continue;
      // Text an element cuts on purpose (one line with an ellipsis, or lines clamped) is cut, not overflowing.
      const clipped = (() => { for (let p = parent; p && p !== el.parentElement; p = p.parentElement) { const s = getComputedStyle(p); if (s.overflow !== 'visible') return true; } return false; })();
      const range = document.createRange();
      range.selectNodeContents(node);
      if (!clipped) {
        for (const rect of range.getClientRects()) {
          if (rect.width === 0) continue;
          if (rect.left < box.left - 1 || rect.right > box.right + 1 || rect.top < box.top - 1 || rect.bottom > box.bottom + 1) {
            overflowing.push(name(el) + ' ("' + node.textContent.trim().slice(0, 30) + '" outside its control)');
            break;
          }
        }
      }
      // An address shown as it is (a link's URL) may break anywhere: it has no words.
      if (/^\\s*[a-z]+:\\/\\//i.test(node.textContent)) continue;
      for (const word of node.textContent.matchAll(/[\\p{L}\\p{N}]+/gu)) {
        const r = document.createRange();
        r.setStart(node, word.index);
        r.setEnd(node, word.index + word[0].length);
        const tops = new Set([...r.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
        if (tops.size > 1) brokenWords.push(word[0] + ' (in ' + (parent.className || parent.tagName.toLowerCase()) + ', ' + Math.round(parent.getBoundingClientRect().width) + ' px wide) in ' + name(el));
      }
    }
  }
  return { overflowing, brokenWords, checked: visible.length };
}`;

/** The order's row id by its ref, through the database (the test's own view, not the app's). */
/** How many parts the phone's copy of the catalogue holds (its IndexedDB store `products`; 0 before there is one). */
export function productsOnPhone(page: Page): Promise<number> {
  return page.evaluate(`new Promise((resolve, reject) => {
    const open = indexedDB.open('fieldreport');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('products')) { db.close(); return resolve(0); }
      const count = db.transaction('products').objectStore('products').count();
      count.onsuccess = () => { db.close(); resolve(count.result); };
      count.onerror = () => { db.close(); reject(count.error); };
    };
  })`) as Promise<number>;
}

export async function orderByRef(world: AppWorld, ref: string): Promise<{ id: number; ref: string }> {
  const row = await world.ctx.handle.db.selectFrom('commande').select(['rowid', 'ref']).where('ref', '=', ref).executeTakeFirstOrThrow();
  return { id: Number(row.rowid), ref: row.ref };
}

/** A token of a demo user, for checking results through the API. */
export async function apiToken(world: AppWorld, login = 'techniker'): Promise<string> {
  const res = await world.ctx.app.inject({ method: 'POST', url: '/api/auth.php', payload: { login, password: DEMO_PASSWORD } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { token: string }).token;
}

/** A finger on the glass (CDP touch events: pointer events of type touch), along `points`. */
export async function finger(page: Page, points: { x: number; y: number }[]): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const [first, ...rest] = points;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [first!] });
  for (const point of rest) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [point] });
    await page.waitForTimeout(25);
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** The phone's outbox records with their JSON payloads (not Blobs), oldest first, read from the app's IndexedDB. */
export async function outboxPayloads(page: Page): Promise<Array<{ id: string; kind: string; state: string; payload: unknown }>> {
  const records = (await page.evaluate(`new Promise((resolve, reject) => {
    const open = indexedDB.open('fieldreport');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const all = open.result.transaction('outbox').objectStore('outbox').getAll();
      all.onsuccess = () => resolve(all.result.map((r) => ({ id: r.id, kind: r.kind, state: r.state, createdAt: r.createdAt, payload: r.payload instanceof Blob ? null : r.payload })));
      all.onerror = () => reject(all.error);
    };
  })`)) as Array<{ id: string; kind: string; state: string; createdAt: number; payload: unknown }>;
  return records.sort((a, b) => a.createdAt - b.createdAt).map(({ createdAt: _, ...r }) => r);
}

/** What the app keeps on the phone for a read (lib/store/cache.ts) under `key`, if anything. */
export async function cachedRead(page: Page, key: string): Promise<unknown> {
  return page.evaluate(`new Promise((resolve, reject) => {
    const open = indexedDB.open('fieldreport');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const one = open.result.transaction('cache').objectStore('cache').get(${JSON.stringify(key)});
      one.onsuccess = () => resolve(one.result ? one.result.value : undefined);
      one.onerror = () => reject(one.error);
    };
  })`);
}
