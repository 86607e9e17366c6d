/**
 * Stroke evidence on every database: the optional multipart field `strokes` (every pointer sample
 * of the drawing) is checked, stored byte for byte beside the signature as `<image>.strokes.json`,
 * summed up in the sealed metadata (with the User-Agent of the request), checked again by the
 * verification and shown on the public check; an edited or deleted strokes file makes the
 * signature not valid. Bad strokes are a clear 400 or 413 naming the field, and leave nothing.
 * Signatures made before strokes were recorded still verify.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { loadSigningKey } from '../../src/modules/signatures/signing-key.js';
import { MAX_STROKE_SAMPLES, MAX_STROKES, MAX_STROKES_BYTES } from '../../src/modules/signatures/strokes.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { besideSignature, publicSignatureCheck, signatureMetadata } from '../helpers/signature.js';
import type { Part } from '../helpers/multipart.js';

type Sample = [number, number, number, number];
interface Strokes {
  format: string;
  started_at_unix_ms: number;
  pad: { width: number; height: number; pixel_ratio: number };
  sample_fields: string[];
  strokes: Array<{ pointer_type: string; samples: Sample[] }>;
}

/** A drawing of two strokes, a pen's and a finger's, as the app records it. */
function drawing(): Strokes {
  const pen: Sample[] = Array.from({ length: 40 }, (_, i) => [
    20.5 + i * 3.25,
    100 + Math.round(Math.sin(i / 4) * 3000) / 100,
    i * 4.167,
    Math.round((0.2 + 0.6 * (i / 39)) * 10000) / 10000,
  ]);
  const finger: Sample[] = Array.from({ length: 12 }, (_, i) => [200 + i * 2, 80.75 + i, 600 + i * 16.5, i === 11 ? 0 : 1]);
  return {
    format: 'fieldreport-strokes/1',
    started_at_unix_ms: Date.UTC(2026, 10, 24, 8, 14, 3, 120) + 0.25,
    pad: { width: 366, height: 506.5, pixel_ratio: 3 },
    sample_fields: ['x', 'y', 't', 'pressure'],
    strokes: [
      { pointer_type: 'pen', samples: pen },
      { pointer_type: 'touch', samples: finger },
    ],
  };
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

for (const dialect of testDialects()) {
  describe(`signature strokes [${dialect}]`, () => {
    let ctx: TestContext;
    let me: Caller;
    before(async () => {
      ctx = await createTestContext(dialect);
      me = await caller();
    });
    after(async () => ctx?.close());

    const { caller, api, newReport, addPage, sign } = testClient(() => ctx);

    /** A draft on a fresh order with one title page. */
    async function report(owner = me) {
      const order = await ctx.make.order({ author: owner.id });
      const r: { id: number; ref: string } = await newReport(owner, order.id);
      await addPage(owner, r.id, { title: 'Eins' });
      return { ...r, workDir: objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', r.ref).dir };
    }

    const fileOf = (page: { source_path: string }, suffix: string) => besideSignature(ctx.config.dataRoot, page, suffix);
    const metadataOf = (page: { source_path: string }) => signatureMetadata(ctx.config.dataRoot, page);
    const verify = async (pageId: number) => (await api('GET', `/ajax/verify_signature.php?id=${pageId}`, me)).json();
    const publicCheck = (page: { verify_url: string }) => publicSignatureCheck(ctx.app, page);

    /** Nothing of a signature is left in the report: no page, no row, no file. */
    async function nothingLeft(r: { id: number; workDir: string }) {
      const pages = await ctx.handle.db.selectFrom('bericht_page').select('layout').where('fk_bericht', '=', r.id).execute();
      assert.deepEqual(
        pages.map((p) => p.layout),
        ['title_only'],
      );
      assert.deepEqual(
        (await readdir(r.workDir).catch(() => [] as string[])).filter((n) => n.startsWith('unterschrift_')),
        [],
      );
      assert.equal(
        (await ctx.handle.db.selectFrom('bericht_signature').select('rowid').where('fk_bericht', '=', r.id).execute()).length,
        0,
      );
    }

    test('valid strokes are stored byte for byte beside the signature, summed up in the sealed metadata with the User-Agent, and verified', async () => {
      const r = await report();
      // Spaces and a line break where JSON allows them: the file must keep these very bytes.
      const sent = JSON.stringify(drawing(), null, 1).replace('"format"', ' "format"');
      const userAgent = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36';
      const res = await sign(me, r.id, { fields: { strokes: sent }, headers: { 'user-agent': userAgent } });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json();
      const stored = await readFile(fileOf(page, '.strokes.json'));
      assert.ok(stored.equals(Buffer.from(sent, 'utf8')), 'the strokes file holds the bytes as sent');
      const meta = await metadataOf(page);
      assert.deepEqual(meta.strokes, {
        format: 'fieldreport-strokes/1',
        sha256: sha256(sent),
        bytes: Buffer.byteLength(sent),
        strokes: 2,
        samples: 52,
        duration_ms: 600 + 11 * 16.5,
        pointer_types: ['pen', 'touch'],
      });
      assert.equal(meta.user_agent, userAgent);
      assert.equal(meta.format, 'fieldreport-signature/1', 'the metadata format is unchanged: the new keys are additions');

      const checked = await verify(page.id);
      assert.equal(checked.verified, true, JSON.stringify(checked));
      assert.deepEqual(checked.checks, { metadata: true, seal: true, page_count: true, hash: true, image: true, strokes: true });
      assert.deepEqual(checked.metadata.strokes, meta.strokes);

      const html = await publicCheck(page);
      assert.ok(html.includes('✔ Gültig'), html);
      assert.ok(html.includes('<dt>Strichaufzeichnung</dt><dd>2 Striche, 52 Messpunkte (Stift, Finger)</dd>'), html);
      assert.ok(html.includes('<dt>Dauer des Unterschreibens</dt><dd>0,8 s</dd>'), html);
    });

    test('the summary is sealed: editing it (or the User-Agent) in the metadata breaks the seal', async () => {
      for (const edit of [
        (m: Record<string, any>) => {
          m.strokes.samples += 1;
        },
        (m: Record<string, any>) => {
          m.strokes.sha256 = sha256('anders');
        },
        (m: Record<string, any>) => {
          m.strokes = null;
        },
        (m: Record<string, any>) => {
          delete m.strokes;
        },
        (m: Record<string, any>) => {
          m.user_agent = 'curl/8.0';
        },
      ]) {
        const r = await report();
        const page = (await sign(me, r.id, { fields: { strokes: JSON.stringify(drawing()) } })).json();
        const meta = await metadataOf(page);
        edit(meta);
        await writeFile(fileOf(page, '.json'), JSON.stringify(meta, null, 2));
        const checked = await verify(page.id);
        assert.equal(checked.verified, false);
        assert.equal(checked.reason, 'seal_broken');
      }
    });

    test('an edited, replaced or deleted strokes file makes the signature not valid (strokes_changed), in the API and on the public check', async () => {
      const r = await report();
      const sent = JSON.stringify(drawing());
      const page = (await sign(me, r.id, { fields: { strokes: sent } })).json();
      const file = fileOf(page, '.strokes.json');
      assert.equal((await verify(page.id)).verified, true);

      // One sample moved by a hundredth of a pixel: still valid JSON, not the file that was sealed.
      const edited = sent.replace('[20.5,', '[20.51,');
      assert.notEqual(edited, sent);
      await writeFile(file, edited);
      let checked = await verify(page.id);
      assert.equal(checked.verified, false);
      assert.equal(checked.reason, 'strokes_changed');
      assert.equal(checked.message, 'Die Aufzeichnung der Striche (Stiftdaten) der Unterschrift fehlt oder wurde verändert');
      assert.deepEqual(checked.checks, { metadata: true, seal: true, page_count: true, hash: true, image: true, strokes: false });
      const html = await publicCheck(page);
      assert.ok(
        html.includes('✘ Nicht gültig: Die Aufzeichnung der Striche (Stiftdaten) der Unterschrift fehlt oder wurde verändert'),
        html,
      );
      // What the sealed metadata says is still shown beside the verdict.
      assert.ok(html.includes('2 Striche, 52 Messpunkte'), html);

      // Another drawing's valid strokes in its place.
      const other = drawing();
      other.strokes[0]!.samples.pop();
      await writeFile(file, JSON.stringify(other));
      assert.equal((await verify(page.id)).reason, 'strokes_changed');

      await rm(file);
      checked = await verify(page.id);
      assert.equal(checked.reason, 'strokes_changed');
      assert.equal(checked.checks.strokes, false);

      // The sealed bytes back: valid again.
      await writeFile(file, sent);
      assert.equal((await verify(page.id)).verified, true);
    });

    test('a changed page is still content_changed first; the strokes check is reported beside it', async () => {
      const r = await report();
      const page = (await sign(me, r.id, { fields: { strokes: JSON.stringify(drawing()) } })).json();
      await writeFile(fileOf(page, '.strokes.json'), '{}');
      await ctx.handle.db
        .updateTable('bericht_page')
        .set({ title: 'Anders' })
        .where('fk_bericht', '=', r.id)
        .where('layout', '=', 'title_only')
        .execute();
      const checked = await verify(page.id);
      assert.equal(checked.reason, 'content_changed');
      assert.equal(checked.checks.hash, false);
      assert.equal(checked.checks.strokes, false);
    });

    test('without strokes (an older app): 201, `strokes` null in the metadata, no file, verified; the public check says none were recorded', async () => {
      const r = await report();
      for (const strokes of [undefined, '', '  ']) {
        const res = await sign(me, r.id, { fields: { strokes }, headers: { 'user-agent': 'x'.repeat(2000) } });
        assert.equal(res.statusCode, 201, res.body);
        const page = res.json();
        const meta = await metadataOf(page);
        assert.equal(meta.strokes, null);
        assert.equal(meta.user_agent, 'x'.repeat(512), 'the User-Agent is capped');
        await assert.rejects(readFile(fileOf(page, '.strokes.json')), { code: 'ENOENT' });
        const checked = await verify(page.id);
        assert.equal(checked.verified, true, JSON.stringify(checked));
        assert.equal(checked.checks.strokes, null);
        assert.ok((await publicCheck(page)).includes('<dt>Strichaufzeichnung</dt><dd>keine</dd>'));
      }
    });

    test('control characters in the User-Agent are replaced', async () => {
      const r = await report();
      const page = (await sign(me, r.id, { headers: { 'user-agent': 'App\x7f1.0' } })).json();
      assert.equal((await metadataOf(page)).user_agent, 'App\uFFFD1.0');
    });

    test('a signature made before strokes and the User-Agent were recorded (metadata without both keys) still verifies', async () => {
      const r = await report();
      const page = (await sign(me, r.id)).json();
      const meta = await metadataOf(page);
      delete meta.strokes;
      delete meta.user_agent;
      delete meta.seal;
      // Sealed anew with the service's key, as the service sealed metadata before this change.
      meta.seal = loadSigningKey(ctx.config.signingKeyFile, { create: false }).seal(meta);
      await writeFile(fileOf(page, '.json'), `${JSON.stringify(meta, null, 2)}\n`);
      const checked = await verify(page.id);
      assert.equal(checked.verified, true, JSON.stringify(checked));
      assert.equal(checked.checks.strokes, null);
      assert.ok(!('strokes' in checked.metadata) && !('user_agent' in checked.metadata));
      const html = await publicCheck(page);
      assert.ok(html.includes('✔ Gültig') && html.includes('<dt>Strichaufzeichnung</dt><dd>keine</dd>'), html);
    });

    test('strokes as a file part are taken too, byte for byte; sent as an application/json field too, as the bytes that came', async () => {
      const r = await report();
      const sent = `${JSON.stringify(drawing())}\n`;
      const asFile = await sign(me, r.id, { fields: { strokes: { filename: 'strokes.json', type: 'application/json', data: sent } } });
      assert.equal(asFile.statusCode, 201, asFile.body);
      assert.ok((await readFile(fileOf(asFile.json(), '.strokes.json'))).equals(Buffer.from(sent)));
      assert.equal((await verify(asFile.json().id)).verified, true);

      // Indented, a number written 20.50 and a key as \u escape: what JSON.parse and JSON.stringify would change.
      const written = JSON.stringify(drawing(), null, 2)
        .replace('"format"', '"\\u0066ormat"')
        .replace(/20\.5\b/, '20.50');
      assert.notEqual(JSON.stringify(JSON.parse(written)), written);
      const asJson = await sign(me, r.id, { fields: { strokes: { type: 'application/json', data: written } } });
      assert.equal(asJson.statusCode, 201, asJson.body);
      const stored = await readFile(fileOf(asJson.json(), '.strokes.json'));
      assert.ok(stored.equals(Buffer.from(written)), 'stored byte for byte');
      assert.equal((await metadataOf(asJson.json())).strokes.sha256, sha256(stored));
      assert.equal((await metadataOf(asJson.json())).strokes.bytes, Buffer.byteLength(written));
      assert.equal((await verify(asJson.json().id)).verified, true);
      // A text field in latin1 is not decoded by its charset either: its bytes.
      const latin = await sign(me, r.id, { fields: { strokes: { type: 'text/plain; charset=latin1', data: Buffer.from(sent) } } });
      assert.equal(latin.statusCode, 201, latin.body);
      assert.ok((await readFile(fileOf(latin.json(), '.strokes.json'))).equals(Buffer.from(sent)));
      // Its non-ASCII bytes are read as the UTF-8 they are, not by the charset named (latin1 would read "ZÃ¤hler"): the key is named as sent.
      const umlaut = await sign(me, r.id, {
        fields: { strokes: { type: 'text/plain; charset=latin1', data: Buffer.from(JSON.stringify({ ...drawing(), Zähler: 1 }), 'utf8') } },
      });
      assert.equal(umlaut.statusCode, 400, umlaut.body);
      assert.match(umlaut.json().details[0].message, /unbekannter Schlüssel "Zähler"/);
      // An empty field counts as absent.
      const empty = await sign(me, r.id, { fields: { strokes: { type: 'application/json', data: '' } } });
      assert.equal(empty.statusCode, 201, empty.body);
      assert.equal((await metadataOf(empty.json())).strokes, null);
    });

    test('wrong strokes are 400 VALIDATION_FAILED naming body.strokes and where; nothing is left', async () => {
      const r = await report();
      const valid = JSON.stringify(drawing());
      const change = (edit: (d: any) => void) => {
        const d = drawing() as any;
        edit(d);
        return JSON.stringify(d);
      };
      const cases: Array<[string, string | Part, RegExp]> = [
        ['malformed JSON', valid.slice(0, -5), /kein gültiges JSON/],
        ['NaN as written by hand', valid.replace('[20.5,', '[NaN,'), /kein gültiges JSON/],
        [
          'NaN through JSON.stringify (null)',
          change((d) => (d.strokes[0].samples[3][0] = Number.NaN)),
          /strokes\[0\]\.samples\[3\]\[0\] \(x\): muss eine endliche Zahl sein/,
        ],
        ['Infinity (1e999)', valid.replace('[20.5,', '[1e999,'), /strokes\[0\]\.samples\[0\]\[0\] \(x\): muss eine endliche Zahl sein/],
        [
          'a number as a string',
          change((d) => (d.strokes[1].samples[2][1] = '81.75')),
          /strokes\[1\]\.samples\[2\]\[1\] \(y\): muss eine endliche Zahl sein/,
        ],
        [
          'pressure above 1',
          change((d) => (d.strokes[0].samples[5][3] = 1.01)),
          /strokes\[0\]\.samples\[5\]\[3\] \(pressure\): muss zwischen 0 und 1 liegen/,
        ],
        ['pressure below 0', change((d) => (d.strokes[0].samples[5][3] = -0.1)), /\(pressure\): muss zwischen 0 und 1 liegen/],
        [
          'an unknown pointer type',
          change((d) => (d.strokes[1].pointer_type = 'finger')),
          /strokes\[1\]\.pointer_type: muss mouse, pen, touch sein/,
        ],
        ['no pointer type', change((d) => delete d.strokes[1].pointer_type), /strokes\[1\]: "pointer_type" fehlt/],
        [
          'times decreasing',
          change((d) => (d.strokes[1].samples[0][2] = 10)),
          /strokes\[1\]\.samples\[0\]\[2\] \(t\): Zeiten dürfen nicht abnehmen/,
        ],
        ['a negative time', change((d) => (d.strokes[0].samples[1][2] = -1)), /strokes\[0\]\.samples\[1\]\[2\] \(t\): muss zwischen 0 und/],
        [
          'the first time not 0',
          change((d) => {
            for (const s of d.strokes[0].samples as Sample[]) s[2] += 5;
          }),
          /strokes\[0\]\.samples\[0\]\[2\] \(t\): der erste Messpunkt hat t = 0/,
        ],
        [
          'a sample of three numbers',
          change((d) => d.strokes[0].samples[2].pop()),
          /strokes\[0\]\.samples\[2\]: muss \[x, y, t, pressure\] sein/,
        ],
        [
          'a sample as an object',
          change((d) => (d.strokes[0].samples[2] = { x: 1, y: 2, t: 3, pressure: 0.5 })),
          /strokes\[0\]\.samples\[2\]: muss \[x, y, t, pressure\] sein/,
        ],
        ['a stroke without samples', change((d) => (d.strokes[1].samples = [])), /strokes\[1\]\.samples: muss eine nicht leere Liste sein/],
        ['no strokes', change((d) => (d.strokes = [])), /strokes: muss eine nicht leere Liste sein/],
        ['strokes not a list', change((d) => (d.strokes = { pen: [] })), /strokes: muss eine nicht leere Liste sein/],
        ['another format', change((d) => (d.format = 'fieldreport-strokes/2')), /format: unbekanntes Format/],
        ['no format', change((d) => delete d.format), /format: unbekanntes Format/],
        ['an unknown key', change((d) => (d.tilt = [])), /unbekannter Schlüssel "tilt"/],
        ['an unknown key in a stroke', change((d) => (d.strokes[0].color = 'blue')), /strokes\[0\]: unbekannter Schlüssel "color"/],
        ['the columns in another order', change((d) => (d.sample_fields = ['t', 'x', 'y', 'pressure'])), /sample_fields: muss/],
        ['no pad', change((d) => delete d.pad), /"pad" fehlt/],
        ['a pad of width 0', change((d) => (d.pad.width = 0)), /pad\.width: muss größer als 0 sein/],
        [
          'a start time as a string',
          change((d) => (d.started_at_unix_ms = '2026-11-24')),
          /started_at_unix_ms: muss eine endliche Zahl sein/,
        ],
        ['a list, not an object', JSON.stringify(drawing().strokes), /muss ein JSON-Objekt sein/],
        ['JSON null', 'null', /muss ein JSON-Objekt sein/],
        ['a coordinate beyond any screen', change((d) => (d.strokes[0].samples[0][1] = 1e7)), /\(y\): muss zwischen/],
        // JSON.parse would keep the last: the check would read one format, a reader of the file maybe the other.
        [
          'a key twice',
          valid.replace('{"format":"fieldreport-strokes/1"', '{"format":"evil","format":"fieldreport-strokes/1"'),
          /Schlüssel "format" doppelt/,
        ],
        [
          'a key twice as an application/json part',
          {
            name: 'strokes',
            type: 'application/json',
            data: valid.replace('{"format":"fieldreport-strokes/1"', '{"format":"evil","format":"fieldreport-strokes/1"'),
          },
          /Schlüssel "format" doppelt/,
        ],
        [
          'a key twice in a stroke',
          valid.replace('"pointer_type":"touch"', '"pointer_type":"mouse","pointer_type":"touch"'),
          /strokes\[1\]: Schlüssel "pointer_type" doppelt/,
        ],
      ];
      for (const [what, strokes, message] of cases) {
        const body = assertError(await sign(me, r.id, { fields: { strokes } }), 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          (body.details as Array<{ field: string }>).map((d) => d.field),
          ['body.strokes'],
          what,
        );
        assert.match(body.error as string, /^strokes ist ungültig/, what);
        assert.match(body.error as string, message, `${what}: ${body.error}`);
      }
      // Declared application/json but no JSON: the same 400 as any malformed strokes.
      const declared = assertError(
        await sign(me, r.id, { fields: { strokes: { type: 'application/json', data: '{"format": ' } } }),
        400,
        'VALIDATION_FAILED',
      );
      assert.match(declared.error as string, /strokes ist ungültig: kein gültiges JSON/);
      await nothingLeft(r);
    });

    test('beyond the limits: 413 STROKES_TOO_LARGE naming body.strokes; another text field too long is 400 naming it; nothing is left', async () => {
      const r = await report();
      const manySamples = drawing();
      manySamples.strokes[0]!.samples = Array.from({ length: MAX_STROKE_SAMPLES + 1 }, (_, i) => [i % 300, 100, i, 0.5]);
      const manyStrokes = drawing();
      manyStrokes.strokes = Array.from({ length: MAX_STROKES + 1 }, (_, i) => ({ pointer_type: 'pen', samples: [[10, 10, i, 0.5]] }));
      // Valid JSON, padded with spaces beyond the byte limit.
      const huge = JSON.stringify(drawing()).replace('{', `{${' '.repeat(MAX_STROKES_BYTES)}`);
      const cases: Array<[string, string | Part, RegExp]> = [
        ['too many samples', JSON.stringify(manySamples), new RegExp(`mehr als ${MAX_STROKE_SAMPLES} Messpunkte`)],
        ['too many strokes', JSON.stringify(manyStrokes), new RegExp(`mehr als ${MAX_STROKES} Striche`)],
        ['a huge field', huge, new RegExp(`mehr als ${MAX_STROKES_BYTES} Bytes`)],
        [
          'a huge file part',
          { name: 'strokes', filename: 'strokes.json', type: 'application/json', data: huge },
          new RegExp(`mehr als ${MAX_STROKES_BYTES} Bytes`),
        ],
      ];
      for (const [what, strokes, message] of cases) {
        const body = assertError(await sign(me, r.id, { fields: { strokes } }), 413, 'STROKES_TOO_LARGE');
        assert.deepEqual(
          (body.details as Array<{ field: string }>).map((d) => d.field),
          ['body.strokes'],
          what,
        );
        assert.match(body.error as string, /^strokes ist zu groß/, what);
        assert.match(body.error as string, message, what);
      }
      // Exactly at the sample limit is fine (one stroke, times rising).
      const atLimit = drawing();
      atLimit.strokes = [
        { pointer_type: 'mouse', samples: Array.from({ length: MAX_STROKE_SAMPLES }, (_, i) => [i % 300, 100, i, 0.5] as Sample) },
      ];
      const limitReport = await report();
      const ok = await sign(me, limitReport.id, { fields: { strokes: JSON.stringify(atLimit) } });
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal((await metadataOf(ok.json())).strokes.samples, MAX_STROKE_SAMPLES);
      assert.equal((await metadataOf(ok.json())).strokes.duration_ms, MAX_STROKE_SAMPLES - 1);

      // The other fields stay small even though the form now takes megabytes for the strokes.
      const long = await sign(me, r.id, { signer: 'E'.repeat(9000) });
      const body = assertError(long, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        (body.details as Array<{ field: string }>).map((d) => d.field),
        ['body.signer_name'],
      );
      await nothingLeft(r);
    });

    test("another user's report with valid strokes: 404, nothing stored; without the write right: 403", async () => {
      const ownerCaller = await caller(['read', 'write']);
      const theirs = await report(ownerCaller);
      const res = await sign(me, theirs.id, { fields: { strokes: JSON.stringify(drawing()) } });
      assertError(res, 404, 'REPORT_NOT_FOUND');
      await nothingLeft(theirs);
      const readerCaller = await caller(['read']);
      assertError(await sign(readerCaller, theirs.id, { fields: { strokes: JSON.stringify(drawing()) } }), 403, 'AUTH_RIGHT_MISSING');
      await nothingLeft(theirs);
    });

    test('a repeat with the same Idempotency-Key answers the first page and stores no second strokes file', async () => {
      const r = await report();
      const key = `sig-${randomBytes(6).toString('hex')}`;
      const first = await sign(me, r.id, { fields: { strokes: JSON.stringify(drawing()) }, headers: { 'idempotency-key': key } });
      assert.equal(first.statusCode, 201, first.body);
      const again = await sign(me, r.id, {
        fields: { strokes: JSON.stringify({ ...drawing(), started_at_unix_ms: 1 }) },
        headers: { 'idempotency-key': key },
      });
      assert.deepEqual(again.json(), first.json());
      assert.equal((await readdir(r.workDir)).filter((n) => n.endsWith('.strokes.json')).length, 1);
    });

    test('a signature that fails after its files were written (two at once on one report: the second finds the pages changed) removes its strokes file too', async () => {
      let conflicts = 0;
      for (let round = 0; round < 5 && conflicts === 0; round++) {
        const r = await report();
        const answers = await Promise.all([
          sign(me, r.id, { fields: { strokes: JSON.stringify(drawing()) } }),
          sign(me, r.id, { fields: { strokes: JSON.stringify(drawing()) } }),
        ]);
        for (const answer of answers) assert.ok(answer.statusCode === 201 || answer.statusCode === 409, answer.body);
        conflicts += answers.filter((a) => a.statusCode === 409).length;
        const signed = answers.filter((a) => a.statusCode === 201).map((a) => path.basename(a.json().source_path as string, '.png'));
        const names = await readdir(r.workDir);
        // Exactly the signatures made have their image, metadata and strokes; the refused one left nothing.
        assert.deepEqual(
          names.filter((n) => n.startsWith('unterschrift_')).sort(),
          signed.flatMap((b) => [`${b}.json`, `${b}.png`, `${b}.strokes.json`]).sort(),
        );
      }
      assert.ok(conflicts > 0, 'two signatures at once on one report: one is refused (409)');
    });
  });
}
