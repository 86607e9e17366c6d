/**
 * The instance's certificate for the PDF seal (the PAdES signature on every final report).
 *
 * - SEAL_P12_FILE (with SEAL_P12_PASSWORD): a PKCS#12 file the administrator installs, e.g. a
 *   document-signing certificate from a CA, so that PDF readers show the seal as trusted. Its key
 *   (RSA or EC) signs; its other certificates travel along as the chain.
 * - Otherwise SEAL_KEY_FILE (default STATE_DIR/seal.pem): made at first start, an EC P-256 key and
 *   a self-signed certificate in the company's name, kept like the Ed25519 key for signature
 *   seals (created once, mode 0600). Readers then show the signature as valid and the document
 *   unaltered, with an identity they are not told to trust.
 *
 * PKCS#12 is read with node-forge (its password-based decryption and MAC); everything else is
 * Node's crypto and der.ts.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import forge from 'node-forge';
import { createFileOnceSync } from '../../adapters/file-store.js';
import { bitString, boolean, context, integer, octetString, oid, sequence, setOf, time, tlv, utf8String } from '../../adapters/der.js';
import { OID, type CmsSigner } from '../../adapters/cms.js';

export interface SealCertificate extends CmsSigner {
  /** 'pkcs12': configured by the administrator; 'self-signed': made by this service. */
  source: 'pkcs12' | 'self-signed';
  /** True when this start made the key and certificate. */
  created: boolean;
  /** The certificate's subject as a reader shows it (`CN=…`, one per line). */
  subject: string;
  /** SHA-256 of the certificate's DER, hex lowercase. */
  fingerprint: string;
  validTo: Date;
  file: string;
}

export const SELF_SIGNED_YEARS = 30;

/** A self-signed X.509 v3 certificate for `key` (EC P-256), for signing documents only. */
export function selfSignedCertificate(
  key: { privateKey: KeyObject; publicKeyDer: Buffer },
  name: { commonName: string; organization: string },
  now = new Date(),
): Buffer {
  const rdn = (type: string, value: string) => setOf(sequence(oid(type), utf8String(value)));
  const dn = sequence(rdn('2.5.4.10', name.organization), rdn('2.5.4.3', name.commonName));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + SELF_SIGNED_YEARS);
  const signatureAlgorithm = sequence(oid(OID.ecdsaWithSHA256));
  const extension = (type: string, critical: boolean, value: Buffer) =>
    sequence(oid(type), ...(critical ? [boolean(true)] : []), octetString(value));
  const keyId = createHash('sha1').update(key.publicKeyDer).digest();
  const tbs = sequence(
    tlv(context(0), integer(2)),
    integer(serial),
    signatureAlgorithm,
    dn,
    sequence(time(new Date(now.getTime() - 60_000)), time(notAfter)),
    dn,
    key.publicKeyDer,
    tlv(
      context(3),
      sequence(
        extension('2.5.29.19', true, sequence()), // basicConstraints: not a CA
        extension('2.5.29.15', true, bitString(Buffer.from([0xc0]), 6)), // keyUsage: digitalSignature, nonRepudiation
        extension('2.5.29.14', false, octetString(keyId)), // subjectKeyIdentifier
      ),
    ),
  );
  return sequence(tbs, signatureAlgorithm, bitString(sign('sha256', tbs, key.privateKey)));
}

