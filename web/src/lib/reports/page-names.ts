/**
 * How a page is named and captioned on screen, in the person's language: its title, or (without
 * one) its kind and its photos' names, so a page keeps its name when it moves; a signature page by
 * its signer, with when they signed and when the service received it.
 */
import { formatDateTime } from '../i18n/format';
import { t } from '../i18n/i18n.svelte';
import type { PageView, SignatureView } from './report-view';

/** Device and service times further apart than this are both shown (the phone signed offline). */
const SHOW_BOTH_AFTER_SECONDS = 60;

export function layoutName(layout: string): string {
  switch (layout) {
    case 'before_after':
      return t('page.layout.before_after');
    case 'title_only':
      return t('page.layout.title_only');
    case 'signature':
      return t('page.signature');
    case 'checklist':
      return t('checklist.layout');
    default:
      return t('page.layout.photo');
  }
}

/** The page's title; without one, its kind and what it shows (stable wherever the page moves). */
export function pageName(page: Pick<PageView, 'title' | 'layout' | 'images' | 'signature'>): string {
  if (page.title && page.layout !== 'signature') return page.title;
  if (page.layout === 'signature')
    return page.signature?.signer ? t('page.signatureBy', { name: page.signature.signer }) : t('page.signature');
  const names = page.images.map((image) => image.name).filter((name): name is string => !!name);
  return names.length > 0 ? `${layoutName(page.layout)} · ${names.join(' / ')}` : layoutName(page.layout);
}

/** Who signed and when: the phone's moment of signing and the service's receipt when they differ. */
export function signatureCaption(signature: SignatureView): string {
  const { signer: name, signedAt, receivedAt } = signature;
  let text: string;
  if (signedAt !== undefined && receivedAt !== undefined && Math.abs(receivedAt - signedAt) > SHOW_BOTH_AFTER_SECONDS) {
    text = t('signature.captionBoth', { name, signed: formatDateTime(signedAt), received: formatDateTime(receivedAt) });
  } else if (signedAt !== undefined || receivedAt !== undefined) {
    text = t('signature.caption', { name, time: formatDateTime(signedAt ?? receivedAt) });
  } else {
    text = t('signature.captionName', { name });
  }
  return signature.implausible ? `${text} ${t('signature.implausible')}` : text;
}
