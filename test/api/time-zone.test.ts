/**
 * A Dolibarr in Europe/Berlin, as the process's time zone (TZ), across both daylight-saving
 * changes: Dolibarr's own columns are read and written as Berlin wall time (as PHP does), the
 * module's own stay UTC, and pages a person reads show local times with their zone.
 */
process.env.TZ = 'Europe/Berlin';

import { sign } from '../helpers/signature.js';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { fromDolibarrDateTime, toDolibarrDateTime } from '../../src/dolibarr/time.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';

const BERLIN = 'Europe/Berlin';
const unix = (iso: string) => Date.parse(iso) / 1000;

describe('Berlin wall time, both ways across a clock change', () => {
  test('toDolibarrDateTime and fromDolibarrDateTime', () => {
    const cases: Array<[string, string]> = [
      ['2026-01-15T09:00:00Z', '2026-01-15 10:00:00'], // MEZ
      ['2026-03-29T00:30:00Z', '2026-03-29 01:30:00'], // the last hour of MEZ
      ['2026-03-29T01:30:00Z', '2026-03-29 03:30:00'], // the first of MESZ
      ['2026-07-01T12:00:00Z', '2026-07-01 14:00:00'], // MESZ
      ['2026-10-25T00:30:00Z', '2026-10-25 02:30:00'], // 02:30 MESZ
      ['2026-10-25T01:30:00Z', '2026-10-25 02:30:00'], // 02:30 MEZ, the hour again
    ];
    for (const [iso, wall] of cases) assert.equal(toDolibarrDateTime(new Date(iso), BERLIN), wall, iso);
    assert.equal(fromDolibarrDateTime('2026-03-29 01:30:00', BERLIN), unix('2026-03-29T00:30:00Z'));
    assert.equal(fromDolibarrDateTime('2026-03-29 03:30:00', BERLIN), unix('2026-03-29T01:30:00Z'));
    assert.equal(fromDolibarrDateTime('2026-03-29 02:30:00', BERLIN), unix('2026-03-29T01:30:00Z'), 'a skipped time moves forward');
    assert.equal(fromDolibarrDateTime('2026-10-25 02:30:00', BERLIN), unix('2026-10-25T00:30:00Z'), 'a time that comes twice: the earlier');
    assert.equal(fromDolibarrDateTime('2026-03-29', BERLIN), unix('2026-03-28T23:00:00Z'), 'a date is its midnight');
  });
});

