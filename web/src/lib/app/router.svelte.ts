/**
 * Screens by the address's hash (#/orders, #/order/12, #/report/7, #/report/7/page/31,
 * #/report/7/check/31 (a checklist page), #/report/7/sign, #/report/7/pdf, #/queue, #/settings,
 * #/templates, #/templates/3, #/templates/3/page/12): the service serves one page at /app/,
 * the service worker has it offline, and the back button works. A report or page made on the phone
 * and not yet sent is named by its local ref (lib/outbox/local-ids), URI-encoded.
 */
import type { Ref } from '../outbox/records';

export type Route =
  | { name: 'orders' }
  | { name: 'order'; id: number }
  | { name: 'report'; ref: Ref }
  | { name: 'page'; ref: Ref; page: Ref }
  | { name: 'checklist'; ref: Ref; page: Ref }
  | { name: 'sign'; ref: Ref }
  | { name: 'pdf'; ref: Ref }
  | { name: 'queue' }
  | { name: 'settings' }
  | { name: 'templates'; id?: number }
  | { name: 'template-page'; id: number; page: Ref };

function parseRef(part: string | undefined): Ref | undefined {
  if (!part) return undefined;
  const text = decodeURIComponent(part);
  return /^\d+$/.test(text) ? Number(text) : /^[\w#-]{1,80}$/.test(text) ? text : undefined;
}

/** The address of a report screen: `reportHash(ref)`, `reportHash(ref, 'sign')`, `reportHash(ref, 'page', page)`, `reportHash(ref, 'check', page)`. */
export function reportHash(ref: Ref, screen?: 'sign' | 'pdf' | 'page' | 'check', page?: Ref): string {
  const part = (r: Ref) => encodeURIComponent(String(r));
  return `#/report/${part(ref)}${screen ? `/${screen}` : ''}${page !== undefined ? `/${part(page)}` : ''}`;
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'order' && /^\d+$/.test(parts[1] ?? '')) return { name: 'order', id: Number(parts[1]) };
  const ref = parts[0] === 'report' ? parseRef(parts[1]) : undefined;
  if (ref !== undefined) {
    if (parts[2] === 'page' || parts[2] === 'check') {
      const page = parseRef(parts[3]);
      if (page !== undefined) return { name: parts[2] === 'page' ? 'page' : 'checklist', ref, page };
    }
    if (parts[2] === 'sign') return { name: 'sign', ref };
    if (parts[2] === 'pdf') return { name: 'pdf', ref };
    return { name: 'report', ref };
  }
  if (parts[0] === 'queue') return { name: 'queue' };
  if (parts[0] === 'settings') return { name: 'settings' };
  if (parts[0] === 'templates') {
    if (!/^\d+$/.test(parts[1] ?? '')) return { name: 'templates' };
    const id = Number(parts[1]);
    const page = parts[2] === 'page' ? parseRef(parts[3]) : undefined;
    return page !== undefined ? { name: 'template-page', id, page } : { name: 'templates', id };
  }
  return { name: 'orders' };
}

export const router = $state({ route: parseRoute(typeof location === 'undefined' ? '' : location.hash) as Route });

if (typeof window !== 'undefined') {
  // The browser would keep the last screen's scroll offset: every screen opens at its top.
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  window.addEventListener('hashchange', () => {
    router.route = parseRoute(location.hash);
    window.scrollTo(0, 0);
  });
}

/** The address of the templates (`templateHash()`), a template's pages, or a checklist page of a template. */
export function templateHash(id?: number, page?: Ref): string {
  if (id === undefined) return '#/templates';
  return `#/templates/${id}${page !== undefined ? `/page/${encodeURIComponent(String(page))}` : ''}`;
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
