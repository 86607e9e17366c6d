/**
 * The requests the API tests make, in one place (through `app.inject`):
 *
 *   const { caller, api, json, newReport, addPage, form, uploadPhoto, sign } = testClient(() => ctx);
 *
 * inside a `describe`, where `ctx` is made in `before()` (it is read at each call).
 * - `caller(rights, admin)`: a new user logged in: `{ id, token, headers }` (`callerOf` makes one of a token).
 * - `api(method, url, who, payload?, options?)`: the raw response. `json(…)`: the status checked
 *   (`options.status`, else any below 300) and the body parsed.
 * - `newReport`, `addPage`, `uploadPhoto`: check their 201 and return the body; `form` (any
 *   multipart POST) and `sign` return the raw response, for tests of refusals.
 * `who` is a Caller, a bare token, or null (no Authorization header). Every request takes `key`
 * (Idempotency-Key), `headers` (added after the token's), `app` (another service, e.g. on the same
 * database) and `remoteAddress`. A string payload is sent as written, as application/json.
 */
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Right } from '../../src/dolibarr/rights.js';
import type { TestContext } from './build-app.js';
import { multipart, type Part } from './multipart.js';
import { type SignOptions, signatureForm } from './signature.js';

export interface Caller {
  id: number;
  token: string;
  headers: { authorization: string };
}
/** Who sends a request: a user, a bare token, or nobody (no Authorization header). */
export type Who = Caller | { token: string } | string | null;
export type Method = 'GET' | 'POST' | 'DELETE';
/** A parsed JSON body, untyped as `LightMyRequestResponse.json()` gives it: each test reads the fields it checks. */
// biome-ignore lint/suspicious/noExplicitAny: the bodies of many endpoints, read field by field as the copies before it did.
export type Json = any;

