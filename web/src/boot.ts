/**
 * The app's first script: small (IndexedDB, no Svelte, not even the API client), so on a slow phone
 * it runs while the rest of the app (main.ts: Svelte, the frame, the login and orders screens; the
 * page asks for it beside this one, vite.config.ts) is still on its way, and starts what the first
 * screen will wait for:
 * - the database is opened (the stored login is read from it before anything is drawn);
 * - on the address of a screen other than the orders, with a login on the phone, that screen's
 *   code is asked for now, not once the frame runs; on a report's address, first the report
 *   itself: the report screen's own request (lib/reports/reports.svelte.ts, readReport) takes that answer
 *   (api/early.ts). The phone's copy is still shown first, as always. So is it later, whenever the
 *   address turns to a report: the request goes out before the old screen is taken down and the new
 *   one built.
 */
import { sendEarly } from './api/early';
import { db } from './lib/store/db';
import { screenOf, screens } from './lib/app/screens';

/** Asks for the report an address names, as readReport will (`token`: else the app's own). */
function askForReport(hash: string, token?: string): void {
  const id = screenOf(hash)?.reportId;
  if (id !== undefined) sendEarly(new URL(`/api/reports.php?id=${id}`, location.origin).href, token);
}

const opened = db();
opened.catch(() => {}); // main.ts reports it
const screen = screenOf(location.hash);
if (screen) {
  opened
    .then((d) => d.get('session', 'current'))
    .then((session) => {
      if (!session) return; // the login screen comes first
      // An expired login asks for the password over the screen: nothing to ask the service for yet.
      if (session.expires > Date.now() / 1000 + 5) askForReport(location.hash, session.token);
      // Loading only: a failure shows when the screen itself is opened (App.svelte).
      screens[screen.name]().catch(() => {});
    })
    .catch(() => {});
}
// Before the router's own listener (lib/app/router.svelte.ts), which changes the screen at once.
window.addEventListener('hashchange', () => askForReport(location.hash));

await import('./main');
