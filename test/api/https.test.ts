/**
 * HTTPS from fieldreport itself (TLS_CERT, TLS_KEY), with self-signed pairs made by openssl: a
 * real HTTPS request is answered, the start banner says https://, and every fault of the setting
 * is a configuration problem naming its file (one setting alone, a missing file, a file without a
 * certificate or key, a key of another pair), not a crash when the server starts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import https from 'node:https';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { runCli } from '../helpers/cli.js';
import { startService } from '../helpers/service-process.js';
import { networkAppUrls } from '../../src/start-banner.js';

interface Pair {
  cert: string;
  key: string;
}

/** A self-signed certificate for localhost and 127.0.0.1 (P-256, one day) and its key, in `dir`. */
function makePair(dir: string): Pair {
  mkdirSync(dir, { recursive: true });
  const pair = { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      pair.key,
      '-out',
      pair.cert,
    ],
    { encoding: 'utf8' },
  );
  if (made.error || made.status !== 0) throw new Error(`openssl: ${made.error?.message ?? made.stderr}`);
  return pair;
}

const opensslMissing = spawnSync('openssl', ['version']).error ? 'openssl is not installed' : undefined;

/** A GET over HTTPS that trusts only `ca`. */
function httpsGet(url: string, ca: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return [...error.problems];
  }
  return assert.fail('expected a ConfigError');
}

