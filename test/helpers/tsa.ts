/**
 * A real RFC 3161 time-stamp authority for tests: OpenSSL's `ts -reply` behind a small HTTP
 * server speaking the protocol of RFC 3161 3.4 (POST application/timestamp-query, answer
 * application/timestamp-reply). Its certificate (EKU timeStamping, critical) is self-signed;
 * `certFile` is what `openssl ts -verify -CAfile` trusts. `down` makes every request fail as an
 * unreachable server does (the connection is dropped).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestTsa {
  url: string;
  dir: string;
  certFile: string;
  /** Requests answered with a token. */
  granted: number;
  /** Requests refused because the authority was down. */
  refused: number;
  down: boolean;
  close(): Promise<void>;
}

export async function startTsa(options: { username?: string; password?: string } = {}): Promise<TestTsa> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-tsa-'));
  const certFile = path.join(dir, 'tsa.crt');
  const keyFile = path.join(dir, 'tsa.key');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '3650',
    '-subj',
    '/CN=Test Time Stamping Authority/O=fieldreport tests',
    '-addext',
    'extendedKeyUsage=critical,timeStamping',
    '-addext',
    'keyUsage=critical,digitalSignature',
  ]);
  writeFileSync(path.join(dir, 'serial'), '01\n');
  const config = path.join(dir, 'tsa.cnf');
  writeFileSync(
    config,
    [
      '[ tsa ]',
      'default_tsa = tsa_config',
      '[ tsa_config ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'crypto_device = builtin',
      'signer_cert = $dir/tsa.crt',
      'certs = $dir/tsa.crt',
      'signer_key = $dir/tsa.key',
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      'ordering = yes',
      'tsa_name = yes',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  let sequence = 0;
  const state = { granted: 0, refused: 0, down: false };
  const server = createServer((req, res) => {
    if (state.down) {
      state.refused++;
      req.socket.destroy();
      return;
    }
    if (options.username !== undefined) {
      const expected = `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="tsa"' }).end();
        return;
      }
    }
    if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') {
      res.writeHead(400).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const n = ++sequence;
      const query = path.join(dir, `q${n}.tsq`);
      const reply = path.join(dir, `r${n}.tsr`);
      try {
        await writeFile(query, Buffer.concat(chunks));
        await run('openssl', ['ts', '-reply', '-config', config, '-queryfile', query, '-out', reply]);
        const body = await readFile(reply);
        state.granted++;
        res.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': body.length }).end(body);
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/tsr`,
    dir,
    certFile,
    get granted() {
      return state.granted;
    },
    get refused() {
      return state.refused;
    },
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
