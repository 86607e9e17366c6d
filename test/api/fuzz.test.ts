/**
 * A seeded fuzz run over every endpoint: thousands of malformed requests (wrong methods, garbage
 * and wrong-typed query parameters, broken %-escapes, wrong, huge and cut JSON, wrong content
 * types, broken multipart bodies, with and without a valid token, other users' IDs), most through
 * app.inject, bodies cut off mid-way over real sockets. No answer may be a 5xx, except a 503 the
 * API documents for a missing setup (TRANSCRIBE_NOT_CONFIGURED); every 5xx is listed with its
 * request. The endpoints come from the OpenAPI document plus the docs' own routes.
 *
 * The run is deterministic for a seed (printed); FUZZ_SEED=<n> repeats or varies it.
 * SQLite only: the point is the HTTP layer and the services' input handling, not the dialects.
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testClient } from '../helpers/client.js';
import { multipart } from '../helpers/multipart.js';
import { listenLocal, openRaw } from '../helpers/raw-http.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611) >>> 0;
const INJECTED = 5000;
const RAW = 300;
/** 5xx answers the API documents for a setup that is missing here; nothing else is allowed. */
const ALLOWED_5XX = new Set(['TRANSCRIBE_NOT_CONFIGURED']);

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function prng(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(list: readonly T[]): T => list[int(list.length)]!, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

interface Endpoint {
  method: string;
  path: string;
  query: string[];
  bodyFields: string[];
  multipart: boolean;
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as const;
const ACTIONS = [
  'photos',
  'upload_photo',
  'create',
  'finalize',
  'new_version',
  'add',
  'reorder',
  'signature',
  'create_from_template',
  'delete',
  'x',
  '',
];
/** Field names used somewhere in the API's bodies (the action-dependent ones have no schema in the document). */
const BODY_FIELDS = [
  'fk_element',
  'element_type',
  'title',
  'format',
  'orientation',
  'odt_template',
  'template_id',
  'template_label',
  'layout',
  'note',
  'rotation',
  'source',
  'source_2',
  'order',
  'id',
  'page_id',
  'file',
  'hours',
  'label',
  'qty',
  'unit',
  'relpath',
  'force',
  'lang',
  'login',
  'password',
  'signer_name',
  'status',
  'delete',
];
const QUERY_JUNK = [
  '',
  '0',
  '-1',
  '1',
  '2',
  '2147483647',
  '2147483648',
  '9007199254740993',
  '99999999999999999999999',
  '1e308',
  '-1e308',
  '1.5',
  '0x10',
  '%201',
  '1%20',
  'NaN',
  'Infinity',
  '-0',
  'true',
  'null',
  'undefined',
  '%5B%5D',
  '%7B%7D',
  'abc',
  '%C3%BC',
  '%F0%9F%98%80',
  'ü',
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '%C0%AF',
  '..%2F..%2Fetc%2Fpasswd',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  '%3Cscript%3E',
  "'%20OR%201=1%20--",
  'a'.repeat(5000),
  '%FF%FE',
  '+',
  '%2B',
  'x'.repeat(70),
  'commande',
  'facture',
  'propal',
  'propale',
  'bericht',
  'draft',
  'final',
  'small',
  'mini',
  '1,2',
  '1;2',
];
const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=NOTHERE',
  'application/octet-stream',
  'image/jpeg',
  'application/json, text/html',
  ';;;',
  'application/vnd.api+json',
  'text/html',
  'multipart/mixed; boundary=x',
];
const JSON_JUNK = [
  '{',
  '{"a":',
  '[1,2',
  'nul',
  '"text"',
  '123',
  '[]',
  'null',
  'true',
  '{"a":1}garbage',
  '\uFEFF{}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{}}}',
  '{"a":1,"a":2}',
  '  ',
  '{}',
  '{"id":1e999}',
  '[{"order":[1,2,3]}]',
];

function junkJson(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 2 ? 12 : 15)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -1, 1, 2, 1.5, -0.0001, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, 2147483647, 999999999999]);
    case 3:
      return rng.pick([
        '',
        ' ',
        'a',
        'ü😀',
        'x'.repeat(3000),
        '../../etc/passwd',
        'CO2401-0001/a.jpg',
        '<b>',
        '\u0000',
        '\u202e',
        'draft',
        'before_after',
        'photo',
        'signature',
        'commande',
        'A4',
        'portrait',
      ]);
    case 4:
      return String(rng.int(100));
    case 5:
    case 6:
      return rng.int(50) + 1;
    case 7:
      return '1';
    case 8:
      return 'NaN';
    case 9:
      return -5;
    case 10:
      return rng.pick([90, 180, 270, 45, 360]);
    case 11:
      return 'x'.repeat(rng.int(300));
    case 12:
      return Array.from({ length: rng.int(4) }, () => junkJson(rng, depth + 1));
    case 13:
      return Object.fromEntries(Array.from({ length: rng.int(3) }, () => [rng.pick(BODY_FIELDS), junkJson(rng, depth + 1)]));
    default:
      return { nested: junkJson(rng, depth + 1) };
  }
}

