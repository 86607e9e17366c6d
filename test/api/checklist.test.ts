/**
 * Checklist pages (layout `checklist`, /api/pages.php) on every database: defining the items
 * (ids, limits, units, the rules of checklist.ts), answering them (check, check_all: state, value,
 * deviation, note, photos, the phone's time), every refusal naming its item and changing nothing,
 * rights and visibility, templates, new versions and final reports, the signature's hash over the
 * items (and a change to them found by verification), the Idempotency-Key, large checklists and
 * bodies, and migration 0012 on a database that already has reports.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import sharp from 'sharp';
import { toDbDateTime } from '../../src/db/dialect.js';
import { migrate } from '../../src/db/migrate.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { MAX_CHECKLIST_ITEMS, type StoredItem } from '../../src/modules/pages/checklist.js';
import type { ChecklistItemResponse, PageResponse } from '../../src/modules/reports/reports.schemas.js';
import { fileSha256, pagesHash, type HashedPage } from '../../src/modules/signatures/signature-hash.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

/** The file endpoint's link as a client receives it. */
const fileLink = (file: string, size?: string) =>
  `/api/photo.php?modulepart=commande&file=${encodeURIComponent(file)}${size ? `&size=${size}` : ''}`;

/** An item as a fresh definition answers it: open, nothing recorded. */
const openItem = (
  id: number,
  label: string,
  unit: string | null = null,
  lower: number | null = null,
  upper: number | null = null,
): ChecklistItemResponse => ({
  id,
  label,
  unit,
  lower,
  upper,
  state: 'open',
  value: null,
  deviation: null,
  note: null,
  photos: [],
  checked_at: null,
  checked_by: null,
  ok_reason: null,
  defect: false,
});

/** The definition every test starts from: a look, two measurements with limits, one with a unit only. */
const ITEMS = [
  { label: 'Sichtprüfung Kessel' },
  { label: 'Abgasverlust', unit: '%', upper: 11 },
  { label: 'Vordruck', unit: 'bar', lower: 1.5, upper: 2.5 },
  { label: 'CO-Gehalt', unit: 'ppm' },
];

const now = () => Math.floor(Date.now() / 1000);

