/**
 * Rows of the service beside the rows Dolibarr 22's own PHP wrote (test/fixtures/dolibarr22/*.json),
 * column by column: both as text, as PHP's mysqli gives values.
 */
import assert from 'node:assert/strict';

/** A row's values as text; the columns in `times` only as set or not, the values in `names` by their names. */
export function comparable(
  row: Record<string, unknown>,
  names: Record<string, Record<string, unknown>>,
  times: readonly string[],
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(row)) {
    const named = names[key]?.[String(value)];
    if (times.includes(key)) out[key] = value === null ? null : '(set)';
    else if (named !== undefined) out[key] = String(named);
    else if (value === null || value === undefined) out[key] = null;
    else if (typeof value === 'number' || /^-?\d+(\.\d+)?$/.test(String(value))) out[key] = String(Number(value));
    else out[key] = String(value);
  }
  return out;
}

/** Only the columns Dolibarr's row has (the standalone tables keep a few of older versions too), which must all be there. */
export function asTheirs(ours: Record<string, unknown>, theirs: Record<string, unknown>): Record<string, unknown> {
  const missing = Object.keys(theirs).filter((k) => !(k in ours));
  assert.deepEqual(missing, [], 'columns Dolibarr has and this table lacks');
  return Object.fromEntries(Object.keys(theirs).map((k) => [k, ours[k]]));
}
