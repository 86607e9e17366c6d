/**
 * The seal's parts at the byte level: DER encodings against X.690's and OpenSSL's; the self-signed
 * certificate and the CMS signature read back by OpenSSL; the incremental update leaving every
 * byte before it as it was, with a cross-reference table whose offsets point at its objects; the
 * PKCS#12 file an administrator installs (RSA from OpenSSL's defaults, EC), and a wrong password
 * said in words; the RFC 3161 request and a refused or mismatched answer.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import PDFDocument from 'pdfkit';
import { checkCms, createCmsSignature, parseCms } from '../../src/adapters/cms.js';
import { children, integer, oid, readNode, readOid, readTime, setOf, time, tlv } from '../../src/adapters/der.js';
import { findSignatures, parseDict, pdfText, sealPdf } from '../../src/adapters/pdf-sign.js';
import { timestampRequest, tokenOfResponse, TsaError } from '../../src/adapters/tsa.js';
import { PDFA_DOCUMENT_OPTIONS } from '../../src/adapters/pdfa.js';
import { loadSealCertificate, readPkcs12, selfSignedCertificate } from '../../src/modules/seal/seal-certificate.js';
import { adversarialPdf } from '../helpers/adversarial-pdf.js';
import { opensslCmsVerify, rawSignatures } from '../helpers/pdf-signatures.js';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-seal-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function smallPdf(): Promise<Buffer> {
  const doc = new PDFDocument({
    ...PDFA_DOCUMENT_OPTIONS,
    size: 'A4',
    font: path.resolve('node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  } as PDFKit.PDFDocumentOptions);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => doc.on('end', resolve));
  doc.text('Wartung Prüfung');
  doc.addPage().text('Seite 2');
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

describe('DER', () => {
  test('integers, object identifiers, times and lengths encode as X.690 says', () => {
    assert.equal(integer(0).toString('hex'), '020100');
    assert.equal(integer(127).toString('hex'), '02017f');
    assert.equal(integer(128).toString('hex'), '02020080'); // a leading zero keeps it positive
    assert.equal(integer(Buffer.from([0, 0, 0x81])).toString('hex'), '02020081');
    assert.equal(oid('1.2.840.113549.1.7.2').toString('hex'), '06092a864886f70d010702');
    assert.equal(oid('2.16.840.1.101.3.4.2.1').toString('hex'), '0609608648016503040201');
    assert.equal(readOid(readNode(oid('1.2.840.113549.1.9.16.2.47'))), '1.2.840.113549.1.9.16.2.47');
    assert.equal(time(new Date('2026-11-25T10:20:30Z')).toString('latin1').slice(2), '261125102030Z');
    assert.equal(time(new Date('2056-01-02T03:04:05Z'))[0], 0x18, 'GeneralizedTime from 2050');
    assert.equal(readTime(readNode(time(new Date('2056-01-02T03:04:05Z')))).toISOString(), '2056-01-02T03:04:05.000Z');
    const long = tlv(0x04, Buffer.alloc(300));
    assert.equal(long.subarray(0, 4).toString('hex'), '0482012c');
    assert.equal(children(readNode(tlv(0x30, long, integer(5)))).length, 2);
    // SET OF sorted by encoding (X.690 11.6), whatever the order given.
    assert.equal(setOf(integer(2), integer(1)).toString('hex'), '3106020101020102');
  });

  test('a truncated or overlong element is an error, not a wrong read', () => {
    assert.throws(() => readNode(Buffer.from('3005020101', 'hex')), /past its container/);
    assert.throws(() => readNode(Buffer.from('30', 'hex')), /truncated/);
  });
});

describe('the self-signed certificate and the CMS signature', () => {
  test('OpenSSL reads the certificate: subject, EC P-256, key usage, 30 years', async () => {
    const seal = loadSealCertificate({ keyFile: path.join(dir, 'seal.pem'), companyName: 'Müller & Söhne GmbH' });
    assert.equal(seal.created, true);
    assert.equal(seal.source, 'self-signed');
    await writeFile(path.join(dir, 'cert.der'), seal.certificate);
    const { stdout } = await run('openssl', [
      'x509',
      '-inform',
      'DER',
      '-in',
      path.join(dir, 'cert.der'),
      '-noout',
      '-text',
      '-nameopt',
      'utf8',
    ]);
    assert.match(stdout, /Subject: O ?= ?Müller & Söhne GmbH, CN ?= ?Müller & Söhne GmbH \(Berichtssiegel\)/);
    assert.match(stdout, /prime256v1/);
    assert.match(stdout, /Digital Signature, Non Repudiation/);
    assert.match(stdout, /CA:FALSE/);
    const x509 = new X509Certificate(seal.certificate);
    assert.ok(x509.verify(x509.publicKey), 'self-signed: its own key verifies it');
    assert.ok(new Date(x509.validTo).getUTCFullYear() >= new Date().getUTCFullYear() + 29);
    // A second start reads the same file and makes nothing.
    const again = loadSealCertificate({ keyFile: path.join(dir, 'seal.pem'), companyName: 'Andere GmbH' });
    assert.equal(again.created, false);
    assert.equal(again.fingerprint, seal.fingerprint);
    const mode = (await import('node:fs')).statSync(path.join(dir, 'seal.pem')).mode & 0o777;
    assert.equal(mode, 0o600);
  });

  test('the signature verifies over exactly its content and not over one byte more', async () => {
    const seal = loadSealCertificate({ keyFile: path.join(dir, 'seal.pem'), companyName: 'x' });
    const content = Buffer.from('Der Bericht, Byte für Byte');
    const digest = createHash('sha256').update(content).digest();
    const { der } = await createCmsSignature(seal, digest);
    assert.equal(checkCms(der, () => digest).valid, true);
    const other = createHash('sha256')
      .update(Buffer.concat([content, Buffer.from('!')]))
      .digest();
    assert.deepEqual(
      checkCms(der, () => other),
      { valid: false, reason: 'digest_mismatch', parsed: parseCms(der), certificate: seal.certificate },
    );
    await writeFile(path.join(dir, 'cert.pem'), (await import('../../src/modules/seal/seal-certificate.js')).certificatePem(seal));
    const ok = await opensslCmsVerify(dir, { byteRange: [], signed: content, der, subFilter: undefined }, path.join(dir, 'cert.pem'));
    assert.ok(ok.ok, ok.output);
    const bad = await opensslCmsVerify(
      dir,
      { byteRange: [], signed: Buffer.concat([content, Buffer.from('!')]), der, subFilter: undefined },
      path.join(dir, 'cert.pem'),
    );
    assert.equal(bad.ok, false);
  });
});

describe('the incremental update', () => {
  test('keeps every byte before it, and its cross-reference table points at its objects', async () => {
    const pdf = await smallPdf();
    const seal = loadSealCertificate({ keyFile: path.join(dir, 'seal.pem'), companyName: 'x' });
    const { pdf: sealed, digest } = await sealPdf(pdf, {
      signer: seal,
      fieldName: 'Siegel',
      reason: 'Bericht BR1',
      name: 'Firma',
      date: new Date('2026-11-25T10:00:00Z'),
    });
    assert.ok(sealed.subarray(0, pdf.length).equals(pdf), 'the original bytes are untouched');
    const update = sealed.subarray(pdf.length).toString('latin1');
    const xrefAt = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(update)![1]);
    const table = sealed.subarray(xrefAt).toString('latin1');
    for (const m of table.matchAll(/^(\d+) (\d+)\n((?:\d{10} \d{5} n\r\n)+)/gm)) {
      const first = Number(m[1]);
      m[3]!
        .trim()
        .split(/\r\n/)
        .forEach((line, i) => {
          const offset = Number(line.slice(0, 10));
          assert.equal(
            sealed
              .subarray(offset, offset + 20)
              .toString('latin1')
              .split('\n')[0],
            `${first + i} 0 obj`,
          );
        });
    }
    assert.match(update, /\/Prev \d+/);
    assert.match(update, /\/ID \[<[0-9a-f]+> <[0-9a-f]+>\]/);
    assert.match(update, /\/M \(D:20261125100000\+00'00'\)/);
    const [found] = findSignatures(sealed);
    assert.equal(found!.valid, true);
    assert.equal(found!.coversWholeFile, true);
    assert.ok(found!.digest!.equals(digest));
    const [raw] = rawSignatures(sealed);
    assert.equal(raw!.byteRange[0], 0);
    assert.equal(raw!.byteRange[2]! + raw!.byteRange[3]!, sealed.length);
    // A second signature (as the document time stamp) keeps the first valid and names its field apart.
    const twice = (await sealPdf(sealed, { signer: seal, fieldName: 'Siegel', date: new Date() })).pdf;
    const both = findSignatures(twice);
    assert.deepEqual(
      both.map((s) => [s.valid, s.coversWholeFile]),
      [
        [true, false],
        [true, true],
      ],
    );
    assert.match(twice.toString('latin1'), new RegExp(`/T ${pdfText('Siegel 2').replace(/[<>]/g, '\\$&')}`));
  });

  test('dictionaries are read entry by entry, nested values and strings kept whole', () => {
    const d = parseDict('<< /Type /Catalog /Pages 1 0 R /Names << /Dests <FEFF0041> >> /Title (a >> b \\) c) /Kids [3 0 R 4 0 R] /N 12 >>');
    assert.deepEqual(
      [...d.entries()],
      [
        ['/Type', '/Catalog'],
        ['/Pages', '1 0 R'],
        ['/Names', '<< /Dests <FEFF0041> >>'],
        ['/Title', '(a >> b \\) c)'],
        ['/Kids', '[3 0 R 4 0 R]'],
        ['/N', '12'],
      ],
    );
    assert.equal(pdfText('Ä'), '<FEFF00C4>');
  });

  test('a PDF with a cross-reference stream or without a trailer is refused, not damaged', async () => {
    const seal = loadSealCertificate({ keyFile: path.join(dir, 'seal.pem'), companyName: 'x' });
    await assert.rejects(
      sealPdf(Buffer.from('%PDF-1.5\n1 0 obj\n<< /Type /XRef >>\nendobj\nstartxref\n9\n%%EOF\n'), {
        signer: seal,
        fieldName: 'S',
        date: new Date(),
      }),
      /classic cross-reference/,
    );
    await assert.rejects(
      sealPdf(Buffer.from('%PDF-1.4\nnothing here'), { signer: seal, fieldName: 'S', date: new Date() }),
      /no startxref/,
    );
  });
});

describe('reading signatures from a file someone else made', () => {
  test('text that looks like a /ByteRange (in a title) is passed over, and the real seal is still read', async () => {
    const pdf = await smallPdf();
    const decoy = Buffer.from(`\n% ${'/ByteRange[0 0 0 0] '.repeat(40)}\n`, 'latin1');
    // The decoys inside the signed bytes, before the seal: as a report title in the Info dictionary would put them.
    const withDecoys = Buffer.concat([pdf.subarray(0, 9), decoy, pdf.subarray(9)]);
    const fixed = Buffer.from(
      withDecoys
        .toString('latin1')
        .replace(/startxref\n(\d+)/, (_, n) => `startxref\n${Number(n) + decoy.length}`)
        .replace(/(\d{10}) 00000 n/g, (m, n) => (Number(n) === 0 ? m : `${String(Number(n) + decoy.length).padStart(10, '0')} 00000 n`)),
      'latin1',
    );
    const seal = loadSealCertificate({ keyFile: path.join(dir, 'seal.pem'), companyName: 'x' });
    const sealed = (await sealPdf(fixed, { signer: seal, fieldName: 'Siegel', date: new Date() })).pdf;
    const found = findSignatures(sealed);
    assert.equal(found.length, 1);
    assert.equal(found[0]!.valid, true);
  });

  test('a gap too large for a signature, and a signature with a thousand certificates, are not read as signatures', async () => {
    const pdf = await smallPdf();
    const seal = loadSealCertificate({ keyFile: path.join(dir, 'seal.pem'), companyName: 'x' });
    const digest = createHash('sha256').update('x').digest();
    const { der } = await createCmsSignature(seal, digest);
    // The same signature with its certificate set padded by a thousand empty SEQUENCEs.
    const parsed = parseCms(der);
    assert.equal(parsed.certificates.length, 1);
    const padded = Buffer.from(
      der.toString('hex').replace(seal.certificate.toString('hex'), seal.certificate.toString('hex') + '3000'.repeat(1000)),
      'hex',
    );
    assert.deepEqual(
      checkCms(padded, () => digest),
      { valid: false, reason: 'unreadable' },
    );
    const started = process.hrtime.bigint();
    const gap = `/ByteRange [0 ${pdf.length + 30} ${pdf.length + 30 + 4 * 1024 * 1024 + 2} 0]\n<${'0'.repeat(4 * 1024 * 1024)}>`;
    const huge = Buffer.concat([pdf, Buffer.from(`\n% ${' '.repeat(10)}${gap}`, 'latin1')]);
    assert.deepEqual(findSignatures(huge), []);
    assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 5000);
  });

  test('byte ranges that name no readable gap count toward the limit: past 16 of them, a later seal is not read', async () => {
    const pdf = await smallPdf();
    const seal = loadSealCertificate({ keyFile: path.join(dir, 'seal.pem'), companyName: 'x' });
    /** `pdf` with `count` gaps that are no hex string (`<0X>`) and a /ByteRange naming each, in a comment after the header. */
    const withJunk = (count: number) => {
      let decoy = '\n%';
      const entries: string[] = [];
      for (let i = 0; i < count; i++) {
        const lt = 9 + decoy.length + 1;
        decoy += ` <0X>`;
        entries.push(`/ByteRange [0 ${lt} ${lt + 4} 0]`);
      }
      decoy += ` ${entries.join(' ')}\n`;
      const withDecoy = Buffer.concat([pdf.subarray(0, 9), Buffer.from(decoy, 'latin1'), pdf.subarray(9)]);
      return Buffer.from(
        withDecoy
          .toString('latin1')
          .replace(/startxref\n(\d+)/, (_, n) => `startxref\n${Number(n) + decoy.length}`)
          .replace(/(\d{10}) 00000 n/g, (m, n) => (Number(n) === 0 ? m : `${String(Number(n) + decoy.length).padStart(10, '0')} 00000 n`)),
        'latin1',
      );
    };
    const sealedAfter = async (count: number) =>
      findSignatures((await sealPdf(withJunk(count), { signer: seal, fieldName: 'Siegel', date: new Date() })).pdf);
    const fifteen = await sealedAfter(15);
    assert.equal(fifteen.length, 1);
    assert.equal(fifteen[0]!.valid, true);
    assert.deepEqual(await sealedAfter(16), []);
  });

  test('5,000 entries naming one gap read it once; a gap named under different ends is read for each, within the limit', () => {
    const same = findSignatures(adversarialPdf());
    assert.equal(same.length, 1);
    assert.equal(same[0]!.valid, false);
    assert.equal(same[0]!.problem, 'unreadable');
    assert.deepEqual(findSignatures(adversarialPdf({ odd: true })), []);
  });

  test('a document time stamp larger than its room gets room for its size', async () => {
    const pdf = await smallPdf();
    const { addDocumentTimestamp } = await import('../../src/adapters/pdf-sign.js');
    const sizes: number[] = [];
    const token = Buffer.concat([Buffer.from('3082', 'hex'), Buffer.alloc(20_000, 0x41)]);
    const stamped = await addDocumentTimestamp(pdf, 'Zeitstempel', async () => {
      sizes.push(token.length);
      return token;
    });
    assert.equal(sizes.length, 2, 'asked once more, with room for the token');
    assert.ok(stamped.toString('latin1').includes(token.toString('hex').toUpperCase()));
  });
});

