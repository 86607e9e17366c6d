/**
 * The order's (or intervention's: `orderId` is the object's key, lib/app/objects.ts) own records of the outbox (photo, voice, photo-delete, material-add,
 * material-delete): how each is sent, and what a photo's answer teaches the phone (the name the
 * service gave it, which pages and checklist answers waiting behind it refer to).
 */
import { api, unwrap } from '../../api/client';
import { elementOf, elementParams } from '../app/objects';
import { coordinateText } from './coordinate';
import { learn } from './local-ids.svelte';
import type { KindHandlers, OutboxRecord, Sending } from './records';

export type OrderKind = 'photo' | 'voice' | 'photo-delete' | 'material-add' | 'material-delete';

/** A photo or a recording as a form: the file, and before it when and where the phone took the photo (the service's photo evidence). */
function fileForm(record: OutboxRecord<'photo' | 'voice'>): FormData {
  const form = new FormData();
  if (record.capture) {
    form.append('taken_at_device', record.capture.takenAt);
    if (record.capture.lat !== undefined && record.capture.lon !== undefined) {
      form.append('gps_lat', coordinateText(record.capture.lat));
      form.append('gps_lon', coordinateText(record.capture.lon));
    }
  }
  form.append('file', record.payload, record.fileName ?? 'file');
  return form;
}

const upload = (record: OutboxRecord<'photo' | 'voice'>, { headers, fetch }: Sending) => {
  const form = fileForm(record);
  return { headers, body: {} as never, bodySerializer: () => form, fetch };
};

export const orderKinds: KindHandlers<OrderKind> = {
  photo: {
    send: (record, sending) => {
      const { element_type, id } = elementOf(record.orderId);
      const query = { id, action: 'upload_photo' };
      return element_type === 'fichinter'
        ? unwrap(api.POST('/api/interventions.php', { ...upload(record, sending), params: { query } }))
        : unwrap(api.POST('/api/orders.php', { ...upload(record, sending), params: { query } }));
    },
    // Pages and checklist answers made with the photo name it by its record until now.
    delivered: (record, answer) => learn({ [record.id]: answer.name }),
  },
  voice: {
    send: (record, sending) =>
      unwrap(api.POST('/api/voice.php', { ...upload(record, sending), params: { query: elementOf(record.orderId) } })),
  },
  'photo-delete': {
    send: (record, { fetch }) =>
      unwrap(api.POST('/api/delete_photo.php', { body: { ...elementOf(record.orderId), file: record.payload.name }, fetch })),
    goneIsDone: (error) => error.code === 'FILE_NOT_FOUND',
  },
  'material-add': {
    send: (record, { headers, fetch }) =>
      unwrap(
        api.POST('/api/materials.php', {
          headers,
          body: { ...elementParams(record.orderId), ...record.payload },
          fetch,
        }),
      ),
  },
  'material-delete': {
    send: (record, { fetch }) => unwrap(api.DELETE('/api/materials.php', { params: { query: { id: record.payload.materialId } }, fetch })),
    // Gone already (404): what the person wanted.
    goneIsDone: () => true,
  },
};
