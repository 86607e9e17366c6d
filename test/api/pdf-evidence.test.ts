/**
 * The evidence sheet at the end of the final PDF, read back with pdftotext: the history in time
 * order with the right people and times (report created, pages added, a page changed by someone
 * else, the signature with the phone's time, IP, position, who sent it in and the browser where
 * the metadata names one, a page added after it, the finalization with the request's IP), each
 * signature's hash equal to its metadata's, each image's SHA-256 equal to its file's (in full up
 * to 60 images, the first 16 characters in a grid beyond), the commands that check the seal, and
 * PDF/A-1b. The preview shows it marked as one, with the final PDF's number of sheets. On every
 * database.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { toDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { entityRoot } from '../../src/dolibarr/ecm.js';
import { formatMoment } from '../../src/modules/report-pdf/evidence.js';
import { type Caller, callerOf, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { inOrder, pdfInfo, pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

const SIGNER = 'Erika Müller';
const AGENT = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
/** pdftotext's text with every run of white space as one space. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

for (const dialect of testDialects()) {
  describe(`the final PDF's evidence sheet [${dialect}]`, { skip: pdfToolsMissing }, () => {
    let ctx: TestContext;
    let anna: Caller;
    let bernd: Caller;
    let tmp: string;
    before(async () => {
      ctx = await createTestContext(dialect, { publicUrl: 'https://berichte.example.com' });
      const a = await ctx.make.user({ rights: ['read', 'write'], firstname: 'Anna', lastname: 'Technik' });
      const b = await ctx.make.user({ rights: ['read', 'write'], admin: true, firstname: 'Bernd', lastname: 'Prüfer' });
      anna = callerOf(a.id, await ctx.make.token(a));
      bernd = callerOf(b.id, await ctx.make.token(b));
      await ctx.make.setConst('MAIN_INFO_SOCIETE_NOM', 'Heizung Schmidt GmbH', ctx.config.entity);
      tmp = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-evidence-'));
    });
    after(async () => {
      await ctx?.close();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    const { json, sign } = testClient(() => ctx);

    /** An order of a customer of `lang` with `files` photos (foto-1.jpg …), each different. */
    async function order(files: number, lang: string | null = null) {
      const customer = await ctx.make.thirdParty({ name: 'Müller & Söhne GmbH' });
      await ctx.handle.db.updateTable('societe').set({ default_lang: lang }).where('rowid', '=', customer.id).execute();
      const made = await ctx.make.order({ author: anna.id, customer: customer.id });
      const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', made.ref);
      await mkdir(folder.dir, { recursive: true });
      const hashes = new Map<string, string>();
      for (let i = 1; i <= files; i++) {
        const jpeg = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 30 * i, g: 120, b: 200 - 10 * i } } })
          .jpeg()
          .toBuffer();
        await writeFile(path.join(folder.dir, `foto-${i}.jpg`), jpeg);
        hashes.set(`foto-${i}.jpg`, sha256(jpeg));
      }
      return { id: made.id, hashes };
    }

    /** Signs as Anna from `ip` with a position and the phone's time 90 seconds before now. */
    async function signAs(reportId: number, ip: string, signer = SIGNER) {
      const device = new Date(Date.now() - 90_000);
      const res = await sign(anna, reportId, {
        signer,
        fields: {
          gps_lat: { type: 'text/plain', data: '50.9375312' },
          gps_lon: { type: 'text/plain', data: '6.9602786' },
          signed_at_device: { type: 'text/plain', data: device.toISOString() },
        },
        remoteAddress: ip,
      });
      assert.equal(res.statusCode, 201, res.body);
      return { page: res.json() as { id: number; source_path: string }, device: Math.floor(device.getTime() / 1000) };
    }

    const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
    const moment = (unix: number, language: 'de' | 'en' = 'de') => formatMoment(unix, ctx.config.timeZone, language);
    const metadataFile = (imageRel: string) =>
      path.join(entityRoot(ctx.config.dataRoot, ctx.config.entity), imageRel.replace(/\.png$/, '.json'));

    /** The final PDF of `id`, written into tmp; its text and the evidence sheet's text (from its heading on). */
    async function finalPdf(id: number, heading = 'Nachweisblatt') {
      const file = path.join(process.env.KEEP_PDF ?? tmp, `evidence-${dialect}-${id}.pdf`);
      const res = await ctx.app.inject({ method: 'GET', url: `/api/pdf.php?id=${id}`, headers: anna.headers });
      assert.equal(res.statusCode, 200);
      await writeFile(file, res.rawPayload);
      const pages = (await pdfText(file)).split('\f').slice(0, -1);
      const first = pages.findIndex((p) => p.includes(heading));
      assert.ok(first > 0, `the sheet "${heading}" is in the PDF`);
      return { file, pages, sheet: flat(pages.slice(first).join('\n')), sheets: pages.length - first };
    }

    test('a visit: history in order with people and times, the signature hash, every image hash, the checks; PDF/A-1b', async (t) => {
      const { id: orderId, hashes } = await order(4);
      const report = await json<{ id: number; ref: string }>('POST', '/api/reports.php?action=create', anna, {
        fk_element: orderId,
        title: 'Wartung Gasheizung',
        photos_per_sheet: 4,
      });
      const add = (fields: object) => json<{ id: number }>('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, anna, fields);
      const photo = await add({ source: 'foto-1.jpg', title: 'Brenner' });
      const pair = await add({ layout: 'before_after', source: 'foto-2.jpg', source_2: 'foto-3.jpg', title: 'Wärmetauscher' });
      const checklist = await add({ layout: 'checklist', title: 'Prüfliste', checklist: [{ label: 'Abgasleitung dicht' }] });
      const heading = await add({ layout: 'title_only', title: 'Übergabe' });
      await json('POST', `/api/pages.php?action=check&id=${checklist.id}`, anna, { item: 1, state: 'ok', photos: ['foto-4.jpg'] });
      // Bernd changes the first page.
      await json('POST', `/api/pages.php?id=${photo.id}`, bernd, { note: 'Düse getauscht' });
      const { page: signature } = await signAs(report.id, '203.0.113.7');
      // The browser as the signature's metadata names it (read where present); the phone's time moved with the server's below.
      const metadata = JSON.parse(await readFile(metadataFile(signature.source_path), 'utf8')) as Record<string, unknown>;
      const device = at('2026-11-24T08:19:00Z');
      await writeFile(
        metadataFile(signature.source_path),
        JSON.stringify({ ...metadata, user_agent: AGENT, signed_at_device_unix: device }),
      );
      const late = await add({ source: 'foto-1.jpg', title: 'Nachtrag' });

      // Known times, a minute or more apart (the service's own are seconds apart).
      const db = ctx.handle.db;
      await db.updateTable('bericht').set({ datec: '2026-11-24 08:00:00' }).where('rowid', '=', report.id).execute();
      const pageTimes: Array<[number, string, string]> = [
        [photo.id, '2026-11-24 08:01:00', '2026-11-24 08:10:30'],
        [pair.id, '2026-11-24 08:02:00', '2026-11-24 08:02:00'],
        [checklist.id, '2026-11-24 08:03:00', '2026-11-24 08:03:00'],
        [heading.id, '2026-11-24 08:04:00', '2026-11-24 08:04:00'],
        [late.id, '2026-11-24 08:30:00', '2026-11-24 08:30:00'],
      ];
      for (const [pageId, datec, tms] of pageTimes)
        await db.updateTable('bericht_page').set({ datec, tms }).where('rowid', '=', pageId).execute();
      await db.updateTable('bericht_signature').set({ datec: '2026-11-24 08:20:00' }).where('fk_page', '=', signature.id).execute();
      const received = at('2026-11-24T08:20:00Z');

      const started = Math.floor(Date.now() / 1000);
      await json('POST', `/api/reports.php?id=${report.id}&action=finalize`, anna, {}, { remoteAddress: '198.51.100.23' });
      const ended = Math.floor(Date.now() / 1000);
      const { file, sheet } = await finalPdf(report.id);

      assert.ok(sheet.includes('Dieses PDF ist mit dem Zertifikat von Heizung Schmidt GmbH elektronisch versiegelt'), sheet);
      assert.ok(sheet.includes(`Bericht ${report.ref} „Wartung Gasheizung“`));
      // The history, in time order: who and when.
      const finalized = [...Array(ended - started + 1).keys()]
        .map((i) => moment(started + i))
        .find((when) => sheet.includes(`${when} Bericht abgeschlossen`));
      assert.ok(finalized, `the finalization's time (${moment(started)} … ${moment(ended)})\n${sheet}`);
      const history = inOrder(sheet, [
        `${moment(at('2026-11-24T08:00:00Z'))} Bericht angelegt Anna Technik`,
        `${moment(at('2026-11-24T08:01:00Z'))} Berichtsseiten 1–4 hinzugefügt Anna Technik`,
        `bis ${moment(at('2026-11-24T08:04:00Z'))}`,
        `${moment(at('2026-11-24T08:10:30Z'))} Berichtsseite 1 geändert (letzte Änderung) Bernd Prüfer`,
        `${moment(received)} Unterschrift (Berichtsseite 5) ${SIGNER}`,
        `Gerätezeit ${moment(device)} · IP 203.0.113.7 · Position 50.937531, 6.960279 · übermittelt von Anna Technik · Browser: ${AGENT}`,
        `${moment(at('2026-11-24T08:30:00Z'))} Berichtsseite 6 hinzugefügt Anna Technik`,
        `${finalized} Bericht abgeschlossen, dieses PDF erstellt Anna Technik IP 198.51.100.23`,
      ]);
      assert.ok(!history.includes(-1), `history out of order or missing: ${JSON.stringify(history)}\n${sheet}`);

      // The signature's hash is its metadata's.
      assert.equal(typeof metadata.hash, 'string');
      assert.ok(
        sheet.includes(
          `Unterschrift von ${SIGNER}, Berichtsseite 5 SHA-256 über die Berichtsseiten 1–4 und ${report.ref} (fieldreport-pages/2) ${metadata.hash}`,
        ),
        sheet,
      );
      // Every image with its file's SHA-256, in page order.
      const signatureFile = await readFile(path.join(entityRoot(ctx.config.dataRoot, ctx.config.entity), signature.source_path));
      const images = [
        `1 Foto foto-1.jpg ${hashes.get('foto-1.jpg')}`,
        `2 Vorher foto-2.jpg ${hashes.get('foto-2.jpg')}`,
        `2 Nachher foto-3.jpg ${hashes.get('foto-3.jpg')}`,
        `3 Prüfliste, Punkt 1 foto-4.jpg ${hashes.get('foto-4.jpg')}`,
        `5 Unterschrift ${path.basename(signature.source_path)} ${sha256(signatureFile)}`,
        `6 Foto foto-1.jpg ${hashes.get('foto-1.jpg')}`,
      ];
      assert.equal(sha256(signatureFile), metadata.image_sha256, "the signature sheet's file is the one its metadata names");
      const found = inOrder(sheet, images);
      assert.ok(!found.includes(-1), `images: ${JSON.stringify(found)}\n${sheet}`);
      // How a customer checks it: a PDF reader, the public check page; no shell commands or JSON in the customer's document.
      for (const words of [
        'So prüfen Sie diesen Bericht',
        'Adobe Acrobat Reader',
        'https://berichte.example.com/public/verify_signature.php',
      ])
        assert.ok(sheet.includes(words), `${words}\n${sheet}`);
      for (const tool of ['pdfsig', 'openssl', 'sha256sum', '"report":']) assert.ok(!sheet.includes(tool), `no "${tool}" for the customer`);
      await assertPdfA1b(t, file, 'final PDF with its evidence sheet');
    });

    test('the preview shows it marked as a preview, with as many sheets as the final PDF then has', async (t) => {
      const { id: orderId, hashes } = await order(2);
      const report = await json<{ id: number; ref: string }>('POST', '/api/reports.php?action=create', anna, {
        fk_element: orderId,
        title: 'Vorschau',
      });
      await json('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, anna, { source: 'foto-1.jpg' });
      await json('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, anna, {
        layout: 'before_after',
        source: 'foto-1.jpg',
        source_2: 'foto-2.jpg',
      });
      await signAs(report.id, '203.0.113.7');
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/api/pdf.php?id=${report.id}&preview=1`,
        headers: anna.headers,
        remoteAddress: '192.0.2.10',
      });
      assert.equal(res.statusCode, 200);
      const file = path.join(tmp, `preview-${report.id}.pdf`);
      await writeFile(file, res.rawPayload);
      const pages = (await pdfText(file)).split('\f').slice(0, -1);
      const first = pages.findIndex((p) => p.includes('Nachweisblatt (Vorschau)'));
      // At the end: under the signature on its sheet, or on the last sheet.
      assert.ok(first >= pages.length - 2 && first > 0, `at the end: sheet ${first + 1} of ${pages.length}`);
      const sheet = flat(pages.slice(first).join('\n'));
      const found = inOrder(sheet, [
        'Vorschau: Beim Abschließen wird das PDF mit dem Zertifikat von Heizung Schmidt GmbH elektronisch versiegelt',
        'Bericht angelegt Anna Technik',
        `Unterschrift (Berichtsseite 3) ${SIGNER}`,
        'Vorschau erstellt, noch nicht abgeschlossen Anna Technik IP 192.0.2.10',
        `1 Foto foto-1.jpg ${hashes.get('foto-1.jpg')}`,
        `2 Vorher foto-1.jpg ${hashes.get('foto-1.jpg')}`,
        `2 Nachher foto-2.jpg ${hashes.get('foto-2.jpg')}`,
      ]);
      assert.ok(!found.includes(-1), `${JSON.stringify(found)}\n${sheet}`);
      assert.ok(
        !sheet.includes('Dieses PDF ist mit dem Zertifikat') && !sheet.includes('Bericht abgeschlossen'),
        'a preview claims no seal and no finalization',
      );
      await assertPdfA1b(t, file, 'preview with its evidence sheet');
      await json('POST', `/api/reports.php?id=${report.id}&action=finalize`, anna, {});
      const final = await finalPdf(report.id);
      assert.equal(final.pages.length, pages.length, 'the page count the preview showed');
    });

    test('pages from before their people were recorded, a signature without metadata, no browser named: said so, nothing invented', async () => {
      const { id: orderId } = await order(1);
      const report = await json<{ id: number; ref: string }>('POST', '/api/reports.php?action=create', anna, {
        fk_element: orderId,
        title: 'Alt',
      });
      const page = await json<{ id: number }>('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, anna, { source: 'foto-1.jpg' });
      const { page: signature } = await signAs(report.id, '192.0.2.44');
      await ctx.handle.db
        .updateTable('bericht_page')
        .set({ fk_user_creat: null, datec: '2026-11-20 07:00:00', tms: '2026-11-20 07:05:00' })
        .where('rowid', '=', page.id)
        .execute();
      await rm(metadataFile(signature.source_path));
      await json('POST', `/api/reports.php?id=${report.id}&action=finalize`, anna, {});
      const { sheet } = await finalPdf(report.id);
      assert.ok(sheet.includes(`${moment(at('2026-11-20T07:00:00Z'))} Berichtsseite 1 hinzugefügt nicht erfasst`), sheet);
      assert.ok(sheet.includes(`${moment(at('2026-11-20T07:05:00Z'))} Berichtsseite 1 geändert (letzte Änderung) nicht erfasst`), sheet);
      assert.ok(sheet.includes(`Unterschrift von ${SIGNER}, Berichtsseite 2 Die Signaturdaten fehlen.`), sheet);
      // Without its metadata: no IP, no position, no browser (the row's signer and time stay).
      assert.ok(sheet.includes(`Unterschrift (Berichtsseite 2) ${SIGNER}`));
      assert.ok(!sheet.includes('192.0.2.44') && !sheet.includes('Browser:') && !sheet.includes('Position'), sheet);
      assert.ok(!/versandt|gesendet|E-Mail/i.test(sheet), 'no mail is listed: none can be sent before finalizing');
    });

    if (dialect === 'sqlite') {
      test('English for an English customer, a new version names the one it came from', async (t) => {
        const { id: orderId, hashes } = await order(1, 'en_GB');
        const first = await json<{ id: number; ref: string }>('POST', '/api/reports.php?action=create', anna, {
          fk_element: orderId,
          title: 'Service',
        });
        await json('POST', `/api/pages.php?action=add&bericht_id=${first.id}`, anna, { source: 'foto-1.jpg' });
        await json('POST', `/api/reports.php?id=${first.id}&action=finalize`, anna, {});
        const second = await json<{ id: number; ref: string }>('POST', `/api/reports.php?id=${first.id}&action=new_version`, bernd, {});
        await signAs(second.id, '203.0.113.9');
        await json('POST', `/api/reports.php?id=${second.id}&action=finalize`, anna, {}, { remoteAddress: '198.51.100.5' });
        const { file, sheet } = await finalPdf(second.id, 'Evidence sheet');
        const order_ = inOrder(sheet, [
          `Report ${second.ref} “Service”, version 2`,
          'This PDF is electronically sealed with the certificate of Heizung Schmidt GmbH',
          `Report created, version 2 (from ${first.ref}) Bernd Prüfer`,
          'Report page 1 added Bernd Prüfer',
          `Signature (report page 2) ${SIGNER}`,
          'IP 203.0.113.9',
          'Report finalized, this PDF made Anna Technik IP 198.51.100.5',
          `Signature of ${SIGNER}, report page 2 SHA-256 over report page 1 and ${second.ref} (fieldreport-pages/1)`,
          `1 Photo foto-1.jpg ${hashes.get('foto-1.jpg')}`,
          'How to check this report',
          'Adobe Acrobat Reader',
        ]);
        assert.ok(!order_.includes(-1), `${JSON.stringify(order_)}\n${sheet}`);
        await assertPdfA1b(t, file, 'final PDF with its evidence sheet, English');
      });

      test('500 pages: every image by its first 16 characters in a grid of a few sheets, the pages added in one line', async (t) => {
        const { id: orderId, hashes } = await order(5);
        const report = await json<{ id: number }>('POST', '/api/reports.php?action=create', anna, {
          fk_element: orderId,
          title: 'Groß',
          photos_per_sheet: 4,
        });
        // The pages written directly: 500 adds through the API would only test the API.
        const now = toDbDateTime();
        const folder = (
          await ctx.handle.db.selectFrom('bericht_page').select('source_path').where('fk_bericht', '=', report.id).executeTakeFirst()
        )?.source_path;
        assert.equal(folder, undefined);
        const first = await json<{ source_path: string }>('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, anna, {
          source: 'foto-1.jpg',
        });
        const dir = path.posix.dirname(first.source_path);
        for (let i = 2; i <= 500; i++) {
          await ctx.handle.db
            .insertInto('bericht_page')
            .values({
              fk_bericht: report.id,
              page_order: i,
              title: null,
              note: null,
              rotation: 0,
              layout: 'photo',
              source_path: `${dir}/foto-${((i - 1) % 5) + 1}.jpg`,
              source_path_2: null,
              fk_user_creat: anna.id,
              datec: now,
              tms: now,
            })
            .execute();
        }
        await json('POST', `/api/reports.php?id=${report.id}&action=finalize`, anna, {});
        const { file, sheet, sheets } = await finalPdf(report.id);
        assert.ok(sheet.includes('500 Bilder, je Bild die ersten 16 Zeichen der SHA-256 seiner Datei'), sheet.slice(0, 3000));
        for (const i of [1, 2, 3, 250, 499, 500]) {
          const prefix = hashes.get(`foto-${((i - 1) % 5) + 1}.jpg`)!.slice(0, 16);
          assert.ok(new RegExp(`(^| )${i} ${prefix}( |$)`).test(sheet), `image of page ${i}: ${prefix}`);
        }
        assert.ok(sheets <= 4, `the sheet takes ${sheets} sheets`);
        assert.ok(sheet.includes('Berichtsseiten 1–500 hinzugefügt Anna Technik'), 'one line for the pages');
        const total = (await pdfInfo(file)).pages;
        assert.ok(total > sheets);
        await assertPdfA1b(t, file, 'final PDF of 500 pages with its evidence sheet');
      });
    }
  });
}
