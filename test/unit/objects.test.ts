/**
 * The phone's objects (web/src/lib/app/objects.ts): one key per order or intervention, read back
 * into what the service names, and the addresses of their screens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRoute } from '../../web/src/lib/app/address.js';
import {
  appointmentOrders,
  elementOf,
  elementParams,
  objectHash,
  objectKey,
  recordingPath,
  workDetail,
  workOf,
} from '../../web/src/lib/app/objects.js';

test('an order keeps its id as key, an intervention minus its id; both read back', () => {
  assert.equal(objectKey('commande', 5), 5);
  assert.equal(objectKey('fichinter', 5), -5);
  assert.deepEqual(elementOf(5), { element_type: 'commande', id: 5 });
  assert.deepEqual(elementOf(-5), { element_type: 'fichinter', id: 5 });
  assert.deepEqual(elementParams(-7), { element_type: 'fichinter', fk_element: 7 });
  assert.deepEqual(elementParams(7), { element_type: 'commande', fk_element: 7 });
});

test("each object's screen has an address that names it again", () => {
  assert.equal(objectHash(12), '#/order/12');
  assert.equal(objectHash(-4), '#/intervention/4');
  assert.deepEqual(parseRoute(objectHash(-4)), { name: 'order', id: -4 });
  assert.deepEqual(parseRoute(objectHash(12)), { name: 'order', id: 12 });
  // Not an intervention: no id, zero, a sign or anything else falls back to the list.
  for (const hash of ['#/intervention/', '#/intervention/0', '#/intervention/-3', '#/intervention/x'])
    assert.deepEqual(parseRoute(hash), { name: 'orders' });
});

test("the appointments' objects by key, each once, in order; events on other objects are left out", () => {
  const at = (element_type: string, id: number) => ({ object: { element_type, id } }) as never;
  assert.deepEqual(
    appointmentOrders([at('fichinter', 3), at('commande', 3), at('fichinter', 3), at('facture', 9), at('commande', 1)]),
    [-3, 3, 1],
  );
});

test("the work to be done: an intervention's description, else its note; an order's note", () => {
  const customer = null;
  const base = {
    ref: 'FI1',
    ref_client: null,
    status: 1,
    date_start: null,
    date_end: null,
    date_creation: null,
    duration: 0,
    customer,
    reports: [],
  };
  assert.equal(workOf(workDetail(-1, { ...base, id: 1, description: 'Pumpe tauschen', note_public: 'Hof' } as never)), 'Pumpe tauschen');
  assert.equal(workOf(workDetail(-1, { ...base, id: 1, description: '', note_public: 'Hof' } as never)), 'Hof');
  assert.equal(workOf(workDetail(-1, { ...base, id: 1, description: null, note_public: null } as never)), null);
  const order = workDetail(2, { id: 2, note_public: 'Wartung' } as never);
  assert.equal(order.kind, 'commande');
  assert.equal(workOf(order), 'Wartung');
  assert.equal(workDetail(-1, { ...base, id: 1, description: 'x', note_public: null } as never).id, -1, 'the detail under its key');
});

test("a recording is named for speech-to-text as the service finds it: an intervention's under ficheinter/", () => {
  assert.equal(recordingPath('/api/photo.php?modulepart=commande&file=CO2611-0001%2FNotiz.webm', 'Notiz.webm'), 'CO2611-0001/Notiz.webm');
  assert.equal(
    recordingPath('/api/photo.php?modulepart=fichinter&file=FI2611-0001%2FNotiz.webm', 'Notiz.webm'),
    'ficheinter/FI2611-0001/Notiz.webm',
  );
});