describe('PKCS#12 from an administrator', () => {
  test("an RSA key and certificate with its CA from OpenSSL's defaults, and an EC one, sign; a wrong password says so", async () => {
    const p = (name: string) => path.join(dir, name);
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      p('ca.key'),
      '-out',
      p('ca.crt'),
      '-days',
      '365',
      '-subj',
      '/CN=Test CA',
    ]);
    await run('openssl', [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      p('doc.key'),
      '-out',
      p('doc.csr'),
      '-subj',
      '/CN=Kälte Schmidt GmbH/O=Kälte Schmidt GmbH',
      '-utf8',
    ]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      p('doc.csr'),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-out',
      p('doc.crt'),
      '-days',
      '365',
    ]);
    await run('openssl', [
      'pkcs12',
      '-export',
      '-inkey',
      p('doc.key'),
      '-in',
      p('doc.crt'),
      '-certfile',
      p('ca.crt'),
      '-out',
      p('doc.p12'),
      '-passout',
      'pass:Geheim-2026',
    ]);
    const rsa = readPkcs12(p('doc.p12'), 'Geheim-2026');
    assert.equal(rsa.privateKey.asymmetricKeyType, 'rsa');
    assert.match(rsa.subject, /CN=Kälte Schmidt GmbH/);
    assert.equal(rsa.chain.length, 1, 'the CA travels along');
    // The certificates exactly as issued, byte for byte.
    assert.equal(rsa.fingerprint, new X509Certificate(await readFile(p('doc.crt'))).fingerprint256.replace(/:/g, '').toLowerCase());
    assert.ok(rsa.chain[0]!.equals(new X509Certificate(await readFile(p('ca.crt'))).raw));
    const pdf = await smallPdf();
    const sealed = (await sealPdf(pdf, { signer: rsa, fieldName: 'Siegel', date: new Date() })).pdf;
    const [raw] = rawSignatures(sealed);
    const verified = await opensslCmsVerify(dir, raw!, p('ca.crt'));
    assert.ok(verified.ok, verified.output);
    assert.throws(() => readPkcs12(p('doc.p12'), 'falsch'), /wrong SEAL_P12_PASSWORD/);
    assert.throws(
      () => loadSealCertificate({ keyFile: p('unused.pem'), p12File: p('missing.p12'), companyName: '' }),
      /SEAL_P12_FILE .*missing\.p12/,
    );

    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await writeFile(p('ec.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await run('openssl', ['req', '-x509', '-key', p('ec.key'), '-out', p('ec.crt'), '-days', '365', '-subj', '/CN=EC GmbH']);
    await run('openssl', ['pkcs12', '-export', '-inkey', p('ec.key'), '-in', p('ec.crt'), '-out', p('ec.p12'), '-passout', 'pass:x']);
    const ec = readPkcs12(p('ec.p12'), 'x');
    assert.equal(ec.privateKey.asymmetricKeyType, 'ec');
    const ecSealed = (await sealPdf(pdf, { signer: ec, fieldName: 'Siegel', date: new Date() })).pdf;
    assert.ok((await opensslCmsVerify(dir, rawSignatures(ecSealed)[0]!, p('ec.crt'))).ok);
    assert.ok((await readFile(p('ec.crt'))).length > 0);
  });

  test('a certificate made for a key is checked against that key', () => {
    const a = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const cert = selfSignedCertificate(
      { privateKey: a.privateKey, publicKeyDer: a.publicKey.export({ type: 'spki', format: 'der' }) },
      { commonName: 'A', organization: 'A' },
    );
    assert.ok(new X509Certificate(cert).checkPrivateKey(a.privateKey));
  });
});