describe('HTTPS [sqlite]', { skip: opensslMissing }, () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-tls-'));
  let a: Pair;
  let b: Pair;
  let ctx: TestContext | undefined;
  before(() => {
    a = makePair(path.join(folder, 'a'));
    b = makePair(path.join(folder, 'b'));
  });
  after(async () => {
    await ctx?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('TLS_CERT and TLS_KEY are read into the configuration; without them there is none', () => {
    const config = loadConfig({ TLS_CERT: a.cert, TLS_KEY: a.key });
    assert.equal(config.tls?.certFile, a.cert);
    assert.equal(config.tls?.keyFile, a.key);
    assert.equal(config.tls?.cert, readFileSync(a.cert, 'utf8'));
    assert.equal(config.tls?.key, readFileSync(a.key, 'utf8'));
    assert.equal(loadConfig({}).tls, undefined);
  });

  test('a real HTTPS request to /api/health is answered; the time limits hold on the HTTPS server too', async () => {
    ctx = await createTestContext('sqlite', { tls: loadConfig({ TLS_CERT: a.cert, TLS_KEY: a.key }).tls });
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx.app.server.address() as AddressInfo;
    const ca = readFileSync(a.cert, 'utf8');
    for (const host of ['localhost', '127.0.0.1']) {
      const res = await httpsGet(`https://${host}:${port}/api/health`, ca);
      assert.equal(res.status, 200, res.body);
      assert.equal(JSON.parse(res.body).status, 'ok');
    }
    // It is TLS: a client that does not trust the certificate is refused, and so is plain HTTP.
    await assert.rejects(
      httpsGet(`https://localhost:${port}/api/health`, readFileSync(b.cert, 'utf8')),
      /self[- ]signed|unable to verify|certificate/i,
    );
    await assert.rejects(fetch(`http://127.0.0.1:${port}/api/health`));
    assert.equal(ctx.app.server.headersTimeout, ctx.config.timeouts.headersSeconds * 1000);
    assert.equal(ctx.app.server.requestTimeout, ctx.config.timeouts.requestSeconds * 1000);
  });

  test('one setting alone is a problem, listed with the others', () => {
    const certOnly = configProblems({ TLS_CERT: a.cert, PORT: 'abc' });
    assert.equal(certOnly.length, 2, certOnly.join('\n'));
    assert.ok(
      certOnly.some((p) => /^TLS_CERT is set but TLS_KEY is not/.test(p)),
      certOnly.join('\n'),
    );
    assert.ok(certOnly.some((p) => /PORT/.test(p)));
    const keyOnly = configProblems({ TLS_KEY: a.key });
    assert.deepEqual(
      keyOnly.map((p) => /^TLS_KEY is set but TLS_CERT is not/.test(p)),
      [true],
      keyOnly.join('\n'),
    );
  });

  test('a file that cannot be read, or holds no certificate or key, is a problem naming the file', () => {
    const missing = path.join(folder, 'fehlt.pem');
    const problems = configProblems({ TLS_CERT: missing, TLS_KEY: folder });
    assert.ok(
      problems.some((p) => p.includes(`TLS_CERT: cannot read ${missing} (ENOENT)`)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.includes(`TLS_KEY: cannot read ${folder} (EISDIR)`)),
      problems.join('\n'),
    );
    const swapped = configProblems({ TLS_CERT: a.key, TLS_KEY: a.cert });
    assert.ok(
      swapped.some((p) => p.includes(`TLS_CERT: ${a.key} holds no PEM certificate`)),
      swapped.join('\n'),
    );
    assert.ok(
      swapped.some((p) => p.includes(`TLS_KEY: ${a.cert} holds no unencrypted PEM private key`)),
      swapped.join('\n'),
    );
  });

  test('a key of another pair is refused with a clear message, at start and without a stack trace', async () => {
    const problems = configProblems({ TLS_CERT: a.cert, TLS_KEY: b.key });
    assert.deepEqual(problems, [`TLS_KEY: the private key in ${b.key} does not belong to the certificate in ${a.cert}`]);
    const run = await runCli(['serve'], {
      TLS_CERT: a.cert,
      TLS_KEY: b.key,
      DATABASE_URL: `sqlite:${path.join(folder, 'nie.sqlite')}`,
      LOG_LEVEL: 'silent',
    });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /does not belong to the certificate/);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  });

  test('the service serves HTTPS and its start banner says https://', async () => {
    const dir = path.join(folder, 'serve');
    const service = await startService({
      args: ['serve', '--demo'],
      env: {
        DATABASE_URL: `sqlite:${path.join(dir, 'fieldreport.sqlite')}`,
        DATA_ROOT: path.join(dir, 'documents'),
        STATE_DIR: dir,
        TLS_CERT: a.cert,
        TLS_KEY: a.key,
      },
    });
    try {
      assert.match(service.base, /^https:\/\/127\.0\.0\.1:\d+$/);
      const [, base] = await service.waitFor(/running on (\S+)/);
      assert.equal(base, service.base);
      assert.match(service.output(), new RegExp(`App: +${base!.replace(/[.]/g, '\\.')}/app/`));
      const ca = readFileSync(a.cert, 'utf8');
      assert.equal((await httpsGet(`${base}/api/health`, ca)).status, 200);
      const root = await httpsGet(`${base}/`, ca);
      assert.equal(root.status, 302);
      assert.equal(root.headers.location, '/app/');
    } finally {
      await service.stop();
    }
  });
});

describe('the start banner on every address', () => {
  test("names the app's address on each network of the computer (IPv4, not loopback), for a phone", () => {
    const nic = (address: string, family: 'IPv4' | 'IPv6', internal: boolean) =>
      ({ address, family, internal, netmask: '', mac: '', cidr: null }) as os.NetworkInterfaceInfo;
    const interfaces = {
      lo: [nic('127.0.0.1', 'IPv4', true)],
      eth0: [nic('192.168.1.20', 'IPv4', false), nic('fe80::1', 'IPv6', false)],
      wlan0: [nic('10.0.0.7', 'IPv4', false)],
    };
    assert.deepEqual(networkAppUrls('https://0.0.0.0:8080', interfaces), ['https://192.168.1.20:8080/app/', 'https://10.0.0.7:8080/app/']);
    assert.deepEqual(networkAppUrls('http://[::]:8080', interfaces), ['http://192.168.1.20:8080/app/', 'http://10.0.0.7:8080/app/']);
    assert.deepEqual(networkAppUrls('https://0.0.0.0:443', interfaces), ['https://192.168.1.20/app/', 'https://10.0.0.7/app/']);
    assert.deepEqual(networkAppUrls('https://127.0.0.1:8080', interfaces), []);
  });
});
