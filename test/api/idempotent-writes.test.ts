/**
 * The Idempotency-Key of the report writes the app sends from its offline queue, on every
 * database: reports.php?action=create (also with template_id), templates.php?action=
 * create_from_template, and pages.php add, signature, update and reorder. For each: a repeat gets
 * the first status and body and makes nothing twice (rows, pages, files); the key used on another
 * route or object is 409 IDEMPOTENCY_KEY_REUSED; a malformed key is 400; a refused request keeps
 * no key; keys are per user; an answer that cannot be stored takes the change back with it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import sharp from 'sharp';
import { buildApp } from '../../src/app.js';
import { RUN_ID } from '../../src/adapters/runs.js';
import { toDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, type RequestOptions, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { signaturePng } from '../helpers/signature.js';

/** Idempotency keys are kept as their SHA-256 (exact on every collation). */
const storedKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const newKey = () => randomUUID();
const MALFORMED = ['with space', 'x'.repeat(129), 'umlaut-ä'];

for (const dialect of testDialects()) {
  describe(`idempotent report writes [${dialect}]`, () => {
    let ctx: TestContext;
    let jpeg: Buffer;
    before(async () => {
      ctx = await createTestContext(dialect);
      jpeg = await sharp({ create: { width: 60, height: 40, channels: 3, background: '#2a7' } })
        .jpeg()
        .toBuffer();
    });
    after(async () => ctx?.close());

    const { caller, api, json, newReport, addPage, sign } = testClient(() => ctx);

    /** POST create_from_template (with `options.key`, `options.app`). */
    const fromTemplate = (who: Caller, body: Record<string, unknown>, options?: RequestOptions) =>
      api('POST', '/api/templates.php?action=create_from_template', who, body, options);
    const keyRows = (key: string) =>
      ctx.handle.db.selectFrom('bericht_idempotency').selectAll().where('idem_key', '=', storedKey(key)).execute();
    /** The one row of `key` of `who`: its scope and stored status. */
    async function keyRow(who: Caller, key: string) {
      const rows = (await keyRows(key)).filter((r) => Number(r.fk_user) === who.id);
      assert.equal(rows.length, 1);
      return { scope: rows[0]!.scope, status: rows[0]!.status_code === null ? null : Number(rows[0]!.status_code) };
    }
    /** A repeat: the same status and body as `first`. */
    function assertReplay(repeat: LightMyRequestResponse, first: LightMyRequestResponse) {
      assert.equal(repeat.statusCode, first.statusCode, repeat.body);
      assert.deepEqual(repeat.json(), first.json());
    }
    const reportsOn = async (orderId: number) =>
      Number(
        (
          await ctx.handle.db
            .selectFrom('bericht')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('element_type', '=', 'commande')
            .where('fk_element', '=', orderId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const pagesOf = (reportId: number) =>
      ctx.handle.db.selectFrom('bericht_page').selectAll().where('fk_bericht', '=', reportId).orderBy('page_order').execute();
    const setStatus = (reportId: number, status: 0 | 1) =>
      ctx.handle.db.updateTable('bericht').set({ status }).where('rowid', '=', reportId).execute();
    const workArea = (ref: string) => objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', ref).dir;
    /** The files in a report's work area (none when it has no folder). */
    const filesOf = (ref: string) => (existsSync(workArea(ref)) ? readdirSync(workArea(ref)).sort() : []);
    /** The reports' work-area folders on disk. */
    const workAreaFolders = () => {
      const dir = path.join(ctx.config.dataRoot, 'bericht');
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((n) => n !== 'temp')
            .sort()
        : [];
    };

    async function orderWithPhoto(owner: number) {
      const order = await ctx.make.order({ author: owner });
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'IMG_1.jpg'), jpeg);
      return order;
    }
    /** A draft on `orderId`, or on a new order of `who` with a photo. */
    const draft = async (who: Caller, orderId?: number): Promise<{ id: number; ref: string }> =>
      newReport(who, orderId ?? (await orderWithPhoto(who.id)).id);
    /** A template (made by an admin from a report with a photo page and a title page): it owns a copy of the photo. */
    async function template() {
      const admin = await caller(['read', 'write', 'delete'], true);
      const order = await orderWithPhoto(admin.id);
      const source = await draft(admin, order.id);
      await addPage(admin, source.id, { source: 'IMG_1.jpg', title: 'Gerät' });
      await addPage(admin, source.id, { title: 'Ergebnis', note: 'ohne Befund' });
      const res = await api('POST', '/api/templates.php?action=create', admin, {
        template_label: `Vorlage ${randomBytes(3).toString('hex')}`,
        from_report: source.id,
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as { id: number; ref: string };
    }
    /**
     * A second service on the same database whose statements updating `bericht_idempotency` fail:
     * the key is claimed, the work done, and storing its answer fails.
     */
    async function appFailingToStoreAnswers(): Promise<FastifyInstance> {
      const refuse: KyselyPlugin = {
        transformQuery: ({ node }) => {
          if (node.kind === 'UpdateQueryNode' && JSON.stringify(node).includes('bericht_idempotency')) throw new Error('Platte voll');
          return node;
        },
        transformResult: async ({ result }) => result,
      };
      const app = await buildApp(ctx.config, { db: { ...ctx.handle, db: ctx.handle.db.withPlugin(refuse) }, logger: false });
      await app.ready();
      return app;
    }

    describe('reports.php?action=create and templates.php?action=create_from_template', () => {
      test('a repeat gets the first 201 and report, and no second report is made', async () => {
        const me = await caller();
        const order = await orderWithPhoto(me.id);
        const key = newKey();
        const first = await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'Wartung' }, { key });
        assert.equal(first.statusCode, 201, first.body);
        for (const again of [
          { fk_element: order.id, title: 'Wartung' },
          { fk_element: order.id, title: 'Anders' },
        ]) {
          assertReplay(await api('POST', '/api/reports.php?action=create', me, again, { key }), first);
        }
        assert.equal(await reportsOn(order.id), 1);
        assert.deepEqual(await keyRow(me, key), { scope: `report:create:commande:${order.id}`, status: 201 });
        assert.deepEqual(await json('GET', `/api/reports.php?id=${first.json().id}`, me, undefined, { status: 200 }), first.json());
        // Without a key every request is a report of its own.
        await draft(me, order.id);
        await draft(me, order.id);
        assert.equal(await reportsOn(order.id), 3);
      });

      test('from a template, on either route: one report and one copy of its images however often it is repeated', async () => {
        const me = await caller();
        const tpl = await template();
        for (const [url, scope] of [
          ['/api/reports.php?action=create', 'report:create'],
          ['/api/templates.php?action=create_from_template', 'template:create_from_template'],
        ] as const) {
          const order = await orderWithPhoto(me.id);
          const key = newKey();
          const folders = workAreaFolders();
          const first = await api('POST', url, me, { fk_element: order.id, template_id: tpl.id }, { key });
          assert.equal(first.statusCode, 201, first.body);
          const made = first.json() as { ref: string; pages: Array<{ source_path: string | null }> };
          assert.equal(made.pages.length, 2);
          assert.ok(made.pages[0]!.source_path?.startsWith(`bericht/${made.ref}/`));
          const files = filesOf(made.ref);
          assert.equal(files.length, 1);
          assertReplay(await api('POST', url, me, { fk_element: order.id, template_id: tpl.id }, { key }), first);
          assert.equal(await reportsOn(order.id), 1);
          assert.deepEqual(workAreaFolders(), [...folders, made.ref].sort());
          assert.deepEqual(filesOf(made.ref), files);
          assert.deepEqual(await keyRow(me, key), { scope: `${scope}:commande:${order.id}`, status: 201 });
        }
      });

      test('an answer larger than 64 kB (a template with long notes) is stored whole and given again', async () => {
        const admin = await caller(['read', 'write', 'delete'], true);
        const tpl = await api('POST', '/api/templates.php?action=create', admin, { template_label: 'Lange Notizen' });
        assert.equal(tpl.statusCode, 201, tpl.body);
        for (let i = 0; i < 8; i++)
          await addPage(admin, tpl.json().id, {
            title: `Abschnitt ${i}`,
            note: `Prüfung ${i}: ${'Überdruckventil geprüft, Ölstand gemessen. '.repeat(200)}`.slice(0, 10_000),
          });
        const me = await caller();
        const order = await orderWithPhoto(me.id);
        const key = newKey();
        const first = await fromTemplate(me, { fk_element: order.id, template_id: tpl.json().id }, { key });
        assert.equal(first.statusCode, 201, first.body);
        assert.ok(Buffer.byteLength(first.body) > 65_535, `${Buffer.byteLength(first.body)} bytes`);
        assertReplay(await fromTemplate(me, { fk_element: order.id, template_id: tpl.json().id }, { key }), first);
        assert.equal(await reportsOn(order.id), 1);
      });

      test('the key of another object or route is 409 IDEMPOTENCY_KEY_REUSED; keys are per user', async () => {
        const me = await caller();
        const tpl = await template();
        const order = await orderWithPhoto(me.id);
        const other = await orderWithPhoto(me.id);
        const invoice = await ctx.make.invoice({ author: me.id });
        const key = newKey();
        assert.equal(
          (await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'Erster' }, { key })).statusCode,
          201,
        );
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: other.id, title: 'Erster' }, { key }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assertError(
          await api(
            'POST',
            '/api/reports.php?action=create',
            me,
            { element_type: 'facture', fk_element: invoice.id, title: 'Erster' },
            { key },
          ),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assertError(await fromTemplate(me, { fk_element: order.id, template_id: tpl.id }, { key }), 409, 'IDEMPOTENCY_KEY_REUSED');
        const report = await draft(me);
        assertError(
          await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'Seite' }, { key }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assert.equal((await pagesOf(report.id)).length, 0);
        assert.equal(await reportsOn(order.id), 1);
        assert.equal(await reportsOn(other.id), 0);

        const colleague = await caller();
        const theirs = await orderWithPhoto(colleague.id);
        const res = await api('POST', '/api/reports.php?action=create', colleague, { fk_element: theirs.id, title: 'Eigener' }, { key });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().fk_user_creat, colleague.id);
      });

      test('a malformed key is 400; a refused request keeps no key, so a later valid one with it works', async () => {
        const me = await caller();
        const tpl = await template();
        const order = await orderWithPhoto(me.id);
        for (const bad of MALFORMED) {
          assertError(
            await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'X' }, { key: bad }),
            400,
            'VALIDATION_FAILED',
          );
          assertError(await fromTemplate(me, { fk_element: order.id, template_id: tpl.id }, { key: bad }), 400, 'VALIDATION_FAILED');
        }
        const key = newKey();
        const stranger = await ctx.make.order();
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: stranger.id, title: 'X' }, { key }),
          404,
          'ORDER_NOT_FOUND',
        );
        assertError(await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id }, { key }), 400, 'VALIDATION_FAILED');
        assertError(await fromTemplate(me, { fk_element: order.id, template_id: order.id + 100_000 }, { key }), 404, 'TEMPLATE_NOT_FOUND');
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'X', odt_template: 'fehlt.odt' }, { key }),
          400,
          'ODT_TEMPLATE_NOT_FOUND',
        );
        assert.deepEqual(await keyRows(key), []);
        assert.equal(await reportsOn(order.id), 0);
        const res = await fromTemplate(me, { fk_element: order.id, template_id: tpl.id }, { key });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(await reportsOn(order.id), 1);
      });

      test('an answer that cannot be stored takes the report and its copied images back, and frees the key', async () => {
        const me = await caller();
        const tpl = await template();
        const order = await orderWithPhoto(me.id);
        const key = newKey();
        const folders = workAreaFolders();
        const failing = await appFailingToStoreAnswers();
        try {
          const res = await fromTemplate(me, { fk_element: order.id, template_id: tpl.id }, { key, app: failing });
          assert.equal(res.statusCode, 500, res.body);
        } finally {
          await failing.close();
        }
        assert.equal(await reportsOn(order.id), 0);
        assert.deepEqual(workAreaFolders(), folders);
        assert.deepEqual(await keyRows(key), []);
        const retry = await fromTemplate(me, { fk_element: order.id, template_id: tpl.id }, { key });
        assert.equal(retry.statusCode, 201, retry.body);
        assert.equal(await reportsOn(order.id), 1);
      });
    });

    describe('pages.php add, update and reorder', () => {
      test('add: a repeat gets the first 201 and page, also after the report was finalized; no second page', async () => {
        const me = await caller();
        const report = await draft(me);
        const key = newKey();
        const url = `/api/pages.php?action=add&bericht_id=${report.id}`;
        const first = await api('POST', url, me, { source: 'IMG_1.jpg', title: 'Gerät' }, { key });
        assert.equal(first.statusCode, 201, first.body);
        assertReplay(await api('POST', url, me, { source: 'IMG_1.jpg', title: 'Gerät' }, { key }), first);
        assertReplay(await api('POST', url, me, { title: 'Anders' }, { key }), first);
        await setStatus(report.id, 1);
        assertReplay(await api('POST', url, me, { source: 'IMG_1.jpg', title: 'Gerät' }, { key }), first);
        assert.equal((await pagesOf(report.id)).length, 1);
        assert.deepEqual(await keyRow(me, key), { scope: `page:add:${report.id}`, status: 201 });
        // A new key on the final report is refused and kept by no one; on the draft again it adds the page.
        const late = newKey();
        assertError(await api('POST', url, me, { title: 'Zu spät' }, { key: late }), 409, 'REPORT_FINAL');
        assert.deepEqual(await keyRows(late), []);
        await setStatus(report.id, 0);
        assert.equal((await api('POST', url, me, { title: 'Jetzt' }, { key: late })).statusCode, 201);
        assert.equal((await pagesOf(report.id)).length, 2);
      });

      test('update: a repeat gets the first 200 and page again and does not apply the change a second time', async () => {
        const me = await caller();
        const report = await draft(me);
        const page = await addPage(me, report.id, { title: 'Gerät', note: 'alt' });
        const key = newKey();
        const first = await api('POST', `/api/pages.php?id=${page.id}`, me, { note: 'erste Änderung' }, { key });
        assert.equal(first.statusCode, 200, first.body);
        assert.equal(first.json().note, 'erste Änderung');
        assert.equal((await api('POST', `/api/pages.php?id=${page.id}`, me, { note: 'zweite Änderung' })).statusCode, 200);
        assertReplay(await api('POST', `/api/pages.php?id=${page.id}`, me, { note: 'erste Änderung' }, { key }), first);
        assert.equal((await pagesOf(report.id))[0]!.note, 'zweite Änderung');
        assert.deepEqual(await keyRow(me, key), { scope: `page:update:${page.id}`, status: 200 });
      });

      test('reorder: a repeat gets the first 200 and report again and does not reorder a second time', async () => {
        const me = await caller();
        const report = await draft(me);
        const [a, b, c] = [
          await addPage(me, report.id, { title: 'A' }),
          await addPage(me, report.id, { title: 'B' }),
          await addPage(me, report.id, { title: 'C' }),
        ];
        const key = newKey();
        const url = `/api/pages.php?action=reorder&bericht_id=${report.id}`;
        const first = await api('POST', url, me, { order: [c!.id, a!.id, b!.id] }, { key });
        assert.equal(first.statusCode, 200, first.body);
        assert.deepEqual(
          first.json().pages.map((p: { title: string }) => p.title),
          ['C', 'A', 'B'],
        );
        assert.equal((await api('POST', url, me, { order: [a!.id, b!.id, c!.id] })).statusCode, 200);
        assertReplay(await api('POST', url, me, { order: [c!.id, a!.id, b!.id] }, { key }), first);
        // Without bericht_id the report comes from the first page: the same scope.
        assertReplay(await api('POST', '/api/pages.php?action=reorder', me, { order: [c!.id, a!.id, b!.id] }, { key }), first);
        assert.deepEqual(
          (await pagesOf(report.id)).map((p) => p.title),
          ['A', 'B', 'C'],
        );
        assert.deepEqual(await keyRow(me, key), { scope: `page:reorder:${report.id}`, status: 200 });
      });

      test('the key of another operation or object is 409 IDEMPOTENCY_KEY_REUSED; keys are per user', async () => {
        const me = await caller();
        const report = await draft(me);
        const other = await draft(me);
        const page = await addPage(me, report.id, { title: 'Erste' });
        const otherPage = await addPage(me, other.id, { title: 'Andere' });
        const key = newKey();
        assert.equal(
          (await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'Zweite' }, { key })).statusCode,
          201,
        );
        assertError(
          await api('POST', `/api/pages.php?action=add&bericht_id=${other.id}`, me, { title: 'Zweite' }, { key }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assertError(await api('POST', `/api/pages.php?id=${page.id}`, me, { note: 'x' }, { key }), 409, 'IDEMPOTENCY_KEY_REUSED');
        assertError(
          await api('POST', `/api/pages.php?action=reorder&bericht_id=${report.id}`, me, { order: [page.id] }, { key }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assertError(await sign(me, report.id, { key }), 409, 'IDEMPOTENCY_KEY_REUSED');
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: (await orderWithPhoto(me.id)).id, title: 'X' }, { key }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        const updateKey = newKey();
        assert.equal((await api('POST', `/api/pages.php?id=${page.id}`, me, { note: 'x' }, { key: updateKey })).statusCode, 200);
        assertError(
          await api('POST', `/api/pages.php?id=${otherPage.id}`, me, { note: 'x' }, { key: updateKey }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assert.equal((await pagesOf(report.id)).length, 2);
        assert.equal((await pagesOf(other.id)).length, 1);
        assert.equal((await pagesOf(other.id))[0]!.note, null);

        const colleague = await caller();
        const theirs = await draft(colleague);
        assert.equal(
          (await api('POST', `/api/pages.php?action=add&bericht_id=${theirs.id}`, colleague, { title: 'Eigene' }, { key })).statusCode,
          201,
        );
        assert.equal((await pagesOf(theirs.id)).length, 1);
      });

      test('a malformed key is 400; a refused request (404, 409, 400) keeps no key, so a later valid one with it works', async () => {
        const me = await caller();
        const report = await draft(me);
        const page = await addPage(me, report.id, { title: 'A' });
        const second = await addPage(me, report.id, { title: 'B' });
        for (const bad of MALFORMED) {
          assertError(
            await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'X' }, { key: bad }),
            400,
            'VALIDATION_FAILED',
          );
          assertError(await api('POST', `/api/pages.php?id=${page.id}`, me, { note: 'x' }, { key: bad }), 400, 'VALIDATION_FAILED');
          assertError(
            await api('POST', `/api/pages.php?action=reorder&bericht_id=${report.id}`, me, { order: [second.id, page.id] }, { key: bad }),
            400,
            'VALIDATION_FAILED',
          );
        }
        assert.equal((await pagesOf(report.id)).length, 2);

        const stranger = await caller();
        const key = newKey();
        assertError(
          await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, stranger, { title: 'X' }, { key }),
          404,
          'REPORT_NOT_FOUND',
        );
        assertError(await api('POST', `/api/pages.php?id=${page.id}`, stranger, { note: 'x' }, { key }), 404, 'PAGE_NOT_FOUND');
        assert.deepEqual(await keyRows(key), []);
        assertError(
          await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { source: 'fehlt.jpg' }, { key }),
          404,
          'FILE_NOT_FOUND',
        );
        assertError(
          await api('POST', `/api/pages.php?action=reorder&bericht_id=${report.id}`, me, { order: [page.id] }, { key }),
          400,
          'PAGE_ORDER_MISMATCH',
        );
        await setStatus(report.id, 1);
        assertError(await api('POST', `/api/pages.php?id=${page.id}`, me, { note: 'x' }, { key }), 409, 'REPORT_FINAL');
        assertError(
          await api('POST', `/api/pages.php?action=reorder&bericht_id=${report.id}`, me, { order: [second.id, page.id] }, { key }),
          409,
          'REPORT_FINAL',
        );
        assert.deepEqual(await keyRows(key), []);
        await setStatus(report.id, 0);
        const res = await api(
          'POST',
          `/api/pages.php?action=reorder&bericht_id=${report.id}`,
          me,
          { order: [second.id, page.id] },
          { key },
        );
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(await keyRow(me, key), { scope: `page:reorder:${report.id}`, status: 200 });
      });

      test("a claim at work is 409 IDEMPOTENCY_IN_PROGRESS; a dead process's claim is freed and the page added once", async () => {
        const me = await caller();
        const report = await draft(me);
        const busy = newKey();
        const claim = (key: string, runId: string) =>
          ctx.handle.db
            .insertInto('bericht_idempotency')
            .values({
              entity: 1,
              fk_user: me.id,
              idem_key: storedKey(key),
              scope: `page:add:${report.id}`,
              status_code: null,
              response: null,
              datec: toDbDateTime(),
              run_id: runId,
            })
            .execute();
        await claim(busy, RUN_ID);
        const res = await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'X' }, { key: busy });
        assertError(res, 409, 'IDEMPOTENCY_IN_PROGRESS');
        assert.equal(res.headers['retry-after'], '5');
        // A run of this host whose process is gone: its marker names a pid that has exited.
        const deadRun = randomBytes(6).toString('hex');
        const runs = path.join(ctx.config.dataRoot, 'bericht', 'temp', 'runs');
        mkdirSync(runs, { recursive: true });
        writeFileSync(
          path.join(runs, `${deadRun}.json`),
          JSON.stringify({ host: os.hostname(), pid: spawnSync(process.execPath, ['-e', '']).pid }),
        );
        const dead = newKey();
        await claim(dead, deadRun);
        const first = await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'Y' }, { key: dead });
        assert.equal(first.statusCode, 201, first.body);
        assertReplay(await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'Y' }, { key: dead }), first);
        assert.deepEqual(
          (await pagesOf(report.id)).map((p) => p.title),
          ['Y'],
        );
      });
    });

    describe('pages.php?action=signature', () => {
      const signatureFiles = (ref: string) => filesOf(ref).filter((n) => n.startsWith('unterschrift_'));
      const signatureRows = async (reportId: number) =>
        (await ctx.handle.db.selectFrom('bericht_signature').select('rowid').where('fk_bericht', '=', reportId).execute()).length;

      test('a repeat gets the first 201 and signature page, also after finalizing; never a second page, row or file', async () => {
        const me = await caller();
        const report = await draft(me);
        await addPage(me, report.id, { source: 'IMG_1.jpg', title: 'Gerät' });
        const key = newKey();
        const first = await sign(me, report.id, { key });
        assert.equal(first.statusCode, 201, first.body);
        assert.equal(first.json().layout, 'signature');
        assert.equal(first.json().page_count_at_signing, 1);
        assert.equal(signatureFiles(report.ref).length, 2);
        assertReplay(await sign(me, report.id, { key }), first);
        assertReplay(await sign(me, report.id, { key, file: { data: await signaturePng(600, 200) } }), first);
        await setStatus(report.id, 1);
        assertReplay(await sign(me, report.id, { key }), first);
        assert.deepEqual(
          (await pagesOf(report.id)).map((p) => p.layout),
          ['photo', 'signature'],
        );
        assert.equal(await signatureRows(report.id), 1);
        assert.equal(signatureFiles(report.ref).length, 2);
        assert.deepEqual(await keyRow(me, key), { scope: `page:signature:${report.id}`, status: 201 });
        const verified = await api('POST', '/ajax/verify_signature.php', me, { id: first.json().id });
        assert.equal(verified.json().verified, true, verified.body);
      });

      test('the key of another report or operation is 409 IDEMPOTENCY_KEY_REUSED; keys are per user', async () => {
        const me = await caller();
        const report = await draft(me);
        const other = await draft(me);
        const key = newKey();
        assert.equal((await sign(me, report.id, { key })).statusCode, 201);
        assertError(await sign(me, other.id, { key }), 409, 'IDEMPOTENCY_KEY_REUSED');
        assertError(
          await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'X' }, { key }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assert.equal((await pagesOf(other.id)).length, 0);
        assert.deepEqual(signatureFiles(other.ref), []);

        const colleague = await caller();
        const theirs = await draft(colleague);
        assert.equal((await sign(colleague, theirs.id, { key })).statusCode, 201);
        assert.equal(await signatureRows(theirs.id), 1);
      });

      test('a malformed key is 400; a refused signature keeps no key and no file, so a later valid one with it works', async () => {
        const me = await caller();
        const report = await draft(me);
        for (const bad of MALFORMED) assertError(await sign(me, report.id, { key: bad }), 400, 'VALIDATION_FAILED');
        const key = newKey();
        const stranger = await caller();
        assertError(await sign(stranger, report.id, { key }), 404, 'REPORT_NOT_FOUND');
        assertError(await sign(me, report.id, { key, file: { data: jpeg } }), 415, 'UPLOAD_TYPE_UNSUPPORTED');
        await setStatus(report.id, 1);
        assertError(await sign(me, report.id, { key }), 409, 'REPORT_FINAL');
        assert.deepEqual(await keyRows(key), []);
        assert.deepEqual(signatureFiles(report.ref), []);
        assert.equal((await pagesOf(report.id)).length, 0);
        await setStatus(report.id, 0);
        const res = await sign(me, report.id, { key });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(await signatureRows(report.id), 1);
        assert.equal(signatureFiles(report.ref).length, 2);
      });

      test('an answer that cannot be stored takes the signature page and its files back, and frees the key', async () => {
        const me = await caller();
        const report = await draft(me);
        const key = newKey();
        const failing = await appFailingToStoreAnswers();
        try {
          assert.equal((await sign(me, report.id, { key, app: failing })).statusCode, 500);
        } finally {
          await failing.close();
        }
        assert.equal((await pagesOf(report.id)).length, 0);
        assert.equal(await signatureRows(report.id), 0);
        assert.deepEqual(signatureFiles(report.ref), []);
        assert.deepEqual(await keyRows(key), []);
        const retry = await sign(me, report.id, { key });
        assert.equal(retry.statusCode, 201, retry.body);
        assertReplay(await sign(me, report.id, { key }), retry);
        assert.equal(await signatureRows(report.id), 1);
        assert.equal(signatureFiles(report.ref).length, 2);
      });
    });

    test('the OpenAPI document names the Idempotency-Key header of each of these writes', async () => {
      const paths = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json().paths;
      for (const route of ['/api/reports.php', '/api/templates.php', '/api/pages.php']) {
        const op = paths[route].post;
        assert.ok(
          op.parameters.some((p: { name: string; in: string }) => p.name === 'idempotency-key' && p.in === 'header'),
          route,
        );
        assert.match(op.description, /Idempotency-Key/, route);
        assert.match(op.description, /IDEMPOTENCY_KEY_REUSED/, route);
        assert.ok(op.responses['409'], route);
      }
    });
  });
}
