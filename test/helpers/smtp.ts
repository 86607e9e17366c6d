/**
 * A real SMTP server inside the tests (the `smtp-server` package): STARTTLS with a self-signed
 * certificate made by openssl, AUTH (PLAIN and LOGIN) with one user and password, an optional size
 * limit (advertised as SIZE, and a 552 past it), refused recipients (any address with "refuse" in it
 * gets a 550), and every mail read back with `mailparser`. It can be stopped and started again on
 * the same port (a mail server that is down for a while).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export const SMTP_USER = 'fieldreport@example.com';
export const SMTP_PASSWORD = 'Geheim-2026';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  /** The session used STARTTLS. */
  secure: boolean;
  /** Who logged in. */
  user: string | undefined;
  raw: Buffer;
  parsed: ParsedMail;
}

export interface TestSmtp {
  port: number;
  received: ReceivedMail[];
  /** Logins tried with a wrong password. */
  failedLogins: number;
  /** The settings the service reads, as Dolibarr stores them (MAIN_MAIL_*). */
  settings(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
  /** Listens again on the same port (nothing when it listens). */
  start(): Promise<void>;
  /** Waits until `count` mails arrived (or fails after `ms`). */
  waitFor(count: number, ms?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

let certificate: { key: Buffer; cert: Buffer } | undefined;
function selfSigned(): { key: Buffer; cert: Buffer } {
  if (certificate) return certificate;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-smtp-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-days',
        '2',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    certificate = { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) };
    return certificate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startSmtp(options: { sizeLimit?: number } = {}): Promise<TestSmtp> {
  const { key, cert } = selfSigned();
  const received: ReceivedMail[] = [];
  const state = { failedLogins: 0 };
  const serverOptions: SMTPServerOptions = {
    key,
    cert,
    authMethods: ['PLAIN', 'LOGIN'],
    // AUTH only after STARTTLS, as a real server does.
    allowInsecureAuth: false,
    logger: false,
    ...(options.sizeLimit ? { size: options.sizeLimit } : {}),
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: auth.username });
      state.failedLogins += 1;
      const error = Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 });
      return callback(error);
    },
    onRcptTo(address, _session, callback) {
      if (address.address.includes('refuse'))
        return callback(
          Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }),
        );
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(Object.assign(new Error('5.3.4 Message size exceeds fixed limit'), { responseCode: 552 }));
        }
        const raw = Buffer.concat(chunks);
        received.push({
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          secure: session.secure,
          user: session.user as string | undefined,
          raw,
          parsed: await simpleParser(raw),
        });
        callback(null, `2.0.0 Ok: queued as TEST${received.length}`);
      });
    },
  };
  let server = new SMTPServer(serverOptions);
  let listening = false;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        listening = true;
        resolve((server.server.address() as AddressInfo).port);
      });
    });
  const port = await listen(0);
  const close = () => {
    if (!listening) return Promise.resolve();
    listening = false;
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    received,
    get failedLogins() {
      return state.failedLogins;
    },
    settings: (extra = {}) => ({
      MAIN_MAIL_SENDMODE: 'smtps',
      MAIN_MAIL_SMTP_SERVER: '127.0.0.1',
      MAIN_MAIL_SMTP_PORT: String(port),
      MAIN_MAIL_SMTPS_ID: SMTP_USER,
      MAIN_MAIL_SMTPS_PW: SMTP_PASSWORD,
      MAIN_MAIL_EMAIL_STARTTLS: '1',
      MAIN_MAIL_EMAIL_SMTP_ALLOW_SELF_SIGNED: '1',
      MAIN_MAIL_EMAIL_FROM: 'Service Firma <service@example.com>',
      ...extra,
    }),
    stop: close,
    async start() {
      if (listening) return;
      server = new SMTPServer(serverOptions);
      await listen(port);
    },
    async waitFor(count, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`${received.length} of ${count} mails arrived within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received;
    },
    close,
  };
}
