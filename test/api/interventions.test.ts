/**
 * Interventions (Dolibarr's llx_fichinter) as parents of the technician's work, on every database:
 * GET /api/interventions.php (list, detail, attachments), a photo and a voice note into
 * `ficheinter/<ref>/` as Dolibarr files an intervention's documents, a report on it whose PDF is
 * copied there, material lines, times and the agenda's object. Visible by the same rule as orders:
 * the `fk_user_*` columns, an internal contact (INTERREPFOLL, INTERVENING), an agenda event; any
 * other user gets 404 from every endpoint of it. Wrong input is 400 with the field named.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { FICHINTER_CONTACT_TYPES } from '../../src/db/migrations/0020-standalone-fichinter.js';
import { assertError } from '../helpers/assertions.js';
import { pdfText } from '../helpers/pdf-tools.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { type Caller, SEEN_ALL, SEEN_NONE, testClient } from '../helpers/client.js';
import { testDialects } from '../helpers/databases.js';

const photo = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: '#a53a3a' } })
    .jpeg()
    .toBuffer();
const OGG = readFileSync(path.join(import.meta.dirname, '../fixtures/uploads/voice.ogg'));

interface Listed {
  items: { id: number; ref: string; status: number; customer: { id: number } | null; date_start: number | null }[];
  total: number;
}

for (const dialect of testDialects()) {
  describe(`interventions [${dialect}]`, () => {
    let ctx: TestContext;
    let office: Caller;
    before(async () => {
      ctx = await createTestContext(dialect);
      office = await caller();
    });
    after(async () => ctx?.close());

    const { caller, api, json, form, newReport, seen } = testClient(() => ctx);

    const uploadTo = (who: Caller, id: number, data: Buffer, key?: string) =>
      form(`/api/interventions.php?id=${id}&action=upload_photo`, who, [{ filename: 'Zähler.jpg', type: 'image/jpeg', data }], {
        headers: key ? { 'idempotency-key': key } : {},
      });

    /** An intervention the office made, with a photo in its folder and a report of the office's on it. */
    async function officeIntervention() {
      const made = await ctx.make.intervention({ author: office.id, description: 'Heizung warten' });
      const res = await uploadTo(office, made.id, await photo());
      assert.equal(res.statusCode, 201, res.body);
      const report: { id: number } = await newReport(office, { element_type: 'fichinter', fk_element: made.id, title: 'Wartung' });
      return { ...made, type: 'fichinter' as const, photo: String(res.json().name), report: report.id };
    }

    test("the standalone schema has Dolibarr's llx_fichinter and the intervention's contact types", async () => {
      const row = await ctx.handle.db.selectFrom('fichinter').select(['rowid']).limit(1).execute();
      assert.ok(Array.isArray(row));
      const types = await ctx.handle.db
        .selectFrom('c_type_contact')
        .select(['rowid', 'source', 'code', 'libelle'])
        .where('element', '=', 'fichinter')
        .orderBy('rowid')
        .execute();
      assert.deepEqual(
        types.map((t) => ({ rowid: Number(t.rowid), source: t.source, code: t.code, libelle: t.libelle })),
        FICHINTER_CONTACT_TYPES.map((t) => ({ ...t })),
      );
    });

    test('assigned as INTERVENING contact: every endpoint answers; nobody else sees anything of it', async () => {
      const tech = await caller();
      const other = await caller();
      const fi = await officeIntervention();
      assert.deepEqual(await seen(tech, fi), SEEN_NONE, 'not assigned yet');
      await ctx.make.internalContact({ type: 'fichinter', element: fi.id, user: tech.id, code: 'INTERVENING' });
      assert.deepEqual(await seen(tech, fi), SEEN_ALL);
      assert.deepEqual(await seen(other, fi), SEEN_NONE);

      const detail = await json<{ ref: string; description: string; customer: { id: number }; reports: { id: number }[] }>(
        'GET',
        `/api/interventions.php?id=${fi.id}`,
        tech,
      );
      assert.equal(detail.ref, fi.ref);
      assert.equal(detail.description, 'Heizung warten');
      assert.equal(detail.customer.id, fi.customer);
      assert.deepEqual(
        detail.reports.map((r) => r.id),
        [fi.report],
      );

      // The customer's screen counts and lists the intervention's report (made by the office, seen through the intervention).
      const customer = await json<{ reports: { id: number; element_type: string; parent_ref: string }[] }>(
        'GET',
        `/api/customers.php?id=${fi.customer}`,
        tech,
      );
      assert.deepEqual(
        customer.reports.map((r) => [r.id, r.element_type, r.parent_ref]),
        [[fi.report, 'fichinter', fi.ref]],
      );
      const customers = await json<{ items: { id: number; report_count: number }[] }>('GET', '/api/customers.php?limit=500', tech);
      assert.equal(customers.items.find((c) => c.id === fi.customer)?.report_count, 1);

      // The other user can write nothing on it either.
      assertError(await uploadTo(other, fi.id, await photo()), 404, 'INTERVENTION_NOT_FOUND');
      assertError(
        await api('POST', '/api/reports.php?action=create', other, { element_type: 'fichinter', fk_element: fi.id, title: 'x' }),
        404,
        'INTERVENTION_NOT_FOUND',
      );
      assertError(
        await api('POST', '/api/materials.php', other, { element_type: 'fichinter', fk_element: fi.id, label: 'Filter', qty: 1 }),
        404,
        'INTERVENTION_NOT_FOUND',
      );
      assertError(
        await api('POST', '/api/times.php?action=arrive', other, { element_type: 'fichinter', fk_element: fi.id }),
        404,
        'INTERVENTION_NOT_FOUND',
      );
      // The technician can.
      await json(
        'POST',
        '/api/materials.php',
        tech,
        { element_type: 'fichinter', fk_element: fi.id, label: 'Filter', qty: 1 },
        { status: 201 },
      );
      await json('POST', '/api/times.php?action=arrive', tech, { element_type: 'fichinter', fk_element: fi.id });
    });

    test('INTERREPFOLL, an agenda event (owner or attendee) and the fk_user_* columns give it too', async () => {
      const follower = await caller();
      const owner = await caller();
      const attendee = await caller();
      const fi = await officeIntervention();
      await ctx.make.internalContact({ type: 'fichinter', element: fi.id, user: follower.id, code: 'INTERREPFOLL' });
      await ctx.make.agendaEvent({ type: 'fichinter', element: fi.id, owner: owner.id, attendees: [attendee.id] });
      for (const who of [follower, owner, attendee]) assert.deepEqual(await seen(who, fi), SEEN_ALL);

      const author = await caller();
      const own = await ctx.make.intervention({ author: author.id });
      assert.equal((await api('GET', `/api/interventions.php?id=${own.id}`, author)).statusCode, 200);
      // The order's contact type on an intervention's id gives nothing.
      const stranger = await caller();
      await ctx.make.internalContact({ type: 'commande', element: fi.id, user: stranger.id, code: 'TECHNICIAN' });
      assert.equal((await seen(stranger, fi)).detail, 404);
    });

    test("a photo goes into ficheinter/<ref>/ with Dolibarr's ecm_files row; a repeat with the same key is answered once; a voice note too", async () => {
      const tech = await caller();
      const fi = await ctx.make.intervention({ author: tech.id });
      const data = await photo();
      const first = await uploadTo(tech, fi.id, data, 'fi-photo-1');
      assert.equal(first.statusCode, 201, first.body);
      const again = await uploadTo(tech, fi.id, data, 'fi-photo-1');
      assert.equal(again.statusCode, 201);
      assert.deepEqual(again.json(), first.json());
      const name = first.json().name as string;
      assert.equal(first.json().url, `/api/photo.php?modulepart=fichinter&file=${encodeURIComponent(`${fi.ref}/${name}`)}`);
      const folder = path.join(ctx.config.dataRoot, 'ficheinter', fi.ref);
      assert.ok(existsSync(path.join(folder, name)));
      const rows = await ctx.handle.db
        .selectFrom('ecm_files')
        .select(['filepath', 'filename', 'src_object_type', 'src_object_id', 'gen_or_uploaded'])
        .where('filepath', '=', `ficheinter/${fi.ref}`)
        .execute();
      assert.deepEqual(
        rows.map((r) => ({ ...r, src_object_id: Number(r.src_object_id) })),
        [
          {
            filepath: `ficheinter/${fi.ref}`,
            filename: name,
            src_object_type: 'fichinter',
            src_object_id: fi.id,
            gen_or_uploaded: 'uploaded',
          },
        ],
      );
      const listed = await json<{ items: { name: string; url: string; thumb_small_url: string | null }[]; total: number }>(
        'GET',
        `/api/interventions.php?id=${fi.id}&action=photos`,
        tech,
      );
      assert.equal(listed.total, 1);
      assert.equal(listed.items[0]!.name, name);
      const served = await api('GET', listed.items[0]!.thumb_small_url!, tech);
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'image/jpeg');
      // Dolibarr's folder name works as the modulepart too, as in document.php.
      assert.equal(
        (await api('GET', `/api/photo.php?modulepart=ficheinter&file=${encodeURIComponent(`${fi.ref}/${name}`)}`, tech)).statusCode,
        200,
      );

      const voice = await form(`/api/voice.php?id=${fi.id}&element_type=fichinter`, tech, [
        { filename: 'notiz.ogg', type: 'audio/ogg', data: OGG },
      ]);
      assert.equal(voice.statusCode, 201, voice.body);
      assert.ok(existsSync(path.join(folder, voice.json().name)));
      // The same id as an order is another object: 404 there.
      assertError(
        await form(`/api/voice.php?id=${fi.id}&element_type=commande`, await caller(), [
          { filename: 'n.ogg', type: 'audio/ogg', data: OGG },
        ]),
        404,
        'ORDER_NOT_FOUND',
      );
    });

    test('deleting a photo of it (delete_photo with element_type fichinter), and QR upload links into its folder', async () => {
      const tech = await caller(['read', 'write', 'delete']);
      const other = await caller(['read', 'write', 'delete']);
      const fi = await ctx.make.intervention({ author: tech.id });
      const name = (await uploadTo(tech, fi.id, await photo())).json().name as string;
      const file = path.join(ctx.config.dataRoot, 'ficheinter', fi.ref, name);
      assertError(
        await api('POST', '/api/delete_photo.php', other, { id: fi.id, file: name, element_type: 'fichinter' }),
        404,
        'INTERVENTION_NOT_FOUND',
      );
      // Without element_type the id is an order's.
      assertError(await api('POST', '/api/delete_photo.php', tech, { id: fi.id, file: name }), 404, 'ORDER_NOT_FOUND');
      assertError(
        await api('POST', '/api/delete_photo.php', tech, { id: fi.id, file: name, element_type: 'propal' }),
        400,
        'VALIDATION_FAILED',
      );
      assert.ok(existsSync(file));
      assert.deepEqual(await json('POST', '/api/delete_photo.php', tech, { id: fi.id, file: name, element_type: 'fichinter' }), {
        deleted: true,
        name,
      });
      assert.equal(existsSync(file), false);
      const rows = await ctx.handle.db.selectFrom('ecm_files').select('rowid').where('filepath', '=', `ficheinter/${fi.ref}`).execute();
      assert.equal(rows.length, 0);

      // A QR link for a second phone puts photos into the intervention's folder without a login.
      const link = await json<{ id: number; token: string }>(
        'POST',
        '/api/upload_token.php',
        tech,
        { fk_element: fi.id, element_type: 'fichinter' },
        { status: 201 },
      );
      assertError(
        await api('POST', '/api/upload_token.php', other, { fk_element: fi.id, element_type: 'fichinter' }),
        404,
        'INTERVENTION_NOT_FOUND',
      );
      const live = await json<{ items: { id: number }[] }>('GET', `/api/upload_token.php?fk_element=${fi.id}&element_type=fichinter`, tech);
      assert.deepEqual(
        live.items.map((l) => l.id),
        [link.id],
      );
      const orderLinks = await api('GET', `/api/upload_token.php?fk_element=${fi.id}`, tech);
      assertError(orderLinks, 404, 'ORDER_NOT_FOUND');
      const page = await api('GET', `/public/upload.php?token=${link.token}`, null);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, new RegExp(`Fotos zum Serviceauftrag ${fi.ref}`));
      const sent = await form(`/public/upload.php?token=${link.token}`, null, [
        { filename: 'Zweithandy.jpg', type: 'image/jpeg', data: await photo() },
      ]);
      assert.equal(sent.statusCode, 201, sent.body);
      assert.ok(existsSync(path.join(ctx.config.dataRoot, 'ficheinter', fi.ref, sent.json().name)));
      assert.match(sent.json().url, /modulepart=fichinter/);
      assertError(await api('DELETE', `/api/upload_token.php?id=${link.id}`, other), 404, 'UPLOAD_TOKEN_NOT_FOUND');
      assert.equal((await api('DELETE', `/api/upload_token.php?id=${link.id}`, tech)).statusCode, 200);
      assertError(
        await form(`/public/upload.php?token=${link.token}`, null, [{ filename: 'x.jpg', type: 'image/jpeg', data: await photo() }]),
        404,
        'UPLOAD_TOKEN_NOT_FOUND',
      );
    });

    test("a report on it: its pages take the intervention's photos, the final PDF is copied into ficheinter/<ref>/", async () => {
      const tech = await caller();
      const fi = await ctx.make.intervention({ author: tech.id });
      const uploaded = await uploadTo(tech, fi.id, await photo());
      const report = await json<{ id: number; ref: string }>(
        'POST',
        '/api/reports.php?action=create',
        tech,
        { element_type: 'fichinter', fk_element: fi.id, title: 'Einsatzbericht' },
        { status: 201 },
      );
      await json(
        'POST',
        `/api/pages.php?action=add&bericht_id=${report.id}`,
        tech,
        { layout: 'photo', source: uploaded.json().name, title: 'Zähler' },
        { status: 201 },
      );
      const done = await json<{ final_pdf_path: string; parent_ref?: string }>(
        'POST',
        `/api/reports.php?id=${report.id}&action=finalize`,
        tech,
      );
      assert.equal(done.final_pdf_path, `bericht/${report.ref}/${report.ref}.pdf`);
      assert.ok(existsSync(path.join(ctx.config.dataRoot, 'ficheinter', fi.ref, `${report.ref}.pdf`)), 'the copy beside the intervention');
      // The PDF names its object with Dolibarr's word for it.
      const text = await pdfText(path.join(ctx.config.dataRoot, done.final_pdf_path));
      assert.match(text, new RegExp(`Serviceauftrag ${fi.ref}`));
      assert.doesNotMatch(text, new RegExp(`Auftrag ${fi.ref}`.replace(/^/, '(?<!Service)')));
      const shown = await json<{ parent_ref: string | null; element_type: string }>('GET', `/api/reports.php?id=${report.id}`, tech);
      assert.equal(shown.element_type, 'fichinter');
      assert.equal(shown.parent_ref, fi.ref);
      // Found by the intervention's ref in the report list.
      const found = await json<{ items: { id: number }[] }>('GET', `/api/reports.php?q=${encodeURIComponent(fi.ref)}`, tech);
      assert.deepEqual(
        found.items.map((r) => r.id),
        [report.id],
      );
    });

    test("the agenda names an intervention as the event's object", async () => {
      const tech = await caller();
      const fi = await ctx.make.intervention({ author: office.id });
      await ctx.make.agendaEvent({ type: 'fichinter', element: fi.id, owner: tech.id, socId: fi.customer });
      const day = await json<{ items: { object: { element_type: string; id: number; ref: string } | null }[] }>(
        'GET',
        '/api/agenda.php?days=1',
        tech,
      );
      const linked = day.items.find((e) => e.object?.id === fi.id);
      assert.deepEqual(linked?.object && { element_type: linked.object.element_type, ref: linked.object.ref }, {
        element_type: 'fichinter',
        ref: fi.ref,
      });
    });

    test('the list: newest planned start first, q and status narrow it, total counts the matches', async () => {
      const tech = await caller();
      const now = Math.floor(Date.now() / 1000);
      const early = await ctx.make.intervention({ author: tech.id, date: now - 5 * 86_400, status: 1, description: 'Pumpe tauschen' });
      const late = await ctx.make.intervention({ author: tech.id, date: now + 2 * 86_400, status: 0 });
      const closed = await ctx.make.intervention({ author: tech.id, date: now, status: 3 });
      const all = await json<Listed>('GET', '/api/interventions.php', tech);
      assert.deepEqual(
        all.items.map((i) => i.id),
        [late.id, closed.id, early.id],
      );
      assert.equal(all.total, 3);
      const open = await json<Listed>('GET', '/api/interventions.php?status=0,1', tech);
      assert.deepEqual(
        open.items.map((i) => i.id),
        [late.id, early.id],
      );
      const pump = await json<Listed>('GET', `/api/interventions.php?q=${encodeURIComponent('PUMPE')}`, tech);
      assert.deepEqual(
        pump.items.map((i) => i.id),
        [early.id],
      );
      const paged = await json<Listed>('GET', '/api/interventions.php?limit=1&offset=1', tech);
      assert.deepEqual([paged.items.map((i) => i.id), paged.total], [[closed.id], 3]);
    });

    test('wrong input: 400 naming the field; no token 401; an external user sees only its own third party', async () => {
      const tech = await caller();
      assertError(await api('GET', '/api/interventions.php?status=4', tech), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/interventions.php?status=-1', tech), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/interventions.php?id=abc', tech), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/interventions.php?id=0', tech), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/interventions.php?id=99999999999', tech), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/interventions.php?action=photos', tech), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/interventions.php?id=1&action=delete', tech), 400, 'ACTION_UNKNOWN');
      assertError(await api('GET', `/api/interventions.php?q=${'x'.repeat(101)}`, tech), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/interventions.php?id=2147483647', tech), 404, 'INTERVENTION_NOT_FOUND');
      assertError(await api('GET', '/api/interventions.php', null), 401, 'AUTH_TOKEN_MISSING');
      const fi = await ctx.make.intervention({ author: tech.id });
      assertError(await uploadTo(tech, fi.id, Buffer.from('not an image at all')), 415, 'UPLOAD_TYPE_UNSUPPORTED');
      assertError(
        await form(`/api/interventions.php?id=${fi.id}&action=upload_voice`, tech, [
          { filename: 'a.jpg', type: 'image/jpeg', data: await photo() },
        ]),
        400,
        'ACTION_UNKNOWN',
      );
      assertError(
        await form(`/api/voice.php?id=${fi.id}&element_type=propal`, tech, [{ filename: 'n.ogg', type: 'audio/ogg', data: OGG }]),
        400,
        'VALIDATION_FAILED',
      );

      const mine = await ctx.make.intervention({ author: office.id });
      const foreign = await ctx.make.intervention({ author: office.id });
      const external = await ctx.make.user({ rights: ['read'] });
      await ctx.handle.db.updateTable('user').set({ fk_soc: mine.customer }).where('rowid', '=', external.id).execute();
      const token = await ctx.make.token(external);
      for (const fi of [mine, foreign])
        await ctx.make.internalContact({ type: 'fichinter', element: fi.id, user: external.id, code: 'INTERVENING' });
      assert.equal((await api('GET', `/api/interventions.php?id=${mine.id}`, token)).statusCode, 200);
      assertError(await api('GET', `/api/interventions.php?id=${foreign.id}`, token), 404, 'INTERVENTION_NOT_FOUND');
    });
  });
}