describe(`fuzz: malformed requests on every endpoint [sqlite]`, () => {
  let ctx: TestContext;
  const fiveHundreds: string[] = [];
  const errorLines: string[] = [];
  const htmlWithoutHeaders: string[] = [];
  const endpoints: Endpoint[] = [];
  const ids = { own: [] as number[], foreign: [] as number[] };
  const tokens: Record<string, string | undefined> = {};
  let files: string[] = [];
  let uploadToken = '';
  let signatureCode = '';

  before(async () => {
    console.log(`# fuzz seed ${SEED} (FUZZ_SEED=${SEED} repeats this run)`);
    const log = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          const entry = JSON.parse(line) as { level: number; msg: string; err?: { code?: string; message?: string } };
          if (entry.level >= 50 && !ALLOWED_5XX.has(String(entry.err?.code)))
            errorLines.push(`${entry.msg}: ${entry.err?.message ?? ''} ${line.slice(0, 400)}`);
        }
        done();
      },
    });
    ctx = await createTestContext(
      'sqlite',
      { timeouts: { headersSeconds: 5, bodySeconds: 5, requestSeconds: 10, uploadIdleSeconds: 60 } },
      {
        logger: { level: 'error', stream: log },
        routes: (app) => {
          // Every answer, also to a client that hung up, whatever the transport.
          app.addHook('onResponse', async (request, reply) => {
            if (reply.statusCode >= 500)
              fiveHundreds.push(`${reply.statusCode} ${request.method} ${request.url.slice(0, 300)} (seen by onResponse)`);
          });
        },
      },
    );
    const make = ctx.make;
    const full = await make.user({ rights: ['read', 'write', 'delete', 'admin'] });
    const reader = await make.user({ rights: ['read'] });
    const other = await make.user({ rights: ['read', 'write', 'delete'] });
    tokens.full = await make.token(full);
    tokens.reader = await make.token(reader);
    tokens.other = await make.token(other);
    const { json } = testClient(() => ctx);
    // Each user's order with photos, a report with pages, a material line; the caller's report signed.
    for (const [who, token, list] of [
      [full, tokens.full, ids.own],
      [other, tokens.other, ids.foreign],
    ] as const) {
      const order = await make.order({ author: who.id });
      list.push(order.id);
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(dir, { recursive: true });
      for (const name of ['a.jpg', 'b.jpg'])
        await sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } })
          .jpeg()
          .toFile(path.join(dir, name));
      files.push(`${order.ref}/a.jpg`, `${order.ref}/b.jpg`);
      for (const n of [1, 2]) {
        const report = await json('POST', '/api/reports.php?action=create', token, { fk_element: order.id, title: `Bericht ${n}` });
        list.push(report.id);
        list.push(
          (
            await json('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, token, {
              source: 'a.jpg',
              title: 'Foto',
              note: 'Notiz',
            })
          ).id,
        );
        list.push(
          (
            await json('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, token, {
              layout: 'before_after',
              source: 'a.jpg',
              source_2: 'b.jpg',
            })
          ).id,
        );
        list.push((await json('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, token, { title: 'Titel' })).id);
        if (who === full && n === 1) {
          const png = await sharp({ create: { width: 300, height: 100, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
            .png()
            .toBuffer();
          const form = multipart([
            { name: 'signer_name', type: 'text/plain', data: 'Erika Muster' },
            { filename: 'sig.png', type: 'image/png', data: png },
          ]);
          const signed = await ctx.app.inject({
            method: 'POST',
            url: `/api/pages.php?action=signature&bericht_id=${report.id}`,
            headers: { authorization: `Bearer ${token}`, 'content-type': form.contentType },
            payload: form.payload,
          });
          assert.equal(signed.statusCode, 201, `${signed.body} ${form.payload.length} ${png.length}`);
          list.push(signed.json().id);
          signatureCode = new URL(signed.json().verify_url).searchParams.get('code') ?? '';
        }
      }
      list.push(
        (await json('POST', '/api/materials.php', token, { element_type: 'commande', fk_element: order.id, label: 'Kabel', qty: 2 })).id,
      );
      if (who === full) uploadToken = (await json('POST', '/api/upload_token.php', token, { fk_element: order.id })).token;
    }
    files = [...files, '../x', 'a.jpg', '%2e%2e/%2e%2e/etc/passwd', 'CO/thumbs/a_small.jpg'];

    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: Array<{ in: string; name: string }>;
            requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
          }
        >
      >;
    };
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const content = op.requestBody?.content ?? {};
        endpoints.push({
          method: method.toUpperCase(),
          path: p,
          query: (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name),
          bodyFields: Object.values(content).flatMap((c) => Object.keys(c.schema?.properties ?? {})),
          multipart: 'multipart/form-data' in content || (p === '/api/pages.php' && method === 'post'),
        });
      }
    }
    // Routes the document leaves out: itself and the docs page with its assets.
    for (const p of [
      '/api/openapi.json',
      '/api/docs',
      '/api/docs/',
      '/api/docs/json',
      '/api/docs/yaml',
      '/api/docs/static/index.html',
      '/api/docs/static/x.js',
      '/api/unknown.php',
    ]) {
      endpoints.push({ method: 'GET', path: p, query: [], bodyFields: [], multipart: false });
    }
    assert.ok(endpoints.length >= 30, `${endpoints.length} endpoints`);
  });
  after(async () => ctx?.close());

  function queryValue(rng: Rng, name: string): string {
    const r = rng.next();
    if (name === 'action' && r < 0.5) return rng.pick(ACTIONS);
    if (name === 'file' && r < 0.5) return encodeURIComponent(rng.pick(files));
    if (name === 'token' && r < 0.3) return uploadToken;
    if (name === 'code' && r < 0.3) return signatureCode;
    if (name === 'jwt' && r < 0.3) return tokens.full ?? '';
    if (r < 0.25) return String(rng.pick(ids.own));
    if (r < 0.4) return String(rng.pick(ids.foreign));
    return rng.pick(QUERY_JUNK);
  }

  function buildQuery(rng: Rng, endpoint: Endpoint): string {
    const names = [...endpoint.query, 'id', 'action'].filter(() => rng.chance(0.6));
    if (rng.chance(0.2))
      names.push(rng.pick(['x', 'id[]', 'id[0]', '%zz', '__proto__', 'constructor', 'limit', 'offset', 'q', 'bericht_id', '']));
    const pairs: string[] = [];
    for (const name of names) {
      pairs.push(`${name}=${queryValue(rng, name)}`);
      if (rng.chance(0.1)) pairs.push(`${name}=${queryValue(rng, name)}`); // an array
    }
    if (rng.chance(0.05)) pairs.push(rng.pick(['&&', '=', '==1', 'id', '%']));
    return pairs.length > 0 ? `?${pairs.join('&')}` : rng.chance(0.05) ? '?' : '';
  }

  /** A multipart form like the upload and signature forms, often cut off or with a wrong boundary. */
  function multipartBody(rng: Rng): { body: Buffer; contentType: string } {
    const parts = [
      ...(rng.chance(0.5)
        ? [{ name: 'signer_name', type: rng.chance(0.8) ? 'text/plain' : undefined, data: String(junkJson(rng) ?? '') }]
        : []),
      {
        name: rng.chance(0.8) ? 'file' : rng.pick(['upload', '__proto__', '']),
        filename: rng.pick(['a.jpg', '', '../../x.png', 'ü.heic', 'a'.repeat(300)]),
        data: rng.pick([
          Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
          Buffer.from('\x89PNG\r\n\x1a\n'),
          Buffer.from('GIF89a'),
          Buffer.alloc(0),
          Buffer.from('hallo'),
        ]),
      },
      ...(rng.chance(0.3)
        ? [
            {
              name: rng.pick(['gps_lat', 'gps_lon', 'confirmation_text']),
              type: 'text/plain',
              data: rng.pick(['91', 'abc', '1,5', '', 'x'.repeat(3000)]),
            },
          ]
        : []),
    ];
    const { payload, contentType } = multipart(parts);
    const cut = rng.chance(0.4) ? payload.subarray(0, rng.int(payload.length)) : payload;
    const type = rng.chance(0.8)
      ? contentType
      : rng.pick(['multipart/form-data', 'multipart/form-data; boundary=OTHER', contentType.toUpperCase()]);
    return { body: cut, contentType: type };
  }

  function buildBody(rng: Rng, endpoint: Endpoint): { body: string | Buffer; contentType: string | undefined } {
    const r = rng.next();
    if (endpoint.multipart && r < 0.45) return multipartBody(rng);
    const contentType = r < 0.7 ? 'application/json' : rng.pick(CONTENT_TYPES);
    const s = rng.next();
    if (s < 0.15) return { body: rng.pick(JSON_JUNK), contentType };
    if (s < 0.2) return { body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), contentType }; // invalid UTF-8
    if (s < 0.205) return { body: `{"x":"${'a'.repeat(ctx.config.bodyLimit)}"}`, contentType }; // over BODY_LIMIT
    if (s < 0.25) return { body: JSON.stringify(junkJson(rng)), contentType };
    if (s < 0.27) return { body: '['.repeat(5000) + ']'.repeat(5000), contentType };
    const fields = [...endpoint.bodyFields, ...BODY_FIELDS].filter(() => rng.chance(0.25));
    const object: Record<string, unknown> = {};
    for (const f of fields) {
      const v = rng.next();
      object[f] =
        v < 0.3
          ? rng.pick(ids.own)
          : v < 0.45
            ? rng.pick(ids.foreign)
            : f === 'order' && v < 0.6
              ? [...ids.own, ...ids.foreign].filter(() => rng.chance(0.5))
              : junkJson(rng);
    }
    const text = JSON.stringify(object);
    return { body: rng.chance(0.1) ? text.slice(0, rng.int(text.length)) : text, contentType };
  }

  /** Requests the API accepts, to start from: one thing in them is then made wrong. */
  function nearlyValid(rng: Rng): { method: string; url: string; body?: Record<string, unknown> } | Sent {
    const own = () => rng.pick(ids.own);
    const order = ids.own[0]!;
    const list: Array<() => { method: string; url: string; body?: Record<string, unknown> }> = [
      () => ({
        method: 'POST',
        url: '/api/reports.php?action=create',
        body: { fk_element: order, title: 'Neu', format: 'A4', orientation: 'portrait' },
      }),
      () => ({ method: 'POST', url: `/api/reports.php?action=${rng.pick(['finalize', 'new_version'])}&id=${own()}` }),
      () => ({
        method: 'POST',
        url: `/api/pages.php?action=add&bericht_id=${own()}`,
        body: { source: 'a.jpg', title: 'T', note: 'N', rotation: 90 },
      }),
      () => ({
        method: 'POST',
        url: `/api/pages.php?id=${own()}`,
        body: { note: 'geändert', rotation: 180, title: 'X', layout: 'photo', source: 'b.jpg' },
      }),
      () => ({
        method: 'POST',
        url: `/api/pages.php?action=reorder&bericht_id=${own()}`,
        body: { order: ids.own.filter(() => rng.chance(0.5)) },
      }),
      () => ({
        method: 'POST',
        url: '/api/materials.php',
        body: { element_type: 'commande', fk_element: order, label: 'Schraube', qty: 1.5, unit: 'Stk', note: 'n' },
      }),
      () => ({ method: 'POST', url: '/api/upload_token.php', body: { fk_element: order, hours: 2 } }),
      () => ({ method: 'POST', url: '/api/transcribe.php', body: { relpath: rng.pick(files), force: true, lang: 'de' } }),
      () => ({ method: 'POST', url: '/api/delete_photo.php', body: { id: order, file: 'nicht-da.jpg' } }),
      () => ({
        method: 'POST',
        url: `/api/templates.php?action=${rng.pick(['create', 'create_from_template'])}`,
        body: { fk_element: order, template_id: own(), title: 'V', template_label: 'L' },
      }),
      () => ({ method: 'POST', url: '/ajax/verify_signature.php', body: { id: own() } }),
      () => ({ method: 'POST', url: '/api/auth.php', body: { login: rng.pick(['x', 'ü', 'a@b.c']), password: 'falsch' } }),
      () => ({ method: 'GET', url: `/api/pdf.php?id=${own()}&preview=1` }),
      () => ({
        method: 'GET',
        url: `/api/photo.php?modulepart=commande&file=${encodeURIComponent(rng.pick(files))}&size=${rng.pick(['small', 'mini'])}`,
      }),
    ];
    if (rng.chance(0.25)) {
      const url = rng.pick([
        `/api/pages.php?action=signature&bericht_id=${own()}`,
        `/api/orders.php?action=upload_photo&id=${order}`,
        `/api/voice.php?id=${order}`,
        `/public/upload.php?token=${uploadToken}`,
      ]);
      const { body, contentType } = multipartBody(rng);
      return {
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${tokens.full}`, 'content-type': contentType },
        body: body.toString('latin1'),
      };
    }
    const base = rng.pick(list)();
    // One thing made wrong: a query value, a body field's value, a missing or an extra field.
    const what = rng.int(4);
    if (what === 0 && base.url.includes('=')) {
      const parts = base.url.split('&');
      const i = rng.int(parts.length);
      parts[i] = parts[i]!.replace(/=.*$/, `=${rng.pick(QUERY_JUNK)}`);
      base.url = parts.join('&');
    } else if (base.body) {
      const keys = Object.keys(base.body);
      const key = rng.pick(keys.length > 0 ? keys : ['id']);
      if (what === 1) base.body[key] = junkJson(rng);
      else if (what === 2) delete base.body[key];
      else base.body[rng.pick(BODY_FIELDS)] = rng.chance(0.5) ? rng.pick(ids.foreign) : junkJson(rng);
    }
    return base;
  }

  function buildRequest(rng: Rng): Sent {
    if (rng.chance(0.2)) {
      const near = nearlyValid(rng);
      if ('headers' in near) return near;
      return {
        method: near.method,
        url: near.url,
        headers: {
          authorization: `Bearer ${rng.chance(0.9) ? tokens.full : tokens.other}`,
          ...(near.body ? { 'content-type': 'application/json' } : {}),
        },
        body: near.body ? JSON.stringify(near.body) : '',
      };
    }
    const endpoint = rng.pick(endpoints);
    const method = rng.chance(0.85) ? endpoint.method : rng.pick(METHODS);
    const headers: Record<string, string> = {};
    const t = rng.next();
    if (t < 0.55) headers.authorization = `Bearer ${tokens.full}`;
    else if (t < 0.65) headers.authorization = `Bearer ${tokens.reader}`;
    else if (t < 0.7) headers.authorization = `Bearer ${tokens.other}`;
    else if (t < 0.8)
      headers.authorization = rng.pick([
        'Bearer',
        'Bearer x.y.z',
        'Basic Zm9vOmJhcg==',
        'garbage',
        `Bearer ${tokens.full}x`,
        'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOjF9.',
      ]);
    if (rng.chance(0.05)) headers['idempotency-key'] = rng.pick(['k1', 'k2', 'ü', 'x'.repeat(200)]);
    const sent: Sent = { method, url: endpoint.path + buildQuery(rng, endpoint), headers, body: '' };
    if (method !== 'GET' && method !== 'HEAD' && rng.chance(0.9)) {
      const { body, contentType } = buildBody(rng, endpoint);
      if (contentType !== undefined) headers['content-type'] = contentType;
      sent.body = Buffer.isBuffer(body) ? body.toString('latin1') : body;
    }
    return sent;
  }

  const describeSent = (s: Sent) =>
    `${s.method} ${s.url.slice(0, 200)} ${JSON.stringify(s.headers).slice(0, 200)} body=${JSON.stringify(s.body.slice(0, 200))}`;

  function check(sent: Sent, res: LightMyRequestResponse): void {
    if (res.statusCode >= 500) {
      let code = '';
      try {
        code = String((res.json() as { code?: string }).code);
      } catch {
        // not JSON: a 5xx all the same
      }
      if (!(res.statusCode === 503 && ALLOWED_5XX.has(code)))
        fiveHundreds.push(`${res.statusCode} ${code} ← ${describeSent(sent)} → ${res.body.slice(0, 200)}`);
    }
    if (
      /^text\/html/.test(String(res.headers['content-type'])) &&
      (res.headers['x-frame-options'] !== 'DENY' || !/frame-ancestors 'none'/.test(String(res.headers['content-security-policy'])))
    ) {
      htmlWithoutHeaders.push(describeSent(sent));
    }
  }

  test(`${INJECTED} malformed requests through inject and ${RAW} cut-off bodies over sockets: no 5xx`, async () => {
    const started = Date.now();
    const rng = prng(SEED);
    const statuses = new Map<number, number>();
    for (let i = 0; i < INJECTED; i++) {
      const sent = buildRequest(rng);
      const res = await ctx.app.inject({
        method: sent.method as 'GET',
        url: sent.url,
        headers: sent.headers,
        ...(sent.body ? { payload: Buffer.from(sent.body, 'latin1') } : {}),
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      check(sent, res);
    }

    const injectedSeconds = ((Date.now() - started) / 1000).toFixed(1);
    // Bodies cut off mid-way: shorter than their Content-Length, then the client stops sending
    // (half-close) or hangs up; a chunked body with broken chunks. Ten connections at a time.
    const port = await listenLocal(ctx.app);
    let rawAnswers = 0;
    const rawOne = async () => {
      const sent = buildRequest(rng);
      sent.method = sent.method === 'GET' || sent.method === 'HEAD' ? 'POST' : sent.method;
      const body = Buffer.from(sent.body || '{"id":1}', 'latin1');
      const mode = rng.pick(['short-end', 'short-destroy', 'chunked-broken', 'long-length'] as const);
      const headers = Object.entries({ host: 'localhost', connection: 'close', ...sent.headers }).map(([k, v]) => `${k}: ${v}`);
      headers.push(
        mode === 'chunked-broken'
          ? 'transfer-encoding: chunked'
          : `content-length: ${mode === 'long-length' ? body.length * 2 + 10 : body.length + 1 + rng.int(1000)}`,
      );
      const conn = await openRaw(port);
      conn.write(`${sent.method} ${sent.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
      if (mode === 'chunked-broken')
        conn.write(`${rng.pick(['zz', '5', 'ffffffffffffffff', '-1'])}\r\n${body.toString('latin1')}\r\n0\r\n`);
      else conn.write(body.subarray(0, Math.max(0, body.length - rng.int(body.length + 1))));
      if (mode === 'short-end' || mode === 'chunked-broken') conn.socket.end();
      else if (mode === 'short-destroy') setTimeout(() => conn.socket.destroy(), 20);
      const res = await conn.response(mode === 'long-length' ? 300 : 2000);
      if (res.status > 0) rawAnswers++;
      if (res.status >= 500) fiveHundreds.push(`${res.status} ← raw ${mode}: ${describeSent(sent)} → ${res.body.slice(0, 200)}`);
    };
    for (let i = 0; i < RAW; i += 10) await Promise.all(Array.from({ length: Math.min(10, RAW - i) }, rawOne));
    // Let the server finish with the connections it still holds, so onResponse and the log have seen them.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `# fuzz: ${INJECTED + RAW} requests (${INJECTED} injected, ${RAW} over sockets, ${rawAnswers} of those answered), seed ${SEED}, ${seconds} s (inject ${injectedSeconds} s)`,
    );
    console.log(
      `# fuzz statuses: ${[...statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}`,
    );
    assert.ok((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0) > 50, 'some requests got through to the services');
    assert.deepEqual(fiveHundreds, [], `${fiveHundreds.length} 5xx answers (seed ${SEED}):\n${fiveHundreds.slice(0, 40).join('\n')}`);
    assert.deepEqual(errorLines, [], `${errorLines.length} error lines in the log (seed ${SEED}):\n${errorLines.slice(0, 20).join('\n')}`);
    assert.deepEqual(htmlWithoutHeaders, [], `HTML answers without the frame headers:\n${htmlWithoutHeaders.slice(0, 10).join('\n')}`);
  });
});