for (const dialect of testDialects()) {
  describe(`a Dolibarr in Europe/Berlin [${dialect}]`, () => {
    let ctx: TestContext;
    let headers: Record<string, string>;
    let order: { id: number; ref: string };
    before(async () => {
      ctx = await createTestContext(dialect);
      const user = await ctx.make.user({ rights: ['read', 'write', 'delete'] });
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
      order = await ctx.make.order({ author: user.id });
    });
    after(async () => ctx?.close());

    test("the time zone is the process's by default (TZ)", () => {
      assert.equal(ctx.config.timeZone, BERLIN);
    });

    test("an order's dates are read as Berlin wall time, before and after each clock change", async () => {
      for (const [stored, iso] of [
        ['2026-03-28 10:00:00', '2026-03-28T09:00:00Z'],
        ['2026-03-29 10:00:00', '2026-03-29T08:00:00Z'],
        ['2026-10-24 10:00:00', '2026-10-24T08:00:00Z'],
        ['2026-10-25 10:00:00', '2026-10-25T09:00:00Z'],
      ] as const) {
        await ctx.handle.db
          .updateTable('commande')
          .set({ date_creation: stored, date_commande: stored.slice(0, 10) })
          .where('rowid', '=', order.id)
          .execute();
        const res = await ctx.app.inject({ method: 'GET', url: `/api/orders.php?id=${order.id}`, headers });
        const body = res.json() as { date_creation: number; date: number };
        assert.equal(body.date_creation, unix(iso), stored);
        assert.equal(body.date, fromDolibarrDateTime(stored.slice(0, 10), BERLIN), `${stored}: the order date is Berlin's midnight`);
      }
    });

    test("an upload's ecm_files row has Berlin wall time, as Dolibarr writes it; the module's own rows stay UTC", async () => {
      const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } })
        .jpeg()
        .toBuffer();
      const form = multipart([{ name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: photo }]);
      const before = Date.now();
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/orders.php?id=${order.id}&action=upload_photo`,
        headers: { ...headers, 'content-type': form.contentType },
        payload: form.payload,
      });
      assert.equal(res.statusCode, 201, res.body);
      const row = await ctx.handle.db
        .selectFrom('ecm_files')
        .select(['date_c', 'tms'])
        .where('filepath', '=', `commande/${order.ref}`)
        .executeTakeFirstOrThrow();
      const written = fromDolibarrDateTime(String(row.date_c), BERLIN)! * 1000;
      assert.ok(
        Math.abs(written - before) < 5000,
        `date_c ${row.date_c} is now in Berlin (${toDolibarrDateTime(new Date(before), BERLIN)})`,
      );

      const report = await ctx.app.inject({
        method: 'POST',
        url: '/api/reports.php?action=create',
        headers,
        payload: { fk_element: order.id, title: 'Zeit' },
      });
      assert.equal(report.statusCode, 201, report.body);
      const stored = await ctx.handle.db
        .selectFrom('bericht')
        .select('datec')
        .where('rowid', '=', (report.json() as { id: number }).id)
        .executeTakeFirstOrThrow();
      const utc = Date.parse(`${String(stored.datec).replace(' ', 'T')}Z`);
      assert.ok(Math.abs(utc - before) < 5000, `bericht.datec ${stored.datec} is UTC`);
    });

    test('the signature page and the public check show Berlin time with its zone', async () => {
      const dir = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
      await mkdir(dir, { recursive: true });
      await sharp({ create: { width: 320, height: 240, channels: 3, background: '#963' } })
        .jpeg()
        .toFile(path.join(dir, 'b.jpg'));
      const report = (
        await ctx.app.inject({
          method: 'POST',
          url: '/api/reports.php?action=create',
          headers,
          payload: { fk_element: order.id, title: 'Zeit' },
        })
      ).json() as { id: number };
      assert.equal(
        (
          await ctx.app.inject({
            method: 'POST',
            url: `/api/pages.php?action=add&bericht_id=${report.id}`,
            headers,
            payload: { source: 'b.jpg' },
          })
        ).statusCode,
        201,
      );
      const now = new Date();
      const signed = await sign(ctx.app, headers, report.id, 'Erika Müller');
      assert.equal(signed.statusCode, 201, signed.body);
      // Berlin is 2 hours ahead in summer (MESZ), 1 in winter (MEZ).
      const ahead =
        (Date.parse(`${toDolibarrDateTime(now, BERLIN).replace(' ', 'T')}Z`) - Math.floor(now.getTime() / 1000) * 1000) / 3_600_000;
      const zone = ahead === 2 ? 'MESZ' : 'MEZ';
      const page = signed.json() as { note: string; verify_url: string };
      assert.match(
        page.note,
        new RegExp(`^Unterschrieben von Erika Müller am \\d\\d\\.\\d\\d\\.\\d{4} \\d\\d:\\d\\d:\\d\\d Uhr \\(${zone}\\)$`),
      );
      const code = new URL(page.verify_url).searchParams.get('code')!;
      const check = await ctx.app.inject({ method: 'GET', url: `/public/verify_signature.php?code=${code}` });
      assert.equal(check.statusCode, 200);
      assert.match(check.body, new RegExp(`\\d\\d\\.\\d\\d\\.\\d{4} \\d\\d:\\d\\d ${zone}`));
    });
  });
}