const pemBlocks = (text: string, label: string): Buffer[] =>
  [...text.matchAll(new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`, 'g'))].map((m) =>
    Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'),
  );

const toPem = (der: Buffer, label: string) =>
  `-----BEGIN ${label}-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END ${label}-----\n`;

function describe(
  certificate: Buffer,
  chain: Buffer[],
  privateKey: KeyObject,
  source: SealCertificate['source'],
  created: boolean,
  file: string,
): SealCertificate {
  const x509 = new X509Certificate(certificate);
  if (!x509.checkPrivateKey(privateKey)) throw new Error(`${file}: the private key does not belong to the certificate`);
  return {
    certificate,
    chain,
    privateKey,
    source,
    created,
    subject: x509.subject,
    fingerprint: createHash('sha256').update(certificate).digest('hex'),
    validTo: new Date(x509.validTo),
    file,
  };
}

/** The key and certificates of a PKCS#12 file; a wrong password or an unreadable file is an Error saying so. */
export function readPkcs12(file: string, password: string): SealCertificate {
  let p12: forge.pkcs12.Pkcs12Pfx;
  // forge decodes RSA keys and certificates into objects whose re-encoding is not always the
  // original (and fails for EC): it keeps the ASN.1 of what it could not decode, so decoding is
  // refused here and the original DER of every key and certificate is taken as it is.
  const { certificateFromAsn1, privateKeyFromAsn1 } = forge.pki;
  const keepRaw = () => {
    throw new Error('kept as ASN.1');
  };
  try {
    forge.pki.certificateFromAsn1 = keepRaw;
    forge.pki.privateKeyFromAsn1 = keepRaw;
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(readFileSync(file).toString('binary')), password);
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(`SEAL_P12_FILE ${file} cannot be read${/MAC|password/i.test(message) ? ': wrong SEAL_P12_PASSWORD' : `: ${message}`}`);
  } finally {
    forge.pki.certificateFromAsn1 = certificateFromAsn1;
    forge.pki.privateKeyFromAsn1 = privateKeyFromAsn1;
  }
  const der = (node: forge.asn1.Asn1 | undefined) => (node ? Buffer.from(forge.asn1.toDer(node).getBytes(), 'binary') : undefined);
  const keys: KeyObject[] = [];
  for (const type of [forge.pki.oids.pkcs8ShroudedKeyBag!, forge.pki.oids.keyBag!]) {
    for (const bag of p12.getBags({ bagType: type })[type] ?? []) {
      const info = der(bag.asn1);
      if (info) keys.push(createPrivateKey({ key: info, format: 'der', type: 'pkcs8' }));
    }
  }
  const certificates = (p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [])
    .map((bag) => der(bag.asn1))
    .filter((c) => c !== undefined) as Buffer[];
  if (keys.length !== 1) throw new Error(`SEAL_P12_FILE ${file} holds ${keys.length} private keys; it must hold exactly one`);
  const key = keys[0]!;
  const own = certificates.find((c) => new X509Certificate(c).checkPrivateKey(key));
  if (!own) throw new Error(`SEAL_P12_FILE ${file} holds no certificate for its private key`);
  return describe(
    own,
    certificates.filter((c) => c !== own),
    key,
    'pkcs12',
    false,
    file,
  );
}

/**
 * The seal certificate: the configured PKCS#12, else the key file (made when missing, in the
 * name `companyName` gives). Of two processes starting at once, one makes the file and both use it.
 */
export function loadSealCertificate(options: {
  keyFile: string;
  p12File?: string;
  p12Password?: string;
  companyName: string;
}): SealCertificate {
  if (options.p12File) return readPkcs12(options.p12File, options.p12Password ?? '');
  let text: string | undefined;
  try {
    text = readFileSync(options.keyFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  let created = false;
  if (text === undefined) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const company = options.companyName.trim() || 'fieldreport';
    const certificate = selfSignedCertificate(
      { privateKey, publicKeyDer: publicKey.export({ type: 'spki', format: 'der' }) },
      { commonName: `${company} (Berichtssiegel)`, organization: company },
    );
    createFileOnceSync(options.keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() + toPem(certificate, 'CERTIFICATE'));
    text = readFileSync(options.keyFile, 'utf8');
    created = true;
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(text);
  } catch (error) {
    throw new Error(`SEAL_KEY_FILE ${options.keyFile} holds no usable private key (PEM): ${(error as Error).message}`);
  }
  const [certificate, ...chain] = pemBlocks(text, 'CERTIFICATE');
  if (!certificate) throw new Error(`SEAL_KEY_FILE ${options.keyFile} holds no certificate (PEM)`);
  return describe(certificate, chain, privateKey, 'self-signed', created, options.keyFile);
}

/** The certificate as PEM, for `openssl cms -verify -CAfile` and the public download. */
export const certificatePem = (seal: Pick<SealCertificate, 'certificate'>): string => toPem(seal.certificate, 'CERTIFICATE');

/** A certificate's common name (its whole subject without one; '?' for one that cannot be read). */
export function commonNameOf(der: Buffer): string {
  try {
    const { subject } = new X509Certificate(der);
    return (
      subject
        .split('\n')
        .find((l) => l.startsWith('CN='))
        ?.slice(3) ?? subject
    );
  } catch {
    return '?';
  }
}
