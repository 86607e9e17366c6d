/**
 * The public check behind a signature's QR code (GET /public/verify_signature.php?code=…), over
 * real sockets: it has a pool of its own, so 20 parallel checks of one code never make a
 * technician's signature fail meanwhile; one address has at most a couple of checks in flight
 * (429 with words beyond); and a check remembers the covered files' hashes only for as long as the
 * files stay as they were: a photo changed in place (even with its modification time put back) or
 * replaced by another file of the same size and time makes the next check say "Nicht gültig".
 */
import assert from 'node:assert/strict';
import { mkdir, open, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { CODE_CHECKS_PER_ADDRESS, publicCheckLoad } from '../../src/modules/seal/public-check.routes.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';
import { listenLocal, rawRequest, requestBytes, type RawResponse } from '../helpers/raw-http.js';
import { signaturePng } from '../helpers/signature.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Photos per report: each a large noisy JPEG, so that hashing them takes a while. */
const PHOTOS = 6;

for (const dialect of testDialects()) {
  describe(`public check of a signature's code [${dialect}]`, () => {
    let ctx: TestContext;
    let base: string;
    let port: number;
    let headers: Record<string, string>;
    let userId: number;
    let photo: Buffer;
    before(async () => {
      ctx = await createTestContext(dialect, { trustProxy: true });
      port = await listenLocal(ctx.app);
      base = `http://127.0.0.1:${port}`;
      const user = await ctx.make.user({ rights: ['read', 'write', 'delete'] });
      userId = user.id;
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
      photo = await sharp({
        create: { width: 2400, height: 1800, channels: 3, background: '#777', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
      })
        .jpeg({ quality: 98 })
        .toBuffer();
    });
    after(async () => ctx?.close());

    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, text: await res.text() };
    };

    /** A draft with PHOTOS photo pages on a fresh order; its photos' files. */
    async function report() {
      const order = await ctx.make.order({ author: userId });
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(dir, { recursive: true });
      const files: string[] = [];
      for (let i = 0; i < PHOTOS; i++) {
        const file = path.join(dir, `foto${i}.jpg`);
        // Each photo its own bytes.
        await writeFile(file, Buffer.concat([photo, Buffer.from(`${order.ref}-${i}`)]));
        files.push(file);
      }
      const created = await api('POST', '/api/reports.php?action=create', { fk_element: order.id, title: 'Wartung' });
      assert.equal(created.status, 201, created.text);
      const id = (JSON.parse(created.text) as { id: number }).id;
      for (let i = 0; i < PHOTOS; i++) {
        const page = await api('POST', `/api/pages.php?action=add&bericht_id=${id}`, { source: `foto${i}.jpg`, title: `Foto ${i}` });
        assert.equal(page.status, 201, page.text);
      }
      return { id, files };
    }

    /** The technician signs over HTTP. */
    async function sign(reportId: number) {
      const form = multipart([
        { name: 'signer_name', type: 'text/plain; charset=utf-8', data: 'Erika Müller' },
        { name: 'file', filename: 'signature.png', type: 'image/png', data: await signaturePng() },
      ]);
      const res = await fetch(`${base}/api/pages.php?action=signature&bericht_id=${reportId}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': form.contentType },
        body: form.payload,
      });
      return { status: res.status, text: await res.text() };
    }

    async function signedReport() {
      const r = await report();
      const signed = await sign(r.id);
      assert.equal(signed.status, 201, signed.text);
      const code = new URL((JSON.parse(signed.text) as { verify_url: string }).verify_url).searchParams.get('code')!;
      return { ...r, code };
    }

    const publicCheck = (code: string, from: string): Promise<RawResponse> =>
      rawRequest(port, requestBytes('GET', `/public/verify_signature.php?code=${code}`, { 'x-forwarded-for': from }), 30_000);

    test('20 clients checking one code over and over while a technician signs three reports: every signature is made', async () => {
      const checked = await signedReport();
      const others = [await report(), await report(), await report()];
      let signing = true;
      const answers: RawResponse[] = [];
      // Each client asks again as soon as it has its answer, for as long as the technician signs.
      const clients = Array.from({ length: 20 }, async (_, i) => {
        do answers.push(await publicCheck(checked.code, `10.20.0.${i + 1}`));
        while (signing);
      });
      await sleep(20);
      try {
        for (const other of others) {
          const signed = await sign(other.id);
          assert.equal(signed.status, 201, `the technician's signature: ${signed.status} ${signed.text}`);
        }
      } finally {
        signing = false;
        await Promise.all(clients);
      }
      for (const a of answers) {
        if (a.status === 200) assert.match(a.body, /✔ Gültig/);
        else {
          assert.equal(a.status, 503, a.body.slice(0, 300));
          assert.match(a.body, /zu viele Prüfungen gleichzeitig/);
        }
      }
      assert.ok(
        answers.some((a) => a.status === 200),
        'checks within the pool are answered',
      );
    });

    test(`one address has at most ${CODE_CHECKS_PER_ADDRESS} checks in flight: beyond, 429 with words; another address is served`, async () => {
      const { code } = await signedReport();
      const answers = await Promise.all(Array.from({ length: 8 }, () => publicCheck(code, '10.21.0.1')));
      const refused = answers.filter((a) => a.status === 429);
      assert.ok(refused.length >= 1, `statuses: ${answers.map((a) => a.status).join(', ')}`);
      for (const a of refused) {
        assert.equal(a.headers['retry-after'], '5');
        assert.match(a.body, /Von Ihrer Adresse laufen gerade zu viele Prüfungen gleichzeitig/);
      }
      for (const a of answers.filter((x) => x.status !== 429)) assert.match(a.body, /✔ Gültig/);
      assert.match((await publicCheck(code, '10.21.0.2')).body, /✔ Gültig/);
      assert.match((await publicCheck(code, '10.21.0.1')).body, /✔ Gültig/, 'the address once its checks ended');
    });

    test('a check seen valid turns invalid once a covered photo changes, whatever keeps its size and times', async () => {
      const { code, files } = await signedReport();
      // Files left alone for a while are the ones whose hashes a check keeps.
      await sleep(2200);
      const hashed = () => publicCheckLoad(ctx.app.pdfSeal)!.filesHashed;
      assert.match((await publicCheck(code, '10.22.0.1')).body, /✔ Gültig/, 'check 0');
      const afterFirst = hashed();
      for (let i = 1; i < 3; i++) assert.match((await publicCheck(code, '10.22.0.1')).body, /✔ Gültig/, `check ${i}`);
      assert.equal(hashed(), afterFirst, 'the checks after the first read no file again: their hashes were remembered');
      // One byte changed in place, the size kept and the modification time put back.
      const first = files[0]!;
      const before = await stat(first);
      const original = await readLast(first, before.size);
      await writeLast(first, before.size, original ^ 0x42);
      await utimes(first, before.atime, before.mtime);
      assert.match((await publicCheck(code, '10.22.0.1')).body, /✘ Nicht gültig: Der Inhalt der unterschriebenen Seiten hat sich geändert/);
      assert.ok(hashed() > afterFirst, 'the changed file was read again');
      assert.match((await publicCheck(code, '10.22.0.1')).body, /✘ Nicht gültig/, 'and stays so');
      // The byte put back: valid again.
      await writeLast(first, before.size, original);
      await utimes(first, before.atime, before.mtime);
      assert.match((await publicCheck(code, '10.22.0.1')).body, /✔ Gültig/);
    });

    test('a covered photo replaced by another file of the same size and times: the check says so', async () => {
      const { code, files } = await signedReport();
      await sleep(2200);
      assert.match((await publicCheck(code, '10.23.0.1')).body, /✔ Gültig/);
      assert.match((await publicCheck(code, '10.23.0.1')).body, /✔ Gültig/);
      const second = files[1]!;
      const was = await stat(second);
      const swapped = `${second}.neu`;
      const data = await readFile(second);
      data[data.length - 1] = data[data.length - 1]! ^ 0xff;
      await writeFile(swapped, data);
      await utimes(swapped, was.atime, was.mtime);
      await rename(swapped, second);
      assert.match((await publicCheck(code, '10.23.0.1')).body, /✘ Nicht gültig/);
    });
  });
}

async function readLast(file: string, size: number): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const one = Buffer.alloc(1);
    await handle.read(one, 0, 1, size - 1);
    return one[0]!;
  } finally {
    await handle.close();
  }
}

async function writeLast(file: string, size: number, value: number): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.write(Buffer.from([value]), 0, 1, size - 1);
  } finally {
    await handle.close();
  }
}
