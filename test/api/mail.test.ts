/**
 * A final report sent to the customer (/api/mails.php) through a real SMTP server inside the test
 * (STARTTLS, AUTH), on every database: recipients proposed from Dolibarr's contacts, the mail read
 * back with mailparser (recipients, subject and language, the attachment byte for byte), Dolibarr's
 * agenda rows, and every way it can go wrong: bad input, a server that is down, a wrong password,
 * a refused recipient, a PDF too large for the server, two processes racing for one job.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { createDb } from '../../src/db/database.js';
import { toDbDateTime } from '../../src/db/dialect.js';
import { dolEncrypt } from '../../src/dolibarr/crypto.js';
import { entityRoot } from '../../src/dolibarr/ecm.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { pdfToolsMissing } from '../helpers/pdf-tools.js';
import { sign } from '../helpers/signature.js';
import { SMTP_PASSWORD, SMTP_USER, startSmtp, type TestSmtp } from '../helpers/smtp.js';

for (const dialect of testDialects()) {
  describe(`mail: a final report to the customer [${dialect}]`, { skip: pdfToolsMissing }, () => {
    let ctx: TestContext;
    let smtp: TestSmtp;
    let me: { id: number; headers: Record<string, string> };
    before(async () => {
      smtp = await startSmtp();
      // Rounds only when a test asks (runOnce): each test sees exactly what one attempt does.
      ctx = await createTestContext(dialect, { mail: { env: {}, retryHours: 48, pollSeconds: 0 } });
      const user = await ctx.make.user({ rights: ['read', 'write'], firstname: 'Tim', lastname: 'Techniker' });
      me = { id: user.id, headers: { authorization: `Bearer ${await ctx.make.token(user)}` } };
      await setConsts(
        smtp.settings({
          MAIN_MAIL_SMTPS_PW: dolEncrypt(SMTP_PASSWORD, ctx.config.instanceUniqueId!),
          MAIN_INFO_SOCIETE_NOM: 'Heiztechnik Nord GmbH',
        }),
      );
    });
    after(async () => {
      await ctx?.close();
      await smtp?.close();
    });

    async function setConsts(values: Record<string, string | null>) {
      for (const [name, value] of Object.entries(values)) {
        await ctx.handle.db.deleteFrom('const').where('name', '=', name).execute();
        if (value !== null)
          await ctx.handle.db.insertInto('const').values({ name, entity: 1, value, type: 'chaine', visible: 0 }).execute();
      }
    }
    const post = (url: string, payload: unknown, headers: Record<string, string> = me.headers) =>
      ctx.app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
    const get = (url: string, headers: Record<string, string> = me.headers) => ctx.app.inject({ method: 'GET', url, headers });
    const runQueue = () => ctx.app.mailQueue.runOnce();

    /** A customer with a contact linked to the order as CUSTOMER; a signed, final report of that order. */
    async function finalReport(
      options: {
        lang?: string | null;
        customerEmail?: string | null;
        contactEmail?: string;
        as?: { id: number; headers: Record<string, string> };
      } = {},
    ) {
      const who = options.as ?? me;
      const customer = await ctx.make.thirdParty({
        name: 'Bäckerei Sonnenschein',
        email: options.customerEmail === undefined ? 'info@sonnenschein.example' : options.customerEmail,
      });
      await ctx.handle.db
        .updateTable('societe')
        .set({ default_lang: options.lang ?? null })
        .where('rowid', '=', customer.id)
        .execute();
      const order = await ctx.make.order({ author: who.id, customer: customer.id });
      const contact = await ctx.handle.db
        .insertInto('socpeople')
        .values({
          fk_soc: customer.id,
          entity: 1,
          firstname: 'Erika',
          lastname: 'Sonnenschein',
          email: options.contactEmail ?? 'erika@sonnenschein.example',
          statut: 1,
          datec: toDbDateTime(),
        })
        .executeTakeFirst();
      const contactId =
        dialect === 'postgres'
          ? Number(
              (await ctx.handle.db.selectFrom('socpeople').select('rowid').where('fk_soc', '=', customer.id).executeTakeFirstOrThrow())
                .rowid,
            )
          : Number(contact.insertId);
      const type = await ctx.handle.db
        .selectFrom('c_type_contact')
        .select('rowid')
        .where('element', '=', 'commande')
        .where('code', '=', 'CUSTOMER')
        .executeTakeFirstOrThrow();
      await ctx.handle.db
        .insertInto('element_contact')
        .values({
          element_id: order.id,
          fk_c_type_contact: Number(type.rowid),
          fk_socpeople: contactId,
          statut: 4,
          datecreate: toDbDateTime(),
        })
        .execute();
      const created = await post('/api/reports.php?action=create', { fk_element: order.id, title: 'Wartung Gastherme' }, who.headers);
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id as number;
      assert.equal(
        (
          await post(
            `/api/pages.php?action=add&bericht_id=${id}`,
            { layout: 'title_only', title: 'Sichtprüfung', note: 'Keine Mängel' },
            who.headers,
          )
        ).statusCode,
        201,
      );
      assert.equal((await sign(ctx.app, who.headers, id, 'Erika Sonnenschein')).statusCode, 201);
      const done = await post(`/api/reports.php?id=${id}&action=finalize`, {}, who.headers);
      assert.equal(done.statusCode, 200, done.body);
      const pdf = await readFile(path.join(entityRoot(ctx.config.dataRoot, 1), done.json().final_pdf_path));
      return { id, ref: done.json().ref as string, order, customer, contactId, pdf };
    }

    const mailRow = (id: number) => ctx.handle.db.selectFrom('bericht_mail').selectAll().where('rowid', '=', id).executeTakeFirstOrThrow();
    /** Makes a queued mail due now (its pause after a failed attempt is over). */
    const dueNow = (id: number) =>
      ctx.handle.db
        .updateTable('bericht_mail')
        .set({ next_attempt_at: toDbDateTime(new Date(Date.now() - 1000)) })
        .where('rowid', '=', id)
        .execute();

    test("propose: the order's customer contact first, then the third party; subject and text in the customer's language with the check link", async () => {
      const report = await finalReport({ lang: 'en_US' });
      const res = await get(`/api/mails.php?action=propose&bericht_id=${report.id}`);
      assert.equal(res.statusCode, 200, res.body);
      const proposal = res.json();
      assert.deepEqual(proposal.to, [
        { email: 'erika@sonnenschein.example', name: 'Erika Sonnenschein', source: 'contact', type: 'CUSTOMER' },
        { email: 'info@sonnenschein.example', name: 'Bäckerei Sonnenschein', source: 'thirdparty', type: null },
      ]);
      assert.equal(proposal.configured, true);
      assert.equal(proposal.lang, 'en');
      assert.equal(proposal.subject, `Report ${report.ref} for ${report.order.ref} (your order ${report.order.refClient})`);
      assert.match(proposal.text, new RegExp(`report ${report.ref} "Wartung Gastherme" for ${report.order.ref}`));
      assert.match(
        proposal.text,
        /check the signature here: http:\/\/localhost(:\d+)?\/public\/verify_signature\.php\?code=[A-Za-z0-9_-]{16,}/,
      );
      assert.match(proposal.text, /Heiztechnik Nord GmbH/);

      const german = await finalReport({ lang: 'de_DE', customerEmail: null });
      const de = (await get(`/api/mails.php?action=propose&bericht_id=${german.id}`)).json();
      assert.equal(de.subject, `Bericht ${german.ref} zu ${german.order.ref} (Ihre Bestellung ${german.order.refClient})`);
      // An order without the customer's number: the subject does not pretend one.
      await ctx.handle.db.updateTable('commande').set({ ref_client: null }).where('rowid', '=', german.order.id).execute();
      const plain = (await get(`/api/mails.php?action=propose&bericht_id=${german.id}`)).json();
      assert.equal(plain.subject, `Bericht ${german.ref} zu ${german.order.ref}`);
      assert.deepEqual(
        de.to.map((r: { source: string }) => r.source),
        ['contact'],
        'no address of the third party: only the contact',
      );
    });

    test("sent through STARTTLS and AUTH: recipients, subject, language and the PDF byte for byte; Dolibarr's agenda has both events", async () => {
      const report = await finalReport({ lang: 'en_US' });
      await setConsts({ BERICHT_MAIL_COPY_TO: 'buero@heiztechnik.example' });
      const sent = await post(
        '/api/mails.php?action=send',
        { bericht_id: report.id, to: ['erika@sonnenschein.example'] },
        { ...me.headers, 'idempotency-key': `send-${report.id}` },
      );
      await setConsts({ BERICHT_MAIL_COPY_TO: null });
      assert.equal(sent.statusCode, 201, sent.body);
      const job = sent.json();
      assert.equal(job.state, 'queued');
      assert.deepEqual([job.to, job.cc, job.lang], [['erika@sonnenschein.example'], ['buero@heiztechnik.example'], 'en']);
      const before = smtp.received.length;
      assert.equal(await runQueue(), 1);
      const [mail] = (await smtp.waitFor(before + 1)).slice(before);
      assert.ok(mail);
      assert.equal(mail.secure, true, 'STARTTLS');
      assert.equal(mail.user, SMTP_USER);
      assert.deepEqual(mail.envelope.to.sort(), ['buero@heiztechnik.example', 'erika@sonnenschein.example']);
      assert.equal(mail.parsed.subject, `Report ${report.ref} for ${report.order.ref} (your order ${report.order.refClient})`);
      assert.match(mail.parsed.text ?? '', /please find attached the report/);
      assert.equal(mail.parsed.from?.value[0]?.address, 'service@example.com');
      assert.equal(mail.parsed.attachments.length, 1);
      assert.equal(mail.parsed.attachments[0]!.filename, `${report.ref}.pdf`);
      assert.equal(mail.parsed.attachments[0]!.contentType, 'application/pdf');
      assert.ok(mail.parsed.attachments[0]!.content.equals(report.pdf), 'the attachment is the final PDF, byte for byte');

      const state = (await get(`/api/mails.php?id=${job.id}`)).json();
      assert.equal(state.state, 'sent');
      assert.equal(`<${state.message_id}>`, mail.parsed.messageId);
      // Dolibarr's form, with the order's tracking id its e-mail collector reads back from a reply.
      const host = createHash('sha1').update(`dolibarr${ctx.config.instanceUniqueId}`).digest('hex');
      assert.match(state.message_id, new RegExp(`^\\d+\\.${job.id}\\.fieldreport-dolibarr-ord${report.order.id}@${host}$`));
      assert.equal(mail.parsed.headers.get('x-dolibarr-trackid'), `ord${report.order.id}@${host}`);
      assert.deepEqual(mail.parsed.to && !Array.isArray(mail.parsed.to) ? mail.parsed.to.value : undefined, [
        { name: 'Erika Sonnenschein', address: 'erika@sonnenschein.example' },
      ]);
      assert.match(state.server_response, /queued as TEST/);
      assert.equal(state.attempts, 1);

      // Dolibarr's agenda: the finalize and the mail, on the order and its third party.
      const events = await ctx.handle.db
        .selectFrom('actioncomm')
        .selectAll()
        .where('fk_element', '=', report.order.id)
        .where('elementtype', '=', 'order')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        events.map((e) => e.code),
        ['AC_BERICHT_VALIDATE', 'AC_ORDER_SENTBYMAIL'],
      );
      const event = events[1]!;
      assert.equal(Number(event.fk_action), 40, 'AC_OTH_AUTO');
      assert.equal(event.ref, String(event.id));
      assert.equal(Number(event.fk_soc), report.customer.id);
      assert.equal(Number(event.percent), -1);
      assert.equal(Number(event.fk_user_author), me.id);
      assert.equal(Number(event.fk_user_action), me.id);
      assert.equal(Number(event.fk_contact), report.contactId, 'the one contact it went to');
      assert.equal(event.label, 'E-Mail gesendet von Service Firma an Erika Sonnenschein');
      assert.equal(event.ip, '127.0.0.1', 'the address the send came from');
      assert.equal(events[0]!.ip, '127.0.0.1', 'and the finalize');
      assert.equal(event.email_msgid, state.message_id);
      assert.equal(event.email_from, 'Service Firma <service@example.com>');
      assert.equal(event.email_to, 'Erika Sonnenschein <erika@sonnenschein.example>');
      assert.equal(event.email_tocc, 'buero@heiztechnik.example');
      assert.equal(event.email_subject, mail.parsed.subject);
      assert.match(
        event.note ?? '',
        new RegExp(`please find attached[\\s\\S]*Heiztechnik Nord GmbH\\n\\nAngehängte Dateien: ${report.ref}\\.pdf$`),
      );
      assert.equal(event.datep, event.datep2);
      const resources = await ctx.handle.db
        .selectFrom('actioncomm_resources')
        .select(['element_type', 'fk_element'])
        .where('fk_actioncomm', '=', Number(event.id))
        .orderBy('rowid')
        .execute();
      assert.deepEqual(
        resources.map((r) => [r.element_type, Number(r.fk_element)]),
        [
          ['user', me.id],
          ['socpeople', report.contactId],
        ],
      );
      assert.equal(Number((await mailRow(job.id)).fk_actioncomm), Number(event.id));

      // The same send again (the phone's outbox after a lost answer): the first answer, no second mail.
      const again = await post(
        '/api/mails.php?action=send',
        { bericht_id: report.id, to: ['erika@sonnenschein.example'] },
        { ...me.headers, 'idempotency-key': `send-${report.id}` },
      );
      assert.equal(again.statusCode, 201);
      assert.equal(again.json().id, job.id);
      assert.equal(await runQueue(), 0);
      assert.equal(smtp.received.length, before + 1);
      assert.equal((await get(`/api/mails.php?bericht_id=${report.id}`)).json().total, 1);
    });

    test("a subject and text with emoji: the mail keeps them; Dolibarr's event holds what its columns can (utf8 on a MariaDB Dolibarr made)", async () => {
      const report = await finalReport();
      const job = (
        await post('/api/mails.php?action=send', {
          bericht_id: report.id,
          to: ['erika@sonnenschein.example'],
          subject: 'Bericht 🔧 fertig',
          text: 'Alles dicht 👍',
        })
      ).json();
      const before = smtp.received.length;
      await runQueue();
      const [mail] = (await smtp.waitFor(before + 1)).slice(before);
      assert.deepEqual([mail!.parsed.subject, mail!.parsed.text?.trim()], ['Bericht 🔧 fertig', 'Alles dicht 👍']);
      const state = (await get(`/api/mails.php?id=${job.id}`)).json();
      assert.equal(state.state, 'sent', state.error);
      const event = await ctx.handle.db
        .selectFrom('actioncomm')
        .select(['email_subject', 'note'])
        .where('email_msgid', '=', state.message_id)
        .executeTakeFirstOrThrow();
      const charset =
        dialect === 'mysql'
          ? (
              await ctx.handle.db
                .selectFrom(
                  sql<{
                    cs: string;
                  }>`(select character_set_name as cs from information_schema.columns where table_schema = database() and table_name = ${`${ctx.config.dbPrefix}actioncomm`} and column_name = 'email_subject')`.as(
                    'c',
                  ),
                )
                .select('cs')
                .executeTakeFirst()
            )?.cs
          : undefined;
      const fitted = charset === 'utf8' || charset === 'utf8mb3';
      assert.equal(event.email_subject, fitted ? 'Bericht \uFFFD fertig' : 'Bericht 🔧 fertig');
      assert.match(event.note ?? '', fitted ? /^Alles dicht \uFFFD/ : /^Alles dicht 👍/);
    });

    test("the final PDF lies in the order's documents too, indexed in ecm_files as generated; deleting the report removes it there", async () => {
      const report = await finalReport();
      const folder = `commande/${report.order.ref}`;
      const row = await ctx.handle.db
        .selectFrom('ecm_files')
        .selectAll()
        .where('filepath', '=', folder)
        .where('filename', '=', `${report.ref}.pdf`)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.src_object_type, Number(row.src_object_id), row.gen_or_uploaded, row.fullpath_orig],
        ['commande', report.order.id, 'generated', ''],
      );
      const copy = await readFile(path.join(ctx.config.dataRoot, folder, `${report.ref}.pdf`));
      assert.ok(copy.equals(report.pdf));
      const admin = await ctx.make.user({ rights: ['read', 'write', 'delete', 'admin'], admin: true });
      const res = await ctx.app.inject({
        method: 'DELETE',
        url: `/api/reports.php?id=${report.id}`,
        headers: { authorization: `Bearer ${await ctx.make.token(admin)}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(
        await ctx.handle.db
          .selectFrom('ecm_files')
          .select('rowid')
          .where('filepath', '=', folder)
          .where('filename', '=', `${report.ref}.pdf`)
          .executeTakeFirst(),
        undefined,
      );
      await assert.rejects(readFile(path.join(ctx.config.dataRoot, folder, `${report.ref}.pdf`)), { code: 'ENOENT' });
    });

    test('bad input: clear 400s, 404s and 409s, and nothing queued', async () => {
      const report = await finalReport();
      const send = (payload: unknown, headers?: Record<string, string>) => post('/api/mails.php?action=send', payload, headers);
      const cases: Array<[unknown, number, string | RegExp]> = [
        [{ bericht_id: report.id }, 400, 'body.to'],
        [{ bericht_id: report.id, to: 'erika@sonnenschein.example' }, 400, 'body.to'],
        [{ bericht_id: report.id, to: [] }, 400, 'body.to'],
        [{ bericht_id: report.id, to: ['Erika <erika@sonnenschein.example>'] }, 400, 'body.to.0'],
        [{ bericht_id: report.id, to: ['erika@sonnenschein.example\r\nBcc: x@evil.example'] }, 400, 'body.to.0'],
        [{ bericht_id: report.id, to: ['keine-adresse'] }, 400, 'body.to.0'],
        [{ bericht_id: report.id, to: [42] }, 400, 'body.to.0'],
        [{ bericht_id: String(report.id), to: ['a@b.example'] }, 400, 'body.bericht_id'],
        [{ bericht_id: report.id, to: Array.from({ length: 21 }, (_, i) => `k${i}@b.example`) }, 400, 'body.to'],
        [
          {
            bericht_id: report.id,
            to: Array.from({ length: 7 }, (_, i) => `k${i}@b.example`),
            cc: Array.from({ length: 4 }, (_, i) => `c${i}@b.example`),
          },
          400,
          'body.cc',
        ],
        [{ bericht_id: report.id, to: ['a@b.example'], subject: 'x'.repeat(256) }, 400, 'body.subject'],
        [{ bericht_id: report.id, to: ['a@b.example'], subject: '   ' }, 400, 'body.subject'],
        [{ bericht_id: report.id, to: ['a@b.example'], text: 'x'.repeat(20_001) }, 400, 'body.text'],
        [{ bericht_id: report.id, to: ['a@b.example'], extra: 1 }, 400, 'body.extra'],
        [{ bericht_id: 999_999, to: ['a@b.example'] }, 404, 'REPORT_NOT_FOUND'],
      ];
      for (const [payload, status, what] of cases) {
        const res = await send(payload);
        assert.equal(res.statusCode, status, `${JSON.stringify(payload).slice(0, 80)}: ${res.body}`);
        assert.ok(
          res.body.includes(typeof what === 'string' ? what : '') || (what instanceof RegExp && what.test(res.body)),
          `${what} named in ${res.body}`,
        );
      }
      const huge = await ctx.app.inject({
        method: 'POST',
        url: '/api/mails.php?action=send',
        headers: { ...me.headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ bericht_id: report.id, to: ['a@b.example'], text: 'x'.repeat(2 * 1024 * 1024) }),
      });
      assert.equal(huge.statusCode, 413);
      assert.equal(
        (await post('/api/mails.php?action=mail', { bericht_id: report.id, to: ['a@b.example'] })).statusCode,
        400,
        'unknown action',
      );
      assert.equal((await post('/api/mails.php', { bericht_id: report.id, to: ['a@b.example'] })).statusCode, 400, 'no action');
      assert.equal((await get('/api/mails.php')).statusCode, 400, 'a list needs its report');
      assert.equal((await get('/api/mails.php?id=abc')).statusCode, 400);

      // A draft is not sent; another technician's report (of an order they may not see) does not exist for them.
      const draft = (await post('/api/reports.php?action=create', { fk_element: report.order.id, title: 'Entwurf' })).json();
      const refused = await send({ bericht_id: draft.id, to: ['a@b.example'] });
      assert.deepEqual([refused.statusCode, refused.json().code], [409, 'REPORT_NOT_FINAL']);
      assert.equal((await get(`/api/mails.php?action=propose&bericht_id=${draft.id}`)).statusCode, 409);
      const other = await ctx.make.user({ rights: ['read', 'write'] });
      const otherHeaders = { authorization: `Bearer ${await ctx.make.token(other)}` };
      assert.deepEqual([(await send({ bericht_id: report.id, to: ['a@b.example'] }, otherHeaders)).json().code], ['REPORT_NOT_FOUND']);
      assert.equal((await get(`/api/mails.php?action=propose&bericht_id=${report.id}`, otherHeaders)).statusCode, 404);
      const reader = await ctx.make.user({ rights: ['read'] });
      assert.equal(
        (await send({ bericht_id: report.id, to: ['a@b.example'] }, { authorization: `Bearer ${await ctx.make.token(reader)}` }))
          .statusCode,
        403,
        'sending needs the write right',
      );
      assert.equal((await ctx.app.inject({ method: 'POST', url: '/api/mails.php?action=send', payload: {} })).statusCode, 401);
      assert.equal((await get(`/api/mails.php?bericht_id=${report.id}`)).json().total, 0, 'nothing queued');

      // A mail of my report is not visible to another technician.
      const mine = (await send({ bericht_id: report.id, to: ['erika@sonnenschein.example'] })).json();
      const foreign = await get(`/api/mails.php?id=${mine.id}`, otherHeaders);
      assert.deepEqual([foreign.statusCode, foreign.json().code], [404, 'MAIL_NOT_FOUND']);
      assert.equal((await get(`/api/mails.php?bericht_id=${report.id}`, otherHeaders)).statusCode, 404);
      await runQueue();
    });

    /** A technician of their own (the limits count per user), with the write right. */
    async function technician() {
      const user = await ctx.make.user({ rights: ['read', 'write'] });
      return { id: user.id, headers: { authorization: `Bearer ${await ctx.make.token(user)}` } };
    }
    const LIMITS = ['BERICHT_MAIL_MAX_RECIPIENTS', 'BERICHT_MAIL_MAX_PER_USER_HOUR', 'BERICHT_MAIL_MAX_PER_REPORT_DAY'];
    const resetLimits = () => setConsts(Object.fromEntries(LIMITS.map((name) => [name, null])));
    /** The mails a test of the limits queued go unsent (the next tests count what arrives). */
    const dropQueued = () => ctx.handle.db.deleteFrom('bericht_mail').where('state', '=', 'queued').execute();

    test('limits per user: 50 sends at once queue exactly BERICHT_MAIL_MAX_PER_USER_HOUR mails; the rest 429 with Retry-After and words; free again an hour later', async () => {
      const tech = await technician();
      const [first, second] = [await finalReport({ as: tech }), await finalReport({ as: tech })];
      await setConsts({ BERICHT_MAIL_MAX_PER_USER_HOUR: '5', BERICHT_MAIL_MAX_PER_REPORT_DAY: '1000' });
      try {
        const sends = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            post(
              '/api/mails.php?action=send',
              { bericht_id: first.id, to: Array.from({ length: 10 }, (_, k) => `k${i}-${k}@sonnenschein.example`) },
              tech.headers,
            ),
          ),
        );
        const statuses = sends.map((r) => r.statusCode);
        assert.equal(statuses.filter((s) => s === 201).length, 5, `exactly 5 queued: ${statuses.join(',')}`);
        assert.equal(statuses.filter((s) => s === 429).length, 45, statuses.join(','));
        const refused = sends.find((r) => r.statusCode === 429)!;
        assert.equal(refused.json().code, 'MAIL_LIMIT_REACHED');
        assert.match(refused.json().error, /höchstens 5 je Stunde und Benutzer; die nächste ist in 60 Minuten möglich/);
        assert.deepEqual(refused.json().details, {
          limit: 'per_user_hour',
          max: 5,
          window_seconds: 3600,
          retry_after: Number(refused.headers['retry-after']),
        });
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(retryAfter > 3500 && retryAfter <= 3600, `Retry-After ${refused.headers['retry-after']}`);
        const rows = await ctx.handle.db
          .selectFrom('bericht_mail')
          .select(['rowid', 'datec'])
          .where('fk_user_author', '=', tech.id)
          .orderBy('rowid')
          .execute();
        assert.equal(rows.length, 5, 'nothing queued beyond the limit');

        // Another report of the same user: the user's limit holds there too; others still send.
        const other = await post('/api/mails.php?action=send', { bericht_id: second.id, to: ['erika@sonnenschein.example'] }, tech.headers);
        assert.equal(other.statusCode, 429, other.body);
        assert.equal(
          (await post('/api/mails.php?action=send', { bericht_id: (await finalReport()).id, to: ['erika@sonnenschein.example'] }))
            .statusCode,
          201,
          'another technician is not held up',
        );

        // The oldest mail 50 minutes old: free again in 10 minutes; older than an hour: one more goes.
        await ctx.handle.db
          .updateTable('bericht_mail')
          .set({ datec: toDbDateTime(new Date(Date.now() - 50 * 60_000)) })
          .where('rowid', '=', Number(rows[0]!.rowid))
          .execute();
        const later = await post('/api/mails.php?action=send', { bericht_id: second.id, to: ['erika@sonnenschein.example'] }, tech.headers);
        assert.equal(later.statusCode, 429);
        const wait = Number(later.headers['retry-after']);
        assert.ok(wait > 500 && wait <= 600, `Retry-After ${wait}`);
        assert.match(later.json().error, /in 10 Minuten möglich/);
        await ctx.handle.db
          .updateTable('bericht_mail')
          .set({ datec: toDbDateTime(new Date(Date.now() - 61 * 60_000)) })
          .where('rowid', '=', Number(rows[0]!.rowid))
          .execute();
        assert.equal(
          (await post('/api/mails.php?action=send', { bericht_id: second.id, to: ['erika@sonnenschein.example'] }, tech.headers))
            .statusCode,
          201,
        );
        assert.equal(
          (await post('/api/mails.php?action=send', { bericht_id: second.id, to: ['erika@sonnenschein.example'] }, tech.headers))
            .statusCode,
          429,
        );
      } finally {
        await resetLimits();
        await dropQueued();
      }
    });

    test("limits per report: BERICHT_MAIL_MAX_PER_REPORT_DAY mails of one report in 24 hours, then 429 naming the report's limit; the default is 10", async () => {
      const tech = await technician();
      const report = await finalReport({ as: tech });
      const send = (id = report.id) =>
        post('/api/mails.php?action=send', { bericht_id: id, to: ['erika@sonnenschein.example'] }, tech.headers);
      try {
        for (let i = 0; i < 10; i++) assert.equal((await send()).statusCode, 201, `mail ${i + 1} of the default 10`);
        const eleventh = await send();
        assert.equal(eleventh.statusCode, 429, eleventh.body);
        assert.match(eleventh.json().error, /Zu viele E-Mails zu diesem Bericht: höchstens 10 in 24 Stunden/);
        assert.equal(eleventh.json().details.limit, 'per_report_day');
        const wait = Number(eleventh.headers['retry-after']);
        assert.ok(wait > 86_000 && wait <= 86_400, `Retry-After ${wait}`);
        // A value that is no whole number in range counts as unset: the default holds.
        await setConsts({ BERICHT_MAIL_MAX_PER_REPORT_DAY: 'viele' });
        assert.equal((await send()).statusCode, 429);
        await setConsts({ BERICHT_MAIL_MAX_PER_REPORT_DAY: '12' });
        assert.equal((await send()).statusCode, 201, 'read for every send');
        assert.equal((await send((await finalReport({ as: tech })).id)).statusCode, 201, 'another report of the same user');
      } finally {
        await resetLimits();
        await dropQueued();
      }
    });

    test('both limits reached: the 429 names the one that frees later, with its Retry-After', async () => {
      const tech = await technician();
      const report = await finalReport({ as: tech });
      const send = () => post('/api/mails.php?action=send', { bericht_id: report.id, to: ['erika@sonnenschein.example'] }, tech.headers);
      try {
        await setConsts({ BERICHT_MAIL_MAX_PER_USER_HOUR: '1', BERICHT_MAIL_MAX_PER_REPORT_DAY: '1' });
        assert.equal((await send()).statusCode, 201);
        const both = await send();
        assert.equal(both.statusCode, 429, both.body);
        assert.equal(both.json().details.limit, 'per_report_day');
        const wait = Number(both.headers['retry-after']);
        assert.ok(wait > 86_000 && wait <= 86_400, `Retry-After ${wait}`);
        assert.equal(both.json().details.retry_after, wait);
      } finally {
        await resetLimits();
        await dropQueued();
      }
    });

    test('limits per mail: at most BERICHT_MAIL_MAX_RECIPIENTS (default 10) addresses in to and cc, named in a 400', async () => {
      const tech = await technician();
      const report = await finalReport({ as: tech });
      const send = (to: string[], cc?: string[]) =>
        post('/api/mails.php?action=send', { bericht_id: report.id, to, ...(cc ? { cc } : {}) }, tech.headers);
      const addresses = (n: number, p = 'k') => Array.from({ length: n }, (_, i) => `${p}${i}@sonnenschein.example`);
      try {
        const eleven = await send(addresses(11));
        assert.equal(eleven.statusCode, 400, eleven.body);
        assert.deepEqual(
          [eleven.json().error, eleven.json().details[0].field],
          ['Höchstens 10 Empfänger je E-Mail (An und Kopie zusammen)', 'body.to'],
        );
        assert.equal((await send(addresses(8), addresses(3, 'c'))).json().details[0].field, 'body.cc');
        assert.equal((await send(addresses(6), addresses(4, 'c'))).statusCode, 201, 'ten together');
        await setConsts({ BERICHT_MAIL_MAX_RECIPIENTS: '2' });
        assert.match((await send(addresses(3))).json().error, /Höchstens 2 Empfänger/);
        assert.equal((await send(addresses(2))).statusCode, 201);
      } finally {
        await resetLimits();
        await dropQueued();
      }
    });

    test("copies are plain addresses: the sender's first address only, a setting's other entries left out; an address named twice in to and cc counts once", async () => {
      const tech = await technician();
      const report = await finalReport({ as: tech });
      const send = (to: string[], cc?: string[]) =>
        post('/api/mails.php?action=send', { bericht_id: report.id, to, ...(cc ? { cc } : {}) }, tech.headers);
      const email = (value: string) => ctx.handle.db.updateTable('user').set({ email: value }).where('rowid', '=', tech.id).execute();
      try {
        await email('tim@heiztechnik.example; chef@heiztechnik.example, x@evil.example');
        await setConsts({
          BERICHT_MAIL_COPY_AUTHOR: '1',
          BERICHT_MAIL_COPY_TO: 'buero@heiztechnik.example, Büro <b@evil.example>; a%b@evil.example',
          MAIN_MAIL_AUTOCOPY_TO: 'archiv@heiztechnik.example;"x"@evil.example',
        });
        const job = await send(['erika@sonnenschein.example']);
        assert.equal(job.statusCode, 201, job.body);
        assert.deepEqual(
          [job.json().cc, job.json().bcc],
          [['buero@heiztechnik.example', 'tim@heiztechnik.example'], ['archiv@heiztechnik.example']],
        );
        // The sender's e-mail with a name: no copy to them.
        await email('Tim <tim@heiztechnik.example>');
        const plain = await send(['erika@sonnenschein.example']);
        assert.deepEqual(plain.json().cc, ['buero@heiztechnik.example']);

        await setConsts({
          BERICHT_MAIL_MAX_RECIPIENTS: '2',
          BERICHT_MAIL_COPY_TO: null,
          BERICHT_MAIL_COPY_AUTHOR: null,
          MAIN_MAIL_AUTOCOPY_TO: null,
        });
        const twice = await send(
          ['a@sonnenschein.example', 'A@sonnenschein.example'],
          ['a@Sonnenschein.example', 'b@sonnenschein.example'],
        );
        assert.equal(twice.statusCode, 201, twice.body);
        assert.deepEqual([twice.json().to, twice.json().cc], [['a@sonnenschein.example'], ['b@sonnenschein.example']]);
        assert.equal((await send(['a@sonnenschein.example', 'b@sonnenschein.example'], ['c@sonnenschein.example'])).statusCode, 400);
      } finally {
        await setConsts({ BERICHT_MAIL_COPY_TO: null, BERICHT_MAIL_COPY_AUTHOR: null, MAIN_MAIL_AUTOCOPY_TO: null });
        await resetLimits();
        await dropQueued();
      }
    });

    test('recipients are plain addresses: a source route, a long local part, quotes or comments are 400 naming the field and the address', async () => {
      const report = await finalReport();
      const send = (to: string[], cc?: string[]) =>
        post('/api/mails.php?action=send', { bericht_id: report.id, to, ...(cc ? { cc } : {}) });
      const refused: Array<[string, RegExp]> = [
        ['a%b@sonnenschein.example', /Quell-Routen/],
        ['b!a@sonnenschein.example', /Quell-Routen/],
        ['@relay.example:b@sonnenschein.example', /Quell-Route/],
        [`${'a'.repeat(240)}@b.example`, /mehr als 64 Zeichen vor dem @/],
        [`${'a'.repeat(65)}@b.example`, /mehr als 64 Zeichen vor dem @/],
        ['"erika s"@sonnenschein.example', /nur die Adresse|Anführungszeichen/],
        ['"erika"@sonnenschein.example', /Anführungszeichen/],
        ['erika(büro)@sonnenschein.example', /Kommentare/],
        ['.erika@sonnenschein.example', /Punkt/],
        ['erika..s@sonnenschein.example', /Punkt/],
        ['erika@a@sonnenschein.example', /mehr als ein @/],
      ];
      for (const [address, why] of refused) {
        const res = await send([address]);
        assert.equal(res.statusCode, 400, `${address}: ${res.body}`);
        const body = res.json();
        assert.equal(body.code, 'VALIDATION_FAILED');
        assert.ok(body.error.includes('body.to.0') && body.error.includes(address.slice(0, 100)), `field and address named: ${body.error}`);
        assert.match(body.error, why);
        assert.equal(body.details[0].field, 'body.to.0');
        assert.equal(body.details[0].address, address);
      }
      const inCc = await send(['erika@sonnenschein.example'], ['buero@sonnenschein.example', 'x%y@sonnenschein.example']);
      assert.deepEqual([inCc.statusCode, inCc.json().details[0].field], [400, 'body.cc.1']);
      assert.match(inCc.json().error, /body\.cc\.1: „x%y@sonnenschein\.example“/);
      assert.equal((await get(`/api/mails.php?bericht_id=${report.id}`)).json().total, 0, 'nothing queued');
      const longest = `${'a'.repeat(64)}@sonnenschein.example`;
      const ok = await send([longest, "o'brien+bericht@sonnenschein.example"]);
      assert.equal(ok.statusCode, 201, ok.body);
      await runQueue();
    });

    test('text and subject as they reach the mail server: every line break CRLF (no \\r.\\r\\n smuggling), the subject one line; NUL and other controls are 400', async () => {
      const report = await finalReport();
      const send = (payload: Record<string, unknown>) =>
        post('/api/mails.php?action=send', { bericht_id: report.id, to: ['erika@sonnenschein.example'], ...payload });
      for (const [field, value] of <Array<[string, string]>>[
        ['subject', 'Bericht\u0000fertig'],
        ['text', 'Hallo\u0000'],
        ['text', 'Farbe \u001b[31mrot'],
        ['subject', 'Bericht \u202Egnaltiaw'],
        ['text', 'Ende\u007f'],
        ['subject', 'A\u0085B'],
      ]) {
        const res = await send({ [field]: value });
        assert.equal(res.statusCode, 400, `${JSON.stringify(value)}: ${res.body}`);
        assert.equal(res.json().details[0].field, `body.${field}`);
        assert.match(res.json().details[0].message, /control or bidirectional override characters \(U\+[0-9A-F]{4}/);
      }
      assert.equal((await get(`/api/mails.php?bericht_id=${report.id}`)).json().total, 0, 'nothing queued');

      const text = 'Zeile eins\r.\r\nMAIL FROM:<x@evil.example>\nZeile drei\rZeile vier\r\n\tEingerückt';
      const job = await send({ subject: 'Bericht\r\nBcc: x@evil.example', text });
      assert.equal(job.statusCode, 201, job.body);
      assert.equal(job.json().subject, 'Bericht Bcc: x@evil.example');
      assert.equal(job.json().text, 'Zeile eins\r\n.\r\nMAIL FROM:<x@evil.example>\r\nZeile drei\r\nZeile vier\r\n\tEingerückt');
      const before = smtp.received.length;
      await runQueue();
      const [mail] = (await smtp.waitFor(before + 1)).slice(before);
      const raw = mail!.raw.toString('latin1');
      assert.doesNotMatch(raw, /\r(?!\n)|(?<!\r)\n/, 'no lone CR or LF reached the server');
      assert.deepEqual(mail!.envelope.to, ['erika@sonnenschein.example'], 'one message, one recipient');
      assert.equal(mail!.parsed.subject, 'Bericht Bcc: x@evil.example');
      assert.equal(mail!.parsed.bcc, undefined);
      assert.deepEqual(mail!.parsed.text?.replace(/\n$/, '').split('\n'), [
        'Zeile eins',
        '.',
        'MAIL FROM:<x@evil.example>',
        'Zeile drei',
        'Zeile vier',
        '\tEingerückt',
      ]);
      assert.equal(smtp.received.length, before + 1, 'one mail, nothing smuggled');
    });

    test("a subject cut at 255 characters never splits an emoji; a tab in it is a space; a template's C1 controls and overrides go", async () => {
      const report = await finalReport();
      try {
        // 250 characters of the template and the report's title of six emoji (llx_const of a MariaDB Dolibarr is utf8: no emoji there).
        await ctx.handle.db
          .updateTable('bericht')
          .set({ title: '😀'.repeat(6) })
          .where('rowid', '=', report.id)
          .execute();
        await setConsts({ BERICHT_MAIL_SUBJECT: `${'B'.repeat(250)}__REPORT_TITLE__` });
        const job = await post('/api/mails.php?action=send', { bericht_id: report.id, to: ['erika@sonnenschein.example'] });
        assert.equal(job.statusCode, 201, job.body);
        assert.equal(job.json().subject, `${'B'.repeat(250)}${'😀'.repeat(5)}`, 'cut after an emoji, not inside one');
        // A template's subject: tabs become spaces, C1 controls and direction overrides go.
        await setConsts({ BERICHT_MAIL_SUBJECT: 'Bericht\t__REF__\u0085 \u202Eneu\u202C' });
        const templated = await post('/api/mails.php?action=send', { bericht_id: report.id, to: ['erika@sonnenschein.example'] });
        assert.equal(templated.json().subject, `Bericht ${report.ref} neu`);
        const tab = await post('/api/mails.php?action=send', {
          bericht_id: report.id,
          to: ['erika@sonnenschein.example'],
          subject: 'Bericht\tfertig',
        });
        assert.equal(tab.json().subject, 'Bericht fertig');
      } finally {
        await setConsts({ BERICHT_MAIL_SUBJECT: null });
        await dropQueued();
      }
    });

    test('a mail queued by an earlier version (a lone CR or LF in its text, a line break in its subject) still goes out with CRLF, the subject one line', async () => {
      const report = await finalReport();
      const job = await post('/api/mails.php?action=send', { bericht_id: report.id, to: ['erika@sonnenschein.example'] });
      assert.equal(job.statusCode, 201, job.body);
      // The row as an earlier version stored it.
      await ctx.handle.db
        .updateTable('bericht_mail')
        .set({ subject: 'Bericht\nalt', body: 'Zeile eins\rZeile zwei\nZeile drei\r.\rEnde' })
        .where('rowid', '=', job.json().id)
        .execute();
      const before = smtp.received.length;
      await runQueue();
      const [mail] = (await smtp.waitFor(before + 1)).slice(before);
      assert.doesNotMatch(mail!.raw.toString('latin1'), /\r(?!\n)|(?<!\r)\n/, 'no lone CR or LF reached the server');
      assert.equal(mail!.parsed.subject, 'Bericht alt');
      assert.deepEqual(mail!.parsed.text?.replace(/\n$/, '').split('\n'), ['Zeile eins', 'Zeile zwei', 'Zeile drei', '.', 'Ende']);
      assert.equal(smtp.received.length, before + 1, 'one mail');
    });

    test('a server that is down: queued with the reason, tried again later, sent once when it is back', async () => {
      const report = await finalReport();
      await smtp.stop();
      try {
        const job = (await post('/api/mails.php?action=send', { bericht_id: report.id, to: ['erika@sonnenschein.example'] })).json();
        assert.equal(await runQueue(), 1);
        const waiting = (await get(`/api/mails.php?id=${job.id}`)).json();
        assert.deepEqual([waiting.state, waiting.error_code, waiting.attempts], ['queued', 'MAIL_UNREACHABLE', 1]);
        assert.match(waiting.error, /Der Mailserver ist nicht erreichbar/);
        assert.ok(waiting.next_attempt > Math.floor(Date.now() / 1000) + 20, 'the next attempt after a pause');
        assert.equal(await runQueue(), 0, 'not before its time');
        await dueNow(job.id);
        await runQueue();
        const second = await mailRow(job.id);
        assert.deepEqual([second.state, Number(second.attempts)], ['queued', 2]);
        assert.ok(new Date(`${second.next_attempt_at}Z`).getTime() - Date.now() > 50_000, 'the pause doubles');
        // Past its retry time: failed, in words.
        await ctx.handle.db
          .updateTable('bericht_mail')
          .set({ expires_at: toDbDateTime(new Date(Date.now() - 1000)) })
          .where('rowid', '=', job.id)
          .execute();
        await dueNow(job.id);
        await runQueue();
        const gaveUp = (await get(`/api/mails.php?id=${job.id}`)).json();
        assert.deepEqual([gaveUp.state, gaveUp.error_code], ['failed', 'MAIL_UNREACHABLE']);
        assert.match(gaveUp.error, /Bis zum Ablauf der Wiederholungen nicht versendet/);

        const next = (
          await post(
            '/api/mails.php?action=send',
            { bericht_id: report.id, to: ['erika@sonnenschein.example'] },
            { ...me.headers, 'idempotency-key': `outage-${report.id}` },
          )
        ).json();
        await runQueue();
        await smtp.start();
        const before = smtp.received.length;
        await dueNow(next.id);
        assert.equal(await runQueue(), 1);
        await smtp.waitFor(before + 1);
        assert.equal((await get(`/api/mails.php?id=${next.id}`)).json().state, 'sent');
        assert.equal(await runQueue(), 0);
        assert.equal(smtp.received.length, before + 1, 'sent once');
      } finally {
        await smtp.start().catch(() => undefined);
      }
    });

    test('a wrong password, a refused recipient, a PDF too large: each failed with its reason in words, never a 500', async () => {
      const report = await finalReport();
      const send = async (to: string[]) => {
        const res = await post('/api/mails.php?action=send', { bericht_id: report.id, to });
        assert.equal(res.statusCode, 201, res.body);
        await runQueue();
        return (await get(`/api/mails.php?id=${res.json().id}`)).json();
      };
      await setConsts({ MAIN_MAIL_SMTPS_PW: 'falsch' });
      const wrong = await send(['erika@sonnenschein.example']);
      await setConsts({ MAIN_MAIL_SMTPS_PW: dolEncrypt(SMTP_PASSWORD, ctx.config.instanceUniqueId!) });
      assert.deepEqual([wrong.state, wrong.error_code], ['failed', 'MAIL_AUTH_FAILED']);
      assert.match(wrong.error, /Anmeldung abgelehnt.*535/);

      const refused = await send(['refuse-me@sonnenschein.example']);
      assert.deepEqual([refused.state, refused.error_code], ['failed', 'MAIL_RECIPIENT_REFUSED']);
      assert.match(refused.error, /refuse-me@sonnenschein\.example/);

      const before = smtp.received.length;
      const partly = await send(['erika@sonnenschein.example', 'refuse-too@sonnenschein.example']);
      assert.deepEqual([partly.state, partly.error_code], ['sent', 'MAIL_RECIPIENT_REFUSED']);
      assert.match(partly.error, /Nicht angenommen: refuse-too@sonnenschein\.example/);
      assert.deepEqual(smtp.received[before]!.envelope.to, ['erika@sonnenschein.example']);
      const event = await ctx.handle.db
        .selectFrom('actioncomm')
        .select(['label', 'email_to'])
        .where('email_msgid', '=', partly.message_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(event, {
        label: 'E-Mail gesendet von Service Firma an Erika Sonnenschein...',
        email_to: 'Erika Sonnenschein <erika@sonnenschein.example>,refuse-too@sonnenschein.example',
      });

      const small = await startSmtp({ sizeLimit: 20_000 });
      try {
        await setConsts({ MAIN_MAIL_SMTP_PORT: String(small.port) });
        const large = await send(['erika@sonnenschein.example']);
        assert.deepEqual([large.state, large.error_code], ['failed', 'MAIL_TOO_LARGE']);
        assert.match(large.error, /zu groß/);
        assert.equal(small.received.length, 0);
      } finally {
        await setConsts({ MAIN_MAIL_SMTP_PORT: String(smtp.port) });
        await small.close();
      }

      await setConsts({ MAIN_MAIL_SENDMODE: null, MAIN_MAIL_SMTP_SERVER: null });
      try {
        assert.equal((await get(`/api/mails.php?action=propose&bericht_id=${report.id}`)).json().configured, false);
        const unset = await send(['erika@sonnenschein.example']);
        assert.deepEqual([unset.state, unset.error_code], ['queued', 'MAIL_NOT_CONFIGURED'], 'kept until mail is set up');
        await setConsts(smtp.settings({ MAIN_MAIL_SMTPS_PW: dolEncrypt(SMTP_PASSWORD, ctx.config.instanceUniqueId!) }));
        await dueNow(unset.id);
        await runQueue();
        assert.equal((await get(`/api/mails.php?id=${unset.id}`)).json().state, 'sent');
      } finally {
        await setConsts(smtp.settings({ MAIN_MAIL_SMTPS_PW: dolEncrypt(SMTP_PASSWORD, ctx.config.instanceUniqueId!) }));
      }
    });

    test('two service processes racing for the same jobs send each mail once', async () => {
      const report = await finalReport();
      const second = createDb(ctx.config, { poolSize: 4 });
      const other = await buildApp(ctx.config, { db: second, logger: false });
      await other.ready();
      try {
        const jobs: number[] = [];
        for (let i = 0; i < 6; i++)
          jobs.push((await post('/api/mails.php?action=send', { bericht_id: report.id, to: [`k${i}@sonnenschein.example`] })).json().id);
        const before = smtp.received.length;
        const taken = await Promise.all([runQueue(), other.mailQueue.runOnce()]);
        await smtp.waitFor(before + 6);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(
          taken.reduce((a, b) => a + b, 0),
          6,
          `each job taken once: ${taken}`,
        );
        assert.equal(smtp.received.length, before + 6, 'six mails, no copy');
        assert.deepEqual(
          smtp.received
            .slice(before)
            .map((m) => m.envelope.to[0])
            .sort(),
          jobs.map((_, i) => `k${i}@sonnenschein.example`).sort(),
        );
        for (const id of jobs) assert.equal((await mailRow(id)).state, 'sent');
      } finally {
        await other.close();
        await second.destroy();
      }
    });
  });
}
