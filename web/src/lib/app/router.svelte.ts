/**
 * The screen shown, by the address's hash (lib/app/address.ts reads it): the service serves one
 * page at /app/, the service worker has it offline, and the back button works.
 */
import { parseRoute, type Route } from './address';

export const router = $state<{ route: Route }>({ route: parseRoute(typeof location === 'undefined' ? '' : location.hash) });

if (typeof window !== 'undefined') {
  // The browser would keep the last screen's scroll offset: every screen opens at its top.
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  window.addEventListener('hashchange', () => {
    router.route = parseRoute(location.hash);
    window.scrollTo(0, 0);
  });
}

/** Steps taken inside the app: `back` goes back through them, else to the orders. */
let depth = 0;

export function go(hash: string): void {
  depth++;
  location.hash = hash;
}

/** One step back; where the app was opened on this screen, to `fallback` (the screen above it). */
export function back(fallback = '#/orders'): void {
  if (depth > 0) {
    depth--;
    history.back();
  } else {
    location.replace(fallback);
  }
}
