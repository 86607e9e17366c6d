/**
 * The PDF seal on final reports, checked by the tools anyone has: pdfsig (poppler) says the
 * signature is valid and covers the whole document, and invalid after one changed byte; `openssl
 * cms -verify` accepts it with the instance's certificate (served at /api/seal_certificate.php);
 * PDFBox Preflight still calls the file PDF/A-1b (every finalized PDF, at close). With a real
 * time-stamp authority (OpenSSL's `ts` behind HTTP, test/helpers/tsa.ts) the seal carries its
 * token and `openssl ts -verify` accepts it; with the authority down the finalize still succeeds,
 * and the time stamp arrives as a document time stamp once it answers, the first signature still
 * valid. The public check takes an uploaded PDF: the original, one changed byte, another
 * instance's report and a non-PDF are each told apart.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { LightMyRequestResponse } from 'fastify';
import { parseCms } from '../../src/adapters/cms.js';
import { entityRoot } from '../../src/dolibarr/ecm.js';
import { fromDbDateTime } from '../../src/db/dialect.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';
import { opensslCmsVerify, opensslTsVerify, pdfsig, rawSignatures } from '../helpers/pdf-signatures.js';
import { pdfToolsMissing } from '../helpers/pdf-tools.js';
import { sign } from '../helpers/signature.js';
import { startTsa, type TestTsa } from '../helpers/tsa.js';

const run = promisify(execFile);
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

/** A multipart body for inject. */
function multipartBody(parts: Array<{ name: string; filename?: string; contentType?: string; data?: Buffer; value?: string }>) {
  const body = multipart(
    parts.map((p) => ({ name: p.name, filename: p.filename, type: p.contentType ?? 'text/plain', data: p.data ?? p.value ?? '' })),
  );
  return { headers: { 'content-type': body.contentType }, payload: body.payload };
}

