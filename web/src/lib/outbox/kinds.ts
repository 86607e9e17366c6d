/**
 * The registry of the outbox's kinds: for each kind of record, the handler that sends it and takes
 * the service's answer (docs/app-design.md, the outbox). The sender (lib/outbox/outbox.svelte.ts)
 * knows no kind by name; it asks this table.
 *
 * A new kind: its payload and answer in `OutboxKinds` (lib/outbox/records.ts), its handler beside
 * the others of what it serves (a `KindHandler`: send, and what the answer teaches the phone), and
 * its line here. The compiler names every place that must then say something about it: this table,
 * the queue's words for it (screens/Queue.svelte), a view that lays it over the service's state.
 */
import { mailKinds } from '../mail/mail-sync';
import { reportKinds } from '../reports/report-sync';
import { timeKinds } from '../time/time-sync';
import { orderKinds } from './order-sync';
import type { KindHandlers, OutboxKind } from './records';

export const KINDS: KindHandlers<OutboxKind> = {
  // The order's files and material lines (lib/outbox/order-sync.ts).
  photo: orderKinds.photo,
  voice: orderKinds.voice,
  'photo-delete': orderKinds['photo-delete'],
  'material-add': orderKinds['material-add'],
  'material-delete': orderKinds['material-delete'],
  // A report, its pages, checklists and signatures (lib/reports/report-sync.ts).
  'report-create': reportKinds['report-create'],
  'report-update': reportKinds['report-update'],
  'page-add': reportKinds['page-add'],
  'page-update': reportKinds['page-update'],
  'page-delete': reportKinds['page-delete'],
  'page-reorder': reportKinds['page-reorder'],
  signature: reportKinds.signature,
  'check-item': reportKinds['check-item'],
  'check-all': reportKinds['check-all'],
  // Time on site (lib/time/time-sync.ts).
  'time-arrive': timeKinds['time-arrive'],
  'time-leave': timeKinds['time-leave'],
  'time-add': timeKinds['time-add'],
  'time-correct': timeKinds['time-correct'],
  'time-undo': timeKinds['time-undo'],
  // A final report's mail to the customer (lib/mail/mail-sync.ts).
  'mail-send': mailKinds['mail-send'],
};
