/**
 * The app's sign-off lists the material lines the report shows, as the service's PDF prints them
 * (without a service): lines no report settled yet, and those the report or an earlier version of
 * it settled; never a line an earlier visit's report settled. The outbox is laid over them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Material } from '../../web/src/api/types.js';
import type { OutboxRecord } from '../../web/src/lib/outbox/records.js';
import { materialLines } from '../../web/src/lib/reports/signoff.js';

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
  assert.deepEqual(labels(materialLines(lines, [], ORDER, { material_reports: [200], material_unknown: false })), [
    'Filter (dieser Besuch)',
  ]);
  assert.deepEqual(labels(materialLines(lines, [], ORDER)), ['Filter (dieser Besuch)'], 'a report only the phone knows yet');
});

test("a new version shows the lines its lineage settled (the service's, not guessed from version numbers), beside those no report took yet", () => {
  // v1 (100) settled lines 1 and 2; v3 (300) was made from v1, as v2 (250) was: v2's lines are not v3's.
  const withBranch = [...lines, line(4, 'Schlauch (Version 2)', { movement: 0, report: 250 })];
  assert.deepEqual(labels(materialLines(withBranch, [], ORDER, { material_reports: [300, 100], material_unknown: false })), [
    'Dichtung (erster Besuch, aus dem Fahrzeug)',
    'Kleinteile (erster Besuch)',
    'Filter (dieser Besuch)',
  ]);
});

test('a report from before reports listed their own lines (and a new version of one) also shows the lines settled before lines knew their report', () => {
  const old = [...lines, line(5, 'Rohr (vor 0025 gebucht)', { movement: 0, report: 0 })].map((l) =>
    l.id === 5 ? { ...l, fk_bericht: null } : l,
  );
  assert.deepEqual(labels(materialLines(old, [], ORDER, { material_reports: [300, 100], material_unknown: true })), [
    'Dichtung (erster Besuch, aus dem Fahrzeug)',
    'Kleinteile (erster Besuch)',
    'Filter (dieser Besuch)',
    'Rohr (vor 0025 gebucht)',
  ]);
  assert.deepEqual(labels(materialLines(old, [], ORDER, { material_reports: [200], material_unknown: false })), ['Filter (dieser Besuch)']);
});

test('a report the phone kept from before the service named whose lines it lists: its versions up to its own', () => {
  const kept = {
    version: 2,
    versions: [
      { id: 100, ref: 'BR-1', version: 1, status: 'final' as const, datec: 1 },
      { id: 300, ref: 'BR-1', version: 2, status: 'draft' as const, datec: 2 },
      { id: 400, ref: 'BR-1', version: 3, status: 'draft' as const, datec: 3 },
    ],
  };
  const withLater = [...lines, line(6, 'Ventil (Version 3)', { movement: 0, report: 400 })];
  assert.deepEqual(labels(materialLines(withLater, [], ORDER, kept)), [
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
  assert.deepEqual(materialLines(lines, records, ORDER, { material_reports: [200], material_unknown: false }), [
    { label: 'Schrauben', qty: 4, unit: 'Stk', note: null, pending: true },
  ]);
});
