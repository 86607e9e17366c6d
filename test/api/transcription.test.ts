/**
 * Endpoint 25 (POST /api/transcribe.php) against real HTTP servers started here that speak
 * whisper-asr-webservice's and OpenAI's protocols and record what reached them: the multipart
 * fields and bytes on the wire, the query string, the Authorization header (a `dolcrypt:` key from
 * llx_const), settings from constants and the environment, every refusal before the server is
 * asked, HTTP errors, answers without text, a server that never answers, dropped connections and
 * their bounded retries, and the transcript kept beside the recording.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { dolEncrypt } from '../../src/dolibarr/crypto.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, TEST_INSTANCE_ID, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';

const FIXTURES = new URL('../fixtures/uploads/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
const AUDIO = { webm: fixture('voice.webm'), mp3: fixture('voice.mp3'), m4a: fixture('voice.m4a'), ogg: fixture('voice.ogg') };
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4a50000000049454e44ae426082',
  'hex',
);

const TRANSCRIBE = '/api/transcribe.php';
const CONST_KEY = 'sk-const-9f8e7d6c5b4a39281706';
const ENV_KEY = 'sk-env-0a1b2c3d4e5f60718293';
const SETTINGS = [
  'BERICHT_TRANSCRIBE_URL',
  'BERICHT_TRANSCRIBE_MODE',
  'BERICHT_TRANSCRIBE_API_KEY',
  'BERICHT_TRANSCRIBE_LANG',
  'BERICHT_TRANSCRIBE_MODEL',
];

interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  fields: Map<string, string>;
  files: Map<string, { name: string; type: string; data: Buffer }>;
}

type Behaviour = (res: http.ServerResponse, received: Received, attempt: number) => void;

const answer =
  (body: unknown, status = 200, type = 'application/json'): Behaviour =>
  (res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
const drop: Behaviour = (res) => res.socket?.destroy();
const hang: Behaviour = () => undefined;

/** A speech-to-text server on 127.0.0.1 that records every request (after reading its whole multipart body). */
class FakeServer {
  requests: Received[] = [];
  /** Requests begun, counted before the body is read (a dropped one counts too). */
  attempts = 0;
  behaviour: Behaviour = answer({ text: 'Hallo Welt' });
  private server: http.Server;

  private constructor(server: http.Server) {
    this.server = server;
  }

