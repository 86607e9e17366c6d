/**
 * GETs the app will make in a moment, sent before the screen that makes them is even built
 * (boot.ts: a report's address opened cold while the app's code is still on its way, or the address
 * turning to a report), and handed to the app's own identical request through `api` (the same URL
 * and token) within 10 s instead of asking again (api/client.ts) - unless a change was sent or
 * answered meanwhile (the outbox delivering something the early answer may not show yet): then
 * the app asks again. Nothing is sent without a token, or while a change is on its way.
 * Small and without the API client: the first script (boot.ts) imports it.
 */

/** How long an early answer waits for the app to take it. */
const EARLY_MS = 10_000;
const early = new Map<string, { at: number; changes: number; authorization: string; answer: Promise<Response> }>();
/** Changes (every request but a GET) sent or answered so far, and those on their way now. */
let changes = 0;
let changing = 0;
let appToken: () => string | undefined = () => undefined;

/** Where the login's token comes from once the app runs (api/client.ts). */
export function earlyToken(source: () => string | undefined): void {
  appToken = source;
}

/** A change went out (1), or was answered or failed (-1) (api/client.ts). */
export function noteChange(delta: 1 | -1): void {
  changes++;
  changing += delta;
}

/** An answer nobody takes: its body is not read. */
function drop(answer: Promise<Response>): void {
  answer.then((response) => response.body?.cancel()).catch(() => {});
}

/** Sends a GET of `url` (absolute, with its query as the app's request will have it) now. */
export function sendEarly(url: string, token = appToken()): void {
  if (!token || changing > 0) return;
  const authorization = `Bearer ${token}`;
  const answer = fetch(url, { headers: { Authorization: authorization } });
  answer.catch(() => {});
  const entry = { at: Date.now(), changes, authorization, answer };
  const replaced = early.get(url);
  if (replaced) drop(replaced.answer);
  early.set(url, entry);
  setTimeout(() => {
    if (early.get(url) !== entry) return;
    early.delete(url);
    drop(answer);
  }, EARLY_MS);
}

/** The early answer to `request`, taken once; a failed or outdated one is asked for again. */
export function takeEarly(request: Request): Promise<Response | undefined> | undefined {
  const kept = request.method === 'GET' ? early.get(request.url) : undefined;
  if (!kept) return undefined;
  early.delete(request.url);
  if (Date.now() - kept.at > EARLY_MS || kept.changes !== changes || kept.authorization !== request.headers.get('authorization')) {
    drop(kept.answer);
    return undefined;
  }
  return kept.answer.catch(() => undefined);
}
