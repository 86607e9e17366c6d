/**
 * The moment of signing by the phone's clock (signed_at_device, signed_at_device_zone) on every
 * database: kept in the sealed metadata beside the server's time, judged plausible or not (never
 * refused), shown on the sheet, in the note and on the public check when the two are more than a
 * minute apart, kept in bericht_signature, and given with every signature page as `signature`.
 * The service runs with TIME_ZONE Europe/Berlin; the phones in Asia/Tokyo (+09:00 all year).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { fromDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { localTime, zoneName } from '../../src/dolibarr/time.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { besideSignature, publicSignatureCheck, signatureMetadata } from '../helpers/signature.js';

const HOUR = 3600;
const DAY = 24 * HOUR;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `ms` as RFC 3339 at `offsetMinutes` from UTC, with milliseconds: what a phone's `Date` in that zone gives. */
function isoAt(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}.${pad(local.getUTCMilliseconds(), 3)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
/** `dd.mm.yyyy HH:MM:SS` of `ms` at a fixed offset. */
function wallAt(ms: number, offsetMinutes: number): string {
  const d = new Date(ms + offsetMinutes * 60_000);
  return `${pad(d.getUTCDate())}.${pad(d.getUTCMonth() + 1)}.${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}
const TOKYO = 9 * 60;

for (const dialect of testDialects()) {
  describe(`signature device time [${dialect}]`, () => {
    let ctx: TestContext;
    let me: Caller;
    before(async () => {
      ctx = await createTestContext(dialect, { timeZone: 'Europe/Berlin' });
      me = await caller();
    });
    after(async () => ctx?.close());

    const { caller, api, newReport, addPage, sign } = testClient(() => ctx);

    /** A draft on a fresh order with two title pages. */
    async function report() {
      const order = await ctx.make.order({ author: me.id });
      const r: { id: number; ref: string } = await newReport(me, order.id);
      for (const title of ['Eins', 'Zwei']) await addPage(me, r.id, { title });
      return { ...r, workDir: objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', r.ref).dir };
    }

    const metadataFile = (page: { source_path: string }) => besideSignature(ctx.config.dataRoot, page);
    const metadataOf = (page: { source_path: string }) => signatureMetadata(ctx.config.dataRoot, page);
    const publicCheck = (page: { verify_url: string }) => publicSignatureCheck(ctx.app, page);
    const row = (pageId: number) =>
      ctx.handle.db
        .selectFrom('bericht_signature')
        .select(['signed_at_device', 'signed_at_device_zone', 'device_time_plausible', 'datec'])
        .where('fk_page', '=', pageId)
        .executeTakeFirstOrThrow();
    const sheetHeight = async (page: { source_path: string }) =>
      (await sharp(path.join(ctx.config.dataRoot, page.source_path)).metadata()).height!;
    const berlin = (unix: number) => localTime(new Date(unix * 1000), 'Europe/Berlin', { seconds: true, zone: false });

    test("a device time 2 h before the server's is kept beside it, plausible, and shown as two times on the note, the sheet and the public check", async () => {
      const r = await report();
      const signedMs = Date.now() - 2 * HOUR * 1000;
      const sent = isoAt(signedMs, TOKYO);
      const res = await sign(me, r.id, { fields: { signed_at_device: sent, signed_at_device_zone: 'Asia/Tokyo' } });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json();
      const meta = await metadataOf(page);
      const deviceUnix = Math.floor(signedMs / 1000);
      // The server's time exactly as before.
      assert.equal(typeof meta.server_time, 'string');
      assert.equal(meta.server_time_unix, Math.floor(Date.parse(meta.server_time) / 1000));
      assert.ok(Math.abs(meta.server_time_unix - Date.now() / 1000) < 60);
      // The phone's, as it sent it.
      assert.equal(meta.signed_at_device, sent);
      assert.equal(meta.signed_at_device_unix, deviceUnix);
      assert.equal(meta.signed_at_device_zone, 'Asia/Tokyo');
      assert.equal(meta.device_time_difference_seconds, meta.server_time_unix - deviceUnix);
      assert.ok(Math.abs(meta.device_time_difference_seconds - 2 * HOUR) < 60, String(meta.device_time_difference_seconds));
      assert.equal(meta.device_time_plausible, true);
      assert.equal(meta.device_time_implausible_reason, null);

      const tokyo = wallAt(deviceUnix * 1000, TOKYO);
      const server = new Date(meta.server_time_unix * 1000);
      assert.equal(
        page.note,
        `Unterschrieben von Erika Müller am ${tokyo} Uhr (Gerät, ${zoneName(new Date(deviceUnix * 1000), 'Asia/Tokyo')}, Asia/Tokyo); empfangen am ${berlin(meta.server_time_unix)} Uhr (Server, ${zoneName(server, 'Europe/Berlin')})`,
      );
      assert.deepEqual(page.signature, {
        signer_name: 'Erika Müller',
        signed_at: meta.server_time_unix,
        signed_at_device: deviceUnix,
        signed_at_device_zone: 'Asia/Tokyo',
        device_time_plausible: true,
      });

      const stored = await row(page.id);
      assert.equal(fromDbDateTime(stored.signed_at_device), deviceUnix);
      assert.equal(stored.signed_at_device_zone, 'Asia/Tokyo');
      assert.equal(Number(stored.device_time_plausible), 1);
      assert.equal(fromDbDateTime(stored.datec), meta.server_time_unix);

      const verified = await api('GET', `/ajax/verify_signature.php?id=${page.id}`, me);
      assert.equal(verified.json().verified, true, verified.body);
      assert.equal(verified.json().metadata.signed_at_device, sent);

      const html = await publicCheck(page);
      assert.ok(html.includes('Unterschrieben (Gerät)') && html.includes('Empfangen (Server)'), html);
      assert.ok(html.includes(tokyo) && html.includes('Asia/Tokyo'), html);
      assert.ok(html.includes(berlin(meta.server_time_unix)), html);
      assert.ok(!html.includes('unplausibel'), html);

      // The sheet's header has a row more than a signature whose two times agree.
      const near = await report();
      const same = (
        await sign(me, near.id, { fields: { signed_at_device: isoAt(Date.now(), TOKYO), signed_at_device_zone: 'Asia/Tokyo' } })
      ).json();
      assert.ok((await sheetHeight(page)) - (await sheetHeight(same)) >= 30, `${await sheetHeight(page)} vs ${await sheetHeight(same)}`);
    });

    test('10 minutes ahead of the server: 201, kept, plausible false, reason ahead, marked on the note, the sheet and the public check', async () => {
      const r = await report();
      const ahead = Date.now() + 10 * 60_000;
      const res = await sign(me, r.id, { fields: { signed_at_device: isoAt(ahead, 0).replace('+00:00', 'Z') } });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json();
      const meta = await metadataOf(page);
      assert.equal(meta.signed_at_device_unix, Math.floor(ahead / 1000));
      assert.equal(meta.signed_at_device_zone, null);
      assert.ok(
        meta.device_time_difference_seconds < -590 && meta.device_time_difference_seconds > -610,
        String(meta.device_time_difference_seconds),
      );
      assert.equal(meta.device_time_plausible, false);
      assert.equal(meta.device_time_implausible_reason, 'ahead');
      assert.match(
        page.note,
        /\(Gerät, UTC\); empfangen am .* Uhr \(Server, (?:MEZ|MESZ)\) – unplausibel: Gerätezeit 10 min nach der Serverzeit$/,
      );
      assert.ok(page.note.includes(wallAt(ahead - (ahead % 1000), 0)), page.note);
      assert.equal(page.signature.device_time_plausible, false);
      assert.equal(Number((await row(page.id)).device_time_plausible), 0);
      const html = await publicCheck(page);
      assert.ok(html.includes('unplausibel: Gerätezeit 10 min nach der Serverzeit'), html);
      assert.equal((await api('GET', `/ajax/verify_signature.php?id=${page.id}`, me)).json().verified, true);

      // The mark makes the sheet's device row longer than a plausible one of the same kind.
      const plausible = await report();
      const calm = (
        await sign(me, plausible.id, { fields: { signed_at_device: isoAt(Date.now() - 10 * 60_000, 0).replace('+00:00', 'Z') } })
      ).json();
      assert.equal(calm.signature.device_time_plausible, true);
      assert.ok((await sheetHeight(page)) > (await sheetHeight(calm)), 'the implausible mark takes a line of its own');
    });

    test('40 days before the server: kept, reason too_old, marked', async () => {
      const r = await report();
      const old = Date.now() - 40 * DAY * 1000;
      const res = await sign(me, r.id, { fields: { signed_at_device: isoAt(old, -150), signed_at_device_zone: 'America/St_Johns' } });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json();
      const meta = await metadataOf(page);
      assert.equal(meta.device_time_plausible, false);
      assert.equal(meta.device_time_implausible_reason, 'too_old');
      assert.ok(Math.abs(meta.device_time_difference_seconds - 40 * DAY) < 60);
      assert.match(
        page.note,
        /America\/St_Johns\); empfangen am .* – unplausibel: Gerätezeit mehr als 30 Tage vor dem Empfang \(40 Tage\)$/,
      );
      assert.deepEqual(
        {
          plausible: page.signature.device_time_plausible,
          zone: page.signature.signed_at_device_zone,
          at: page.signature.signed_at_device,
        },
        { plausible: false, zone: 'America/St_Johns', at: Math.floor(old / 1000) },
      );
      assert.ok((await publicCheck(page)).includes('unplausibel: Gerätezeit mehr als 30 Tage vor dem Empfang'));
    });

    test('within 30 s of the server: the facts are kept, but people see one time, as without a device time', async () => {
      const r = await report();
      const sent = isoAt(Date.now() - 20_000, TOKYO);
      const res = await sign(me, r.id, { fields: { signed_at_device: sent, signed_at_device_zone: 'Asia/Tokyo' } });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json();
      const meta = await metadataOf(page);
      assert.equal(meta.signed_at_device, sent);
      assert.equal(meta.device_time_plausible, true);
      assert.ok(meta.device_time_difference_seconds >= 0 && meta.device_time_difference_seconds <= 60);
      assert.equal(
        page.note,
        `Unterschrieben von Erika Müller am ${berlin(meta.server_time_unix)} Uhr (${zoneName(new Date(meta.server_time_unix * 1000), 'Europe/Berlin')})`,
      );
      const html = await publicCheck(page);
      assert.ok(html.includes('<dt>Unterschrieben</dt>') && !html.includes('(Gerät)') && !html.includes('Empfangen'), html);

      const without = await report();
      const plain = (await sign(me, without.id)).json();
      assert.equal(await sheetHeight(page), await sheetHeight(plain), 'the same header as without a device time');
      const none = await metadataOf(plain);
      for (const field of [
        'signed_at_device',
        'signed_at_device_unix',
        'signed_at_device_zone',
        'device_time_difference_seconds',
        'device_time_plausible',
        'device_time_implausible_reason',
      ]) {
        assert.ok(field in none && none[field] === null, `${field} is null without a device time`);
      }
      assert.deepEqual(plain.signature, {
        signer_name: 'Erika Müller',
        signed_at: none.server_time_unix,
        signed_at_device: null,
        signed_at_device_zone: null,
        device_time_plausible: null,
      });
      assert.deepEqual(await row(plain.id).then((x) => [x.signed_at_device, x.signed_at_device_zone, x.device_time_plausible]), [
        null,
        null,
        null,
      ]);
    });

    test('without a zone the device time is shown at the offset it was sent with', async () => {
      const r = await report();
      const signedMs = Date.now() - 3 * HOUR * 1000;
      const page = (await sign(me, r.id, { fields: { signed_at_device: isoAt(signedMs, -330) } })).json();
      assert.ok(page.note.includes(`am ${wallAt(signedMs - (signedMs % 1000), -330)} Uhr (Gerät, UTC-05:30); empfangen am`), page.note);
      assert.equal(page.signature.signed_at_device_zone, null);
    });

    test('a well-formed zone the service does not know is kept as sent, never refused; the time is shown at the offset', async () => {
      const r = await report();
      const signedMs = Date.now() - 2 * HOUR * 1000;
      for (const zone of ['Etc/Unknown', 'Mars/Olympus_Mons']) {
        const res = await sign(me, r.id, { fields: { signed_at_device: isoAt(signedMs, 60), signed_at_device_zone: zone } });
        assert.equal(res.statusCode, 201, res.body);
        const page = res.json();
        assert.equal(page.signature.signed_at_device_zone, zone);
        assert.ok(page.note.includes(`am ${wallAt(signedMs - (signedMs % 1000), 60)} Uhr (Gerät, UTC+01:00); empfangen am`), page.note);
        assert.equal((await metadataOf(page)).signed_at_device_zone, zone);
      }
    });

    test('a malformed device time or zone is 400 naming the field; no page, no file, no row', async () => {
      const r = await report();
      const now = isoAt(Date.now(), 60);
      const cases: Array<[Record<string, string>, string]> = [
        [{ signed_at_device: now.slice(0, 19) }, 'signed_at_device'], // no offset
        [{ signed_at_device: 'gestern' }, 'signed_at_device'],
        [{ signed_at_device: '2026-02-30T10:00:00Z' }, 'signed_at_device'],
        [{ signed_at_device: '2026-11-24T25:00:00Z' }, 'signed_at_device'],
        [{ signed_at_device: '2026-11-24T09:14:03+1:00' }, 'signed_at_device'],
        [{ signed_at_device: String(Math.floor(Date.now() / 1000)) }, 'signed_at_device'],
        [{ signed_at_device: now, signed_at_device_zone: '+01:00' }, 'signed_at_device_zone'],
        [{ signed_at_device: now, signed_at_device_zone: 'Europe/Berlin; drop' }, 'signed_at_device_zone'],
        [{ signed_at_device_zone: 'Europe/Berlin' }, 'signed_at_device'],
      ];
      for (const [fields, field] of cases) {
        const body = assertError(await sign(me, r.id, { fields }), 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          (body.details as Array<{ field: string }>).map((d) => d.field),
          [`body.${field}`],
          JSON.stringify(fields),
        );
        assert.ok((body.error as string).includes(field), body.error as string);
      }
      const pages = await ctx.handle.db.selectFrom('bericht_page').select('layout').where('fk_bericht', '=', r.id).execute();
      assert.deepEqual(
        pages.map((p) => p.layout),
        ['title_only', 'title_only'],
      );
      assert.deepEqual(
        (await readdir(r.workDir).catch(() => [] as string[])).filter((n) => n.startsWith('unterschrift_')),
        [],
      );
      assert.equal(
        (await ctx.handle.db.selectFrom('bericht_signature').select('rowid').where('fk_bericht', '=', r.id).execute()).length,
        0,
      );
      // Empty fields count as absent.
      const blank = await sign(me, r.id, { fields: { signed_at_device: ' ', signed_at_device_zone: '' } });
      assert.equal(blank.statusCode, 201, blank.body);
      assert.equal(blank.json().signature.signed_at_device, null);
    });

    test('the device time is sealed: editing it, its zone or its verdict in the JSON breaks the seal', async () => {
      for (const edit of [
        (m: Record<string, unknown>) => {
          m.signed_at_device = isoAt(Date.now() - DAY * 1000, TOKYO);
        },
        (m: Record<string, unknown>) => {
          m.signed_at_device_unix = (m.signed_at_device_unix as number) - 3600;
        },
        (m: Record<string, unknown>) => {
          m.signed_at_device_zone = 'Europe/Berlin';
        },
        (m: Record<string, unknown>) => {
          m.device_time_plausible = true;
          m.device_time_implausible_reason = null;
        },
      ]) {
        const r = await report();
        const page = (
          await sign(me, r.id, {
            fields: { signed_at_device: isoAt(Date.now() + 20 * 60_000, TOKYO), signed_at_device_zone: 'Asia/Tokyo' },
          })
        ).json();
        assert.equal((await api('GET', `/ajax/verify_signature.php?id=${page.id}`, me)).json().verified, true);
        const meta = await metadataOf(page);
        edit(meta);
        await writeFile(metadataFile(page), JSON.stringify(meta, null, 2));
        const checked = (await api('GET', `/ajax/verify_signature.php?id=${page.id}`, me)).json();
        assert.equal(checked.verified, false);
        assert.equal(checked.reason, 'seal_broken');
        assert.ok((await publicCheck(page)).includes('Nicht gültig'));
      }
    });

    test('an Idempotency-Key repeat answers the same page, whatever device time it carries; one page, one row', async () => {
      const r = await report();
      const key = `sig-${randomBytes(6).toString('hex')}`;
      const first = await sign(me, r.id, {
        fields: { signed_at_device: isoAt(Date.now() - HOUR * 1000, TOKYO), signed_at_device_zone: 'Asia/Tokyo' },
        key,
      });
      assert.equal(first.statusCode, 201, first.body);
      const again = await sign(me, r.id, {
        fields: { signed_at_device: isoAt(Date.now(), TOKYO), signed_at_device_zone: 'Asia/Tokyo' },
        key,
      });
      assert.equal(again.statusCode, 201, again.body);
      assert.deepEqual(again.json(), first.json());
      assert.equal(
        (await ctx.handle.db.selectFrom('bericht_signature').select('rowid').where('fk_bericht', '=', r.id).execute()).length,
        1,
      );
      assert.equal(
        (
          await ctx.handle.db
            .selectFrom('bericht_page')
            .select('rowid')
            .where('fk_bericht', '=', r.id)
            .where('layout', '=', 'signature')
            .execute()
        ).length,
        1,
      );

      // An answer kept from before pages carried `signature` is repeated with it filled in.
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
      delete kept.signature;
      await ctx.handle.db
        .updateTable('bericht_idempotency')
        .set({ response: JSON.stringify(kept) })
        .where('idem_key', '=', storedKey)
        .execute();
      const old = await sign(me, r.id, { key });
      assert.equal(old.statusCode, 201, old.body);
      assert.deepEqual(old.json(), first.json());
    });

    test('every page answer carries `signature`: the facts on signature pages, null on the others, in the report, after finalizing and in a new version', async () => {
      const r = await report();
      const first = (
        await sign(me, r.id, {
          fields: { signed_at_device: isoAt(Date.now() - 2 * HOUR * 1000, TOKYO), signed_at_device_zone: 'Asia/Tokyo' },
        })
      ).json();
      const added = await api('POST', `/api/pages.php?action=add&bericht_id=${r.id}`, me, { title: 'Nachtrag' });
      assert.equal(added.json().signature, null);
      const changed = await api('POST', `/api/pages.php?id=${added.json().id}`, me, { note: 'mehr' });
      assert.equal(changed.json().signature, null);
      const second = (await sign(me, r.id)).json();
      const detail = (await api('GET', `/api/reports.php?id=${r.id}`, me)).json();
      assert.deepEqual(
        detail.pages.map((p: { layout: string; signature: unknown }) => [p.layout, p.signature]),
        [
          ['title_only', null],
          ['title_only', null],
          ['signature', first.signature],
          ['title_only', null],
          ['signature', second.signature],
        ],
      );
      assert.equal(first.signature.signed_at_device_zone, 'Asia/Tokyo');
      assert.equal(second.signature.signed_at_device, null);
      const reordered = await api('POST', `/api/pages.php?action=reorder&bericht_id=${r.id}`, me, {
        order: detail.pages.map((p: { id: number }) => p.id),
      });
      assert.deepEqual(
        reordered.json().pages.map((p: { signature: unknown }) => p.signature),
        detail.pages.map((p: { signature: unknown }) => p.signature),
      );
      const final = await api('POST', `/api/reports.php?id=${r.id}&action=finalize`, me);
      assert.equal(final.statusCode, 200, final.body);
      assert.deepEqual(final.json().pages[2].signature, first.signature);
      const v2 = await api('POST', `/api/reports.php?id=${r.id}&action=new_version`, me);
      assert.ok(v2.json().pages.every((p: { signature: unknown }) => p.signature === null));
      // A signature page whose record is gone (made by other software) has none.
      await ctx.handle.db.deleteFrom('bericht_signature').where('fk_page', '=', second.id).execute();
      assert.equal((await api('GET', `/api/reports.php?id=${r.id}`, me)).json().pages[4].signature, null);
    });
  });
}