  static async start(): Promise<FakeServer> {
    let fake: FakeServer | undefined;
    const server = http.createServer((req, res) => void fake!.handle(req, res));
    fake = new FakeServer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(behaviour: Behaviour): void {
    this.requests = [];
    this.attempts = 0;
    this.behaviour = behaviour;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const attempt = ++this.attempts;
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const received: Received = {
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
      fields: new Map(),
      files: new Map(),
    };
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      // The platform's own multipart parser (undici): what a real server would see.
      const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': type } }).formData();
      for (const [name, value] of form.entries()) {
        if (typeof value === 'string') received.fields.set(name, value);
        else received.files.set(name, { name: value.name, type: value.type, data: Buffer.from(await value.arrayBuffer()) });
      }
    }
    this.requests.push(received);
    this.behaviour(res, received, attempt);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

for (const dialect of testDialects()) {
  describe(`transcription [${dialect}]`, () => {
    let ctx: TestContext;
    let whisper: FakeServer;
    let openai: FakeServer;
    let writer: { id: number; token: string };
    let reader: { id: number; token: string };
    let other: { id: number; token: string };
    const logLines: string[] = [];

    before(async () => {
      [whisper, openai] = await Promise.all([FakeServer.start(), FakeServer.start()]);
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(chunk.toString('utf8'));
          done();
        },
      });
      ctx = await createTestContext(
        dialect,
        { transcribe: { url: undefined, mode: undefined, apiKey: undefined, lang: undefined, timeoutSeconds: 1 } },
        { logger: { level: 'info', stream } },
      );
      const w = await ctx.make.user({ rights: ['read', 'write'] });
      writer = { id: w.id, token: await ctx.make.token(w) };
      const r = await ctx.make.user({ rights: ['read'] });
      reader = { id: r.id, token: await ctx.make.token(r) };
      const o = await ctx.make.user({ rights: ['read', 'write'] });
      other = { id: o.id, token: await ctx.make.token(o) };
    });
    after(async () => {
      await ctx?.close();
      await Promise.all([whisper?.close(), openai?.close()]);
    });

    beforeEach(async () => {
      for (const name of SETTINGS) {
        await ctx.handle.db.deleteFrom('const').where('name', '=', name).execute();
      }
      whisper.reset(answer({ text: '  Hallo Welt, Pumpe getauscht.  ', language: 'de' }));
      openai.reset(answer({ text: 'Filter gewechselt.' }));
    });

    /** Points the settings in llx_const at a server; the key is stored `dolcrypt:`-encrypted, as Dolibarr stores secrets. */
    async function configure(settings: { url?: string; mode?: string; key?: string; lang?: string; model?: string }) {
      if (settings.url !== undefined) await ctx.make.setConst('BERICHT_TRANSCRIBE_URL', settings.url);
      if (settings.mode !== undefined) await ctx.make.setConst('BERICHT_TRANSCRIBE_MODE', settings.mode);
      // The entity's own row (1), as an admin sets it in the entity's setup.
      if (settings.key !== undefined) await ctx.make.setConst('BERICHT_TRANSCRIBE_API_KEY', dolEncrypt(settings.key, TEST_INSTANCE_ID), 1);
      if (settings.lang !== undefined) await ctx.make.setConst('BERICHT_TRANSCRIBE_LANG', settings.lang);
      if (settings.model !== undefined) await ctx.make.setConst('BERICHT_TRANSCRIBE_MODEL', settings.model);
    }

    /** An order of `author` with `data` as `name` in its folder. */
    async function orderWith(name: string, data: Buffer, author = writer.id, ref?: string) {
      const order = await ctx.make.order({ author, ...(ref ? { ref } : {}) });
      const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
      await mkdir(folder.dir, { recursive: true });
      await writeFile(path.join(folder.dir, name), data);
      return { ...order, folder: folder.name, dir: folder.dir, relpath: `${folder.name}/${name}` };
    }

    function transcribe(body: unknown, token: string | null = writer.token, app: FastifyInstance = ctx.app) {
      return app.inject({
        method: 'POST',
        url: TRANSCRIBE,
        payload: body as Record<string, unknown>,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    }

    test("an intervention's recording: ficheinter/<folder>/<name>; another user's intervention is 404 INTERVENTION_NOT_FOUND", async () => {
      await configure({ url: `${whisper.url}/`, mode: 'whisper-asr', key: CONST_KEY });
      const intervention = await ctx.make.intervention({ author: writer.id });
      const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'fichinter', intervention.ref);
      await mkdir(folder.dir, { recursive: true });
      await writeFile(path.join(folder.dir, 'Einsatz.webm'), AUDIO.webm);
      const relpath = `ficheinter/${folder.name}/Einsatz.webm`;
      const res = await transcribe({ relpath });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().text, 'Hallo Welt, Pumpe getauscht.');
      assert.equal(res.json().relpath, relpath);
      assert.equal(whisper.requests.length, 1);
      assertError(await transcribe({ relpath }, other.token), 404, 'INTERVENTION_NOT_FOUND');
      // Without the folder's prefix the name is an order's: none has it.
      assertError(await transcribe({ relpath: `${folder.name}/Einsatz.webm` }), 404, 'ORDER_NOT_FOUND');
      assert.equal(whisper.requests.length, 1, 'nothing refused reached the server');
    });

    test('whisper-asr: POST {url}/asr with task, language, output and encode in the query, the audio in audio_file, the dolcrypt key as Bearer', async () => {
      await configure({ url: `${whisper.url}/`, mode: 'whisper-asr', key: CONST_KEY });
      const order = await orderWith('Sprachnotiz.webm', AUDIO.webm);
      const res = await transcribe({ relpath: order.relpath });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(body, {
        text: 'Hallo Welt, Pumpe getauscht.',
        language: 'de',
        mode: 'whisper-asr',
        cached: false,
        relpath: order.relpath,
        created: body.created,
      });
      assert.ok(Math.abs(body.created - Date.now() / 1000) < 60);

      assert.equal(whisper.requests.length, 1);
      const sent = whisper.requests[0]!;
      assert.equal(sent.method, 'POST');
      assert.equal(sent.path, '/asr');
      assert.deepEqual(Object.fromEntries(sent.query), { task: 'transcribe', language: 'de', output: 'json', encode: 'true' });
      assert.equal(sent.authorization, `Bearer ${CONST_KEY}`);
      assert.deepEqual([...sent.fields.keys()], []);
      assert.deepEqual([...sent.files.keys()], ['audio_file']);
      const file = sent.files.get('audio_file')!;
      assert.ok(file.data.equals(AUDIO.webm), 'the bytes on the wire are the recording');
      // The attachment's own name stays here; the extension of the detected type goes.
      assert.equal(file.name, 'audio.webm');
      assert.equal(file.type, 'audio/webm');
      assert.equal(openai.requests.length, 0);

      // Kept beside the recording, hidden: the attachment list shows only the recording.
      const kept = JSON.parse(await readFile(path.join(order.dir, '.Sprachnotiz.webm.transcript.json'), 'utf8'));
      assert.equal(kept.text, 'Hallo Welt, Pumpe getauscht.');
      assert.equal(kept.mode, 'whisper-asr');
      assert.equal(kept.source.size, AUDIO.webm.length);
      const list = await ctx.app.inject({
        method: 'GET',
        url: `/api/orders.php?id=${order.id}&action=photos`,
        headers: { authorization: `Bearer ${writer.token}` },
      });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().items.map((i: { name: string }) => i.name),
        ['Sprachnotiz.webm'],
      );
    });

