/**
 * The screens' addresses, by the hash (#/orders, #/order/12, #/intervention/4, #/report/7, #/report/7/page/31,
 * #/report/7/check/31 (a checklist page), #/report/7/sign, #/report/7/pdf, #/queue, #/settings,
 * #/templates, #/templates/3, #/templates/3/page/12): which screen an address names, and the
 * address of a screen. A report or page made on the phone and not yet sent is named by its local
 * ref (lib/outbox/local-ids), URI-encoded. Read in one place: by the router (lib/app/router.svelte.ts),
 * which shows the screen, and by boot.ts (lib/app/screens.ts), which starts loading it early; so no
 * Svelte here.
 */
import type { Ref } from '../outbox/records.js';

export type Route =
  | { name: 'orders' }
  /** An order (`id` > 0) or an intervention (its key, minus its id: lib/app/objects.ts). */
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
  let text: string;
  try {
    text = decodeURIComponent(part);
  } catch {
    return undefined; // not an address the app made (a stray %)
  }
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
  // An intervention's screen is the order screen under the intervention's key (lib/app/objects.ts).
  if (parts[0] === 'intervention' && /^[1-9]\d*$/.test(parts[1] ?? '')) return { name: 'order', id: -Number(parts[1]) };
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

/** The address of the templates (`templateHash()`), a template's pages, or a checklist page of a template. */
export function templateHash(id?: number, page?: Ref): string {
  if (id === undefined) return '#/templates';
  return `#/templates/${id}${page !== undefined ? `/page/${encodeURIComponent(String(page))}` : ''}`;
}
