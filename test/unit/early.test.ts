/**
 * GETs the app sends early (web/src/api/early.ts): the app's identical request (same URL, same
 * token) takes the early answer once; another token, a change sent or answered meanwhile, or a
 * failed early request leave the app to ask itself; nothing goes out without a token or while a
 * change is on its way.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, mock, test } from 'node:test';

const ORIGIN = 'http://phone.test';
const sent: Request[] = [];
let failNext = false;
const realFetch = globalThis.fetch;

before(() => {
  // An early answer nobody takes is dropped after 10 s: no real timer keeps the test running.
  mock.timers.enable({ apis: ['setTimeout'] });
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push(request);
    if (failNext) {
      failNext = false;
      throw new TypeError('offline');
    }
    return new Response(JSON.stringify({ url: request.url }), { headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
});
after(() => {
  mock.timers.reset();
  globalThis.fetch = realFetch;
});
beforeEach(() => {
  sent.length = 0;
});

const { earlyToken, noteChange, sendEarly, takeEarly } = await import('../../web/src/api/early.js');
const appRequest = (path: string, token: string) => new Request(`${ORIGIN}${path}`, { headers: { Authorization: `Bearer ${token}` } });

test('the same request with the same token takes the early answer, once', async () => {
  sendEarly(`${ORIGIN}/api/reports.php?id=7`, 'T1');
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.headers.get('authorization'), 'Bearer T1');
  const answer = await takeEarly(appRequest('/api/reports.php?id=7', 'T1'));
  assert.deepEqual(await answer!.json(), { url: `${ORIGIN}/api/reports.php?id=7` });
  assert.equal(takeEarly(appRequest('/api/reports.php?id=7', 'T1')), undefined, 'taken once');
});

test('another URL or another token is not answered early', async () => {
  sendEarly(`${ORIGIN}/api/reports.php?id=7`, 'T1');
  assert.equal(takeEarly(appRequest('/api/reports.php?id=8', 'T1')), undefined);
  assert.equal(await takeEarly(appRequest('/api/reports.php?id=7', 'T2')), undefined);
  assert.equal(takeEarly(appRequest('/api/reports.php?id=7', 'T1')), undefined, 'dropped after the mismatch');
});

test('a change sent or answered after the early request: the app asks again', async () => {
  sendEarly(`${ORIGIN}/api/reports.php?id=7`, 'T1');
  noteChange(1);
  noteChange(-1);
  assert.equal(await takeEarly(appRequest('/api/reports.php?id=7', 'T1')), undefined);
});

test('nothing is sent while a change is on its way, or without a token', () => {
  noteChange(1);
  sendEarly(`${ORIGIN}/api/reports.php?id=7`, 'T1');
  noteChange(-1);
  sendEarly(`${ORIGIN}/api/reports.php?id=7`);
  assert.equal(sent.length, 0);
  earlyToken(() => 'T3');
  sendEarly(`${ORIGIN}/api/reports.php?id=9`);
  assert.equal(sent[0]!.headers.get('authorization'), 'Bearer T3', "the app's token when none is given");
  earlyToken(() => undefined);
});

test('a failed early request leaves the app to ask itself', async () => {
  failNext = true;
  sendEarly(`${ORIGIN}/api/reports.php?id=7`, 'T1');
  assert.equal(await takeEarly(appRequest('/api/reports.php?id=7', 'T1')), undefined);
});

test('a POST is never answered early', () => {
  sendEarly(`${ORIGIN}/api/reports.php?id=7`, 'T1');
  assert.equal(
    takeEarly(new Request(`${ORIGIN}/api/reports.php?id=7`, { method: 'POST', headers: { Authorization: 'Bearer T1' } })),
    undefined,
  );
});