    test('whisper-asr: a base address with a path keeps it; without a key no Authorization header; no mode means whisper-asr', async () => {
      await configure({ url: `${whisper.url}/stt/` });
      const order = await orderWith('notiz.ogg', AUDIO.ogg);
      const res = await transcribe({ relpath: order.relpath });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().mode, 'whisper-asr');
      const sent = whisper.requests[0]!;
      assert.equal(sent.path, '/stt/asr');
      assert.equal(sent.authorization, undefined);
      assert.equal(sent.files.get('audio_file')!.name, 'audio.ogg');
      assert.equal(sent.files.get('audio_file')!.type, 'audio/ogg');
      assert.ok(sent.files.get('audio_file')!.data.equals(AUDIO.ogg));
    });

    test('openai: POST {url}/v1/audio/transcriptions (a /v1 base not doubled) with file, model, language, response_format, Bearer key', async () => {
      await configure({ url: `${openai.url}/v1`, mode: 'OpenAI', key: CONST_KEY, lang: 'en' });
      const order = await orderWith('aufnahme.mp3', AUDIO.mp3);
      const res = await transcribe({ relpath: order.relpath });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(body, {
        text: 'Filter gewechselt.',
        language: 'en',
        mode: 'openai',
        cached: false,
        relpath: order.relpath,
        created: body.created,
      });

      assert.equal(openai.requests.length, 1);
      const sent = openai.requests[0]!;
      assert.equal(sent.method, 'POST');
      assert.equal(sent.path, '/v1/audio/transcriptions');
      assert.equal([...sent.query].length, 0);
      assert.equal(sent.authorization, `Bearer ${CONST_KEY}`);
      assert.deepEqual(Object.fromEntries(sent.fields), { model: 'whisper-1', language: 'en', response_format: 'json' });
      assert.deepEqual([...sent.files.keys()], ['file']);
      const file = sent.files.get('file')!;
      assert.ok(file.data.equals(AUDIO.mp3));
      assert.equal(file.name, 'audio.mp3');
      assert.equal(file.type, 'audio/mpeg');
      assert.equal(whisper.requests.length, 0);
    });

    test('openai: a base without /v1 gets it; BERICHT_TRANSCRIBE_MODEL chooses the model; an M4A goes as audio/mp4', async () => {
      await configure({ url: openai.url, mode: 'openai', key: CONST_KEY, model: 'large-v3' });
      const order = await orderWith('memo.m4a', AUDIO.m4a);
      const res = await transcribe({ relpath: `commande/${order.relpath}` });
      assert.equal(res.statusCode, 200, res.body);
      // The answer names the file as the attachment list does.
      assert.equal(res.json().relpath, order.relpath);
      const sent = openai.requests[0]!;
      assert.equal(sent.path, '/v1/audio/transcriptions');
      assert.equal(sent.fields.get('model'), 'large-v3');
      assert.equal(sent.fields.get('language'), 'de');
      assert.equal(sent.files.get('file')!.name, 'audio.m4a');
      assert.equal(sent.files.get('file')!.type, 'audio/mp4');
      assert.ok(sent.files.get('file')!.data.equals(AUDIO.m4a));
    });

    test('the environment wins over llx_const: address, mode, key and language', async () => {
      await configure({ url: whisper.url, mode: 'whisper-asr', key: CONST_KEY, lang: 'it' });
      const config = {
        ...ctx.config,
        transcribe: { url: `${openai.url}/`, mode: 'openai', apiKey: ENV_KEY, lang: 'FR', timeoutSeconds: 5 },
      };
      const app = await buildApp(config, { db: ctx.handle, logger: false });
      try {
        await app.ready();
        const order = await orderWith('env.webm', AUDIO.webm);
        const res = await transcribe({ relpath: order.relpath }, writer.token, app);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().mode, 'openai');
        assert.equal(res.json().language, 'fr');
        assert.equal(whisper.requests.length, 0, 'the address in llx_const is not used');
        const sent = openai.requests[0]!;
        assert.equal(sent.path, '/v1/audio/transcriptions');
        assert.equal(sent.authorization, `Bearer ${ENV_KEY}`);
        assert.equal(sent.fields.get('language'), 'fr');
      } finally {
        await app.close();
      }
    });

    test('language: de when nothing is set; the body may ask for another or for auto (the server detects, its answer names it)', async () => {
      await configure({ url: whisper.url });
      const order = await orderWith('sprache.webm', AUDIO.webm);
      const first = await transcribe({ relpath: order.relpath });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().language, 'de');
      assert.equal(whisper.requests[0]!.query.get('language'), 'de');

      const english = await transcribe({ relpath: order.relpath, lang: 'EN' });
      assert.equal(english.statusCode, 200, english.body);
      assert.equal(english.json().language, 'en');
      assert.equal(english.json().cached, false, 'another language is another transcript');
      assert.equal(whisper.requests[1]!.query.get('language'), 'en');

      whisper.reset(answer({ text: 'Bonjour', language: 'fr' }));
      const auto = await transcribe({ relpath: order.relpath, lang: 'auto' });
      assert.equal(auto.statusCode, 200, auto.body);
      assert.equal(auto.json().language, 'fr');
      assert.equal(whisper.requests[0]!.query.has('language'), false);
      assert.deepEqual(Object.fromEntries(whisper.requests[0]!.query), { task: 'transcribe', output: 'json', encode: 'true' });

      assertError(await transcribe({ relpath: order.relpath, lang: 'de-DE' }), 400, 'VALIDATION_FAILED');
    });

    /** The warn lines about the settings logged since `from` (an index into logLines), parsed. */
    const settingLines = (from: number) =>
      logLines
        .slice(from)
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: number; msg: string; transcribe?: { problems?: Array<Record<string, unknown>> } })
        .filter((l) => l.msg.startsWith('speech-to-text is not set up'));

    test('not configured: 503 TRANSCRIBE_NOT_CONFIGURED naming no setting; the log names the missing or invalid one (also for an empty value)', async () => {
      const order = await orderWith('leer.webm', AUDIO.webm);
      const expectNotConfigured = async (setting: string, problem: string) => {
        const from = logLines.length;
        const res = await transcribe({ relpath: order.relpath });
        const body = assertError(res, 503, 'TRANSCRIBE_NOT_CONFIGURED', 'Die Spracherkennung ist auf diesem Server nicht eingerichtet');
        assert.equal(body.details, undefined);
        assert.doesNotMatch(res.body, /BERICHT_|secret|whisper|openai/);
        const [line, ...more] = settingLines(from);
        assert.ok(line && more.length === 0, `one warn line about the settings: ${logLines.slice(from).join('')}`);
        assert.equal(line.level, 40);
        assert.ok(line.msg.includes(setting), line.msg);
        assert.ok(
          line.transcribe?.problems?.some((p) => p.setting === setting && p.problem === problem),
          JSON.stringify(line),
        );
        return line;
      };
      await expectNotConfigured('BERICHT_TRANSCRIBE_URL', 'missing');
      await configure({ url: '   ', mode: 'openai' });
      await expectNotConfigured('BERICHT_TRANSCRIBE_URL', 'missing');
      await configure({ url: 'ftp://stt.example.com' });
      const ftp = await expectNotConfigured('BERICHT_TRANSCRIBE_URL', 'invalid');
      assert.equal(ftp.transcribe?.problems?.[0]?.from, 'llx_const');
      await configure({ url: `http://user:secret@127.0.0.1:1` });
      const withCredentials = await expectNotConfigured('BERICHT_TRANSCRIBE_URL', 'invalid');
      assert.doesNotMatch(JSON.stringify(withCredentials), /secret/, 'no value in the log, not even the address');
    });

    test('an unknown mode: 503 TRANSCRIBE_NOT_CONFIGURED; the log names the mode setting and the allowed modes, never the key; nothing is sent', async () => {
      await configure({ url: whisper.url, mode: 'azure', key: CONST_KEY, lang: 'deutsch' });
      const order = await orderWith('modus.webm', AUDIO.webm);
      const from = logLines.length;
      const body = assertError(
        await transcribe({ relpath: order.relpath }),
        503,
        'TRANSCRIBE_NOT_CONFIGURED',
        'Die Spracherkennung ist auf diesem Server nicht eingerichtet',
      );
      assert.equal(body.details, undefined);
      const [line] = settingLines(from);
      assert.ok(line, 'a warn line about the settings');
      assert.deepEqual(
        line.transcribe?.problems?.map((p) => [p.setting, p.problem]),
        [
          ['BERICHT_TRANSCRIBE_MODE', 'invalid'],
          ['BERICHT_TRANSCRIBE_LANG', 'invalid'],
        ],
        'every problem at once',
      );
      assert.match(line.msg, /BERICHT_TRANSCRIBE_MODE invalid, BERICHT_TRANSCRIBE_LANG invalid/);
      assert.match(JSON.stringify(line), /whisper-asr and openai/);
      assert.ok(!logLines.join('').includes(CONST_KEY), 'the key is not logged');
      assert.equal(whisper.attempts, 0);
    });

    test('refusals before the server is asked: missing file, not audio, traversal, foreign or unknown order, no token, read right only', async () => {
      await configure({ url: whisper.url, key: CONST_KEY });
      const order = await orderWith('da.webm', AUDIO.webm);
      await writeFile(path.join(order.dir, 'bild.webm'), PNG); // an image named like a recording
      await writeFile(path.join(order.dir, 'text.mp3'), 'nur Text, keine Aufnahme');
      await mkdir(path.join(order.dir, 'unter'), { recursive: true });
      await writeFile(path.join(order.dir, 'unter', 'tief.webm'), AUDIO.webm);
      const outside = path.join(ctx.config.dataRoot, 'draussen.webm');
      await writeFile(outside, AUDIO.webm);
      await symlink(outside, path.join(order.dir, 'link.webm'));
      const foreign = await orderWith('fremd.webm', AUDIO.webm, other.id);

      assertError(await transcribe({ relpath: `${order.folder}/fehlt.webm` }), 404, 'FILE_NOT_FOUND');
      assertError(await transcribe({ relpath: `${order.folder}/unter` }), 404, 'FILE_NOT_FOUND');
      assertError(await transcribe({ relpath: `${order.folder}/bild.webm` }), 415, 'UPLOAD_TYPE_UNSUPPORTED');
      assertError(await transcribe({ relpath: `${order.folder}/text.mp3` }), 415, 'UPLOAD_TYPE_UNSUPPORTED');
      for (const relpath of [
        `${order.folder}/../${foreign.folder}/fremd.webm`,
        `../${order.folder}/da.webm`,
        `${order.folder}/%2e%2e/x.webm`,
        `/${order.relpath}`,
        `${order.folder}\\da.webm`,
        `${order.folder}/unter/tief.webm`,
        'da.webm',
        `${order.folder}/link.webm`,
      ]) {
        assertError(await transcribe({ relpath }), 400, 'FILE_PATH_INVALID');
      }
      assertError(await transcribe({ relpath: foreign.relpath }), 404, 'ORDER_NOT_FOUND');
      assertError(await transcribe({ relpath: 'CO0000-0000-gibtsnicht/da.webm' }), 404, 'ORDER_NOT_FOUND');
      assertError(await transcribe({ relpath: order.relpath }, null), 401, 'AUTH_TOKEN_MISSING');
      assertError(await transcribe({ relpath: order.relpath }, reader.token), 403, 'AUTH_RIGHT_MISSING');
      assertError(await transcribe({}), 400, 'VALIDATION_FAILED');
      assertError(await transcribe({ relpath: order.relpath, force: 'yes' }), 400, 'VALIDATION_FAILED');
      const wrongMethod = await ctx.app.inject({ method: 'GET', url: TRANSCRIBE, headers: { authorization: `Bearer ${writer.token}` } });
      assert.equal(wrongMethod.statusCode, 405);
      assert.equal(whisper.attempts, 0, 'no refused request reached the server');
    });

    test('an order whose ref Dolibarr changes for its folder (CO/24:…) is found by its folder name', async () => {
      await configure({ url: whisper.url });
      const order = await orderWith('schraeg.webm', AUDIO.webm, writer.id, `CO/24:${Date.now() % 100000}`);
      assert.match(order.folder, /^CO_24_/);
      const res = await transcribe({ relpath: order.relpath });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().relpath, order.relpath);
    });

    test('a recording uploaded through /api/voice.php is transcribed by the name the upload answers', async () => {
      await configure({ url: openai.url, mode: 'openai', key: CONST_KEY });
      const order = await ctx.make.order({ author: writer.id });
      const { payload, contentType } = multipart([{ filename: 'Notiz vom Kunden.webm', type: 'audio/webm', data: AUDIO.webm }]);
      const upload = await ctx.app.inject({
        method: 'POST',
        url: `/api/voice.php?id=${order.id}`,
        payload,
        headers: { 'content-type': contentType, authorization: `Bearer ${writer.token}` },
      });
      assert.equal(upload.statusCode, 201, upload.body);
      const relpath = decodeURIComponent(new URL(upload.json().url, 'http://x').searchParams.get('file')!);
      const res = await transcribe({ relpath });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().text, 'Filter gewechselt.');
      assert.ok(openai.requests[0]!.files.get('file')!.data.equals(AUDIO.webm));
    });

    test('upstream 500: 502 TRANSCRIBE_FAILED with its status and a short excerpt; an HTTP error is not retried', async () => {
      await configure({ url: whisper.url, key: CONST_KEY });
      whisper.reset(answer(`Internal Server Error (model crashed) ${'x'.repeat(2000)}`, 500, 'text/plain'));
      const order = await orderWith('fehler.webm', AUDIO.webm);
      const body = assertError(await transcribe({ relpath: order.relpath }), 502, 'TRANSCRIBE_FAILED');
      const details = body.details as { status: number; reason: string; excerpt: string };
      assert.equal(details.status, 500);
      assert.equal(details.reason, 'http_error');
      assert.ok(details.excerpt.startsWith('Internal Server Error'));
      assert.ok(details.excerpt.length <= 201, 'an excerpt, not the whole answer');
      assert.equal(whisper.attempts, 1);
      assert.equal(existsSync(path.join(order.dir, '.fehler.webm.transcript.json')), false, 'nothing kept');
    });

    test('upstream 401 echoing the key: 502, and the key is in no answer', async () => {
      await configure({ url: openai.url, mode: 'openai', key: CONST_KEY });
      openai.behaviour = (res, received) =>
        answer({ error: { message: `Incorrect API key provided: ${received.authorization}`, type: 'invalid_request_error' } }, 401)(
          res,
          received,
          1,
        );
      const order = await orderWith('schluessel.webm', AUDIO.webm);
      const res = await transcribe({ relpath: order.relpath });
      const body = assertError(res, 502, 'TRANSCRIBE_FAILED');
      assert.equal((body.details as { status: number }).status, 401);
      assert.match((body.details as { excerpt: string }).excerpt, /Incorrect API key provided/);
      assert.ok(!res.body.includes(CONST_KEY), res.body);
      assert.ok(!res.body.includes('sk-const'), res.body);
    });

    test('an answer without text (or not JSON): 502 TRANSCRIBE_FAILED', async () => {
      await configure({ url: whisper.url });
      const order = await orderWith('stumm.webm', AUDIO.webm);
      whisper.reset(answer({ segments: [], language: 'de' }));
      const noText = assertError(await transcribe({ relpath: order.relpath }), 502, 'TRANSCRIBE_FAILED');
      assert.deepEqual(noText.details, { status: 200, reason: 'no_text' });
      whisper.reset(answer('<html>proxy page</html>', 200, 'text/html'));
      const notJson = assertError(await transcribe({ relpath: order.relpath }), 502, 'TRANSCRIBE_FAILED');
      assert.deepEqual(notJson.details, { status: 200, reason: 'not_json' });
      // whisper-asr labels its JSON text/plain: that is fine.
      whisper.reset(answer({ text: 'ok' }, 200, 'text/plain'));
      const res = await transcribe({ relpath: order.relpath });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().text, 'ok');
    });

    test('a server that never answers: 504 TRANSCRIBE_TIMEOUT after the time limit, not retried', async () => {
      await configure({ url: whisper.url });
      whisper.reset(hang);
      const order = await orderWith('haengt.webm', AUDIO.webm);
      const started = Date.now();
      const body = assertError(await transcribe({ relpath: order.relpath }), 504, 'TRANSCRIBE_TIMEOUT');
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 900 && elapsed < 5000, `took ${elapsed} ms with a 1 s limit`);
      assert.deepEqual(body.details, { timeout_seconds: 1, attempts: 1 });
      assert.equal(whisper.attempts, 1);
    });

    test('a connection dropped once: tried again, and the second attempt answers', async () => {
      await configure({ url: openai.url, mode: 'openai', key: CONST_KEY });
      openai.reset((res, received, attempt) => (attempt === 1 ? drop : answer({ text: 'zweiter Versuch' }))(res, received, attempt));
      const order = await orderWith('wackel.webm', AUDIO.webm);
      const res = await transcribe({ relpath: order.relpath });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().text, 'zweiter Versuch');
      assert.equal(openai.attempts, 2);
      assert.ok(
        openai.requests.every((r) => r.files.get('file')!.data.equals(AUDIO.webm)),
        'each attempt sends the whole recording',
      );
    });

    test('connections always dropped or refused: 502 after three attempts (two retries)', async () => {
      await configure({ url: whisper.url });
      whisper.reset(drop);
      const order = await orderWith('weg.webm', AUDIO.webm);
      const dropped = assertError(await transcribe({ relpath: order.relpath }), 502, 'TRANSCRIBE_FAILED');
      assert.deepEqual(dropped.details, { status: null, reason: 'connection_lost', attempts: 3 });
      assert.equal(whisper.attempts, 3);

      // Nothing listening: refused three times.
      const closed = await FakeServer.start();
      const refusedUrl = closed.url;
      await closed.close();
      await configure({ url: refusedUrl });
      const refused = assertError(await transcribe({ relpath: order.relpath }), 502, 'TRANSCRIBE_FAILED');
      assert.deepEqual(refused.details, { status: null, reason: 'connection_lost', attempts: 3 });
    });

    test('cache: a second call answers the kept text without the server; force asks again; a changed recording is sent again', async () => {
      await configure({ url: whisper.url });
      const order = await orderWith('merken.webm', AUDIO.webm);
      const first = await transcribe({ relpath: order.relpath });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().cached, false);
      assert.equal(whisper.attempts, 1);

      whisper.reset(answer({ text: 'neuer Text' }));
      const second = await transcribe({ relpath: order.relpath });
      assert.equal(second.statusCode, 200, second.body);
      assert.deepEqual(second.json(), { ...first.json(), cached: true });
      assert.equal(whisper.attempts, 0, 'the kept transcript is answered without the server');

      const forced = await transcribe({ relpath: order.relpath, force: true });
      assert.equal(forced.statusCode, 200, forced.body);
      assert.equal(forced.json().cached, false);
      assert.equal(forced.json().text, 'neuer Text');
      assert.equal(whisper.attempts, 1);
      const afterForce = await transcribe({ relpath: order.relpath });
      assert.equal(afterForce.json().text, 'neuer Text');
      assert.equal(afterForce.json().cached, true);
      assert.equal(whisper.attempts, 1);

      // Same size, another modification time: the recording changed.
      const file = path.join(order.dir, 'merken.webm');
      await utimes(file, new Date(), new Date(Date.now() - 3600_000));
      whisper.reset(answer({ text: 'nach Änderung' }));
      const changed = await transcribe({ relpath: order.relpath });
      assert.equal(changed.json().cached, false);
      assert.equal(changed.json().text, 'nach Änderung');
      assert.equal(whisper.attempts, 1);

      // Other bytes (another size).
      await writeFile(file, Buffer.concat([AUDIO.webm, Buffer.alloc(16)]));
      whisper.reset(answer({ text: 'länger' }));
      const longer = await transcribe({ relpath: order.relpath });
      assert.equal(longer.json().cached, false);
      assert.equal(longer.json().text, 'länger');
      assert.ok(whisper.requests[0]!.files.get('audio_file')!.data.equals(Buffer.concat([AUDIO.webm, Buffer.alloc(16)])));

      // A damaged transcript file is made anew, never answered.
      await writeFile(path.join(order.dir, '.merken.webm.transcript.json'), '{ kaputt');
      whisper.reset(answer({ text: 'repariert' }));
      const repaired = await transcribe({ relpath: order.relpath });
      assert.equal(repaired.json().text, 'repariert');
      assert.equal(repaired.json().cached, false);
      assert.equal(JSON.parse(await readFile(path.join(order.dir, '.merken.webm.transcript.json'), 'utf8')).text, 'repariert');
    });

    test('no API key in any log line, also when the server fails or echoes it', async () => {
      await configure({ url: openai.url, mode: 'openai', key: CONST_KEY });
      const order = await orderWith('protokoll.webm', AUDIO.webm);
      openai.reset((res, received) => answer({ error: { message: `bad key ${received.authorization}` } }, 401)(res, received, 1));
      assertError(await transcribe({ relpath: order.relpath }), 502, 'TRANSCRIBE_FAILED');
      openai.reset(answer({ text: 'ok' }));
      assert.equal((await transcribe({ relpath: order.relpath })).statusCode, 200);
      // The log of this app since it started (every test of this suite ran on it).
      const logged = logLines.join('');
      assert.ok(logged.includes('speech-to-text failed'), 'failures are logged');
      assert.ok(logged.includes('speech-to-text done'), 'successes are logged');
      assert.ok(!logged.includes(CONST_KEY) && !logged.includes('sk-const'), 'the key is not logged');
    });
  });
}
