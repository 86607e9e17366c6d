/**
 * The screens other than login and orders, each loaded when first opened (the first screen stays
 * small), and which of them an address names. App.svelte shows them; boot.ts starts loading the
 * one the address names while the rest of the app is still on its way.
 */
export const screens = {
  order: () => import('../../screens/Order.svelte'),
  queue: () => import('../../screens/Queue.svelte'),
  settings: () => import('../../screens/Settings.svelte'),
  report: () => import('../../screens/Report.svelte'),
  page: () => import('../../screens/Page.svelte'),
  sign: () => import('../../screens/Signature.svelte'),
  pdf: () => import('../../screens/Pdf.svelte'),
  checklist: () => import('../../screens/Checklist.svelte'),
  templates: () => import('../../screens/Templates.svelte'),
  template: () => import('../../screens/TemplateChecklist.svelte'),
};

export type ScreenName = keyof typeof screens;

/**
 * The loaded screen an address's hash names (as lib/app/router.svelte.ts reads it: `#/order/12`,
 * `#/report/7`, `#/report/7/page/31`, `#/report/7/check/31`, `#/report/7/sign`, `#/report/7/pdf`,
 * `#/queue`, `#/settings`, `#/templates…`), and the report's id where it is the service's; none for
 * the orders. Only a hint for loading early: the router decides what is shown.
 */
export function screenOf(hash: string): { name: ScreenName; reportId?: number } | undefined {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'order' && /^\d+$/.test(parts[1] ?? '')) return { name: 'order' };
  if (parts[0] === 'queue' || parts[0] === 'settings') return { name: parts[0] };
  if (parts[0] === 'templates') return { name: parts[2] === 'page' && parts[3] ? 'template' : 'templates' };
  if (parts[0] !== 'report' || !parts[1]) return undefined;
  const reportId = /^\d+$/.test(parts[1]) ? Number(parts[1]) : undefined;
  const name =
    parts[2] === 'page' && parts[3]
      ? 'page'
      : parts[2] === 'check' && parts[3]
        ? 'checklist'
        : parts[2] === 'sign'
          ? 'sign'
          : parts[2] === 'pdf'
            ? 'pdf'
            : 'report';
  return { name, ...(reportId !== undefined ? { reportId } : {}) };
}
