/** Assertions every API test uses. */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';

/** The response is the one error shape with this status and code (and message), and leaks nothing internal. */
export function assertError(res: LightMyRequestResponse, status: number, code: string, message?: string): Record<string, unknown> {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json() as Record<string, unknown>;
  assert.equal(body.code, code);
  assert.equal(typeof body.error, 'string');
  assert.ok((body.error as string).length > 0);
  for (const key of Object.keys(body)) assert.ok(['error', 'code', 'details'].includes(key), `unexpected key ${key} in ${res.body}`);
  assert.doesNotMatch(res.body, /Error:|\n\s+at |\.ts:\d+|node_modules/);
  if (message !== undefined) assert.equal(body.error, message);
  return body;
}
