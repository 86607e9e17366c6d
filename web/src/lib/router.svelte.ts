/**
 * Screens by the address's hash (#/orders, #/order/12, #/queue, #/settings): the service serves one
 * page at /app/, the service worker has it offline, and the back button works.
 */
export type Route = { name: 'orders' } | { name: 'order'; id: number } | { name: 'queue' } | { name: 'settings' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'order' && /^\d+$/.test(parts[1] ?? '')) return { name: 'order', id: Number(parts[1]) };
  if (parts[0] === 'queue') return { name: 'queue' };
  if (parts[0] === 'settings') return { name: 'settings' };
  return { name: 'orders' };
}

export const router = $state({ route: parseRoute(typeof location === 'undefined' ? '' : location.hash) as Route });

if (typeof window !== 'undefined') {
  window.addEventListener('hashchange', () => {
    router.route = parseRoute(location.hash);
  });
}

/** Steps taken inside the app: `back` goes back through them, else to the orders. */
let depth = 0;

export function go(hash: string): void {
  depth++;
  location.hash = hash;
}

export function back(): void {
  if (depth > 0) {
    depth--;
    history.back();
  } else {
    location.replace('#/orders');
  }
}
