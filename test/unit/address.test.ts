/**
 * The screens' addresses (web/src/lib/app/address.ts): what each hash names, read the same way by
 * the router and by the first script's early loading, and the addresses the app makes read back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRoute, reportHash, templateHash } from '../../web/src/lib/app/address.js';

test('each address names its screen', () => {
  assert.deepEqual(parseRoute(''), { name: 'orders' });
  assert.deepEqual(parseRoute('#/orders'), { name: 'orders' });
  assert.deepEqual(parseRoute('#/order/12'), { name: 'order', id: 12 });
  assert.deepEqual(parseRoute('#/report/7'), { name: 'report', ref: 7 });
  assert.deepEqual(parseRoute('#/report/7/page/31'), { name: 'page', ref: 7, page: 31 });
  assert.deepEqual(parseRoute('#/report/7/check/31'), { name: 'checklist', ref: 7, page: 31 });
  assert.deepEqual(parseRoute('#/report/7/sign'), { name: 'sign', ref: 7 });
  assert.deepEqual(parseRoute('#/report/7/pdf'), { name: 'pdf', ref: 7 });
  assert.deepEqual(parseRoute('#/queue'), { name: 'queue' });
  assert.deepEqual(parseRoute('#/settings'), { name: 'settings' });
  assert.deepEqual(parseRoute('#/templates'), { name: 'templates' });
  assert.deepEqual(parseRoute('#/templates/3'), { name: 'templates', id: 3 });
  assert.deepEqual(parseRoute('#/templates/3/page/12'), { name: 'template-page', id: 3, page: 12 });
});

test('a report or page made on the phone is named by its local ref, and the addresses the app makes read back', () => {
  const local = '0b6e1c1e-6d2a-4c3e-9f00-1a2b3c4d5e6f';
  assert.deepEqual(parseRoute(reportHash(local, 'page', `${local}#2`)), { name: 'page', ref: local, page: `${local}#2` });
  assert.deepEqual(parseRoute(reportHash(7, 'check', 31)), { name: 'checklist', ref: 7, page: 31 });
  assert.deepEqual(parseRoute(reportHash(7)), { name: 'report', ref: 7 });
  assert.deepEqual(parseRoute(templateHash(3, 12)), { name: 'template-page', id: 3, page: 12 });
});

test('an address the app did not make shows the orders', () => {
  assert.deepEqual(parseRoute('#/nowhere'), { name: 'orders' });
  assert.deepEqual(parseRoute('#/report/a%20b'), { name: 'orders' });
  // A stray % is no reason to fail: the app still starts.
  assert.deepEqual(parseRoute('#/report/%E0%A4%A'), { name: 'orders' });
});
