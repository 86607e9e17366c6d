/**
 * Endpoints 23 and 24 on every database: report templates (create, list, reports made from them,
 * their images copied and owned, the template right for changing and deleting them) and the
 * cover-sheet templates (ODT files in the documents folder) a report may name.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { strToU8, zipSync } from 'fflate';
import sharp from 'sharp';
import { makeCoverTemplateOdt } from '../../src/demo/cover-template.js';
import { toDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import type { PageResponse, ReportDetail } from '../../src/modules/reports/reports.schemas.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { pdfBytesText } from '../helpers/pdf-tools.js';

const fileLink = (modulepart: string, file: string) => `/api/photo.php?modulepart=${modulepart}&file=${encodeURIComponent(file)}`;

for (const dialect of testDialects()) {
  describe(`templates [${dialect}]`, () => {
    let ctx: TestContext;
    let jpeg: Buffer;
    let png: Buffer;

    before(async () => {
      ctx = await createTestContext(dialect);
      jpeg = await sharp({ create: { width: 60, height: 40, channels: 3, background: { r: 20, g: 120, b: 200 } } })
        .jpeg()
        .toBuffer();
      png = await sharp({ create: { width: 30, height: 50, channels: 4, background: { r: 250, g: 200, b: 0, alpha: 1 } } })
        .png()
        .toBuffer();
    });
    after(async () => ctx?.close());

    const { caller, api, addPage } = testClient(() => ctx);

    /** Who manages templates: the Dolibarr admin flag (with the write right). */
    const manager = () => caller(['read', 'write', 'delete'], true);

    const dirOf = (owner: 'commande' | 'bericht', ref: string) => objectFolder(ctx.config.dataRoot, ctx.config.entity, owner, ref).dir;
    const fileOf = (relPath: string) => path.join(ctx.config.dataRoot, ...relPath.split('/'));

    async function orderWith(owner: number, files: Record<string, Buffer> = {}) {
      const order = await ctx.make.order({ author: owner });
      const dir = dirOf('commande', order.ref);
      await mkdir(dir, { recursive: true });
      for (const [name, data] of Object.entries(files)) await writeFile(path.join(dir, name), data);
      return { ...order, dir };
    }

    async function created(res: LightMyRequestResponse): Promise<ReportDetail> {
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    }
    const createReport = (who: Caller, body: Record<string, unknown>) => api('POST', '/api/reports.php?action=create', who.token, body);
    const createTemplate = (who: Caller, body: Record<string, unknown>) => api('POST', '/api/templates.php?action=create', who.token, body);
    const fromTemplate = (who: Caller, body: Record<string, unknown>) =>
      api('POST', '/api/templates.php?action=create_from_template', who.token, body);

    /** A writer's order with two photos and a report on it with a photo page, a before/after page and a title page. */
    async function reportWithPages(who: Caller) {
      const order = await orderWith(who.id, { 'IMG_1.jpg': jpeg, 'IMG_2.png': png });
      const report = await created(
        await createReport(who, { fk_element: order.id, title: 'Wartung Lüftung', format: 'A5', orientation: 'landscape' }),
      );
      await addPage(who, report.id, { source: 'IMG_1.jpg', title: 'Gerät', note: 'Typenschild', rotation: 90 });
      await addPage(who, report.id, { layout: 'before_after', source: 'IMG_1.jpg', source_2: 'IMG_2.png', title: 'Filter' });
      await addPage(who, report.id, { title: 'Ergebnis', note: 'ohne Befund' });
      return { order, report };
    }

    const workAreaFolders = () => {
      const dir = path.join(ctx.config.dataRoot, 'bericht');
      return existsSync(dir) ? readdirSync(dir).sort() : [];
    };
    const reportCount = async () =>
      Number(
        (
          await ctx.handle.db
            .selectFrom('bericht')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const templateIds = async (who: Caller, query = '') => {
      const res = await api('GET', `/api/templates.php${query}`, who.token);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().items as Array<{ id: number }>).map((t) => t.id);
    };
    const reportIds = async (who: Caller, query = '') => {
      const res = await api('GET', `/api/reports.php?limit=500${query}`, who.token);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().items as Array<{ id: number }>).map((t) => t.id);
    };

    describe('create and list', () => {
      test('an empty template: defaults, listed for every reader, in no report list', async () => {
        const admin = await manager();
        const res = await createTemplate(admin, { template_label: 'Standard-Wartung' });
        const template = await created(res);
        assert.match(template.ref, /^BR\d{4}-\d{4}$/);
        assert.equal(template.is_template, true);
        assert.equal(template.template_label, 'Standard-Wartung');
        assert.equal(template.title, 'Standard-Wartung');
        assert.equal(template.element_type, null);
        assert.equal(template.fk_element, null);
        assert.equal(template.format, 'A4');
        assert.equal(template.orientation, 'portrait');
        assert.equal(template.odt_template, null);
        assert.equal(template.status, 'draft');
        assert.equal(template.fk_user_creat, admin.id);
        assert.deepEqual(template.pages, []);

        const reader = await caller(['read']);
        const list = await api('GET', '/api/templates.php', reader.token);
        assert.equal(list.statusCode, 200, list.body);
        const item = (list.json().items as Array<Record<string, unknown>>).find((t) => t.id === template.id);
        assert.deepEqual(item, {
          id: template.id,
          ref: template.ref,
          template_label: 'Standard-Wartung',
          title: 'Standard-Wartung',
          format: 'A4',
          orientation: 'portrait',
          odt_template: null,
          photos_per_sheet: 4,
          page_count: 0,
          fk_user_creat: admin.id,
          datec: item?.datec,
        });
        assert.equal(typeof item?.datec, 'number');
        assert.ok(Math.abs((item!.datec as number) - Date.now() / 1000) < 120);
        assert.ok(list.json().total >= 1);
        // Its detail is readable through the report endpoint, but no report list shows it.
        const shown = await api('GET', `/api/reports.php?id=${template.id}`, reader.token);
        assert.equal(shown.statusCode, 200, shown.body);
        assert.equal(shown.json().is_template, true);
        assert.ok(!(await reportIds(admin)).includes(template.id));
        assert.ok(!(await reportIds(admin, `&q=${encodeURIComponent(template.ref)}`)).includes(template.id));
        assert.ok(!(await reportIds(reader)).includes(template.id));
      });

      test("a template row that names an order is still left out of the order's reports", async () => {
        const admin = await manager();
        const order = await orderWith(admin.id);
        const report = await created(await createReport(admin, { fk_element: order.id, title: 'Echt' }));
        const template = await ctx.make.report({ creator: admin.id, elementType: 'commande', element: order.id, isTemplate: true });
        const detail = await api('GET', `/api/orders.php?id=${order.id}`, admin.token);
        assert.equal(detail.statusCode, 200, detail.body);
        assert.deepEqual(
          (detail.json().reports as Array<{ id: number }>).map((r) => r.id),
          [report.id],
        );
        assert.deepEqual(await reportIds(admin, `&fk_element=${order.id}`), [report.id]);
        assert.deepEqual(await reportIds(admin, `&element_type=commande&fk_element=${order.id}&status=draft`), [report.id]);
        assert.ok((await templateIds(admin)).includes(template.id));
        assert.ok(!(await templateIds(admin)).includes(report.id));
      });

      test('refs keep counting after an older ref written with more digits (BR<yymm>-00500)', async () => {
        const admin = await manager();
        const now = new Date();
        const prefix = `BR${String(now.getUTCFullYear() % 100).padStart(2, '0')}${String(now.getUTCMonth() + 1).padStart(2, '0')}-`;
        await ctx.make.report({ creator: admin.id, elementType: null, isTemplate: true, ref: `${prefix}00500` });
        const first = await created(await createTemplate(admin, { template_label: 'Nach Altbestand 1' }));
        const second = await created(await createTemplate(admin, { template_label: 'Nach Altbestand 2' }));
        const third = await created(await createTemplate(admin, { template_label: 'Nach Altbestand 3' }));
        const numbers = [first, second, third].map((t) => Number(t.ref.slice(prefix.length)));
        assert.ok(numbers[0]! > 500, first.ref);
        assert.deepEqual(numbers, [numbers[0], numbers[0]! + 1, numbers[0]! + 2]);
      });

      test('a template from a report copies its pages and owns copies of their images', async () => {
        const admin = await manager();
        const { order, report } = await reportWithPages(admin);
        const template = await created(await createTemplate(admin, { template_label: 'Lüftung', from_report: report.id }));
        assert.equal(template.title, 'Wartung Lüftung');
        assert.equal(template.format, 'A5');
        assert.equal(template.orientation, 'landscape');
        assert.equal(template.element_type, null);
        assert.equal(template.page_count, 3);
        const [photo, pair, title] = template.pages;
        assert.deepEqual(
          template.pages.map((p) => [p.page_order, p.layout, p.title, p.note, p.rotation]),
          [
            [1, 'photo', 'Gerät', 'Typenschild', 90],
            [2, 'before_after', 'Filter', null, 0],
            [3, 'title_only', 'Ergebnis', 'ohne Befund', 0],
          ],
        );
        const prefix = `bericht/${template.ref}/`;
        for (const relPath of [photo!.source_path, pair!.source_path, pair!.source_path_2]) {
          assert.ok(relPath?.startsWith(prefix), `${relPath} lies in the template's work area`);
          assert.ok(existsSync(fileOf(relPath!)), `${relPath} exists`);
        }
        assert.ok(readFileSync(fileOf(photo!.source_path!)).equals(jpeg));
        assert.ok(readFileSync(fileOf(pair!.source_path!)).equals(jpeg));
        assert.ok(readFileSync(fileOf(pair!.source_path_2!)).equals(png));
        assert.equal(photo!.url, fileLink('bericht', photo!.source_path!.slice('bericht/'.length)));
        assert.equal(title!.source_path, null);
        // The report and the order's files are untouched.
        const again = await api('GET', `/api/reports.php?id=${report.id}`, admin.token);
        assert.deepEqual(
          (again.json().pages as PageResponse[]).map((p) => p.source_path),
          [`commande/${order.ref}/IMG_1.jpg`, `commande/${order.ref}/IMG_1.jpg`, null],
        );
        assert.ok(readFileSync(path.join(order.dir, 'IMG_1.jpg')).equals(jpeg));
        // The template keeps its images when the order's files go.
        await rm(order.dir, { recursive: true });
        assert.ok(existsSync(fileOf(photo!.source_path!)));
        // Listed with its page count.
        const list = await api('GET', `/api/templates.php?q=${encodeURIComponent('Lüftung')}`, admin.token);
        const item = (list.json().items as Array<{ id: number; page_count: number }>).find((t) => t.id === template.id);
        assert.equal(item?.page_count, 3);
      });

      test('signature pages are not copied into a template', async () => {
        const admin = await manager();
        const { report } = await reportWithPages(admin);
        const now = toDbDateTime();
        await ctx.handle.db
          .insertInto('bericht_page')
          .values({
            fk_bericht: report.id,
            page_order: 4,
            title: 'Unterschrift',
            note: null,
            rotation: 0,
            layout: 'signature',
            source_path: null,
            source_path_2: null,
            datec: now,
            tms: now,
          })
          .execute();
        const template = await created(await createTemplate(admin, { template_label: 'Ohne Unterschrift', from_report: report.id }));
        assert.deepEqual(
          template.pages.map((p) => p.layout),
          ['photo', 'before_after', 'title_only'],
        );
      });

      test('body values win over the report for title, format and orientation', async () => {
        const admin = await manager();
        const { report } = await reportWithPages(admin);
        const template = await created(
          await createTemplate(admin, {
            template_label: 'X',
            from_report: report.id,
            title: 'Vorlagentitel',
            format: 'A3',
            orientation: 'portrait',
          }),
        );
        assert.deepEqual([template.title, template.format, template.orientation], ['Vorlagentitel', 'A3', 'portrait']);
      });

      test('only a template manager creates templates: a writer gets 403 and nothing is made', async () => {
        const writer = await caller(['read', 'write', 'delete']);
        const order = await orderWith(writer.id, { 'IMG_1.jpg': jpeg });
        const report = await created(await createReport(writer, { fk_element: order.id, title: 'Mein Bericht' }));
        await addPage(writer, report.id, { source: 'IMG_1.jpg' });
        const before = await reportCount();
        const foldersBefore = workAreaFolders();
        assertError(await createTemplate(writer, { template_label: 'Nicht erlaubt' }), 403, 'AUTH_RIGHT_MISSING');
        assertError(await createTemplate(writer, { template_label: 'Nicht erlaubt', from_report: report.id }), 403, 'AUTH_RIGHT_MISSING');
        const reader = await caller(['read'], true);
        assertError(await createTemplate(reader, { template_label: 'Nur lesen' }), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', '/api/templates.php?action=create', null, { template_label: 'x' }), 401, 'AUTH_TOKEN_MISSING');
        assert.equal(await reportCount(), before);
        assert.deepEqual(workAreaFolders(), foldersBefore);
        // The module's admin right is enough, without the Dolibarr admin flag.
        const moduleAdmin = await caller(['read', 'write', 'admin']);
        const made = await created(await createTemplate(moduleAdmin, { template_label: 'Mit Modulrecht' }));
        assert.equal(made.is_template, true);
      });

      test('bad template bodies are 400 and make nothing', async () => {
        const admin = await manager();
        const before = await reportCount();
        for (const body of [
          {},
          { template_label: '' },
          { template_label: 5 },
          { template_label: 'x', format: 'A0' },
          { template_label: 'x', orientation: 'sideways' },
          { template_label: 'x', extra: 1 },
          { template_label: 'x', from_report: 'a' },
        ]) {
          assertError(await createTemplate(admin, body), 400, 'VALIDATION_FAILED');
        }
        assertError(await createTemplate(admin, { template_label: 'x', from_report: 2147483647 }), 404, 'REPORT_NOT_FOUND');
        assertError(await api('POST', '/api/templates.php?action=destroy', admin.token, { template_label: 'x' }), 400, 'ACTION_UNKNOWN');
        assertError(await api('POST', '/api/templates.php', admin.token, { template_label: 'x' }), 400, 'ACTION_UNKNOWN');
        assertError(await api('GET', '/api/templates.php?action=create', admin.token), 400, 'ACTION_UNKNOWN');
        assertError(await api('GET', '/api/templates.php', null), 401, 'AUTH_TOKEN_MISSING');
        assert.equal(await reportCount(), before);
      });

      test("a template from a report the caller does not see is 404, even for a template manager's module right", async () => {
        const owner = await caller(['read', 'write']);
        const { report } = await reportWithPages(owner);
        const moduleAdmin = await caller(['read', 'write', 'admin']);
        const before = await reportCount();
        assertError(await createTemplate(moduleAdmin, { template_label: 'Fremd', from_report: report.id }), 404, 'REPORT_NOT_FOUND');
        assert.equal(await reportCount(), before);
      });
    });

    describe('who sees templates', () => {
      test('an external user (bound to a customer) sees no template; a template row that names an order is no shared template', async () => {
        const admin = await manager();
        const template = await created(await createTemplate(admin, { template_label: 'Nur intern' }));
        const outsider = await ctx.make.user({ rights: ['read', 'write'] });
        const customer = await ctx.make.thirdParty();
        await ctx.handle.db.updateTable('user').set({ fk_soc: customer.id }).where('rowid', '=', outsider.id).execute();
        const token = await ctx.make.token(outsider);
        const list = (await api('GET', '/api/templates.php?limit=500', token)).json();
        assert.ok(!list.items.some((t: { id: number }) => t.id === template.id));
        assertError(await api('GET', `/api/reports.php?id=${template.id}`, token), 404, 'REPORT_NOT_FOUND');

        const other = await caller(['read']);
        const order = await ctx.make.order({ author: admin.id });
        const bound = await ctx.make.report({ creator: admin.id, element: order.id, isTemplate: true });
        assertError(await api('GET', `/api/reports.php?id=${bound.id}`, other.token), 404, 'REPORT_NOT_FOUND');
        const seen = (await api('GET', '/api/templates.php?limit=500', other.token)).json();
        assert.ok(seen.items.some((t: { id: number }) => t.id === template.id));
        assert.ok(!seen.items.some((t: { id: number }) => t.id === bound.id));
      });
    });

    describe('reports from a template', () => {
      /** A template with three pages whose images it owns. */
      async function templateWithPages() {
        const admin = await manager();
        const { report } = await reportWithPages(admin);
        const template = await created(
          await createTemplate(admin, {
            template_label: `Vorlage ${Date.now()}`,
            from_report: report.id,
            title: 'Aus Vorlage',
            format: 'LETTER',
            orientation: 'landscape',
          }),
        );
        return { admin, template };
      }

      async function checkCopy(report: ReportDetail, template: ReportDetail, orderId: number, title: string) {
        assert.equal(report.is_template, false);
        assert.equal(report.template_label, null);
        assert.equal(report.element_type, 'commande');
        assert.equal(report.fk_element, orderId);
        assert.equal(report.status, 'draft');
        assert.equal(report.title, title);
        assert.equal(report.format, 'LETTER');
        assert.equal(report.orientation, 'landscape');
        assert.notEqual(report.ref, template.ref);
        // The template's notes are the report's prompts (placeholders, never printed); its notes start empty.
        assert.deepEqual(
          report.pages.map((p) => [p.page_order, p.layout, p.title, p.note, p.prompt, p.rotation]),
          template.pages.map((p) => [p.page_order, p.layout, p.title, null, p.note, p.rotation]),
        );
        assert.ok(
          template.pages.some((p) => p.note),
          'the template has a note to become a prompt',
        );
        assert.ok(report.pages.every((p) => p.fk_bericht === report.id));
        assert.ok(report.pages.every((p, i) => p.id !== template.pages[i]!.id));
        for (const [i, page] of report.pages.entries()) {
          const original = template.pages[i]!;
          for (const key of ['source_path', 'source_path_2'] as const) {
            if (original[key] === null) {
              assert.equal(page[key], null);
              continue;
            }
            assert.ok(page[key]?.startsWith(`bericht/${report.ref}/`), `${page[key]} lies in the new report's work area`);
            assert.notEqual(page[key], original[key]);
            assert.ok(
              readFileSync(fileOf(page[key]!)).equals(readFileSync(fileOf(original[key]!))),
              `${page[key]} is a byte-identical copy`,
            );
          }
        }
        // The template is unchanged.
        const again = (await api('GET', `/api/reports.php?id=${template.id}`, (await caller(['read'])).token)).json() as ReportDetail;
        assert.deepEqual(again.pages, template.pages);
        for (const p of template.pages) if (p.source_path) assert.ok(existsSync(fileOf(p.source_path)));
      }

      test('create_from_template copies pages and images into the new report; title, format, orientation from the template', async () => {
        const { template } = await templateWithPages();
        const tech = await caller(['read', 'write']);
        const order = await orderWith(tech.id);
        const report = await created(await fromTemplate(tech, { template_id: template.id, fk_element: order.id }));
        assert.equal(report.fk_user_creat, tech.id);
        await checkCopy(report, template, order.id, 'Aus Vorlage');
        // It is an ordinary report: in the lists and in the order's detail.
        assert.ok((await reportIds(tech)).includes(report.id));
        const detail = await api('GET', `/api/orders.php?id=${order.id}`, tech.token);
        assert.equal(detail.statusCode, 200, detail.body);
        assert.deepEqual(
          (detail.json().reports as Array<{ id: number }>).map((r) => r.id),
          [report.id],
        );
      });

      test("a template's note is a prompt: not in the PDF until the technician writes a note; a new version keeps both", async () => {
        const admin = await manager();
        const prompt = 'Verschleißteile, empfohlene Arbeiten, nächste Wartung.';
        const template = await created(await createTemplate(admin, { template_label: 'Mit Hinweis', title: 'Wartung' }));
        const titled = await api('POST', `/api/pages.php?action=add&bericht_id=${template.id}`, admin.token, {
          layout: 'title_only',
          title: 'Hinweise und Empfehlungen',
          note: prompt,
        });
        assert.equal(titled.statusCode, 201, titled.body);
        const tech = await caller(['read', 'write']);
        const order = await orderWith(tech.id);
        const report = await created(await fromTemplate(tech, { template_id: template.id, fk_element: order.id }));
        const page = report.pages[0]!;
        assert.deepEqual([page.note, page.prompt], [null, prompt]);
        const preview = async (id: number) =>
          pdfBytesText((await api('GET', `/api/pdf.php?id=${id}&preview=1`, tech.token)).rawPayload, ctx.config.dataRoot);
        const untouched = await preview(report.id);
        assert.ok(untouched.includes('Hinweise und Empfehlungen'), 'the title is printed');
        assert.ok(!untouched.includes('Verschleißteile'), "the template's prompt is not printed");
        const written = await api('POST', `/api/pages.php?id=${page.id}`, tech.token, {
          note: 'Zündelektrode beim nächsten Mal tauschen.',
        });
        assert.equal(written.statusCode, 200, written.body);
        assert.deepEqual([written.json().note, written.json().prompt], ['Zündelektrode beim nächsten Mal tauschen.', prompt]);
        assert.match(await preview(report.id), /Zündelektrode beim nächsten Mal tauschen/);
        const next = await api('POST', `/api/reports.php?id=${report.id}&action=new_version`, tech.token, {});
        assert.equal(next.statusCode, 201, next.body);
        assert.deepEqual(
          (next.json().pages as PageResponse[]).map((p) => [p.note, p.prompt]),
          [['Zündelektrode beim nächsten Mal tauschen.', prompt]],
        );
      });

      test('reports.php action=create with template_id does the same; the body overrides the template', async () => {
        const { template } = await templateWithPages();
        const tech = await caller(['read', 'write']);
        const order = await orderWith(tech.id);
        const report = await created(await createReport(tech, { template_id: template.id, fk_element: order.id, title: 'Eigener Titel' }));
        await checkCopy(report, template, order.id, 'Eigener Titel');
        const overridden = await created(
          await fromTemplate(tech, { template_id: template.id, fk_element: order.id, format: 'A4', orientation: 'portrait' }),
        );
        assert.deepEqual([overridden.title, overridden.format, overridden.orientation], ['Aus Vorlage', 'A4', 'portrait']);
        assert.equal(overridden.pages.length, 3);
        // Two reports from one template have their own copies.
        assert.notEqual(overridden.pages[0]!.source_path, report.pages[0]!.source_path);
      });

      test("deleting a page of a report made from a template removes the report's copy, never the template's", async () => {
        const { template } = await templateWithPages();
        const tech = await caller(['read', 'write', 'delete']);
        const order = await orderWith(tech.id);
        const report = await created(await fromTemplate(tech, { template_id: template.id, fk_element: order.id }));
        const [page, beforeAfter] = report.pages as [PageResponse, PageResponse];
        // The first two pages show one image: one file, removed with the last page that shows it.
        let res = await api('DELETE', `/api/pages.php?id=${page.id}`, tech.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, []);
        res = await api('DELETE', `/api/pages.php?id=${beforeAfter.id}`, tech.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted.sort(), [beforeAfter.source_path, beforeAfter.source_path_2].sort());
        assert.equal(existsSync(fileOf(page.source_path!)), false);
        assert.ok(existsSync(fileOf(template.pages[0]!.source_path!)), "the template's image stays");
      });

      test('an unknown template or an ordinary report as template_id is 404 TEMPLATE_NOT_FOUND; nothing is made', async () => {
        const tech = await caller(['read', 'write']);
        const order = await orderWith(tech.id, { 'IMG_1.jpg': jpeg });
        const ordinary = await created(await createReport(tech, { fk_element: order.id, title: 'Normal' }));
        await addPage(tech, ordinary.id, { source: 'IMG_1.jpg' });
        // A template of another entity does not exist here.
        const foreign = await ctx.make.report({ creator: tech.id, elementType: null, isTemplate: true, entity: 2 });
        const before = await reportCount();
        assertError(await fromTemplate(tech, { template_id: 2147483647, fk_element: order.id }), 404, 'TEMPLATE_NOT_FOUND');
        assertError(await fromTemplate(tech, { template_id: ordinary.id, fk_element: order.id }), 404, 'TEMPLATE_NOT_FOUND');
        assertError(await createReport(tech, { template_id: ordinary.id, fk_element: order.id, title: 'x' }), 404, 'TEMPLATE_NOT_FOUND');
        assertError(await createReport(tech, { template_id: 2147483647, fk_element: order.id, title: 'x' }), 404, 'TEMPLATE_NOT_FOUND');
        assertError(await fromTemplate(tech, { template_id: foreign.id, fk_element: order.id }), 404, 'TEMPLATE_NOT_FOUND');
        assert.equal(await reportCount(), before);
      });

      test('create_from_template needs the write right and an order the caller sees; bad bodies are 400', async () => {
        const { template } = await templateWithPages();
        const tech = await caller(['read', 'write']);
        const order = await orderWith(tech.id);
        const stranger = await caller(['read', 'write']);
        const reader = await caller(['read'], true);
        const before = await reportCount();
        assertError(await fromTemplate(stranger, { template_id: template.id, fk_element: order.id }), 404, 'ORDER_NOT_FOUND');
        assertError(await fromTemplate(reader, { template_id: template.id, fk_element: order.id }), 403, 'AUTH_RIGHT_MISSING');
        for (const body of [
          { fk_element: order.id },
          { template_id: template.id },
          { template_id: String(template.id), fk_element: order.id },
          { template_id: template.id, fk_element: order.id, pages: [] },
          { template_id: template.id, fk_element: order.id, element_type: 'bericht' },
        ]) {
          assertError(await fromTemplate(tech, body), 400, 'VALIDATION_FAILED');
        }
        assert.equal(await reportCount(), before);
      });
    });

    describe('the template right', () => {
      test("a template's pages are changed only by a template manager", async () => {
        const admin = await manager();
        const { report } = await reportWithPages(admin);
        const template = await created(await createTemplate(admin, { template_label: 'Geschützt', from_report: report.id }));
        const [a, b, c] = template.pages.map((p) => p.id) as [number, number, number];
        const writer = await caller(['read', 'write', 'delete']);
        const imageName = template.pages[0]!.source_path!.split('/').pop()!;

        assertError(
          await api('POST', `/api/pages.php?action=add&bericht_id=${template.id}`, writer.token, { title: 'x' }),
          403,
          'AUTH_RIGHT_MISSING',
        );
        assertError(await api('POST', `/api/pages.php?id=${a}`, writer.token, { title: 'x' }), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('DELETE', `/api/pages.php?id=${a}`, writer.token), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', `/api/pages.php?id=${a}&delete=1`, writer.token), 403, 'AUTH_RIGHT_MISSING');
        assertError(
          await api('POST', `/api/pages.php?action=reorder&bericht_id=${template.id}`, writer.token, { order: [c, b, a] }),
          403,
          'AUTH_RIGHT_MISSING',
        );
        let now = (await api('GET', `/api/reports.php?id=${template.id}`, writer.token)).json() as ReportDetail;
        assert.deepEqual(now.pages, template.pages);
        assert.ok(existsSync(fileOf(template.pages[0]!.source_path!)));

        // The manager may: a page from the template's own images, update, reorder, delete.
        const added = await addPage(admin, template.id, { source: imageName, title: 'Nochmal' });
        assert.equal(added.source_path, template.pages[0]!.source_path);
        assertError(
          await api('POST', `/api/pages.php?action=add&bericht_id=${template.id}`, admin.token, { source: 'IMG_1_missing.jpg' }),
          404,
          'FILE_NOT_FOUND',
        );
        const updated = await api('POST', `/api/pages.php?id=${b}`, admin.token, { title: 'Filter neu' });
        assert.equal(updated.statusCode, 200, updated.body);
        const reordered = await api('POST', `/api/pages.php?action=reorder&bericht_id=${template.id}`, admin.token, {
          order: [added.id, c, b, a],
        });
        assert.equal(reordered.statusCode, 200, reordered.body);
        // Three pages show the image (one file in the template): deleting two keeps it for the third.
        assert.equal(template.pages[1]!.source_path, template.pages[0]!.source_path, 'one image on two pages is one file');
        let res = await api('DELETE', `/api/pages.php?id=${a}`, admin.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, []);
        assert.ok(existsSync(fileOf(added.source_path!)));
        res = await api('DELETE', `/api/pages.php?id=${added.id}`, admin.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().files_deleted, []);
        assert.ok(existsSync(fileOf(added.source_path!)), 'the before/after page still shows it');
        now = (await api('GET', `/api/reports.php?id=${template.id}`, admin.token)).json() as ReportDetail;
        assert.deepEqual(
          now.pages.map((p) => [p.id, p.page_order, p.title]),
          [
            [c, 1, 'Ergebnis'],
            [b, 2, 'Filter neu'],
          ],
        );
      });

      test('deleting a template needs the template right; then it and its images are gone', async () => {
        const admin = await manager();
        const { report } = await reportWithPages(admin);
        const template = await created(await createTemplate(admin, { template_label: 'Zum Löschen', from_report: report.id }));
        const folder = dirOf('bericht', template.ref);
        assert.ok(existsSync(folder));
        const deleter = await caller(['read', 'write', 'delete']);
        assertError(await api('DELETE', `/api/reports.php?id=${template.id}`, deleter.token), 403, 'AUTH_RIGHT_MISSING');
        const writer = await caller(['read', 'write'], true);
        assertError(await api('DELETE', `/api/reports.php?id=${template.id}`, writer.token), 403, 'AUTH_RIGHT_MISSING');
        assert.ok((await templateIds(deleter)).includes(template.id));
        assert.ok(existsSync(folder));

        const res = await api('DELETE', `/api/reports.php?id=${template.id}`, admin.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { id: template.id, ref: template.ref, deleted: true });
        assert.ok(!(await templateIds(admin)).includes(template.id));
        assert.equal(existsSync(folder), false);
        const pages = await ctx.handle.db.selectFrom('bericht_page').select('rowid').where('fk_bericht', '=', template.id).execute();
        assert.deepEqual(pages, []);
        // The report it came from keeps its pages.
        assert.equal((await api('GET', `/api/reports.php?id=${report.id}`, admin.token)).json().pages.length, 3);
        // The module's delete and admin rights are enough too.
        const second = await created(await createTemplate(admin, { template_label: 'Zweite' }));
        const moduleAdmin = await caller(['read', 'delete', 'admin']);
        assert.equal((await api('DELETE', `/api/reports.php?id=${second.id}`, moduleAdmin.token)).statusCode, 200);
      });

      test('templates are shared: every reader lists them, but new versions of them do not exist', async () => {
        const admin = await manager();
        const template = await created(await createTemplate(admin, { template_label: 'Geteilt' }));
        const someone = await caller(['read', 'write']);
        assert.ok((await templateIds(someone)).includes(template.id));
        assertError(await api('POST', `/api/reports.php?id=${template.id}&action=new_version`, someone.token), 409, 'CONFLICT');
        assert.ok(!(await reportIds(someone)).includes(template.id));
      });
    });

    describe('cover-sheet templates', () => {
      const odtDir = () => path.join(ctx.config.dataRoot, 'doctemplates', 'bericht');

      test('lists only the .odt files of doctemplates/bericht, by name, with size and mtime in seconds', async () => {
        const dir = odtDir();
        await rm(dir, { recursive: true, force: true });
        const reader = await caller(['read']);
        let res = await api('GET', '/api/odt_templates.php', reader.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { items: [], total: 0 });

        await mkdir(path.join(dir, 'archiv.odt'), { recursive: true });
        const files: Record<string, string> = {
          'wartung.odt': 'w'.repeat(123),
          'abnahme.odt': 'a'.repeat(45),
          'notizen.txt': 'kein Template',
          '.versteckt.odt': 'h',
          'kopie.odt.bak': 'b',
          'Zentral.ODT': 'z'.repeat(7),
        };
        for (const [name, data] of Object.entries(files)) await writeFile(path.join(dir, name), data);
        await writeFile(path.join(dir, 'archiv.odt', 'innen.odt'), 'i');
        const t1 = 1_700_000_000;
        const t2 = 1_710_000_000;
        await utimes(path.join(dir, 'wartung.odt'), t1, t1);
        await utimes(path.join(dir, 'abnahme.odt'), t2, t2);
        await utimes(path.join(dir, 'Zentral.ODT'), t2 + 0.75, t2 + 0.75);

        res = await api('GET', '/api/odt_templates.php', reader.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), {
          items: [
            { name: 'Zentral.ODT', title: null, size: 7, mtime: t2 },
            { name: 'abnahme.odt', title: null, size: 45, mtime: t2 },
            { name: 'wartung.odt', title: null, size: 123, mtime: t1 },
          ],
          total: 3,
        });
        assertError(await api('GET', '/api/odt_templates.php', null), 401, 'AUTH_TOKEN_MISSING');
      });

      test("each cover sheet's title for people: the demo's 'Servicebericht', entities resolved, none for a file without one", async () => {
        const dir = odtDir();
        await rm(dir, { recursive: true, force: true });
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, 'template_servicebericht.odt'), await makeCoverTemplateOdt());
        const meta = (title: string) =>
          `<?xml version="1.0" encoding="UTF-8"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>${title}</dc:title></office:meta></office:document-meta>`;
        await writeFile(path.join(dir, 'abnahme.odt'), zipSync({ 'meta.xml': strToU8(meta('Abnahme &amp; Übergabe &#8211; Heizung')) }));
        await writeFile(path.join(dir, 'leer.odt'), zipSync({ 'meta.xml': strToU8(meta('   ')) }));
        await writeFile(path.join(dir, 'kaputt.odt'), 'kein zip');
        const reader = await caller(['read']);
        const res = await api('GET', '/api/odt_templates.php', reader.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(
          res.json().items.map((t: { name: string; title: string | null }) => [t.name, t.title]),
          [
            ['abnahme.odt', 'Abnahme & Übergabe – Heizung'],
            ['kaputt.odt', null],
            ['leer.odt', null],
            ['template_servicebericht.odt', 'Servicebericht'],
          ],
        );
        await rm(dir, { recursive: true, force: true });
      });

      test('a report or template names a cover sheet from the list, or gets 400 ODT_TEMPLATE_NOT_FOUND', async () => {
        const dir = odtDir();
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, 'deckblatt.odt'), 'odt');
        await writeFile(path.join(dir, 'notizen.txt'), 'txt');
        const tech = await caller(['read', 'write']);
        const order = await orderWith(tech.id);
        const before = await reportCount();
        for (const name of ['fehlt.odt', 'notizen.txt', '../deckblatt.odt', 'DECKBLATT.odt']) {
          const err = assertError(
            await createReport(tech, { fk_element: order.id, title: 'x', odt_template: name }),
            400,
            'ODT_TEMPLATE_NOT_FOUND',
          );
          assert.deepEqual(err.details, { odt_template: name });
        }
        const admin = await manager();
        assertError(await createTemplate(admin, { template_label: 'x', odt_template: 'fehlt.odt' }), 400, 'ODT_TEMPLATE_NOT_FOUND');
        assert.equal(await reportCount(), before);

        const report = await created(
          await createReport(tech, { fk_element: order.id, title: 'Mit Deckblatt', odt_template: 'deckblatt.odt' }),
        );
        assert.equal(report.odt_template, 'deckblatt.odt');
        const row = await ctx.handle.db
          .selectFrom('bericht')
          .select('odt_template')
          .where('rowid', '=', report.id)
          .executeTakeFirstOrThrow();
        assert.equal(row.odt_template, 'deckblatt.odt');
        const listed = (await api('GET', `/api/reports.php?fk_element=${order.id}`, tech.token)).json().items as Array<{
          id: number;
          odt_template: string | null;
        }>;
        assert.deepEqual(
          listed.map((r) => [r.id, r.odt_template]),
          [[report.id, 'deckblatt.odt']],
        );
        const none = await created(await createReport(tech, { fk_element: order.id, title: 'Ohne', odt_template: null }));
        assert.equal(none.odt_template, null);

        // A template's cover sheet is taken over by reports made from it, unless the body names one (or null).
        const template = await created(await createTemplate(admin, { template_label: 'Mit Deckblatt', odt_template: 'deckblatt.odt' }));
        assert.equal(template.odt_template, 'deckblatt.odt');
        const fromIt = await created(await fromTemplate(tech, { template_id: template.id, fk_element: order.id }));
        assert.equal(fromIt.odt_template, 'deckblatt.odt');
        assert.equal(fromIt.title, 'Mit Deckblatt');
        const withoutCover = await created(
          await fromTemplate(tech, { template_id: template.id, fk_element: order.id, odt_template: null }),
        );
        assert.equal(withoutCover.odt_template, null);
        // A template whose cover sheet was removed since cannot pass it on.
        await rm(path.join(dir, 'deckblatt.odt'));
        assertError(await fromTemplate(tech, { template_id: template.id, fk_element: order.id }), 400, 'ODT_TEMPLATE_NOT_FOUND');
      });
    });
  });
}