export interface RequestOptions {
  /** Sent as Idempotency-Key. */
  key?: string;
  /** Added after the token's (and may replace it). */
  headers?: Record<string, string>;
  /** Another service than the context's, e.g. a second one on the same database. */
  app?: FastifyInstance;
  remoteAddress?: string;
}
export interface CheckedOptions extends RequestOptions {
  /** The status the answer must have; without it, any below 300. */
  status?: number;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The Caller of a user whose token the test got itself. */
export const callerOf = (id: number, token: string): Caller => ({ id, token, headers: bearer(token) });
const tokenOf = (who: Who) => (who === null ? null : typeof who === 'string' ? who : who.token);

/** The request helpers on the service of `context()`. */
export function testClient(context: () => Pick<TestContext, 'app' | 'make'>) {
  /** A new user with `rights` (and Dolibarr's admin flag), logged in through the API. */
  async function caller(rights: Right[] = ['read', 'write', 'delete'], admin = false): Promise<Caller> {
    const user = await context().make.user({ rights, admin });
    return callerOf(user.id, await context().make.token(user));
  }

  function headersOf(who: Who, options: RequestOptions, contentType?: string): Record<string, string> {
    const token = tokenOf(who);
    return {
      ...(token ? bearer(token) : {}),
      ...(contentType ? { 'content-type': contentType } : {}),
      ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
      ...options.headers,
    };
  }

  function send(
    method: Method,
    url: string,
    headers: Record<string, string>,
    payload: unknown,
    options: RequestOptions,
  ): Promise<LightMyRequestResponse> {
    return (options.app ?? context().app).inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    });
  }

  /** One request; the raw response. */
  function api(method: Method, url: string, who: Who, payload?: unknown, options: RequestOptions = {}): Promise<LightMyRequestResponse> {
    return send(method, url, headersOf(who, options, typeof payload === 'string' ? 'application/json' : undefined), payload, options);
  }

  function checked(res: LightMyRequestResponse, method: string, url: string, status?: number): Json {
    if (status === undefined) assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    else assert.equal(res.statusCode, status, res.body);
    return res.json();
  }

  /** One request whose status is checked (`options.status`, else any below 300); the parsed body. */
  async function json<T = Json>(method: Method, url: string, who: Who, payload?: unknown, options: CheckedOptions = {}): Promise<T> {
    return checked(await api(method, url, who, payload, options), method, url, options.status);
  }

  /** A report made by `who`: on the order `order` (titled "Wartung"), or from `body`; checks 201. */
  function newReport<T = Json>(who: Who, order: number | Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    const body = typeof order === 'number' ? { fk_element: order, title: 'Wartung' } : order;
    return json<T>('POST', '/api/reports.php?action=create', who, body, { ...options, status: 201 });
  }

  /** A page added to report `reportId`; checks 201. */
  function addPage<T = Json>(who: Who, reportId: number, body: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    return json<T>('POST', `/api/pages.php?action=add&bericht_id=${reportId}`, who, body, { ...options, status: 201 });
  }

  /** A multipart/form-data POST of `parts`; the raw response. */
  function form(url: string, who: Who, parts: Part[], options: RequestOptions = {}): Promise<LightMyRequestResponse> {
    const { payload, contentType } = multipart(parts);
    return send('POST', url, headersOf(who, options, contentType), payload, options);
  }

  /** A photo uploaded to order `orderId` as `name` (JPEG unless `type` says), after the text `fields`; checks 201. */
  async function uploadPhoto(
    who: Who,
    orderId: number,
    name: string,
    data: Buffer,
    options: CheckedOptions & { fields?: Part[]; type?: string } = {},
  ): Promise<Json> {
    const url = `/api/orders.php?id=${orderId}&action=upload_photo`;
    const res = await form(url, who, [...(options.fields ?? []), { filename: name, type: options.type ?? 'image/jpeg', data }], options);
    return checked(res, 'POST', url, options.status ?? 201);
  }

  /** The signature form for report `reportId` (see SignOptions); the raw response. */
  async function sign(who: Who, reportId: number, options: SignOptions & RequestOptions = {}): Promise<LightMyRequestResponse> {
    const { payload, contentType } = await signatureForm(options);
    return send('POST', `/api/pages.php?action=signature&bericht_id=${reportId}`, headersOf(who, options, contentType), payload, options);
  }

  /**
   * Every endpoint of an order's or intervention's work as `who` sees it: whether the object's list
   * and the report list have it, and the status of its detail, attachments, one photo, its report,
   * material lines, times and customer (compare with SEEN_ALL, SEEN_NONE).
   */
  async function seen(who: Who, object: SeenObject) {
    const [listPath, modulepart] = object.type === 'fichinter' ? ['/api/interventions.php', 'fichinter'] : ['/api/orders.php', 'commande'];
    const list = await json<{ items: { id: number }[] }>('GET', `${listPath}?limit=500`, who);
    const reports = await json<{ items: { id: number }[] }>('GET', '/api/reports.php?limit=500', who);
    const status = async (url: string) => (await api('GET', url, who)).statusCode;
    return {
      listed: list.items.some((o) => o.id === object.id),
      reportListed: reports.items.some((r) => r.id === object.report),
      detail: await status(`${listPath}?id=${object.id}`),
      photos: await status(`${listPath}?id=${object.id}&action=photos`),
      photo: await status(`/api/photo.php?modulepart=${modulepart}&file=${encodeURIComponent(`${object.ref}/${object.photo}`)}`),
      report: await status(`/api/reports.php?id=${object.report}`),
      materials: await status(`/api/materials.php?element_type=${modulepart}&fk_element=${object.id}`),
      times: await status(`/api/times.php?element_type=${modulepart}&fk_element=${object.id}`),
      customer: await status(`/api/customers.php?id=${object.customer}`),
    };
  }

  return { caller, api, json, newReport, addPage, form, uploadPhoto, sign, seen };
}

/** An order (or, with type 'fichinter', an intervention) with a photo in its folder and a report on it. */
export interface SeenObject {
  type?: 'commande' | 'fichinter';
  id: number;
  ref: string;
  photo: string;
  report: number;
  customer: number;
}

/** What `seen` finds for a user who has the object: everything. */
export const SEEN_ALL = {
  listed: true,
  reportListed: true,
  detail: 200,
  photos: 200,
  photo: 200,
  report: 200,
  materials: 200,
  times: 200,
  customer: 200,
};

/** What `seen` finds for a user who has not: nothing, each endpoint 404 as for an object that does not exist. */
export const SEEN_NONE = {
  listed: false,
  reportListed: false,
  detail: 404,
  photos: 404,
  photo: 404,
  report: 404,
  materials: 404,
  times: 404,
  customer: 404,
};
