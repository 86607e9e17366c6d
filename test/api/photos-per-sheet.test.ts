/**
 * `photos_per_sheet` on every database: a report's PDF page layout (1, 2 or 4 photo pages on one
 * printed sheet). Its default, each value on create, a template's value taken over (unless the
 * body gives one), copied by new_version and by a template made from a report, changed on a draft
 * (and on a template, by a template manager) with action=update, refused on a final report, wrong
 * values refused, and other users' reports out of reach.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { photosPerSheetOf } from '../../src/modules/reports/photos-per-sheet.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

const WRONG_VALUES: unknown[] = [0, 3, '4', 5, null, 2.5, -1, true, [4], { n: 4 }];

test('photosPerSheetOf: 1, 2, 4 as they are (also as text, as a driver may read them); anything else the default 4', () => {
  assert.equal(photosPerSheetOf({ photos_per_sheet: 1 }), 1);
  assert.equal(photosPerSheetOf({ photos_per_sheet: 2 }), 2);
  assert.equal(photosPerSheetOf({ photos_per_sheet: '4' }), 4);
  for (const odd of [0, 3, 5, null, undefined, 'x']) assert.equal(photosPerSheetOf({ photos_per_sheet: odd as number }), 4, String(odd));
});

for (const dialect of testDialects()) {
  describe(`photos per sheet [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    const { caller, api } = testClient(() => ctx);

    const manager = () => caller(['read', 'write', 'delete'], true);

    async function ok(res: LightMyRequestResponse, status = 201) {
      assert.equal(res.statusCode, status, res.body);
      return res.json();
    }
    const create = (who: Caller, body: Record<string, unknown>) => api('POST', '/api/reports.php?action=create', who, body);
    const fromTemplate = (who: Caller, body: Record<string, unknown>) =>
      api('POST', '/api/templates.php?action=create_from_template', who, body);
    const createTemplate = (who: Caller, body: Record<string, unknown>) => api('POST', '/api/templates.php?action=create', who, body);
    const update = (who: Caller, id: number, body: unknown, key?: string) =>
      api('POST', `/api/reports.php?action=update&id=${id}`, who, body, { key });
    const stored = async (id: number) =>
      Number(
        (await ctx.handle.db.selectFrom('bericht').select('photos_per_sheet').where('rowid', '=', id).executeTakeFirstOrThrow())
          .photos_per_sheet,
      );
    const detail = async (who: Caller, id: number) => ok(await api('GET', `/api/reports.php?id=${id}`, who), 200);

    async function draft(who: Caller, body: Record<string, unknown> = {}) {
      const order = await ctx.make.order({ author: who.id });
      return { order, report: await ok(await create(who, { fk_element: order.id, title: 'Wartung', ...body })) };
    }

    test('a new report has 4, in its answer, its detail, the list and the row', async () => {
      const me = await caller();
      const { order, report } = await draft(me);
      assert.equal(report.photos_per_sheet, 4);
      assert.equal((await detail(me, report.id)).photos_per_sheet, 4);
      const list = await ok(await api('GET', `/api/reports.php?fk_element=${order.id}`, me), 200);
      assert.deepEqual(
        list.items.map((r: { id: number; photos_per_sheet: number }) => [r.id, r.photos_per_sheet]),
        [[report.id, 4]],
      );
      assert.equal(await stored(report.id), 4);
    });

    test('each of 1, 2 and 4 is taken on create and kept', async () => {
      const me = await caller();
      for (const n of [1, 2, 4]) {
        const { report } = await draft(me, { photos_per_sheet: n });
        assert.equal(report.photos_per_sheet, n);
        assert.equal((await detail(me, report.id)).photos_per_sheet, n);
        assert.equal(await stored(report.id), n);
      }
    });

    test('wrong values are 400 VALIDATION_FAILED naming the field, on create, from a template, on templates and on update; nothing is made or changed', async () => {
      const me = await caller();
      const admin = await manager();
      const order = await ctx.make.order({ author: me.id });
      const template = await ok(
        await createTemplate(admin, { template_label: `Vorlage ${randomBytes(3).toString('hex')}`, photos_per_sheet: 2 }),
      );
      const { report } = await draft(me, { photos_per_sheet: 1 });
      const before = Number(
        (
          await ctx.handle.db
            .selectFrom('bericht')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
      for (const value of WRONG_VALUES) {
        const label = JSON.stringify(value);
        const attempts = [
          create(me, { fk_element: order.id, title: 'x', photos_per_sheet: value }),
          fromTemplate(me, { template_id: template.id, fk_element: order.id, photos_per_sheet: value }),
          create(me, { fk_element: order.id, template_id: template.id, photos_per_sheet: value }),
          createTemplate(admin, { template_label: 'Falsch', photos_per_sheet: value }),
          update(me, report.id, { photos_per_sheet: value }),
          update(admin, template.id, { photos_per_sheet: value }),
        ];
        for (const res of await Promise.all(attempts)) {
          const body = assertError(res, 400, 'VALIDATION_FAILED');
          const fields = (body.details as Array<{ field: string }>).map((d) => d.field);
          assert.ok(
            fields.some((f) => f.startsWith('body.photos_per_sheet')),
            `${label}: ${res.body}`,
          );
        }
      }
      const after = Number(
        (
          await ctx.handle.db
            .selectFrom('bericht')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
      assert.equal(after, before, 'no report or template made');
      assert.equal(await stored(report.id), 1);
      assert.equal(await stored(template.id), 2);
    });

    test('update: a body without the field or with another field is 400; no id is 400', async () => {
      const me = await caller();
      const { report } = await draft(me);
      for (const body of [{}, { photos_per_sheet: 2, title: 'Neu' }, { title: 'Neu' }]) {
        assertError(await update(me, report.id, body), 400, 'VALIDATION_FAILED');
      }
      assertError(await api('POST', '/api/reports.php?action=update', me, { photos_per_sheet: 2 }), 400, 'VALIDATION_FAILED');
      assert.equal(await stored(report.id), 4);
    });

    describe('templates', () => {
      test('a template keeps its choice (default 4), lists it, and a report made from it takes it unless the body gives one', async () => {
        const me = await caller();
        const admin = await manager();
        const plain = await ok(await createTemplate(admin, { template_label: 'Ohne Wahl' }));
        assert.equal(plain.photos_per_sheet, 4);
        const two = await ok(await createTemplate(admin, { template_label: 'Zwei je Blatt', photos_per_sheet: 2 }));
        assert.equal(two.photos_per_sheet, 2);
        const listed = await ok(await api('GET', '/api/templates.php?limit=500', me), 200);
        const byId = new Map(listed.items.map((t: { id: number; photos_per_sheet: number }) => [t.id, t.photos_per_sheet]));
        assert.equal(byId.get(two.id), 2);
        assert.equal(byId.get(plain.id), 4);

        const order = await ctx.make.order({ author: me.id });
        assert.equal((await ok(await fromTemplate(me, { template_id: two.id, fk_element: order.id }))).photos_per_sheet, 2);
        assert.equal((await ok(await create(me, { template_id: two.id, fk_element: order.id }))).photos_per_sheet, 2);
        assert.equal(
          (await ok(await fromTemplate(me, { template_id: two.id, fk_element: order.id, photos_per_sheet: 1 }))).photos_per_sheet,
          1,
        );
        assert.equal((await ok(await create(me, { template_id: two.id, fk_element: order.id, photos_per_sheet: 4 }))).photos_per_sheet, 4);
        assert.equal((await ok(await fromTemplate(me, { template_id: plain.id, fk_element: order.id }))).photos_per_sheet, 4);
      });

      test("a template made from a report takes the report's choice unless the body gives one", async () => {
        const admin = await manager();
        const { report } = await draft(admin, { photos_per_sheet: 1 });
        assert.equal(
          (await ok(await createTemplate(admin, { template_label: 'Aus Bericht', from_report: report.id }))).photos_per_sheet,
          1,
        );
        assert.equal(
          (await ok(await createTemplate(admin, { template_label: 'Aus Bericht, 2', from_report: report.id, photos_per_sheet: 2 })))
            .photos_per_sheet,
          2,
        );
      });

      test("a template manager changes a template's choice; a writer without the template right gets 403 and nothing changes", async () => {
        const writer = await caller();
        const admin = await manager();
        const template = await ok(await createTemplate(admin, { template_label: 'Änderbar' }));
        assertError(await update(writer, template.id, { photos_per_sheet: 1 }), 403, 'AUTH_RIGHT_MISSING');
        assert.equal(await stored(template.id), 4);
        const changed = await ok(await update(admin, template.id, { photos_per_sheet: 1 }), 200);
        assert.equal(changed.photos_per_sheet, 1);
        assert.equal(changed.is_template, true);
        assert.equal(await stored(template.id), 1);
        const module = await caller(['read', 'write', 'admin']);
        assert.equal(
          (await ok(await update(module, template.id, { photos_per_sheet: 2 }), 200)).photos_per_sheet,
          2,
          "the module's admin right is the template right too",
        );
      });
    });

    describe('update', () => {
      test('a draft changes to each value; the answer is the report (pages and all), the row has it, tms and fk_user_modif are set', async () => {
        const me = await caller();
        const { report } = await draft(me);
        await ok(await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'Übergabe', note: 'ohne Befund' }));
        for (const n of [2, 1, 4, 4]) {
          const changed = await ok(await update(me, report.id, { photos_per_sheet: n }), 200);
          assert.equal(changed.photos_per_sheet, n);
          assert.equal(changed.id, report.id);
          assert.equal(changed.status, 'draft');
          assert.equal(changed.pages.length, 1);
          assert.equal(changed.pages[0].title, 'Übergabe');
          assert.deepEqual(
            changed.versions.map((v: { id: number }) => v.id),
            [report.id],
          );
          assert.equal(await stored(report.id), n);
        }
        const row = await ctx.handle.db
          .selectFrom('bericht')
          .select(['fk_user_modif', 'tms', 'title', 'format'])
          .where('rowid', '=', report.id)
          .executeTakeFirstOrThrow();
        assert.equal(Number(row.fk_user_modif), me.id);
        assert.ok(row.tms);
        assert.deepEqual([row.title, row.format], ['Wartung', 'A4'], 'nothing else changes');
      });

      test('a colleague named on the order changes it too; a user who does not see the report gets 404, one without the write right 403', async () => {
        const me = await caller();
        const colleague = await caller();
        const stranger = await caller();
        const reader = await caller(['read']);
        const order = await ctx.make.order({ author: me.id, modif: colleague.id });
        const report = await ok(await create(me, { fk_element: order.id, title: 'Gemeinsam' }));
        assertError(await update(stranger, report.id, { photos_per_sheet: 1 }), 404, 'REPORT_NOT_FOUND');
        assertError(await update(stranger, 99_999_999, { photos_per_sheet: 1 }), 404, 'REPORT_NOT_FOUND');
        assertError(await update(reader, report.id, { photos_per_sheet: 1 }), 403, 'AUTH_RIGHT_MISSING');
        assert.equal(await stored(report.id), 4);
        assert.equal((await ok(await update(colleague, report.id, { photos_per_sheet: 2 }), 200)).photos_per_sheet, 2);
        assert.equal(await stored(report.id), 2);
      });

      test("another user's report, on an order only its creator sees, is 404 for others; the creator's other report is untouched", async () => {
        const owner = await caller();
        const other = await caller();
        const { report } = await draft(owner, { photos_per_sheet: 2 });
        const { report: own } = await draft(other, { photos_per_sheet: 2 });
        assertError(await update(other, report.id, { photos_per_sheet: 1 }), 404, 'REPORT_NOT_FOUND');
        assertError(await api('GET', `/api/reports.php?id=${report.id}`, other), 404, 'REPORT_NOT_FOUND');
        assert.equal(await stored(report.id), 2);
        assert.equal((await ok(await update(other, own.id, { photos_per_sheet: 1 }), 200)).photos_per_sheet, 1);
        assert.equal(await stored(report.id), 2);
      });

      test('a final report is 409 REPORT_FINAL and keeps its value; its new version copies the value and can change', async () => {
        const me = await caller();
        const { report } = await draft(me, { photos_per_sheet: 2 });
        await ok(await api('POST', `/api/pages.php?action=add&bericht_id=${report.id}`, me, { title: 'Abnahme' }));
        const key = `pps-${randomBytes(6).toString('hex')}`;
        const first = await ok(await update(me, report.id, { photos_per_sheet: 1 }, key), 200);
        const final = await ok(await api('POST', `/api/reports.php?id=${report.id}&action=finalize`, me), 200);
        assert.equal(final.status, 'final');
        assert.equal(final.photos_per_sheet, 1);
        assertError(await update(me, report.id, { photos_per_sheet: 4 }), 409, 'REPORT_FINAL');
        assert.equal(await stored(report.id), 1);
        // A repeat of the change made before finalizing (a lost answer) gets its first answer.
        assert.deepEqual(await ok(await update(me, report.id, { photos_per_sheet: 1 }, key), 200), first);
        const v2 = await ok(await api('POST', `/api/reports.php?id=${report.id}&action=new_version`, me));
        assert.equal(v2.photos_per_sheet, 1);
        assert.equal(v2.status, 'draft');
        assert.equal((await ok(await update(me, v2.id, { photos_per_sheet: 4 }), 200)).photos_per_sheet, 4);
        assert.equal(await stored(report.id), 1, 'the final version keeps its value');
        const admin = await manager();
        assertError(await update(admin, report.id, { photos_per_sheet: 4 }), 409, 'REPORT_FINAL');
      });

      test('a final report made by other software (status 1) is refused too', async () => {
        const me = await caller();
        const order = await ctx.make.order({ author: me.id });
        const made = await ctx.make.report({ creator: me.id, element: order.id, status: 1 });
        assertError(await update(me, made.id, { photos_per_sheet: 1 }), 409, 'REPORT_FINAL');
        assert.equal(await stored(made.id), 4);
      });

      test('new_version copies each value', async () => {
        const me = await caller();
        for (const n of [1, 2, 4]) {
          const { report } = await draft(me, { photos_per_sheet: n });
          const v2 = await ok(await api('POST', `/api/reports.php?id=${report.id}&action=new_version`, me));
          assert.equal(v2.photos_per_sheet, n);
          assert.equal(await stored(v2.id), n);
        }
      });

      test('Idempotency-Key: a repeat answers the first answer; the key used for another report or action is 409 IDEMPOTENCY_KEY_REUSED', async () => {
        const me = await caller();
        const { order, report } = await draft(me);
        const { report: other } = await draft(me);
        const key = `pps-${randomBytes(6).toString('hex')}`;
        const first = await ok(await update(me, report.id, { photos_per_sheet: 2 }, key), 200);
        await ok(await update(me, report.id, { photos_per_sheet: 1 }), 200);
        assert.deepEqual(await ok(await update(me, report.id, { photos_per_sheet: 2 }, key), 200), first);
        assert.equal(await stored(report.id), 1, 'the repeat changed nothing');
        assertError(await update(me, other.id, { photos_per_sheet: 2 }, key), 409, 'IDEMPOTENCY_KEY_REUSED');
        assertError(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'x' }, { key }),
          409,
          'IDEMPOTENCY_KEY_REUSED',
        );
      });

      test('a create answer kept from before reports had photos_per_sheet is repeated with the default', async () => {
        const me = await caller();
        const order = await ctx.make.order({ author: me.id });
        const key = `pps-${randomBytes(6).toString('hex')}`;
        const first = await ok(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'Alt', photos_per_sheet: 4 }, { key }),
        );
        const storedKey = createHash('sha256').update(key, 'utf8').digest('hex');
        const kept = JSON.parse(
          (
            await ctx.handle.db
              .selectFrom('bericht_idempotency')
              .select('response')
              .where('idem_key', '=', storedKey)
              .executeTakeFirstOrThrow()
          ).response!,
        );
        delete kept.photos_per_sheet;
        await ctx.handle.db
          .updateTable('bericht_idempotency')
          .set({ response: JSON.stringify(kept) })
          .where('idem_key', '=', storedKey)
          .execute();
        const again = await ok(
          await api('POST', '/api/reports.php?action=create', me, { fk_element: order.id, title: 'Alt', photos_per_sheet: 4 }, { key }),
        );
        assert.deepEqual(again, first);
      });
    });

    test('the OpenAPI document describes the field and the update action', async () => {
      const me = await caller();
      const doc = await ok(await api('GET', '/api/openapi.json', me), 200);
      const text = JSON.stringify(doc);
      assert.ok(text.includes('photo pages go on one printed sheet'), 'the meaning is documented');
      assert.ok(text.includes('action=update'), 'the update action is documented');
    });
  });
}