describe('RFC 3161 messages', () => {
  test('an authority that stalls after its headers, or sends an endless answer, is a TsaError in time', async () => {
    const { createServer } = await import('node:http');
    const { requestTimestamp } = await import('../../src/adapters/tsa.js');
    const server = createServer((req, res) => {
      req.resume();
      if (req.url === '/stall') {
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
        res.write('0');
        return; // never ends
      }
      res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      const pump = () => {
        while (res.write(chunk)) {
          /* until the socket is full */
        }
      };
      res.on('drain', pump);
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const imprint = createHash('sha256').update('x').digest();
      await assert.rejects(
        requestTimestamp({ url: `http://127.0.0.1:${port}/stall`, timeoutMs: 500 }, imprint),
        (e: Error) => e instanceof TsaError && /broke off/.test(e.message),
      );
      await assert.rejects(
        requestTimestamp({ url: `http://127.0.0.1:${port}/huge`, timeoutMs: 5000 }, imprint),
        (e: Error) => e instanceof TsaError && /too large/.test(e.message),
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('the request is what openssl ts reads: SHA-256 imprint, nonce, certificate requested', async () => {
    const imprint = createHash('sha256').update('x').digest();
    await writeFile(path.join(dir, 'q.tsq'), timestampRequest(imprint, Buffer.from('0102030405060708', 'hex')));
    const { stdout } = await run('openssl', ['ts', '-query', '-in', path.join(dir, 'q.tsq'), '-text']);
    assert.match(stdout, /Hash Algorithm: sha256/);
    assert.match(stdout, /Nonce: 0x0102030405060708/);
    assert.match(stdout, /Certificate required: yes/);
  });

  test('a refusal, an answer for another hash and garbage are errors in words', () => {
    const imprint = createHash('sha256').update('x').digest();
    const refusal = tlv(0x30, tlv(0x30, integer(2)));
    assert.throws(
      () => tokenOfResponse(refusal, imprint, Buffer.from([1])),
      (e: Error) => e instanceof TsaError && /refused the request \(PKIStatus 2\)/.test(e.message),
    );
    assert.throws(() => tokenOfResponse(Buffer.from('<html>'), imprint, Buffer.from([1])), /no time-stamp response/);
  });
});
