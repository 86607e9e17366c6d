/**
 * The app's API types are the service's OpenAPI document, not a copy that drifts: the committed
 * web/src/api/schema.d.ts must be exactly what `npm run gen:api` makes from the document now.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { API_TYPES_FILE, apiTypes } from '../../scripts/api-types.js';

test('web/src/api/schema.d.ts is generated from the current OpenAPI document', async () => {
  const expected = await apiTypes();
  const committed = readFileSync(API_TYPES_FILE, 'utf8');
  if (committed === expected) return;
  const a = committed.split('\n');
  const b = expected.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  assert.fail(
    `the app's API types are stale (first difference at line ${line + 1}: ${JSON.stringify(a[line])} should be ${JSON.stringify(b[line])}); run npm run gen:api`,
  );
});