for (const dialect of testDialects()) {
  describe(`checklist pages [${dialect}]`, () => {
    let ctx: TestContext;
    let jpeg: Buffer;
    let png: Buffer;
    let gif: Buffer;

    before(async () => {
      ctx = await createTestContext(dialect);
      const base = sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 40, g: 90, b: 200 } } });
      jpeg = await base.clone().jpeg().toBuffer();
      png = await base.clone().png().toBuffer();
      gif = await base.clone().gif().toBuffer();
    });
    after(async () => ctx?.close());

    const { caller, api, newReport, addPage, sign } = testClient(() => ctx);

    /** An order naming `owner` as author, with `files` written into its folder. */
    async function orderWith(owner: number, files: Record<string, Buffer> = {}) {
      const order = await ctx.make.order({ author: owner });
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(dir, { recursive: true });
      for (const [name, data] of Object.entries(files)) await writeFile(path.join(dir, name), data);
      return { ...order, dir };
    }

    const addUrl = (reportId: number) => `/api/pages.php?action=add&bericht_id=${reportId}`;
    const updateUrl = (pageId: number) => `/api/pages.php?id=${pageId}`;
    const checkUrl = (pageId: number) => `/api/pages.php?action=check&id=${pageId}`;
    const checkAllUrl = (pageId: number) => `/api/pages.php?action=check_all&id=${pageId}`;

    async function check(who: Caller, pageId: number, body: Record<string, unknown>): Promise<PageResponse> {
      const res = await api('POST', checkUrl(pageId), who, body);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    const pageRow = (pageId: number) =>
      ctx.handle.db.selectFrom('bericht_page').selectAll().where('rowid', '=', pageId).executeTakeFirstOrThrow();
    const pageRows = (reportId: number) =>
      ctx.handle.db.selectFrom('bericht_page').selectAll().where('fk_bericht', '=', reportId).orderBy('page_order').execute();
    /** The items as stored in `bericht_page.checklist`. */
    const stored = async (pageId: number): Promise<StoredItem[]> => JSON.parse((await pageRow(pageId)).checklist ?? 'null');
    const setStatus = (reportId: number, status: number) =>
      ctx.handle.db.updateTable('bericht').set({ status }).where('rowid', '=', reportId).execute();
    const detail = async (who: Caller, reportId: number) => {
      const res = await api('GET', `/api/reports.php?id=${reportId}`, who);
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { id: number; pages: PageResponse[] };
    };

    /** A writer, an order of theirs with photos (and files that are no photo), a draft on it with a checklist page of ITEMS. */
    async function setup() {
      const me = await caller();
      const order = await orderWith(me.id, {
        'IMG_1.jpg': jpeg,
        'IMG_2.png': png,
        'anim.gif': gif,
        'notiz.jpg': Buffer.from('Kein Bild.\n'),
      });
      const report = await newReport(me, order.id);
      const page = await addPage(me, report.id, { layout: 'checklist', title: 'Wartung', checklist: ITEMS });
      return { me, order, report, page };
    }

    /**
     * A refusal that names the item: 400 VALIDATION_FAILED, the message with `Punkt N „label“`
     * (`Punkt N` for an item without a label), a detail with item, label and field.
     */
    function assertNamed(res: LightMyRequestResponse, position: number, label: string | null, field: string, says?: string | RegExp) {
      const body = assertError(res, 400, 'VALIDATION_FAILED');
      const message = body.error as string;
      const name = label === null ? `Punkt ${position}` : `Punkt ${position} „${label}“`;
      assert.ok(message.includes(name), `"${message}" names ${name}`);
      if (label === null) assert.ok(!message.includes('„'), `"${message}" names no label`);
      if (says !== undefined)
        assert.ok(typeof says === 'string' ? message.includes(says) : says.test(message), `"${message}" says ${String(says)}`);
      const details = body.details as Array<{ field: string; item?: number; label?: string | null; message: string }>;
      assert.ok(Array.isArray(details) && details.length > 0, res.body);
      const entry = details.find((d) => d.field === field);
      assert.ok(entry, `a detail for ${field} in ${res.body}`);
      assert.equal(entry.item, position, res.body);
      assert.equal(entry.label, label, res.body);
      assert.equal(typeof entry.message, 'string');
    }

    describe('defining the items', () => {
      test('a checklist page: items numbered 1..n, open, nothing recorded; stored as JSON and read back with the report', async () => {
        const { me, report, page } = await setup();
        assert.equal(page.layout, 'checklist');
        assert.equal(page.source_path, null);
        assert.equal(page.url, null);
        assert.equal(page.title, 'Wartung');
        assert.deepEqual(page.checklist, [
          openItem(1, 'Sichtprüfung Kessel'),
          openItem(2, 'Abgasverlust', '%', null, 11),
          openItem(3, 'Vordruck', 'bar', 1.5, 2.5),
          openItem(4, 'CO-Gehalt', 'ppm'),
        ]);
        const row = await pageRow(page.id);
        assert.equal(row.layout, 'checklist');
        assert.equal(row.source_path, null);
        assert.equal(row.source_path_2, null);
        assert.deepEqual(await stored(page.id), [
          {
            id: 1,
            label: 'Sichtprüfung Kessel',
            unit: null,
            lower: null,
            upper: null,
            state: 'open',
            value: null,
            note: null,
            photos: [],
            checked_at: null,
            checked_by: null,
            ok_reason: null,
          },
          {
            id: 2,
            label: 'Abgasverlust',
            unit: '%',
            lower: null,
            upper: 11,
            state: 'open',
            value: null,
            note: null,
            photos: [],
            checked_at: null,
            checked_by: null,
            ok_reason: null,
          },
          {
            id: 3,
            label: 'Vordruck',
            unit: 'bar',
            lower: 1.5,
            upper: 2.5,
            state: 'open',
            value: null,
            note: null,
            photos: [],
            checked_at: null,
            checked_by: null,
            ok_reason: null,
          },
          {
            id: 4,
            label: 'CO-Gehalt',
            unit: 'ppm',
            lower: null,
            upper: null,
            state: 'open',
            value: null,
            note: null,
            photos: [],
            checked_at: null,
            checked_by: null,
            ok_reason: null,
          },
        ]);
        assert.deepEqual((await detail(me, report.id)).pages, [page]);
      });

      test('labels and units are trimmed, a blank unit is none; limits at ±1e9, six decimals and equal limits are taken', async () => {
        const { me, report } = await setup();
        const page = await addPage(me, report.id, {
          layout: 'checklist',
          checklist: [
            { label: '  Druck  ', unit: ' bar ', lower: -1_000_000_000, upper: 1_000_000_000 },
            { label: 'Leer', unit: '   ', lower: 0.000001, upper: 0.000001 },
            { label: 'ä'.repeat(200), unit: 'µ'.repeat(16), lower: null, upper: -0.5 },
          ],
        });
        assert.deepEqual(page.checklist, [
          openItem(1, 'Druck', 'bar', -1_000_000_000, 1_000_000_000),
          openItem(2, 'Leer', null, 0.000001, 0.000001),
          openItem(3, 'ä'.repeat(200), 'µ'.repeat(16), null, -0.5),
        ]);
        assert.deepEqual(
          (await stored(page.id)).map((i) => [i.label, i.unit, i.lower, i.upper]),
          [
            ['Druck', 'bar', -1_000_000_000, 1_000_000_000],
            ['Leer', null, 0.000001, 0.000001],
            ['ä'.repeat(200), 'µ'.repeat(16), null, -0.5],
          ],
        );
      });

      test('a checklist page without items, and one with exactly 200, are taken', async () => {
        const { me, report } = await setup();
        const empty = await addPage(me, report.id, { layout: 'checklist', title: 'Leer' });
        assert.deepEqual(empty.checklist, []);
        assert.equal((await pageRow(empty.id)).checklist, '[]');
        const full = await addPage<PageResponse>(me, report.id, {
          layout: 'checklist',
          checklist: Array.from({ length: MAX_CHECKLIST_ITEMS }, (_, i) => ({ label: `Punkt ${i + 1}` })),
        });
        assert.equal(full.checklist!.length, 200);
        assert.deepEqual(
          full.checklist!.map((i) => i.id),
          Array.from({ length: 200 }, (_, i) => i + 1),
        );
        assert.equal((await stored(full.id)).length, 200);
      });

      test('update: items named by id keep their answers, items left out go, new items get new ids', async () => {
        const { me, page } = await setup();
        const answeredAt = now() - 600;
        await check(me, page.id, { item: 2, value: 12.5, note: 'zu hoch', state: 'defect', checked_at: answeredAt });
        await check(me, page.id, { item: 3, state: 'ok', value: 2 });
        const res = await api('POST', updateUrl(page.id), me, {
          checklist: [
            { id: 2, label: 'Abgasverlust (neu)', unit: '%', upper: 13 },
            { label: 'Brenner' },
            { id: 1, label: 'Sichtprüfung Kessel' },
          ],
        });
        assert.equal(res.statusCode, 200, res.body);
        const updated = res.json() as PageResponse;
        assert.deepEqual(updated.checklist, [
          {
            ...openItem(2, 'Abgasverlust (neu)', '%', null, 13),
            state: 'defect',
            value: 12.5,
            deviation: null,
            note: 'zu hoch',
            checked_at: answeredAt,
            checked_by: me.id,
            defect: true,
          },
          openItem(5, 'Brenner'),
          openItem(1, 'Sichtprüfung Kessel'),
        ]);
        assert.deepEqual(
          (await stored(page.id)).map((i) => [i.id, i.label, i.state, i.value, i.note]),
          [
            [2, 'Abgasverlust (neu)', 'defect', 12.5, 'zu hoch'],
            [5, 'Brenner', 'open', null, null],
            [1, 'Sichtprüfung Kessel', 'open', null, null],
          ],
        );
        // An answer for item 3 (removed) finds no item: it is not taken by another.
        assertNamed(
          await api('POST', checkUrl(page.id), me, { item: 3, state: 'ok' }),
          3,
          null,
          'body.item',
          'gibt es auf dieser Seite nicht',
        );
      });

      test('ids are never used again, also after the item with the highest id was removed', async () => {
        const { me, page } = await setup();
        // Items 3 and 4 go (the highest ids), then new items come.
        const first = await api('POST', updateUrl(page.id), me, {
          checklist: [
            { id: 1, label: 'Sichtprüfung Kessel' },
            { id: 2, label: 'Abgasverlust', unit: '%', upper: 11 },
          ],
        });
        assert.equal(first.statusCode, 200, first.body);
        assert.deepEqual(
          (first.json() as PageResponse).checklist!.map((i) => i.id),
          [1, 2],
        );
        // Answers in between keep what the page knows of its ids.
        await check(me, page.id, { item: 1, state: 'ok' });
        await api('POST', checkAllUrl(page.id), me, { state: 'ok' });
        const second = await api('POST', updateUrl(page.id), me, {
          checklist: [{ id: 1, label: 'Sichtprüfung Kessel' }, { id: 2, label: 'Abgasverlust' }, { label: 'Neu A' }, { label: 'Neu B' }],
        });
        assert.equal(second.statusCode, 200, second.body);
        const ids = (second.json() as PageResponse).checklist!.map((i) => i.id);
        assert.deepEqual(ids, [1, 2, 5, 6], 'new ids do not reuse 3 or 4');
        assert.deepEqual(
          (await stored(page.id)).map((i) => i.id),
          [1, 2, 5, 6],
        );
        // A queued answer meant for the removed item 3 is refused, not given to a new item.
        assertError(await api('POST', checkUrl(page.id), me, { item: 3, state: 'ok' }), 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          (await stored(page.id)).filter((i) => i.id > 2).map((i) => i.state),
          ['open', 'open'],
        );
        // The page's other readers see the same items.
        assert.deepEqual(
          (await detail(me, page.fk_bericht)).pages[0]!.checklist!.map((i) => i.id),
          ids,
        );
      });

      test('update without `checklist` keeps the items; a title change leaves the answers', async () => {
        const { me, page } = await setup();
        await check(me, page.id, { item: 1, state: 'ok' });
        const before = await stored(page.id);
        const res = await api('POST', updateUrl(page.id), me, { title: 'Jahreswartung', note: 'Gasheizung' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().title, 'Jahreswartung');
        assert.deepEqual(await stored(page.id), before);
      });

      describe('refusals name the item and change nothing', () => {
        /** ITEMS with the third item replaced by `third`. */
        const withThird = (third: Record<string, unknown>) => [ITEMS[0], ITEMS[1], third, ITEMS[3]];
        const cases: Array<[string, Record<string, unknown>, string | null, string, (string | RegExp)?]> = [
          [
            'a limit given as text with a decimal comma',
            { label: 'Vordruck', lower: '6,8' },
            'Vordruck',
            'body.checklist.2.lower',
            'muss eine Zahl sein',
          ],
          ['a limit given as "NaN"', { label: 'Vordruck', upper: 'NaN' }, 'Vordruck', 'body.checklist.2.upper', 'muss eine Zahl sein'],
          [
            'a limit given as an object',
            { label: 'Vordruck', lower: { value: 1 } },
            'Vordruck',
            'body.checklist.2.lower',
            'muss eine Zahl sein',
          ],
          ['a limit given as a boolean', { label: 'Vordruck', upper: true }, 'Vordruck', 'body.checklist.2.upper', 'muss eine Zahl sein'],
          [
            'limits in the wrong order',
            { label: 'Vordruck', unit: 'bar', lower: 2.5, upper: 1.5 },
            'Vordruck',
            'body.checklist.2.lower',
            'die untere Grenze (2.5) liegt über der oberen (1.5)',
          ],
          ['an empty label', { label: '' }, null, 'body.checklist.2.label'],
          ['a label of spaces', { label: '    ', unit: 'bar' }, null, 'body.checklist.2.label'],
          ['no label', { unit: 'bar' }, null, 'body.checklist.2.label'],
          ['a label of 201 characters', { label: 'L'.repeat(201) }, 'L'.repeat(200), 'body.checklist.2.label'],
          ['a label that is a number', { label: 42 }, null, 'body.checklist.2.label', 'muss ein Text sein'],
          ['a unit of 17 characters', { label: 'Vordruck', unit: 'u'.repeat(17) }, 'Vordruck', 'body.checklist.2.unit'],
          [
            'a limit with seven decimals',
            { label: 'Vordruck', lower: 1.0000001 },
            'Vordruck',
            'body.checklist.2.lower',
            'höchstens 6 Nachkommastellen',
          ],
          ['a limit beyond 1e9', { label: 'Vordruck', upper: 1_000_000_001 }, 'Vordruck', 'body.checklist.2.upper'],
          ['a limit below -1e9', { label: 'Vordruck', lower: -1e10 }, 'Vordruck', 'body.checklist.2.lower'],
          ['an unknown field', { label: 'Vordruck', colour: 'rot' }, 'Vordruck', 'body.checklist.2.colour', 'unbekanntes Feld'],
          ['a state in the definition', { label: 'Vordruck', state: 'ok' }, 'Vordruck', 'body.checklist.2.state', 'unbekanntes Feld'],
          ['an id of 0', { id: 0, label: 'Vordruck' }, 'Vordruck', 'body.checklist.2.id'],
          ['an id as text', { id: '3', label: 'Vordruck' }, 'Vordruck', 'body.checklist.2.id', 'muss eine ganze Zahl sein'],
        ];
        for (const [what, third, label, field, says] of cases) {
          test(`${what}: on add and on update`, async () => {
            const { me, report, page } = await setup();
            const pagesBefore = await pageRows(report.id);
            assertNamed(
              await api('POST', addUrl(report.id), me, { layout: 'checklist', checklist: withThird(third) }),
              3,
              label,
              field,
              says,
            );
            assert.deepEqual(await pageRows(report.id), pagesBefore);
            assertNamed(
              await api('POST', updateUrl(page.id), me, { title: 'geändert', checklist: withThird(third) }),
              3,
              label,
              field,
              says,
            );
            assert.deepEqual(await pageRows(report.id), pagesBefore);
          });
        }

        test('a limit of 1e999 (Infinity once parsed) is refused naming the item', async () => {
          const { me, report, page } = await setup();
          const before = await pageRows(report.id);
          const raw = '{"layout":"checklist","checklist":[{"label":"A"},{"label":"Grenzwert","upper":1e999}]}';
          assertNamed(await api('POST', addUrl(report.id), me, raw), 2, 'Grenzwert', 'body.checklist.1.upper');
          assertNamed(
            await api('POST', updateUrl(page.id), me, raw.replace('"layout":"checklist",', '')),
            2,
            'Grenzwert',
            'body.checklist.1.upper',
          );
          assert.deepEqual(await pageRows(report.id), before);
        });

        test('an unknown id and a repeated id on update', async () => {
          const { me, report, page } = await setup();
          const before = await pageRows(report.id);
          assertNamed(
            await api('POST', updateUrl(page.id), me, {
              checklist: [
                { id: 1, label: 'A' },
                { id: 99, label: 'Fremd' },
              ],
            }),
            2,
            'Fremd',
            'body.checklist.1.id',
            'unbekannter oder doppelter Punkt (id 99)',
          );
          const repeated = await api('POST', updateUrl(page.id), me, {
            checklist: [{ id: 2, label: 'A' }, { label: 'B' }, { id: 2, label: 'Doppelt' }],
          });
          assertNamed(repeated, 3, 'Doppelt', 'body.checklist.2.id', 'id 2');
          assert.equal((repeated.json().details as Array<{ message: string }>)[0]!.message, 'repeated id');
          // On add there is nothing to name: an id is unknown.
          assertNamed(
            await api('POST', addUrl(report.id), me, { layout: 'checklist', checklist: [{ id: 1, label: 'Erster' }] }),
            1,
            'Erster',
            'body.checklist.0.id',
            'id 1',
          );
          assert.deepEqual(await pageRows(report.id), before);
        });

        test('201 items and 10,000 items: 400 "höchstens 200"', async () => {
          const { me, report, page } = await setup();
          const before = await pageRows(report.id);
          for (const count of [201, 10_000]) {
            const checklist = Array.from({ length: count }, (_, i) => ({ label: `P${i}` }));
            for (const res of [
              await api('POST', addUrl(report.id), me, { layout: 'checklist', checklist }),
              await api('POST', updateUrl(page.id), me, { checklist }),
            ]) {
              const body = assertError(res, 400, 'VALIDATION_FAILED');
              assert.match(body.error as string, /höchstens 200 Punkte/);
              assert.ok(
                (body.details as Array<{ field: string }>).some((d) => d.field === 'body.checklist'),
                res.body,
              );
            }
          }
          assert.deepEqual(await pageRows(report.id), before);
        });

        test('a checklist that is not a list, and an item that is not an object', async () => {
          const { me, report, page } = await setup();
          const before = await pageRows(report.id);
          assertError(
            await api('POST', addUrl(report.id), me, { layout: 'checklist', checklist: { label: 'A' } }),
            400,
            'VALIDATION_FAILED',
          );
          assertNamed(await api('POST', updateUrl(page.id), me, { checklist: [{ label: 'A' }, 'B'] }), 2, null, 'body.checklist.1');
          assert.deepEqual(await pageRows(report.id), before);
        });
      });

      test('items only on a checklist page: a photo or title page with items, a checklist page with an image, a change of layout to or from checklist are 400', async () => {
        const { me, report, page } = await setup();
        const photo = await addPage(me, report.id, { source: 'IMG_1.jpg' });
        const title = await addPage(me, report.id, { title: 'Titel' });
        const before = await pageRows(report.id);
        const refused = async (res: LightMyRequestResponse, field: string) => {
          const body = assertError(res, 400, 'VALIDATION_FAILED');
          assert.ok(
            (body.details as Array<{ field: string }>).some((d) => d.field === field),
            res.body,
          );
        };
        await refused(await api('POST', addUrl(report.id), me, { source: 'IMG_1.jpg', checklist: [{ label: 'A' }] }), 'body.checklist');
        await refused(await api('POST', addUrl(report.id), me, { layout: 'photo', source: 'IMG_1.jpg', checklist: [] }), 'body.checklist');
        await refused(await api('POST', addUrl(report.id), me, { title: 'x', checklist: [{ label: 'A' }] }), 'body.checklist');
        await refused(
          await api('POST', addUrl(report.id), me, { layout: 'checklist', source: 'IMG_1.jpg', checklist: [{ label: 'A' }] }),
          'body.source',
        );
        await refused(
          await api('POST', addUrl(report.id), me, { layout: 'checklist', source_2: 'IMG_2.png', checklist: [{ label: 'A' }] }),
          'body.source_2',
        );
        await refused(await api('POST', updateUrl(photo.id), me, { checklist: [{ label: 'A' }] }), 'body.checklist');
        await refused(await api('POST', updateUrl(title.id), me, { checklist: [] }), 'body.checklist');
        await refused(await api('POST', updateUrl(photo.id), me, { layout: 'checklist' }), 'body.layout');
        await refused(await api('POST', updateUrl(title.id), me, { layout: 'checklist', checklist: [{ label: 'A' }] }), 'body.layout');
        await refused(await api('POST', updateUrl(page.id), me, { layout: 'photo', source: 'IMG_1.jpg' }), 'body.layout');
        await refused(await api('POST', updateUrl(page.id), me, { layout: 'title_only', title: 'Nur Titel' }), 'body.layout');
        await refused(await api('POST', updateUrl(page.id), me, { source: 'IMG_1.jpg' }), 'body.source');
        await refused(await api('POST', updateUrl(page.id), me, { source_2: 'IMG_2.png' }), 'body.source_2');
        // check and check_all on a page that is no checklist.
        for (const p of [photo, title]) {
          await refused(await api('POST', checkUrl(p.id), me, { item: 1, state: 'ok' }), 'query.id');
          await refused(await api('POST', checkAllUrl(p.id), me, { state: 'ok' }), 'query.id');
        }
        assert.deepEqual(await pageRows(report.id), before);
        // Layout checklist again on a checklist page is no change of layout.
        const same = await api('POST', updateUrl(page.id), me, { layout: 'checklist', title: 'Wartung' });
        assert.equal(same.statusCode, 200, same.body);
      });

      test('unknown fields in a page body are 400', async () => {
        const { me, report, page } = await setup();
        const before = await pageRows(report.id);
        assertError(await api('POST', addUrl(report.id), me, { layout: 'checklist', checklist: [], items: [] }), 400, 'VALIDATION_FAILED');
        assertError(await api('POST', updateUrl(page.id), me, { checklist: [], answers: {} }), 400, 'VALIDATION_FAILED');
        assert.deepEqual(await pageRows(report.id), before);
      });
    });

    describe('answering the items', () => {
      test('check records state, value, note, who and when; fields not sent stay; null clears', async () => {
        const { me, page } = await setup();
        const t0 = now();
        const first = await check(me, page.id, { item: 3, state: 'ok', value: 1.8, note: '  gemessen am Manometer  ' });
        const item = first.checklist![2]!;
        assert.ok(item.checked_at! >= t0 && item.checked_at! <= now(), `checked_at ${item.checked_at} is the service's time`);
        assert.deepEqual(item, {
          ...openItem(3, 'Vordruck', 'bar', 1.5, 2.5),
          state: 'ok',
          value: 1.8,
          note: 'gemessen am Manometer',
          checked_at: item.checked_at,
          checked_by: me.id,
        });
        // The other items are untouched.
        assert.deepEqual(
          first.checklist!.filter((i) => i.id !== 3),
          [openItem(1, 'Sichtprüfung Kessel'), openItem(2, 'Abgasverlust', '%', null, 11), openItem(4, 'CO-Gehalt', 'ppm')],
        );
        // Only the value: state and note stay.
        const second = await check(me, page.id, { item: 3, value: 2.2 });
        assert.deepEqual(
          [second.checklist![2]!.state, second.checklist![2]!.value, second.checklist![2]!.note],
          ['ok', 2.2, 'gemessen am Manometer'],
        );
        // null clears value and note; an empty note is none.
        const cleared = await check(me, page.id, { item: 3, value: null, note: '' });
        assert.deepEqual([cleared.checklist![2]!.state, cleared.checklist![2]!.value, cleared.checklist![2]!.note], ['ok', null, null]);
        // Text beyond the Basic Multilingual Plane (MariaDB's utf8mb4) in a note, a label and a unit.
        const emoji = await check(me, page.id, { item: 3, note: 'Flamme 🔥 ok 👍' });
        assert.equal(emoji.checklist![2]!.note, 'Flamme 🔥 ok 👍');
        assert.equal((await stored(page.id))[2]!.note, 'Flamme 🔥 ok 👍');
        const defined = await api('POST', updateUrl(page.id), me, {
          checklist: [...ITEMS.map((item, i) => ({ ...item, id: i + 1 })), { label: 'Rauchmelder 🚨', unit: '🌡' }],
        });
        assert.equal(defined.statusCode, 200, defined.body);
        assert.deepEqual((await stored(page.id)).at(-1)!.label, 'Rauchmelder 🚨');
        assert.deepEqual((await detail(me, page.fk_bericht)).pages[0]!.checklist!.at(-1)!.unit, '🌡');
        const back = await check(me, page.id, { item: 3, state: 'open', note: null });
        assert.equal(back.checklist![2]!.state, 'open');
        const storedItem = (await stored(page.id))[2]!;
        assert.deepEqual([storedItem.state, storedItem.value, storedItem.note, storedItem.checked_by], ['open', null, null, me.id]);
      });

      test('deviation: below, above, null within; values exactly on the limits are within; negative values; six decimals', async () => {
        const { me, report } = await setup();
        const page = await addPage(me, report.id, {
          layout: 'checklist',
          checklist: [
            { label: 'Spanne', unit: 'bar', lower: -1.25, upper: 2.5 },
            { label: 'Nur oben', upper: 0 },
            { label: 'Nur unten', lower: 100 },
            { label: 'Ohne Grenzen', unit: '°C' },
          ],
        });
        const cases: Array<[number, number, 'below' | 'above' | null]> = [
          [1, -1.25, null],
          [1, 2.5, null],
          [1, -1.250001, 'below'],
          [1, 2.500001, 'above'],
          [1, 0, null],
          [1, -1_000_000_000, 'below'],
          [1, 1_000_000_000, 'above'],
          [2, 0, null],
          [2, 0.000001, 'above'],
          [2, -5, null],
          [3, 100, null],
          [3, 99.999999, 'below'],
          [3, 1e6, null],
          [4, -273.15, null],
          [4, 1e9, null],
        ];
        for (const [item, value, deviation] of cases) {
          const answered = (await check(me, page.id, { item, value })).checklist![item - 1]!;
          assert.deepEqual([answered.value, answered.deviation], [value, deviation], `item ${item} value ${value}`);
          assert.equal((await stored(page.id))[item - 1]!.value, value);
          // The report's detail computes the same.
          assert.equal((await detail(me, report.id)).pages.find((p) => p.id === page.id)!.checklist![item - 1]!.deviation, deviation);
        }
        const none = (await check(me, page.id, { item: 1, value: null })).checklist![0]!;
        assert.deepEqual([none.value, none.deviation], [null, null]);
      });

      test('"OK trotz Grenzwert": OK for a value outside its limits needs a reason, kept only while both hold; without one such an item is a defect', async () => {
        const { me, page } = await setup();
        const before = await pageRow(page.id);
        // Item 2, Abgasverlust ≤ 11 %: 12.5 answered OK without a reason is refused, the item named, nothing changed.
        assertNamed(
          await api('POST', checkUrl(page.id), me, { item: 2, state: 'ok', value: 12.5 }),
          2,
          'Abgasverlust',
          'body.ok_reason',
          'über dem Grenzwert',
        );
        assertNamed(
          await api('POST', checkUrl(page.id), me, { item: 2, state: 'ok', value: 12.5, ok_reason: '  ' }),
          2,
          'Abgasverlust',
          'body.ok_reason',
        );
        assertNamed(
          await api('POST', checkUrl(page.id), me, { item: 3, state: 'ok', value: 1.2 }),
          3,
          'Vordruck',
          'body.ok_reason',
          'unter dem Grenzwert',
        );
        assert.deepEqual(await pageRow(page.id), before);
        assertError(
          await api('POST', checkUrl(page.id), me, { item: 2, state: 'ok', value: 12.5, ok_reason: 7 }),
          400,
          'VALIDATION_FAILED',
        );
        // With a reason it is taken, and it is no defect.
        const accepted = (await check(me, page.id, { item: 2, state: 'ok', value: 12.5, ok_reason: ' Kessel noch kalt ' })).checklist![1]!;
        assert.deepEqual(
          [accepted.state, accepted.deviation, accepted.ok_reason, accepted.defect],
          ['ok', 'above', 'Kessel noch kalt', false],
        );
        assert.equal((await stored(page.id))[1]!.ok_reason, 'Kessel noch kalt');
        // A note later keeps the reason; a value within the limits, or another state, drops it.
        assert.equal((await check(me, page.id, { item: 2, note: 'Nachmessen' })).checklist![1]!.ok_reason, 'Kessel noch kalt');
        assert.equal(
          (await check(me, page.id, { item: 2, value: 13 })).checklist![1]!.ok_reason,
          'Kessel noch kalt',
          'still outside: still OK with it',
        );
        const within = (await check(me, page.id, { item: 2, value: 9 })).checklist![1]!;
        assert.deepEqual([within.state, within.deviation, within.ok_reason, within.defect], ['ok', null, null, false]);
        assertNamed(await api('POST', checkUrl(page.id), me, { item: 2, value: 14 }), 2, 'Abgasverlust', 'body.ok_reason');
        const defect = (await check(me, page.id, { item: 2, state: 'defect', value: 14, note: 'Brenner verrußt', ok_reason: 'egal' }))
          .checklist![1]!;
        assert.deepEqual([defect.state, defect.ok_reason, defect.defect], ['defect', null, true]);
        // An OK outside the limits stored without a reason (answered before it was asked for) reads as a defect.
        const items = await stored(page.id);
        items[1] = { ...items[1]!, state: 'ok', value: 14, ok_reason: null };
        await ctx.handle.db
          .updateTable('bericht_page')
          .set({ checklist: JSON.stringify(items) })
          .where('rowid', '=', page.id)
          .execute();
        const legacy = (await detail(me, page.fk_bericht)).pages.find((p) => p.id === page.id)!.checklist![1]!;
        assert.deepEqual([legacy.state, legacy.deviation, legacy.ok_reason, legacy.defect], ['ok', 'above', null, true]);
      });

      test('a defect needs a note; with one it is taken', async () => {
        const { me, page } = await setup();
        const before = await pageRow(page.id);
        assertNamed(
          await api('POST', checkUrl(page.id), me, { item: 2, state: 'defect' }),
          2,
          'Abgasverlust',
          'body.note',
          'ein Mangel braucht eine Notiz',
        );
        assertNamed(
          await api('POST', checkUrl(page.id), me, { item: 2, state: 'defect', note: '   ' }),
          2,
          'Abgasverlust',
          'body.note',
          'ein Mangel braucht eine Notiz',
        );
        assertNamed(
          await api('POST', checkUrl(page.id), me, { item: 2, state: 'defect', note: null, value: 14 }),
          2,
          'Abgasverlust',
          'body.note',
        );
        assert.deepEqual(await pageRow(page.id), before);
        const defect = (await check(me, page.id, { item: 2, state: 'defect', value: 14, note: 'Brenner verrußt' })).checklist![1]!;
        assert.deepEqual([defect.state, defect.value, defect.deviation, defect.note], ['defect', 14, 'above', 'Brenner verrußt']);
        // Removing the note of a defect is refused; changing it is taken.
        assertNamed(await api('POST', checkUrl(page.id), me, { item: 2, note: null }), 2, 'Abgasverlust', 'body.note');
        assertNamed(await api('POST', checkUrl(page.id), me, { item: 2, note: ' ' }), 2, 'Abgasverlust', 'body.note');
        assert.equal((await stored(page.id))[1]!.note, 'Brenner verrußt');
        assert.equal((await check(me, page.id, { item: 2, note: 'Brenner gereinigt' })).checklist![1]!.note, 'Brenner gereinigt');
      });

      describe('refusals of an answer name the item and change nothing', () => {
        const cases: Array<[string, Record<string, unknown> | string, string, (string | RegExp)?]> = [
          ['a value as text with a decimal comma', { item: 3, value: '6,8' }, 'body.value', 'muss eine Zahl sein'],
          ['a value as "NaN"', { item: 3, value: 'NaN' }, 'body.value', 'muss eine Zahl sein'],
          ['a value as an object', { item: 3, value: { bar: 6.8 } }, 'body.value', 'muss eine Zahl sein'],
          ['a value as a list', { item: 3, value: [6.8] }, 'body.value', 'muss eine Zahl sein'],
          ['a value of 1e999 (Infinity once parsed)', '{"item":3,"value":1e999}', 'body.value'],
          ['a value beyond 1e9', { item: 3, value: 1_000_000_000.5 }, 'body.value'],
          ['a value below -1e9', { item: 3, value: -2e9 }, 'body.value'],
          ['a value with seven decimals', { item: 3, value: 1.2345678 }, 'body.value', 'höchstens 6 Nachkommastellen'],
          ['a note of 2001 characters', { item: 3, state: 'ok', note: 'n'.repeat(2001) }, 'body.note'],
          ['an unknown state', { item: 3, state: 'kaputt' }, 'body.state'],
          ['11 photos', { item: 3, photos: Array.from({ length: 11 }, (_, i) => `IMG_${i}.jpg`) }, 'body.photos'],
          ['an unknown field', { item: 3, state: 'ok', comment: 'x' }, 'body.comment', 'unbekanntes Feld'],
          ['checked_at as text', { item: 3, state: 'ok', checked_at: '2026-01-01' }, 'body.checked_at'],
        ];
        for (const [what, body, field, says] of cases) {
          test(what, async () => {
            const { me, page } = await setup();
            await check(me, page.id, { item: 3, state: 'ok', value: 2 });
            const before = await pageRow(page.id);
            assertNamed(await api('POST', checkUrl(page.id), me, body), 3, 'Vordruck', field, says);
            assert.deepEqual(await pageRow(page.id), before);
          });
        }

        test('an unknown item is 400 naming it; a missing or malformed item is 400', async () => {
          const { me, page } = await setup();
          const before = await pageRow(page.id);
          const body = assertError(await api('POST', checkUrl(page.id), me, { item: 99, state: 'ok' }), 400, 'VALIDATION_FAILED');
          assert.match(body.error as string, /Punkt 99 gibt es auf dieser Seite nicht/);
          assert.deepEqual(body.details, [{ field: 'body.item', item: 99, label: null, message: 'unknown item' }]);
          for (const bad of [
            { state: 'ok' },
            { item: 0, state: 'ok' },
            { item: 1.5, state: 'ok' },
            { item: '1', state: 'ok' },
            { item: null },
          ]) {
            assertError(await api('POST', checkUrl(page.id), me, bad), 400, 'VALIDATION_FAILED');
          }
          assertError(await api('POST', checkUrl(page.id), me, '[1]'), 400, 'VALIDATION_FAILED');
          assert.deepEqual(await pageRow(page.id), before);
        });
      });

      test('photos: files of the order, as links; repeated names once; an empty list clears', async () => {
        const { me, order, page } = await setup();
        const answered = (
          await check(me, page.id, { item: 1, state: 'defect', note: 'Riss', photos: ['IMG_1.jpg', 'IMG_2.png', 'IMG_1.jpg'] })
        ).checklist![0]!;
        assert.deepEqual(answered.photos, [
          {
            name: 'IMG_1.jpg',
            source_path: `commande/${order.ref}/IMG_1.jpg`,
            url: fileLink(`${order.ref}/IMG_1.jpg`),
            thumb_url: fileLink(`${order.ref}/IMG_1.jpg`, 'small'),
          },
          {
            name: 'IMG_2.png',
            source_path: `commande/${order.ref}/IMG_2.png`,
            url: fileLink(`${order.ref}/IMG_2.png`),
            thumb_url: fileLink(`${order.ref}/IMG_2.png`, 'small'),
          },
        ]);
        assert.deepEqual((await stored(page.id))[0]!.photos, [`commande/${order.ref}/IMG_1.jpg`, `commande/${order.ref}/IMG_2.png`]);
        // Without photos they stay; [] clears them.
        assert.equal((await check(me, page.id, { item: 1, note: 'Riss im Gehäuse' })).checklist![0]!.photos.length, 2);
        assert.deepEqual((await check(me, page.id, { item: 1, photos: [] })).checklist![0]!.photos, []);
        // Ten are the most; ten different names of the order are taken.
        for (let i = 0; i < 10; i++) await writeFile(path.join(order.dir, `P${i}.jpg`), jpeg);
        const ten = (await check(me, page.id, { item: 1, photos: Array.from({ length: 10 }, (_, i) => `P${i}.jpg`) })).checklist![0]!;
        assert.equal(ten.photos.length, 10);
      });

      test('a photo a checklist item points at cannot be deleted from the order (409 PHOTO_IN_USE) until no item points at it', async () => {
        const { me, order, report, page } = await setup();
        await check(me, page.id, { item: 1, state: 'defect', note: 'Riss', photos: ['IMG_1.jpg'] });
        const refused = await api('POST', '/api/delete_photo.php', me, { id: order.id, file: 'IMG_1.jpg' });
        assertError(refused, 409, 'PHOTO_IN_USE');
        assert.deepEqual(refused.json().details, { reports: [report.ref] });
        assert.ok((await readdir(order.dir)).includes('IMG_1.jpg'));
        // A name that only shares a prefix is not in use; once the item lets go, the photo may go.
        await writeFile(path.join(order.dir, 'IMG_1.jpg_x.jpg'), jpeg);
        assert.equal((await api('POST', '/api/delete_photo.php', me, { id: order.id, file: 'IMG_1.jpg_x.jpg' })).statusCode, 200);
        await check(me, page.id, { item: 1, photos: [] });
        assert.equal((await api('POST', '/api/delete_photo.php', me, { id: order.id, file: 'IMG_1.jpg' })).statusCode, 200);
      });

      test('a photo that does not exist, of another order, no image, a GIF, or with a folder in its name is refused and changes nothing', async () => {
        const { me, page } = await setup();
        const other = await orderWith(me.id, { 'FREMD.jpg': jpeg });
        await check(me, page.id, { item: 1, state: 'ok', photos: ['IMG_1.jpg'] });
        const before = await pageRow(page.id);
        assertError(await api('POST', checkUrl(page.id), me, { item: 1, photos: ['fehlt.jpg'] }), 404, 'FILE_NOT_FOUND');
        assertError(await api('POST', checkUrl(page.id), me, { item: 1, photos: ['IMG_1.jpg', 'FREMD.jpg'] }), 404, 'FILE_NOT_FOUND');
        assertError(await api('POST', checkUrl(page.id), me, { item: 1, photos: ['anim.gif'] }), 415, 'UPLOAD_TYPE_UNSUPPORTED');
        assertError(await api('POST', checkUrl(page.id), me, { item: 1, photos: ['notiz.jpg'] }), 400, 'IMAGE_INVALID');
        for (const name of [`../${other.ref}/FREMD.jpg`, 'sub/IMG_1.jpg', '/etc/passwd', '..\\IMG_1.jpg']) {
          assertError(await api('POST', checkUrl(page.id), me, { item: 1, photos: [name] }), 400, 'FILE_PATH_INVALID');
        }
        assertError(await api('POST', checkUrl(page.id), me, { item: 1, photos: [''] }), 400, 'VALIDATION_FAILED');
        assertError(await api('POST', checkUrl(page.id), me, { item: 1, photos: 'IMG_1.jpg' }), 400, 'VALIDATION_FAILED');
        assert.deepEqual(await pageRow(page.id), before);
      });

      test("checked_at: the phone's time when plausible; in the future or more than 30 days back, the service's", async () => {
        const { me, page } = await setup();
        const phone = now() - 3 * 3600;
        assert.equal((await check(me, page.id, { item: 1, state: 'ok', checked_at: phone })).checklist![0]!.checked_at, phone);
        assert.equal((await stored(page.id))[0]!.checked_at, phone);
        const slightlyAhead = now() + 120;
        assert.equal(
          (await check(me, page.id, { item: 1, state: 'ok', checked_at: slightlyAhead })).checklist![0]!.checked_at,
          slightlyAhead,
        );
        const monthAgo = now() - 29 * 86_400;
        assert.equal((await check(me, page.id, { item: 1, state: 'ok', checked_at: monthAgo })).checklist![0]!.checked_at, monthAgo);
        for (const implausible of [now() + 3600, now() - 31 * 86_400, 0, 4_102_444_800]) {
          const t0 = now();
          const at = (await check(me, page.id, { item: 1, state: 'ok', checked_at: implausible })).checklist![0]!.checked_at!;
          assert.ok(at >= t0 && at <= now(), `${implausible} replaced by the service's time, got ${at}`);
          assert.equal((await stored(page.id))[0]!.checked_at, at);
        }
        for (const bad of [-1, 4_102_444_801, 1.5])
          assertError(await api('POST', checkUrl(page.id), me, { item: 1, state: 'ok', checked_at: bad }), 400, 'VALIDATION_FAILED');
      });

      test('check_all: open items become ok, except measurements without a value or outside their limits; defect, na and ok stay as they are', async () => {
        const { me, report } = await setup();
        const page = await addPage(me, report.id, {
          layout: 'checklist',
          checklist: [
            { label: 'Sicht' },
            { label: 'Druck ohne Wert', unit: 'bar', lower: 1, upper: 2 },
            { label: 'Druck darüber', unit: 'bar', lower: 1, upper: 2 },
            { label: 'Druck darunter', lower: 1 },
            { label: 'Druck im Rahmen', unit: 'bar', lower: 1, upper: 2 },
            { label: 'Druck auf der Grenze', upper: 2 },
            { label: 'Nur Einheit mit Wert', unit: 'ppm' },
            { label: 'Nur Einheit ohne Wert', unit: 'ppm' },
            { label: 'Mangel' },
            { label: 'Entfällt' },
            { label: 'Schon OK' },
          ],
        });
        const earlier = now() - 7200;
        await check(me, page.id, { item: 3, value: 2.1 });
        await check(me, page.id, { item: 4, value: 0.5 });
        await check(me, page.id, { item: 5, value: 1.5 });
        await check(me, page.id, { item: 6, value: 2 });
        await check(me, page.id, { item: 7, value: 12 });
        await check(me, page.id, { item: 9, state: 'defect', note: 'undicht', checked_at: earlier });
        await check(me, page.id, { item: 10, state: 'na', checked_at: earlier });
        await check(me, page.id, { item: 11, state: 'ok', checked_at: earlier });
        const before = await stored(page.id);
        const phone = now() - 60;
        const res = await api('POST', checkAllUrl(page.id), me, { state: 'ok', checked_at: phone });
        assert.equal(res.statusCode, 200, res.body);
        const items = (res.json() as PageResponse).checklist!;
        assert.deepEqual(
          items.map((i) => [i.id, i.state]),
          [
            [1, 'ok'],
            [2, 'open'],
            [3, 'open'],
            [4, 'open'],
            [5, 'ok'],
            [6, 'ok'],
            [7, 'ok'],
            [8, 'open'],
            [9, 'defect'],
            [10, 'na'],
            [11, 'ok'],
          ],
        );
        for (const id of [1, 5, 6, 7])
          assert.deepEqual([items[id - 1]!.checked_at, items[id - 1]!.checked_by], [phone, me.id], `item ${id}`);
        const after = await stored(page.id);
        // Skipped and already answered items are exactly as they were (time and person too).
        for (const id of [2, 3, 4, 8, 9, 10, 11]) assert.deepEqual(after[id - 1], before[id - 1], `item ${id}`);
        assert.deepEqual(
          after.map((i) => i.state),
          items.map((i) => i.state),
        );
        // A second run changes nothing more.
        const again = await api('POST', checkAllUrl(page.id), me, { state: 'ok' });
        assert.equal(again.statusCode, 200, again.body);
        assert.deepEqual(await stored(page.id), after);
      });

      test('check_all takes only {"state":"ok"}', async () => {
        const { me, page } = await setup();
        const before = await pageRow(page.id);
        for (const bad of [{}, { state: 'defect' }, { state: 'OK' }, { state: 'ok', items: [1] }, { state: 'ok', checked_at: 'jetzt' }]) {
          assertError(await api('POST', checkAllUrl(page.id), me, bad), 400, 'VALIDATION_FAILED');
        }
        assert.deepEqual(await pageRow(page.id), before);
      });
    });

    describe('rights, visibility, templates, versions, final reports', () => {
      test('no token 401; read-only 403; a technician who does not see the order 404 on check, check_all, update and the report', async () => {
        const { me, order, report, page } = await setup();
        const before = await pageRow(page.id);
        for (const url of [checkUrl(page.id), checkAllUrl(page.id), updateUrl(page.id), addUrl(report.id)]) {
          assertError(await api('POST', url, null, { item: 1, state: 'ok' }), 401, 'AUTH_TOKEN_MISSING');
        }
        const reader = await caller(['read'], true);
        assertError(await api('POST', checkUrl(page.id), reader, { item: 1, state: 'ok' }), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', checkAllUrl(page.id), reader, { state: 'ok' }), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', updateUrl(page.id), reader, { checklist: [] }), 403, 'AUTH_RIGHT_MISSING');
        // The reader (an admin) sees the items.
        assert.equal((await detail(reader, report.id)).pages[0]!.checklist!.length, 4);
        const stranger = await caller();
        assertError(await api('POST', checkUrl(page.id), stranger, { item: 1, state: 'ok' }), 404, 'PAGE_NOT_FOUND');
        assertError(await api('POST', checkAllUrl(page.id), stranger, { state: 'ok' }), 404, 'PAGE_NOT_FOUND');
        assertError(await api('POST', updateUrl(page.id), stranger, { checklist: [] }), 404, 'PAGE_NOT_FOUND');
        assertError(await api('GET', `/api/reports.php?id=${report.id}`, stranger), 404, 'REPORT_NOT_FOUND');
        // A bad body from a stranger names nothing of the page.
        const bad = assertError(await api('POST', checkUrl(page.id), stranger, { item: 1, value: '6,8' }), 400, 'VALIDATION_FAILED');
        assert.doesNotMatch(bad.error as string, /Sichtprüfung|Punkt/);
        assertError(await api('POST', checkUrl(2147483647), me, { item: 1, state: 'ok' }), 404, 'PAGE_NOT_FOUND');
        assertError(await api('POST', '/api/pages.php?action=check', me, { item: 1, state: 'ok' }), 400, 'VALIDATION_FAILED');
        assert.deepEqual(await pageRow(page.id), before);
        // Named on the order, the other technician may answer.
        const colleague = await caller();
        await ctx.handle.db.updateTable('commande').set({ fk_user_valid: colleague.id }).where('rowid', '=', order.id).execute();
        assert.equal((await check(colleague, page.id, { item: 1, state: 'ok' })).checklist![0]!.checked_by, colleague.id);
      });

      test('a template: its checklist is defined by an admin only (403 otherwise) and is not filled in (409)', async () => {
        const admin = await caller(['read', 'write', 'delete'], true);
        const writer = await caller();
        const created = await api('POST', '/api/templates.php?action=create', admin, { template_label: `Wartung Gas ${Date.now()}` });
        assert.equal(created.statusCode, 201, created.body);
        const template = created.json() as { id: number };
        assertError(await api('POST', addUrl(template.id), writer, { layout: 'checklist', checklist: ITEMS }), 403, 'AUTH_RIGHT_MISSING');
        assert.equal((await pageRows(template.id)).length, 0);
        const page = await addPage(admin, template.id, { layout: 'checklist', title: 'Prüfliste', checklist: ITEMS });
        assert.equal(page.checklist!.length, 4);
        const before = await pageRow(page.id);
        assertError(await api('POST', updateUrl(page.id), writer, { checklist: [{ label: 'Nur einer' }] }), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', checkUrl(page.id), writer, { item: 1, state: 'ok' }), 403, 'AUTH_RIGHT_MISSING');
        assertError(await api('POST', checkUrl(page.id), admin, { item: 1, state: 'ok' }), 409, 'CONFLICT');
        assertError(await api('POST', checkAllUrl(page.id), admin, { state: 'ok' }), 409, 'CONFLICT');
        assert.deepEqual(await pageRow(page.id), before);
        const changed = await api('POST', updateUrl(page.id), admin, {
          checklist: [{ id: 2, label: 'Abgasverlust', unit: '%', upper: 10 }, { label: 'Flammenbild' }],
        });
        assert.equal(changed.statusCode, 200, changed.body);
        assert.deepEqual((changed.json() as PageResponse).checklist, [
          openItem(2, 'Abgasverlust', '%', null, 10),
          openItem(5, 'Flammenbild'),
        ]);
      });

      test('a report from a template gets its items with every answer cleared; so does a template made from an answered report', async () => {
        const admin = await caller(['read', 'write', 'delete'], true);
        const tech = await caller();
        const order = await orderWith(admin.id, { 'IMG_1.jpg': jpeg });
        const source = await newReport(admin, order.id);
        const sourcePage = await addPage(admin, source.id, { layout: 'checklist', title: 'Prüfliste', checklist: ITEMS });
        await check(admin, sourcePage.id, { item: 1, state: 'defect', note: 'Riss', photos: ['IMG_1.jpg'] });
        await check(admin, sourcePage.id, { item: 3, state: 'ok', value: 1.9 });
        const created = await api('POST', '/api/templates.php?action=create', admin, {
          template_label: `Aus Bericht ${Date.now()}`,
          from_report: source.id,
        });
        assert.equal(created.statusCode, 201, created.body);
        const template = created.json() as { id: number; pages: PageResponse[] };
        const fresh = [
          openItem(1, 'Sichtprüfung Kessel'),
          openItem(2, 'Abgasverlust', '%', null, 11),
          openItem(3, 'Vordruck', 'bar', 1.5, 2.5),
          openItem(4, 'CO-Gehalt', 'ppm'),
        ];
        assert.deepEqual(template.pages[0]!.checklist, fresh);
        // Answers written into a template by other software are not copied either.
        const templatePage = template.pages[0]!.id;
        const answered = (await stored(templatePage)).map((i) => ({
          ...i,
          state: 'ok',
          value: 1,
          note: 'alt',
          checked_at: 1_700_000_000,
          checked_by: admin.id,
        }));
        await ctx.handle.db
          .updateTable('bericht_page')
          .set({ checklist: JSON.stringify(answered) })
          .where('rowid', '=', templatePage)
          .execute();
        const techOrder = await orderWith(tech.id);
        for (const [url, body] of [
          ['/api/reports.php?action=create', { fk_element: techOrder.id, title: 'Wartung', template_id: template.id }],
          ['/api/templates.php?action=create_from_template', { template_id: template.id, fk_element: techOrder.id }],
        ] as const) {
          const res = await api('POST', url, tech, body);
          assert.equal(res.statusCode, 201, res.body);
          const report = res.json() as { id: number; pages: PageResponse[] };
          assert.deepEqual(
            report.pages.map((p) => p.checklist),
            [fresh],
          );
          const rows = await pageRows(report.id);
          assert.deepEqual(
            JSON.parse(rows[0]!.checklist!),
            fresh.map(({ deviation: _d, defect: _defect, ...item }) => item),
          );
          // The copy is the report's own: answering it leaves the template alone.
          await check(tech, rows[0]!.rowid, { item: 2, value: 9 });
          assert.deepEqual(await stored(templatePage), answered);
        }
      });

      test('a new version keeps the answers; a final report is 409 REPORT_FINAL on check, check_all and update', async () => {
        const { me, order, report, page } = await setup();
        await check(me, page.id, { item: 1, state: 'defect', note: 'Riss', photos: ['IMG_1.jpg'], checked_at: now() - 100 });
        await check(me, page.id, { item: 3, value: 3.1 });
        await setStatus(report.id, 1);
        const before = await pageRow(page.id);
        assertError(await api('POST', checkUrl(page.id), me, { item: 2, state: 'ok' }), 409, 'REPORT_FINAL');
        assertError(await api('POST', checkAllUrl(page.id), me, { state: 'ok' }), 409, 'REPORT_FINAL');
        assertError(await api('POST', updateUrl(page.id), me, { checklist: [{ label: 'Neu' }] }), 409, 'REPORT_FINAL');
        assertError(await api('POST', addUrl(report.id), me, { layout: 'checklist', checklist: [{ label: 'Neu' }] }), 409, 'REPORT_FINAL');
        assert.deepEqual(await pageRow(page.id), before);
        const version = await api('POST', `/api/reports.php?id=${report.id}&action=new_version`, me);
        assert.equal(version.statusCode, 201, version.body);
        const copy = (version.json() as { pages: PageResponse[] }).pages[0]!;
        assert.notEqual(copy.id, page.id);
        assert.deepEqual(copy.checklist, (await detail(me, report.id)).pages[0]!.checklist);
        assert.equal(copy.checklist![0]!.photos[0]!.source_path, `commande/${order.ref}/IMG_1.jpg`);
        assert.deepEqual([copy.checklist![2]!.value, copy.checklist![2]!.deviation], [3.1, 'above']);
        assert.deepEqual(await stored(copy.id), JSON.parse(before.checklist!));
        // The new version is a draft: it is answered on its own.
        await check(me, copy.id, { item: 3, value: 2 });
        assert.deepEqual(await pageRow(page.id), before);
      });
    });

    describe('signature', () => {
      /** A draft with an answered checklist page (item 1 with a photo) and a title page. */
      async function answeredReport() {
        const { me, order, report, page } = await setup();
        await check(me, page.id, { item: 1, state: 'ok', photos: ['IMG_1.jpg'] });
        await check(me, page.id, { item: 2, state: 'defect', value: 12, note: 'Brenner verrußt' });
        await check(me, page.id, { item: 3, value: 2 });
        const title = await addPage(me, report.id, { title: 'Ergebnis' });
        return { me, order, report, page, title };
      }
      const verify = (who: Caller, pageId: number) => api('GET', `/ajax/verify_signature.php?id=${pageId}`, who);
      const digest = async (relPath: string) => fileSha256(path.join(ctx.config.dataRoot, relPath)).catch(() => undefined);

      test('a signed checklist cannot change (409 PAGE_SIGNED); verification holds; a change in the stored items is found', async () => {
        const { me, order, report, page } = await answeredReport();
        const signed = await sign(me, report.id);
        assert.equal(signed.statusCode, 201, signed.body);
        const sig = signed.json() as PageResponse & { source_path: string };
        const meta = JSON.parse(await readFile(path.join(ctx.config.dataRoot, sig.source_path.replace(/\.png$/, '.json')), 'utf8')) as {
          hash: string;
        };
        // The sealed hash is the one over the stored pages, the checklist's items included.
        const rows = (await pageRows(report.id)).filter((r) => Number(r.rowid) !== sig.id);
        assert.equal(await pagesHash(report.ref, rows, digest), meta.hash);
        const without = rows.map((r) =>
          r.layout === 'checklist'
            ? { ...r, checklist: JSON.stringify((JSON.parse(r.checklist!) as StoredItem[]).map((i) => ({ ...i, value: null }))) }
            : r,
        );
        assert.notEqual(await pagesHash(report.ref, without, digest), meta.hash, 'the items are in the hash');

        const before = await pageRow(page.id);
        assertError(await api('POST', checkUrl(page.id), me, { item: 4, value: 3 }), 409, 'PAGE_SIGNED');
        assertError(await api('POST', checkAllUrl(page.id), me, { state: 'ok' }), 409, 'PAGE_SIGNED');
        assertError(await api('POST', updateUrl(page.id), me, { checklist: [{ label: 'Anders' }] }), 409, 'PAGE_SIGNED');
        assertError(await api('POST', updateUrl(page.id), me, { title: 'Anders' }), 409, 'PAGE_SIGNED');
        assert.deepEqual(await pageRow(page.id), before);
        const ok = await verify(me, sig.id);
        assert.equal(ok.statusCode, 200, ok.body);
        assert.equal(ok.json().verified, true, ok.body);

        // Tampering with the stored items: a value, a state, a note, the order of two items.
        const items = JSON.parse(before.checklist!) as StoredItem[];
        const tamperings: Array<[string, StoredItem[]]> = [
          ['a value', items.map((i) => (i.id === 3 ? { ...i, value: 2.000001 } : i))],
          ['a state', items.map((i) => (i.id === 2 ? { ...i, state: 'ok' as const } : i))],
          ['a note', items.map((i) => (i.id === 2 ? { ...i, note: 'Brenner sauber' } : i))],
          ['a limit', items.map((i) => (i.id === 2 ? { ...i, upper: 13 } : i))],
          ['a label', items.map((i) => (i.id === 4 ? { ...i, label: 'CO2-Gehalt' } : i))],
          ['an item removed', items.filter((i) => i.id !== 4)],
          ['two items swapped', [items[1]!, items[0]!, items[2]!, items[3]!]],
          ['a photo removed', items.map((i) => (i.id === 1 ? { ...i, photos: [] } : i))],
        ];
        for (const [what, changed] of tamperings) {
          await ctx.handle.db
            .updateTable('bericht_page')
            .set({ checklist: JSON.stringify(changed) })
            .where('rowid', '=', page.id)
            .execute();
          const res = (await verify(me, sig.id)).json();
          assert.equal(res.verified, false, what);
          assert.equal(res.reason, 'content_changed', what);
          assert.equal(res.checks.hash, false, what);
        }
        await ctx.handle.db.updateTable('bericht_page').set({ checklist: before.checklist }).where('rowid', '=', page.id).execute();
        assert.equal((await verify(me, sig.id)).json().verified, true, 'restored');
        // Who answered and when is not content: changing it keeps the signature.
        const retimed = items.map((i) => ({ ...i, checked_at: 1_600_000_000, checked_by: 1 }));
        await ctx.handle.db
          .updateTable('bericht_page')
          .set({ checklist: JSON.stringify(retimed) })
          .where('rowid', '=', page.id)
          .execute();
        assert.equal((await verify(me, sig.id)).json().verified, true, 'checked_at/checked_by are not covered');
        // A photo of an item replaced on disk.
        await sharp({ create: { width: 64, height: 48, channels: 3, background: '#0f0' } })
          .jpeg()
          .toFile(path.join(order.dir, 'IMG_1.jpg'));
        const replaced = (await verify(me, sig.id)).json();
        assert.deepEqual([replaced.verified, replaced.reason], [false, 'content_changed']);
      });

      test("the hash changes with an item's value, state, note, limits, photo bytes and order; not with who answered or when", async () => {
        const base: StoredItem[] = [
          {
            id: 1,
            label: 'Abgasverlust',
            unit: '%',
            lower: null,
            upper: 11,
            state: 'ok',
            value: 5,
            note: null,
            photos: ['commande/CO1/a.jpg'],
            checked_at: 1_700_000_000,
            checked_by: 7,
            ok_reason: null,
          },
          {
            id: 2,
            label: 'Sicht',
            unit: null,
            lower: null,
            upper: null,
            state: 'open',
            value: null,
            note: null,
            photos: [],
            checked_at: null,
            checked_by: null,
            ok_reason: null,
          },
        ];
        const page = (items: StoredItem[]): HashedPage => ({
          layout: 'checklist',
          title: 'Prüfliste',
          note: null,
          rotation: 0,
          source_path: null,
          source_path_2: null,
          checklist: JSON.stringify(items),
        });
        const bytes = (sha: string) => async () => sha;
        const hash = (items: StoredItem[], sha = 'a'.repeat(64)) => pagesHash('BR2601-0001', [page(items)], bytes(sha));
        const reference = await hash(base);
        const change = (patch: Partial<StoredItem>) => [{ ...base[0]!, ...patch }, base[1]!];
        for (const [what, items] of [
          ['value 5 → 6', change({ value: 6 })],
          ['value 5 → null', change({ value: null })],
          ['state', change({ state: 'defect', note: 'x' })],
          ['note', change({ note: 'gemessen' })],
          ['upper', change({ upper: 12 })],
          ['lower', change({ lower: 0 })],
          ['unit', change({ unit: 'ppm' })],
          ['label', change({ label: 'Abgas' })],
          ['photo path', change({ photos: ['commande/CO1/b.jpg'] })],
          ['order', [base[1]!, base[0]!]],
          ['an item more', [...base, { ...base[1]!, id: 3 }]],
        ] as Array<[string, StoredItem[]]>) {
          assert.notEqual(await hash(items), reference, what);
        }
        assert.notEqual(await hash(base, 'b'.repeat(64)), reference, 'photo bytes');
        assert.equal(await hash(change({ checked_at: 1, checked_by: 99 })), reference, 'who and when are not content');
        assert.equal(await hash(change({ id: 42 })), reference, 'the id is no content, the position is');
        // Items on a page of another layout are not hashed: its hash is as it was before checklists.
        const title: HashedPage = { layout: 'title_only', title: 'T', note: null, rotation: 0, source_path: null, source_path_2: null };
        assert.equal(
          await pagesHash('BR2601-0001', [{ ...title, checklist: JSON.stringify(base) }], bytes('')),
          await pagesHash('BR2601-0001', [title], bytes('')),
        );
      });
    });

    describe('Idempotency-Key', () => {
      test('add and update: a repeat returns the first answer and changes nothing twice', async () => {
        const { me, report, page } = await setup();
        const key = `add-${Date.now()}-${Math.random()}`;
        const first = await api('POST', addUrl(report.id), me, { layout: 'checklist', checklist: [{ label: 'A' }] }, { key });
        assert.equal(first.statusCode, 201, first.body);
        const again = await api(
          'POST',
          addUrl(report.id),
          me,
          { layout: 'checklist', checklist: [{ label: 'B' }, { label: 'C' }] },
          { key },
        );
        assert.equal(again.statusCode, 201, again.body);
        assert.deepEqual(again.json(), first.json());
        assert.equal((await pageRows(report.id)).length, 2);
        const updateKey = `upd-${Date.now()}-${Math.random()}`;
        const updated = await api('POST', updateUrl(page.id), me, { checklist: [{ id: 1, label: 'Eins' }] }, { key: updateKey });
        assert.equal(updated.statusCode, 200, updated.body);
        const storedAfter = await pageRow(page.id);
        const repeat = await api(
          'POST',
          updateUrl(page.id),
          me,
          { checklist: [{ id: 1, label: 'Zwei' }, { label: 'Drei' }] },
          { key: updateKey },
        );
        assert.equal(repeat.statusCode, 200);
        assert.deepEqual(repeat.json(), updated.json());
        assert.deepEqual(await pageRow(page.id), storedAfter);
      });

      test('check: the same key with value 6 after value 5 answers 5 and leaves 5 stored; check_all likewise', async () => {
        const { me, page } = await setup();
        const key = `check-${Date.now()}-${Math.random()}`;
        const first = await api('POST', checkUrl(page.id), me, { item: 3, value: 5 }, { key });
        assert.equal(first.statusCode, 200, first.body);
        assert.equal(first.json().checklist[2].value, 5);
        const second = await api('POST', checkUrl(page.id), me, { item: 3, value: 6 }, { key });
        assert.equal(second.statusCode, 200, second.body);
        assert.deepEqual(second.json(), first.json());
        assert.equal((await stored(page.id))[2]!.value, 5);

        const allKey = `all-${Date.now()}-${Math.random()}`;
        const all = await api('POST', checkAllUrl(page.id), me, { state: 'ok' }, { key: allKey });
        assert.equal(all.statusCode, 200, all.body);
        assert.equal(all.json().checklist[0].state, 'ok');
        // Item 1 is answered anew; the repeat answers as the first time and sets nothing back.
        await check(me, page.id, { item: 1, state: 'defect', note: 'doch nicht' });
        const storedNow = await pageRow(page.id);
        const allAgain = await api('POST', checkAllUrl(page.id), me, { state: 'ok' }, { key: allKey });
        assert.equal(allAgain.statusCode, 200);
        assert.deepEqual(allAgain.json(), all.json());
        assert.deepEqual(await pageRow(page.id), storedNow);
      });

      test('a key used on another page or for another operation is 409 IDEMPOTENCY_KEY_REUSED; a refused request keeps no key', async () => {
        const { me, report, page } = await setup();
        const other = await addPage(me, report.id, { layout: 'checklist', checklist: [{ label: 'A' }] });
        const key = `reuse-${Date.now()}-${Math.random()}`;
        assert.equal((await api('POST', checkUrl(page.id), me, { item: 1, state: 'ok' }, { key })).statusCode, 200);
        const otherBefore = await pageRow(other.id);
        assertError(await api('POST', checkUrl(other.id), me, { item: 1, state: 'ok' }, { key }), 409, 'IDEMPOTENCY_KEY_REUSED');
        assertError(await api('POST', checkAllUrl(page.id), me, { state: 'ok' }, { key }), 409, 'IDEMPOTENCY_KEY_REUSED');
        assertError(await api('POST', updateUrl(page.id), me, { title: 'x' }, { key }), 409, 'IDEMPOTENCY_KEY_REUSED');
        assert.deepEqual(await pageRow(other.id), otherBefore);
        assert.equal((await stored(page.id))[1]!.state, 'open');
        // Refused (a defect without a note): the key stays free for the corrected request.
        const retry = `retry-${Date.now()}-${Math.random()}`;
        assertNamed(await api('POST', checkUrl(page.id), me, { item: 2, state: 'defect' }, { key: retry }), 2, 'Abgasverlust', 'body.note');
        const fixed = await api('POST', checkUrl(page.id), me, { item: 2, state: 'defect', note: 'verrußt' }, { key: retry });
        assert.equal(fixed.statusCode, 200, fixed.body);
        assert.equal((await stored(page.id))[1]!.note, 'verrußt');
      });

      test('a repeat after the photo it named is gone, or after the report was finalized, still gets the first answer', async () => {
        const { me, order, report, page } = await setup();
        const key = `photo-${Date.now()}-${Math.random()}`;
        const first = await api('POST', checkUrl(page.id), me, { item: 1, state: 'ok', photos: ['IMG_2.png'] }, { key });
        assert.equal(first.statusCode, 200, first.body);
        const { rm } = await import('node:fs/promises');
        await rm(path.join(order.dir, 'IMG_2.png'));
        await setStatus(report.id, 1);
        const again = await api('POST', checkUrl(page.id), me, { item: 1, state: 'ok', photos: ['IMG_2.png'] }, { key });
        assert.equal(again.statusCode, 200, again.body);
        assert.deepEqual(again.json(), first.json());
      });
    });

    describe('large checklists and bodies', () => {
      test('a body over the JSON body limit is 413 BODY_TOO_LARGE and stores nothing', async () => {
        const { me, report, page } = await setup();
        const before = await pageRows(report.id);
        const big = { layout: 'checklist', checklist: Array.from({ length: 150 }, (_, i) => ({ label: `P${i}`, unit: 'x'.repeat(8000) })) };
        assert.ok(JSON.stringify(big).length > ctx.config.bodyLimit);
        assertError(await api('POST', addUrl(report.id), me, big), 413, 'BODY_TOO_LARGE');
        assertError(
          await api('POST', checkUrl(page.id), me, { item: 1, note: 'n'.repeat(ctx.config.bodyLimit + 10) }),
          413,
          'BODY_TOO_LARGE',
        );
        assert.deepEqual(await pageRows(report.id), before);
      });

      test('200 items with notes of 2000 characters each are stored and read back whole', async () => {
        const { me, report } = await setup();
        const labels = Array.from({ length: 200 }, (_, i) => `Prüfpunkt ${i + 1} ${'ä'.repeat(150)}`);
        const page = await addPage(me, report.id, {
          layout: 'checklist',
          checklist: labels.map((label, i) => ({ label, unit: 'mbar', lower: -i, upper: i + 0.5 })),
        });
        const noteOf = (i: number) =>
          `${String(i + 1).padStart(3, '0')} Notiz: ${'Ölstand geprüft, Dichtung ersetzt. '.repeat(60)}`.slice(0, 2000);
        for (let i = 0; i < 200; i++) {
          const res = await api('POST', checkUrl(page.id), me, {
            item: i + 1,
            state: i % 7 === 0 ? 'defect' : 'ok',
            value: i + 0.123456,
            note: noteOf(i),
          });
          assert.equal(res.statusCode, 200, `item ${i + 1}: ${res.body.slice(0, 300)}`);
        }
        const row = await pageRow(page.id);
        assert.ok(row.checklist!.length > 400_000, `stored ${row.checklist!.length} characters`);
        const items = await stored(page.id);
        assert.equal(items.length, 200);
        for (const [i, item] of items.entries()) {
          assert.equal(item.note, noteOf(i), `note ${i + 1}`);
          assert.equal(item.note!.length, 2000);
          assert.equal(item.label, labels[i]);
          assert.equal(item.value, i + 0.123456);
        }
        const shown = (await detail(me, report.id)).pages.find((p) => p.id === page.id)!;
        assert.equal(shown.checklist!.length, 200);
        assert.equal(shown.checklist![199]!.note, noteOf(199));
        assert.deepEqual(
          shown.checklist!.map((i) => i.deviation),
          Array.from({ length: 200 }, () => null),
        );
        assert.deepEqual(
          shown.checklist!.map((i) => i.id),
          Array.from({ length: 200 }, (_, i) => i + 1),
        );
      });
    });

    describe('migration 0012', () => {
      test('on a database with reports from before it: pages read checklist null, bericht_time is made; on MariaDB the items are longtext', async () => {
        const { db } = ctx.handle;
        const me = await caller();
        const order = await orderWith(me.id);
        const report = await newReport(me, order.id);
        // The database as it was before 0012: no checklist column, no bericht_time, 0012 not recorded.
        const table = (name: string) => `${ctx.handle.prefix}${name}`;
        await sql`alter table ${sql.table(table('bericht_page'))} drop column checklist`.execute(db);
        await sql`drop table ${sql.table(table('bericht_time'))}`.execute(db);
        // The migrations after it are taken back too (they run again, changing nothing).
        await sql`delete from ${sql.table(table('bericht_migration'))} where name >= ${'0012-bericht-checklist-time'}`.execute(db);
        await sql`insert into ${sql.table(table('bericht_page'))} (fk_bericht, page_order, title, rotation, layout, datec, tms) values (${report.id}, 1, ${'Alt'}, 0, ${'title_only'}, ${toDbDateTime()}, ${toDbDateTime()})`.execute(
          db,
        );

        const result = await migrate(ctx.handle, ctx.config);
        assert.deepEqual(result.applied, [
          '0012-bericht-checklist-time',
          '0013-bericht-mail',
          '0014-bericht-photo-evidence',
          '0015-bericht-seal',
          '0016-bericht-page-users',
          '0017-bericht-sessions',
          '0018-bericht-page-prompt',
          '0019-standalone-assigned-work',
          '0020-standalone-fichinter',
          '0021-catalogue',
          '0022-stock-movements',
          '0023-intervention-lines',
          '0024-invoice-lines',
          '0025-report-invoice',
          '0026-report-own-material',
        ]);
        const tables = await db.introspection.getTables();
        const pageTable = tables.find((t) => t.name === table('bericht_page'))!;
        const column = pageTable.columns.find((c) => c.name === 'checklist');
        assert.ok(column, 'bericht_page.checklist');
        assert.equal(column.isNullable, true);
        if (dialect === 'mysql') assert.equal(column.dataType, 'longtext');
        const time = tables.find((t) => t.name === table('bericht_time'));
        assert.ok(time, 'bericht_time');
        assert.deepEqual(
          time.columns.map((c) => c.name).sort(),
          [
            'arrival',
            'arrival_tapped',
            'corrections',
            'datec',
            'departure',
            'departure_tapped',
            'element_type',
            'entity',
            'fk_bericht',
            'fk_element',
            'fk_user',
            'fk_user_modif',
            'rowid',
            'tms',
          ].sort(),
        );
        const rows = await pageRows(report.id);
        assert.deepEqual(
          rows.map((r) => [r.title, r.checklist]),
          [['Alt', null]],
        );
        const shown = await detail(me, report.id);
        assert.equal(shown.pages[0]!.checklist, null);
        // Run again: nothing to do.
        assert.deepEqual((await migrate(ctx.handle, ctx.config)).applied, []);
      });
    });
  });
}
