/**
 * A report's mail survives a kill -9 of the service, on every database: the real service in its own
 * process (`fieldreport serve --demo`) queues the mail, is killed with SIGKILL, and the service
 * started again on the same database and folders sends it, exactly once, to a real SMTP server.
 * 1. Killed after queueing, before any attempt (that process sends nothing: MAIL_POLL_SECONDS=0).
 * 2. Killed while it holds the job (its mail server accepted the connection and never answered):
 *    the next process sees the holder dead (runs.ts) and takes the job at once, without waiting for
 *    the lease to run out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/databases.js';
import { pdfToolsMissing } from '../helpers/pdf-tools.js';
import { login, startService, type ServiceProcess } from '../helpers/service-process.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

function databaseUrl(db: TestDatabase): string {
  const c = db.config;
  if (c.dialect === 'sqlite') return `sqlite:${c.file}`;
  const auth = `${encodeURIComponent(c.user)}${c.password ? `:${encodeURIComponent(c.password)}` : ''}`;
  return `${c.dialect === 'mysql' ? 'mysql' : 'postgres'}://${auth}@${c.host}:${c.port}/${c.database}`;
}

for (const dialect of testDialects()) {
  describe(`mail after a kill -9 [${dialect}]`, { skip: pdfToolsMissing }, () => {
    let db: TestDatabase;
    let folder: string;
    let smtp: TestSmtp;
    let silent: net.Server;
    const services: ServiceProcess[] = [];
    before(async () => {
      db = await createTestDatabase(dialect);
      folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-crash-mail-'));
      smtp = await startSmtp();
      // A mail server that takes the connection and never says a word.
      silent = net.createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });
    after(async () => {
      for (const s of services) await s.kill();
      await smtp?.close();
      await new Promise((r) => silent?.close(r));
      await db?.drop();
      if (folder) rmSync(folder, { recursive: true, force: true });
    });

    async function start(env: Record<string, string>): Promise<ServiceProcess> {
      const service = await startService({
        args: ['serve', '--demo'],
        env: {
          DATABASE_URL: databaseUrl(db),
          DATA_ROOT: path.join(folder, 'documents'),
          STATE_DIR: path.join(folder, 'state'),
          PUBLIC_URL: 'http://service.example',
          INSTANCE_UNIQUE_ID: 'crash-mail-instance',
          ...env,
        },
      });
      services.push(service);
      return service;
    }

    /** A final report of the demo, made through the API: its id. */
    async function finalReport(base: string, token: string): Promise<number> {
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const orders = (await (await fetch(`${base}/api/orders.php?limit=1`, { headers })).json()) as { items: Array<{ id: number }> };
      const created = await fetch(`${base}/api/reports.php?action=create`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ fk_element: orders.items[0]!.id, title: `Bericht ${Date.now()}` }),
      });
      assert.equal(created.status, 201, await created.clone().text());
      const id = ((await created.json()) as { id: number }).id;
      assert.equal(
        (
          await fetch(`${base}/api/pages.php?action=add&bericht_id=${id}`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ layout: 'title_only', title: 'Erledigt', note: 'Alles in Ordnung' }),
          })
        ).status,
        201,
      );
      const done = await fetch(`${base}/api/reports.php?id=${id}&action=finalize`, { method: 'POST', headers, body: '{}' });
      assert.equal(done.status, 200, await done.clone().text());
      return id;
    }

    async function send(base: string, token: string, reportId: number, to: string): Promise<number> {
      const res = await fetch(`${base}/api/mails.php?action=send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `crash-${reportId}` },
        body: JSON.stringify({ bericht_id: reportId, to: [to] }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      return ((await res.json()) as { id: number }).id;
    }

    const job = async (base: string, token: string, id: number) =>
      (await (await fetch(`${base}/api/mails.php?id=${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        state: string;
        attempts: number;
        message_id: string | null;
      };

    async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms = 30_000): Promise<T> {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await read();
        if (ok(value)) return value;
        if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    test('killed after queueing: the next start sends it once', async () => {
      const first = await start({ ...smtp.settings(), MAIL_POLL_SECONDS: '0' });
      const token = await login(first.base, 'techniker');
      const report = await finalReport(first.base, token);
      const id = await send(first.base, token, report, 'kunde-1@example.com');
      assert.deepEqual([(await job(first.base, token, id)).state, (await job(first.base, token, id)).attempts], ['queued', 0]);
      await first.kill();

      const before = smtp.received.length;
      const second = await start({ ...smtp.settings(), MAIL_POLL_SECONDS: '1' });
      const sent = await until(
        'the mail after the restart',
        () => job(second.base, token, id),
        (j) => j.state === 'sent',
      );
      await new Promise((r) => setTimeout(r, 3000));
      const arrived = smtp.received.slice(before).filter((m) => m.envelope.to.includes('kunde-1@example.com'));
      assert.equal(arrived.length, 1, 'sent exactly once');
      assert.equal(arrived[0]!.parsed.messageId, `<${sent.message_id}>`);
      await second.kill();
    });

    test('killed while it held the job: the next start takes it at once and sends it once', async () => {
      const first = await start({
        ...smtp.settings({ MAIN_MAIL_SMTP_PORT: String((silent.address() as net.AddressInfo).port) }),
        MAIL_POLL_SECONDS: '1',
      });
      const token = await login(first.base, 'techniker');
      const report = await finalReport(first.base, token);
      const id = await send(first.base, token, report, 'kunde-2@example.com');
      await until(
        'the first process holds the job',
        () => job(first.base, token, id),
        (j) => j.state === 'sending',
      );
      await first.kill();

      const before = smtp.received.length;
      const startedAt = Date.now();
      const second = await start({ ...smtp.settings(), MAIL_POLL_SECONDS: '1' });
      await until(
        'the mail after the restart',
        () => job(second.base, token, id),
        (j) => j.state === 'sent',
      );
      assert.ok(Date.now() - startedAt < 60_000, 'taken at once, not after the 5-minute lease');
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal(smtp.received.slice(before).filter((m) => m.envelope.to.includes('kunde-2@example.com')).length, 1, 'sent exactly once');
      assert.equal((await job(second.base, token, id)).attempts, 2);
      await second.kill();
    });
  });
}