/** `pdf` with one byte inside its first content stream changed (still a readable PDF). */
function changeOneByte(pdf: Buffer): Buffer {
  const copy = Buffer.from(pdf);
  const at = copy.indexOf('stream\n', 0, 'latin1') + 'stream\n'.length + 5;
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

for (const dialect of testDialects()) {
  describe(`PDF seal of final reports [${dialect}]`, { skip: pdfToolsMissing }, () => {
    let ctx: TestContext;
    let tsa: TestTsa;
    let headers: Record<string, string>;
    let tmp: string;
    let orderId: number;
    before(async () => {
      tsa = await startTsa();
      // The company's name is known before the first start, which makes the certificate in it.
      ctx = await createTestContext(
        dialect,
        {},
        {
          beforeApp: (handle) =>
            handle.db
              .insertInto('const')
              .values({
                name: 'MAIN_INFO_SOCIETE_NOM',
                value: 'Kälte & Klima Schmidt GmbH',
                type: 'chaine',
                visible: 0,
                entity: 1,
                note: null,
              })
              .execute()
              .then(() => undefined),
        },
      );
      const user = await ctx.make.user({ rights: ['read', 'write'] });
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
      tmp = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-seal-'));
      orderId = (await ctx.make.order({ author: user.id })).id;
    });
    after(async () => {
      await ctx?.close();
      await tsa?.close();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    const req = (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
      ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    async function finalReport(app = ctx, hdrs = headers, order = orderId): Promise<{ id: number; file: string; pdf: Buffer }> {
      const inject = (method: 'POST', url: string, payload?: object) =>
        app.app.inject({ method, url, headers: hdrs, ...(payload ? { payload } : {}) });
      const created = await inject('POST', '/api/reports.php?action=create', { fk_element: order, title: 'Wartung Kälteanlage' });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id as number;
      assert.equal((await inject('POST', `/api/pages.php?action=add&bericht_id=${id}`, { title: 'Verdichter geprüft' })).statusCode, 201);
      assert.equal((await sign(app.app, hdrs, id, 'Erika Mustermann')).statusCode, 201);
      const done = await inject('POST', `/api/reports.php?id=${id}&action=finalize`);
      assert.equal(done.statusCode, 200, done.body);
      const file = path.join(entityRoot(app.config.dataRoot, app.config.entity), done.json().final_pdf_path as string);
      return { id, file, pdf: await readFile(file) };
    }

    async function certificateFile(app = ctx): Promise<string> {
      const res = await app.app.inject({ method: 'GET', url: '/api/seal_certificate.php' });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /^-----BEGIN CERTIFICATE-----/);
      const file = path.join(tmp, `cert-${Math.random().toString(36).slice(2)}.pem`);
      await writeFile(file, res.body);
      return file;
    }

    test('the final PDF is sealed: pdfsig valid over the whole document, openssl cms accepts it; one changed byte breaks it', async () => {
      const { file, pdf } = await finalReport();
      const report = await pdfsig(file);
      assert.equal(report.signatures.length, 1, report.output);
      const [seal] = report.signatures;
      assert.ok(seal!.valid, report.output);
      assert.ok(seal!.total, `not the whole document:\n${report.output}`);
      assert.equal(seal!.subFilter, 'ETSI.CAdES.detached');
      // Made at first start, in the company's name.
      assert.equal(seal!.commonName, 'Kälte & Klima Schmidt GmbH (Berichtssiegel)');

      const [raw] = rawSignatures(pdf);
      const verified = await opensslCmsVerify(tmp, raw!, await certificateFile());
      assert.ok(verified.ok, verified.output);
      // PAdES B-B: ESS signing-certificate-v2 signed, no signing-time attribute.
      const { stdout } = await run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path.join(tmp, 'sig.der')]);
      assert.match(stdout, /id-smime-aa-signingCertificateV2/);
      assert.doesNotMatch(stdout, /signingTime/);

      const changed = path.join(tmp, 'changed.pdf');
      await writeFile(changed, changeOneByte(pdf));
      const broken = await pdfsig(changed);
      assert.equal(broken.signatures.length, 1, broken.output);
      assert.equal(broken.signatures[0]!.valid, false, broken.output);
      const [rawChanged] = rawSignatures(await readFile(changed));
      assert.equal((await opensslCmsVerify(tmp, rawChanged!, await certificateFile())).ok, false);
    });

    test("the copy in the order's documents is the same sealed file, and the ecm_files checksum is the sealed one", async () => {
      const { id, pdf } = await finalReport();
      const rows = await ctx.handle.db
        .selectFrom('ecm_files')
        .select(['filepath', 'filename', 'label'])
        .where('filename', 'like', '%.pdf')
        .where('gen_or_uploaded', '=', 'generated')
        .execute();
      // The report's own, the copy in the order's documents, and the one in the documents of the intervention the visit made.
      const ours = rows.filter((r) => r.label === md5(pdf));
      assert.equal(ours.length, 3, JSON.stringify(rows));
      for (const r of ours)
        assert.ok((await readFile(path.join(entityRoot(ctx.config.dataRoot, ctx.config.entity), r.filepath, r.filename))).equals(pdf));
      const record = await ctx.handle.db.selectFrom('bericht_seal').selectAll().where('fk_bericht', '=', id).executeTakeFirstOrThrow();
      assert.equal(record.timestamp, 'none');
      assert.equal(record.sealed_sha256, createHash('sha256').update(pdf).digest('hex'));
    });

    test("the public check tells the original, one changed byte, another instance's report and a non-PDF apart", async () => {
      const { pdf } = await finalReport();
      const check = async (data: Buffer, filename = 'bericht.pdf') => {
        const body = multipartBody([{ name: 'file', filename, contentType: 'application/pdf', data }]);
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/public/verify_signature.php',
          headers: body.headers,
          payload: body.payload,
        });
        return { status: res.statusCode, verdict: /data-verdict="([a-z_]+)"/.exec(res.body)?.[1], body: res.body };
      };
      // A check's budget covers no worker's start: one is loaded first.
      ctx.app.pdfSeal.warmCheck();
      while (ctx.app.pdfSeal.checkWorkers().idle === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const original = await check(pdf);
      assert.equal(original.status, 200, original.body.slice(0, 300));
      assert.equal(original.verdict, 'unaltered', original.body);
      assert.match(original.body, /Erika Mustermann/);
      assert.match(original.body, /BR\d{4}-\d{4}/);

      const changed = await check(changeOneByte(pdf));
      assert.equal(changed.verdict, 'altered', changed.body);
      assert.match(changed.body, /nach dem Versiegeln geändert/);

      // Appended after the seal (an incremental update someone else made): altered, not unaltered.
      const appended = await check(Buffer.concat([pdf, Buffer.from('\n% nachträglich\n', 'latin1')]));
      assert.equal(appended.verdict, 'altered', appended.body);

      // Another instance: its own key and certificate.
      const other = await createTestContext(dialect);
      try {
        const user = await other.make.user({ rights: ['read', 'write'] });
        const otherHeaders = { authorization: `Bearer ${await other.make.token(user)}` };
        const foreign = await finalReport(other, otherHeaders, (await other.make.order({ author: user.id })).id);
        const verdict = await check(foreign.pdf);
        assert.equal(verdict.verdict, 'not_ours', verdict.body);
      } finally {
        await other.close();
      }

      const text = await check(Buffer.from('Dies ist keine PDF-Datei, sondern Text.\n'), 'notiz.pdf');
      assert.equal(text.verdict, 'not_pdf', text.body);
    });

    test("a report whose title looks like a signature's byte range is still recognised, unaltered", async () => {
      const inject = (url: string, payload?: object) => ctx.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
      const created = await inject('/api/reports.php?action=create', {
        fk_element: orderId,
        title: '/ByteRange[0 0 0 0] '.repeat(12).trim(),
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id as number;
      assert.equal((await inject(`/api/pages.php?action=add&bericht_id=${id}`, { title: '/ByteRange [0 1 2 3]' })).statusCode, 201);
      const done = await inject(`/api/reports.php?id=${id}&action=finalize`);
      assert.equal(done.statusCode, 200, done.body);
      const pdf = await readFile(path.join(entityRoot(ctx.config.dataRoot, ctx.config.entity), done.json().final_pdf_path as string));
      const body = multipartBody([{ name: 'file', filename: 'b.pdf', contentType: 'application/pdf', data: pdf }]);
      ctx.app.pdfSeal.warmCheck();
      while (ctx.app.pdfSeal.checkWorkers().idle === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const checked = await ctx.app.inject({
        method: 'POST',
        url: '/public/verify_signature.php',
        headers: body.headers,
        payload: body.payload,
      });
      assert.match(checked.body, /data-verdict="unaltered"/);
      const changed = multipartBody([{ name: 'file', filename: 'b.pdf', contentType: 'application/pdf', data: changeOneByte(pdf) }]);
      assert.match(
        (await ctx.app.inject({ method: 'POST', url: '/public/verify_signature.php', headers: changed.headers, payload: changed.payload }))
          .body,
        /data-verdict="altered"/,
      );
    });

    test('the check refuses a missing file and a file beyond the limit in words, and stores nothing', async () => {
      const empty = multipartBody([{ name: 'other', value: 'x' }]);
      const none = await ctx.app.inject({
        method: 'POST',
        url: '/public/verify_signature.php',
        headers: empty.headers,
        payload: empty.payload,
      });
      assert.equal(none.statusCode, 400);
      assert.match(none.body, /Bitte eine PDF-Datei wählen/);
      const notMultipart = await ctx.app.inject({ method: 'POST', url: '/public/verify_signature.php', payload: { file: 'x' } });
      assert.equal(notMultipart.statusCode, 400);
      const huge = multipartBody([
        {
          name: 'file',
          filename: 'gross.pdf',
          contentType: 'application/pdf',
          data: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64 * 1024 * 1024 + 16, 0x20)]),
        },
      ]);
      const tooLarge = await ctx.app.inject({
        method: 'POST',
        url: '/public/verify_signature.php',
        headers: huge.headers,
        payload: huge.payload,
      });
      assert.equal(tooLarge.statusCode, 413);
      assert.match(tooLarge.body, /zu groß/);
      const form = await ctx.app.inject({ method: 'GET', url: '/public/verify_signature.php' });
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /type="file"/);
    });

    test('with a time-stamp authority the seal carries its token (B-T), which openssl ts accepts', async () => {
      const stamped = await createTestContext(dialect, {
        seal: { ...ctx.config.seal, keyFile: path.join(tmp, `bt-${dialect}.pem`), tsaUrl: tsa.url, tsaTimeoutSeconds: 10, pollSeconds: 0 },
      });
      try {
        const user = await stamped.make.user({ rights: ['read', 'write'] });
        const h = { authorization: `Bearer ${await stamped.make.token(user)}` };
        const before = tsa.granted;
        const { id, pdf, file } = await finalReport(stamped, h, (await stamped.make.order({ author: user.id })).id);
        assert.equal(tsa.granted, before + 1);
        const report = await pdfsig(file);
        assert.ok(report.signatures[0]?.valid && report.signatures[0].total, report.output);
        const [raw] = rawSignatures(pdf);
        const cms = parseCms(raw!.der);
        assert.ok(cms.timestampToken, 'no time-stamp token in the signature');
        const verified = await opensslTsVerify(tmp, cms.timestampToken!, cms.signature, tsa.certFile);
        assert.ok(verified.ok, verified.output);
        const record = await stamped.handle.db
          .selectFrom('bericht_seal')
          .select('timestamp')
          .where('fk_bericht', '=', id)
          .executeTakeFirstOrThrow();
        assert.equal(record.timestamp, 'embedded');
      } finally {
        await stamped.close();
      }
    });

    test('with the authority down the finalize succeeds, and the time stamp is added once it answers, the seal still valid', async () => {
      const stamped = await createTestContext(dialect, {
        seal: { ...ctx.config.seal, keyFile: path.join(tmp, `bb-${dialect}.pem`), tsaUrl: tsa.url, tsaTimeoutSeconds: 2, pollSeconds: 0 },
      });
      try {
        const user = await stamped.make.user({ rights: ['read', 'write'] });
        const h = { authorization: `Bearer ${await stamped.make.token(user)}` };
        tsa.down = true;
        const { id, pdf, file } = await finalReport(stamped, h, (await stamped.make.order({ author: user.id })).id);
        const first = await pdfsig(file);
        assert.ok(first.signatures.length === 1 && first.signatures[0]!.valid && first.signatures[0]!.total, first.output);
        assert.equal(parseCms(rawSignatures(pdf)[0]!.der).timestampToken, undefined);
        const pending = await stamped.handle.db
          .selectFrom('bericht_seal')
          .selectAll()
          .where('fk_bericht', '=', id)
          .executeTakeFirstOrThrow();
        assert.equal(pending.timestamp, 'pending');

        // Still down: nothing changes, the job waits.
        await stamped.app.pdfSeal.queue.runOnce();
        assert.ok((await readFile(file)).equals(pdf));
        const waiting = await stamped.handle.db
          .selectFrom('bericht_seal')
          .selectAll()
          .where('fk_bericht', '=', id)
          .executeTakeFirstOrThrow();
        assert.equal(waiting.timestamp, 'pending');
        assert.match(waiting.error ?? '', /not reachable/);
        // Asked again 30 s after the first failed attempt (then 1 min, 2 min … every hour).
        const wait = fromDbDateTime(waiting.next_attempt_at)! - Date.now() / 1000;
        assert.ok(wait > 20 && wait <= 31, `next attempt in ${wait} s`);
        // Due again now (the pause after a failure is minutes).
        await stamped.handle.db
          .updateTable('bericht_seal')
          .set({ next_attempt_at: '2000-01-01 00:00:00' })
          .where('fk_bericht', '=', id)
          .execute();

        tsa.down = false;
        await stamped.app.pdfSeal.queue.runOnce();
        const later = await readFile(file);
        assert.ok(
          later.length > pdf.length && later.subarray(0, pdf.length).equals(pdf),
          'the time stamp is appended, the sealed bytes unchanged',
        );
        const report = await pdfsig(file);
        assert.equal(report.signatures.length, 2, report.output);
        assert.ok(report.signatures[0]!.valid, `the seal is no longer valid:\n${report.output}`);
        assert.equal(report.signatures[0]!.total, false);
        // poppler reads the document time stamp's range but does not check RFC 3161 tokens; openssl does, below.
        assert.ok(report.signatures[1]!.total, report.output);
        assert.equal(rawSignatures(later)[1]!.subFilter, 'ETSI.RFC3161');
        const stampRaw = rawSignatures(later)[1]!;
        const verified = await opensslTsVerify(tmp, stampRaw.der, stampRaw.signed, tsa.certFile);
        assert.ok(verified.ok, verified.output);
        const done = await stamped.handle.db.selectFrom('bericht_seal').selectAll().where('fk_bericht', '=', id).executeTakeFirstOrThrow();
        assert.equal(done.timestamp, 'added');
        assert.equal(done.stamped_sha256, createHash('sha256').update(later).digest('hex'));
        // Every copy replaced (the report's, the order's, the intervention's), their checksums in ecm_files with them.
        const rows = await stamped.handle.db
          .selectFrom('ecm_files')
          .select(['filepath', 'filename', 'label'])
          .where('label', '=', md5(later))
          .execute();
        assert.equal(rows.length, 3, JSON.stringify(rows));
        for (const r of rows)
          assert.ok(
            (await readFile(path.join(entityRoot(stamped.config.dataRoot, stamped.config.entity), r.filepath, r.filename))).equals(later),
          );
        // The check still calls the time-stamped file the unaltered original.
        const body = multipartBody([{ name: 'file', filename: 'b.pdf', contentType: 'application/pdf', data: later }]);
        // A check's budget covers no worker's start (from the sources a worker loads slowly): one is loaded first.
        stamped.app.pdfSeal.warmCheck();
        while (stamped.app.pdfSeal.checkWorkers().idle === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        const checked = await stamped.app.inject({
          method: 'POST',
          url: '/public/verify_signature.php',
          headers: body.headers,
          payload: body.payload,
        });
        assert.match(checked.body, /data-verdict="unaltered"/);
        assert.match(checked.body, /Zeitstempel/);
      } finally {
        tsa.down = false;
        await stamped.close();
      }
    });
  });
}
