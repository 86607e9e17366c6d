/**
 * sendAs writes a list with a schema in which each nullable field (`anyOf: [X, null]`) is a type
 * list (`type: [X, 'null']`): the JSON must be exactly what the documented schema writes, for
 * every value the documented schema accepts, and a value it refuses must still be refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fastJson from 'fast-json-stringify';
import { nullableAsTypeList } from '../../src/modules/common/send-as.js';
import { CustomerList } from '../../src/modules/customers/customers.schemas.js';
import { OrderList } from '../../src/modules/orders/orders.schemas.js';
import { ReportList } from '../../src/modules/reports/reports.schemas.js';

const order = (over: Record<string, unknown> = {}) => ({
  id: 7,
  ref: 'CO2401-0001',
  ref_client: 'Auftrag "7" <x> \u00e4\u2028',
  status: 1,
  date: 1_700_000_000,
  date_delivery: null,
  date_creation: 1_700_000_123,
  total_ttc: 1582.7,
  customer: { id: 3, name: 'Kunde \\ GmbH' },
  ...over,
});

test('the order list is written the same with nullable fields as type lists', () => {
  const documented = fastJson(OrderList as object);
  const writing = fastJson(nullableAsTypeList(OrderList) as object);
  const lists = [
    { items: [], total: 0 },
    {
      items: [
        order(),
        order({ ref_client: null, date: null, date_creation: null, customer: null }),
        order({ customer: { id: 4, name: null }, total_ttc: -0.5, status: -1 }),
      ],
      total: 12,
    },
    { items: [order({ ref_client: '', customer: { id: 5, name: '' }, date: 0 })], total: 1 },
  ];
  for (const list of lists) assert.equal(writing(list), documented(list));
  // A value neither accepts (a text where a time or null belongs) is refused by both.
  for (const bad of [order({ date: 'soon' }), order({ customer: 'none' })]) {
    assert.throws(() => documented({ items: [bad], total: 1 }));
    assert.throws(() => writing({ items: [bad], total: 1 }));
  }
});

test('only anyOf of one plain type and null becomes a type list', () => {
  const converted = nullableAsTypeList(OrderList) as {
    properties: { items: { items: { properties: Record<string, Record<string, unknown>> } } };
  };
  const item = converted.properties.items.items.properties;
  assert.deepEqual(item.date!.type, ['integer', 'null']);
  assert.deepEqual(item.ref_client!.type, ['string', 'null']);
  assert.deepEqual(item.customer!.type, ['object', 'null']);
  assert.deepEqual((item.customer!.properties as Record<string, Record<string, unknown>>).name!.type, ['string', 'null']);
  // A union of two non-null types, or of a literal and null, stays as it is.
  const kept = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
  assert.deepEqual(nullableAsTypeList(kept), kept);
  const literal = { anyOf: [{ type: 'string', const: 'draft' }, { type: 'null' }] };
  assert.deepEqual(nullableAsTypeList(literal), literal);
});

test('the report and customer lists convert to schemas that write the same JSON for an empty list', () => {
  for (const schema of [ReportList, CustomerList]) {
    assert.equal(
      fastJson(nullableAsTypeList(schema) as object)({ items: [], total: 0 }),
      fastJson(schema as object)({ items: [], total: 0 }),
    );
  }
});
