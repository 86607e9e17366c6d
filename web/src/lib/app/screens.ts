/**
 * The screens other than login and orders, each loaded when first opened (the first screen stays
 * small), and which of them an address names. App.svelte shows them; boot.ts starts loading the
 * one the address names while the rest of the app is still on its way.
 */
import { parseRoute } from './address';

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
 * The loaded screen an address's hash names, as the router reads it (lib/app/address.ts), and the
 * report's id where it is the service's; none for the orders (they come with the app). Only a hint
 * for loading early: the router decides what is shown.
 */
export function screenOf(hash: string): { name: ScreenName; reportId?: number } | undefined {
  const route = parseRoute(hash);
  switch (route.name) {
    case 'orders':
      return undefined;
    case 'template-page':
      return { name: 'template' };
    case 'report':
    case 'page':
    case 'checklist':
    case 'sign':
    case 'pdf':
      return { name: route.name, ...(typeof route.ref === 'number' ? { reportId: route.ref } : {}) };
    default:
      return { name: route.name };
  }
}
