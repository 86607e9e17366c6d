/**
 * The app's sign-off lists the material lines the report shows, as the service's PDF prints them
 * (without a service): lines no report settled yet, and those the report or an earlier version of
 * it settled; never a line an earlier visit's report settled. The outbox is laid over them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Material } from '../../web/src/api/types.js';
import type { OutboxRecord } from '../../web/src/lib/outbox/records.js';
import { lineageOf, materialLines } from '../../web/src/lib/reports/signoff.js';

const ORDER = 7;
const line = (id: number, label: string, settled: { movement: number; report: number } | null): Material => ({
  id,
  element_type: 'commande',
  fk_element: ORDER,
  label,
  qty: 1,
  unit: 'Stk',
  note: null,
  fk_user_creat: 1,
  datec: 1_700_000_000,
  fk_product: null,
  fk_unit: null,
  batch: null,
  fk_stock_mouvement: settled ? settled.movement : null,
  fk_bericht: settled ? settled.report : null,
});

const lines = [
  line(1, 'Dichtung (erster Besuch, aus dem Fahrzeug)', { movement: 41, report: 100 }),
  line(2, 'Kleinteile (erster Besuch)', { movement: 0, report: 100 }),
  line(3, 'Filter (dieser Besuch)', null),
];
const labels = (shown: Array<{ label: string }>) => shown.map((l) => l.label);

test("a later visit's report shows its own lines, not those the first visit's report settled", () => {
  assert.deepEqual(labels(materialLines(lines, [], ORDER, [200])), ['Filter (dieser Besuch)']);
  assert.deepEqual(labels(materialLines(lines, [], ORDER)), ['Filter (dieser Besuch)'], 'a report only the phone knows yet');
});

test('a new version of the first report shows the lines it settled, beside those no report took yet', () => {
  const report = {
    version: 2,
    versions: [
      { id: 100, ref: 'BR-1', version: 1, status: 'final' as const, datec: 1 },
      { id: 300, ref: 'BR-1', version: 2, status: 'draft' as const, datec: 2 },
    ],
  };
  assert.deepEqual(lineageOf(report), [100, 300]);
  assert.deepEqual(lineageOf(undefined), []);
  assert.deepEqual(labels(materialLines(lines, [], ORDER, lineageOf(report))), [
    'Dichtung (erster Besuch, aus dem Fahrzeug)',
    'Kleinteile (erster Besuch)',
    'Filter (dieser Besuch)',
  ]);
});

test('the outbox is laid over: a line being removed is gone, one being added is there and pending', () => {
  const records = [
    { kind: 'material-delete', orderId: ORDER, state: 'waiting', payload: { materialId: 3 } },
    { kind: 'material-add', orderId: ORDER, state: 'waiting', payload: { label: ' Schrauben ', qty: 4, unit: 'Stk', note: '' } },
  ] as unknown as OutboxRecord[];
  assert.deepEqual(materialLines(lines, records, ORDER, [200]), [{ label: 'Schrauben', qty: 4, unit: 'Stk', note: null, pending: true }]);
});
