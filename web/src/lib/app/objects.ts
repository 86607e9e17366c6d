/**
 * The objects a technician works on: Dolibarr's orders and its interventions. On the phone each has
 * one number, its key: an order its id, an intervention minus its id. The outbox's records, the
 * cache entries (`order:<key>`, `order-files:<key>`, `materials:<key>`, `times:<key>`) and the
 * screens keep that one key, so order 5 and intervention 5 never mix; only what talks to the
 * service turns a key back into the object (elementOf) and an object into a key (objectKey).
 * Records made before interventions came have positive keys: orders, as they were.
 */
import type { Appointment, InterventionDetail, OrderDetail, OrderSummary } from '../../api/types.js';

export type ElementType = 'commande' | 'fichinter';

export function objectKey(type: ElementType | string | null | undefined, id: number): number {
  return type === 'fichinter' ? -id : id;
}

/** The object a key names: its type and its id at the service. */
export function elementOf(key: number): { element_type: ElementType; id: number } {
  return key < 0 ? { element_type: 'fichinter', id: -key } : { element_type: 'commande', id: key };
}

/** `element_type` and `fk_element` of a key, as the service's bodies and queries name an object. */
export function elementParams(key: number): { element_type: ElementType; fk_element: number } {
  const { element_type, id } = elementOf(key);
  return { element_type, fk_element: id };
}

/** The address of an object's screen: `#/order/<id>` or `#/intervention/<id>`. */
export function objectHash(key: number): string {
  return key < 0 ? `#/intervention/${-key}` : `#/order/${key}`;
}

/** An object's detail as the object screen shows it, its `id` the key. */
export type WorkDetail = (OrderDetail & { kind: 'commande' }) | (Omit<InterventionDetail, 'id'> & { id: number; kind: 'fichinter' });

/** The detail the service gave, under its key. */
export function workDetail(key: number, answer: OrderDetail | InterventionDetail): WorkDetail {
  return key < 0 ? { ...(answer as InterventionDetail), id: key, kind: 'fichinter' } : { ...(answer as OrderDetail), kind: 'commande' };
}

/** An object's line for the phone's list of kept objects (an intervention's planned start as its date). */
export function summaryOf(detail: WorkDetail): OrderSummary {
  const customer = detail.customer ? { id: detail.customer.id, name: detail.customer.name } : null;
  if (detail.kind === 'commande') {
    return {
      id: detail.id,
      ref: detail.ref,
      ref_client: detail.ref_client,
      status: detail.status,
      date: detail.date,
      date_delivery: detail.date_delivery,
      date_creation: detail.date_creation,
      total_ttc: detail.total_ttc,
      customer,
    };
  }
  return {
    id: detail.id,
    ref: detail.ref,
    ref_client: detail.ref_client,
    status: detail.status,
    date: detail.date_start,
    date_delivery: detail.date_end,
    date_creation: detail.date_creation,
    total_ttc: 0,
    customer,
  };
}

/** The work to be done, as the service reads it for a sign-off: an intervention's description (else its note_public), an order's note_public. */
export function workOf(detail: WorkDetail): string | null {
  return detail.kind === 'fichinter' ? detail.description || detail.note_public : detail.note_public;
}

/** The orders and interventions appointments are at, by their keys, each once, in the appointments' order. */
export function appointmentOrders(items: readonly Pick<Appointment, 'object'>[]): number[] {
  const keys = items.flatMap((a) =>
    a.object?.element_type === 'commande' || a.object?.element_type === 'fichinter' ? [objectKey(a.object.element_type, a.object.id)] : [],
  );
  return [...new Set(keys)];
}

/**
 * A recording as POST /api/transcribe.php names it, from its file URL: `<order folder>/<name>`, an
 * intervention's `ficheinter/<folder>/<name>`.
 */
export function recordingPath(url: string, name: string): string {
  const params = new URL(url, 'http://app.invalid').searchParams;
  const path = params.get('file') ?? name;
  return params.get('modulepart') === 'fichinter' ? `ficheinter/${path}` : path;
}
