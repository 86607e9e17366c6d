/**
 * Marking a defect on a photo of an order: opens the annotator (components/Annotate.svelte, loaded
 * when first needed) over whatever screen is showing, and keeps the marked photo as a NEW photo of
 * the order in the outbox, exactly like a photo taken with the camera (kind 'photo', sent once,
 * offline first). The original is neither changed nor sent again; the new one is named
 * `<original>_markiert.jpg` (`_2`, `_3`, … when the order has that name already) and names the
 * original in its EXIF (lib/photos/exif.ts). It keeps the original's full pixel size: not reduced to
 * 2,560 px like a captured photo (lib/photos/photo.ts), which is the point of marking the original.
 *
 * The original is a photo still waiting in the outbox (its Blob is in the record) or one of the
 * service's, fetched whole with the token (lib/store/files.ts; offline only when it was seen in full
 * since the app started). A thumbnail is never marked up instead: without the whole photo the
 * annotator says so.
 */
import { mount, unmount } from 'svelte';
import type { OrderFileList } from '../../api/types';
import { readCache } from '../store/cache';
import type { PhotoRef } from '../outbox/records';
import { fileBlob } from '../store/files';
import { photoName } from '../outbox/local-ids.svelte';
import { enqueue, isKind, outbox } from '../outbox/outbox.svelte';
import { elementOf } from '../app/objects';

/** `<base>_markiert.jpg`, or with `_2`, `_3`, … before `.jpg` when `taken` has it (case-insensitive, as file systems may be). */
export function markedName(original: string, taken: Iterable<string>): string {
  const base = original.replace(/\.[^.]*$/, '') || 'Foto';
  const names = new Set([...taken].map((n) => n.toLowerCase()));
  for (let n = 1; ; n++) {
    const name = `${base}_markiert${n === 1 ? '' : `_${n}`}.jpg`;
    if (!names.has(name.toLowerCase())) return name;
  }
}

/**
 * Lets the person mark up `photo` of `order` and keeps the result as a new photo of the order in
 * the outbox. Resolves with the new outbox record (as a page or a defect refers to a waiting
 * photo), or undefined when the person cancelled (or the photo could not be had: the annotator said
 * why). `known.url`: the photo's file URL when the caller has it (else looked up in the order's
 * file list on the phone). Rejects only when the annotator itself cannot be loaded.
 */
export async function markUpPhoto(
  order: { id: number; ref: string },
  photo: PhotoRef,
  known: { url?: string } = {},
): Promise<{ record: string } | undefined> {
  const { default: Annotate } = await import('../../components/Annotate.svelte');
  const files = (await readCache<OrderFileList>(`order-files:${order.id}`))?.value.items ?? [];
  const waiting = 'record' in photo ? outbox.items.filter((r) => isKind(r, ['photo'])).find((r) => r.id === photo.record) : undefined;
  // A waiting photo that was sent meanwhile is the service's now, under the name it got there.
  const name = waiting ? (waiting.fileName ?? '') : photoName(photo);
  const url =
    known.url ??
    files.find((f) => f.name === name)?.url ??
    (name ? `/api/photo.php?modulepart=${elementOf(order.id).element_type}&file=${encodeURIComponent(`${order.ref}/${name}`)}` : undefined);
  const load = (): Promise<Blob> => {
    if (waiting) return Promise.resolve(waiting.payload);
    return url ? fileBlob(url) : Promise.reject(new Error('photo unknown'));
  };
  const taken = [
    ...files.map((f) => f.name),
    ...outbox.items.filter((r) => r.orderId === order.id && r.kind === 'photo').map((r) => r.fileName ?? ''),
  ];

  return new Promise((resolve) => {
    let made: { record: string } | undefined;
    const annotator = mount(Annotate, {
      target: document.body,
      props: {
        name: name ?? '',
        load,
        async onsave(marked: Blob) {
          // No capture of its own (lib/photos/capture): a marked copy was not taken; its EXIF keeps the original's time.
          const record = await enqueue('photo', order, marked, { fileName: markedName(name ?? '', taken) });
          made = { record: record.id };
        },
        onclose() {
          void unmount(annotator);
          resolve(made);
        },
      },
    });
  });
}
