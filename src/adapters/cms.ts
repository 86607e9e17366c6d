/**
 * CMS (RFC 5652) SignedData as a PAdES baseline signature wants it (ETSI EN 319 142-1, B-B):
 * detached, SHA-256, signed attributes content-type, message-digest and ESS signing-certificate-v2
 * (no signing-time: the PDF's /M says when), the signer's certificate and its chain; for B-T an
 * RFC 3161 time-stamp token over the signature value as the unsigned attribute
 * id-aa-signatureTimeStampToken. Also the reading side: a signature's parts, its check against a
 * digest, and a time-stamp token's TSTInfo.
 *
 * Written here rather than taken from a library: the maintained PDF-signing packages for Node
 * (@signpdf's P12 signer over node-forge) write adbe.pkcs7.detached-style CMS with signing-time
 * and without signing-certificate-v2, and support neither time stamps nor EC keys.
 */
import { createHash, createPublicKey, sign, verify, X509Certificate, type KeyObject } from 'node:crypto';
import {
  children,
  context,
  contentOf,
  DerError,
  expectTag,
  integer,
  nullValue,
  octetString,
  oid,
  rawOf,
  readNode,
  readOid,
  readTime,
  sequence,
  setOf,
  TAG,
  tlv,
  type DerNode,
} from './der.js';

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  sha1: '1.3.14.3.2.26',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
  ed25519: '1.3.101.112',
} as const;

const DIGESTS: Record<string, string> = { [OID.sha256]: 'sha256', [OID.sha384]: 'sha384', [OID.sha512]: 'sha512', [OID.sha1]: 'sha1' };

export const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();
const algorithm = (dotted: string, withNull = false): Buffer => sequence(oid(dotted), ...(withNull ? [nullValue()] : []));
const attribute = (type: string, ...values: Buffer[]): Buffer => sequence(oid(type), setOf(...values));

/** The parts of an X.509 certificate a signature names it by. */
export interface CertificateParts {
  issuer: Buffer;
  serial: Buffer;
  subject: Buffer;
}

/** The issuer Name, serial INTEGER and subject Name of a DER certificate, as encoded in it. */
export function certificateParts(der: Buffer): CertificateParts {
  const certificate = expectTag(readNode(der), TAG.SEQUENCE, 'certificate');
  const tbs = children(expectTag(children(certificate)[0], TAG.SEQUENCE, 'tbsCertificate'));
  const offset = tbs[0]?.tag === context(0) ? 1 : 0; // [0] version, absent for v1
  return { serial: rawOf(tbs[offset]!), issuer: rawOf(tbs[offset + 2]!), subject: rawOf(tbs[offset + 4]!) };
}

/** The signature algorithm identifier for `key`, SHA-256. */
function signatureAlgorithmFor(key: KeyObject): Buffer {
  if (key.asymmetricKeyType === 'rsa') return algorithm(OID.sha256WithRSA, true);
  if (key.asymmetricKeyType === 'ec') return algorithm(OID.ecdsaWithSHA256);
  throw new Error(`a ${key.asymmetricKeyType} key cannot make a PDF signature here: use an RSA or EC (P-256) key`);
}

export interface CmsSigner {
  /** The signer's certificate, DER. */
  certificate: Buffer;
  /** The certificates between it and its root (DER), sent along so a reader can build the chain. */
  chain: Buffer[];
  privateKey: KeyObject;
}

/**
 * A detached CMS SignedData over content whose SHA-256 is `contentDigest`. `timestamp`, when
 * given, gets the signature value's SHA-256 and may answer an RFC 3161 TimeStampToken (DER) to
 * embed, or undefined to go without.
 */
export async function createCmsSignature(
  signer: CmsSigner,
  contentDigest: Buffer,
  timestamp?: (imprint: Buffer) => Promise<Buffer | undefined>,
): Promise<{ der: Buffer; timestamped: boolean }> {
  const parts = certificateParts(signer.certificate);
  // ESSCertIDv2 with the default hash (SHA-256, so omitted) and the issuer and serial (RFC 5035).
  const generalNames = sequence(tlv(context(4), parts.issuer));
  const essCertId = sequence(octetString(sha256(signer.certificate)), sequence(generalNames, parts.serial));
  const signedAttributes = [
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, octetString(contentDigest)),
    attribute(OID.signingCertificateV2, sequence(sequence(essCertId))),
  ];
  // Signed as a SET OF (tag 0x31), carried as [0] IMPLICIT: same content bytes.
  const signedSet = setOf(...signedAttributes);
  const signature = sign('sha256', signedSet, signer.privateKey);
  const token = timestamp ? await timestamp(sha256(signature)) : undefined;
  const signerInfo = sequence(
    integer(1),
    sequence(parts.issuer, parts.serial),
    algorithm(OID.sha256),
    Buffer.concat([Buffer.from([context(0)]), signedSet.subarray(1)]),
    signatureAlgorithmFor(signer.privateKey),
    octetString(signature),
    ...(token ? [tlv(context(1), attribute(OID.signatureTimeStampToken, token))] : []),
  );
  const signedData = sequence(
    integer(1),
    setOf(algorithm(OID.sha256)),
    sequence(oid(OID.data)),
    tlv(context(0), ...[signer.certificate, ...signer.chain]),
    setOf(signerInfo),
  );
  return { der: sequence(oid(OID.signedData), tlv(context(0), signedData)), timestamped: Boolean(token) };
}

/** Certificates read from one signature at most (a chain is a handful). */
const MAX_CERTIFICATES = 20;

/** What a CMS SignedData holds, as read. */
export interface ParsedCms {
  certificates: Buffer[];
  /** The encapsulated content (a time-stamp token's TSTInfo), when present. */
  content: Buffer | undefined;
  contentType: string;
  digestAlgorithm: string;
  /** The signed attributes as signed (SET OF), or undefined when there are none. */
  signedAttributes: Buffer | undefined;
  messageDigest: Buffer | undefined;
  signature: Buffer;
  issuerAndSerial: Buffer | undefined;
  /** The embedded RFC 3161 token of id-aa-signatureTimeStampToken, DER. */
  timestampToken: Buffer | undefined;
}

/** The parts of a DER CMS ContentInfo with SignedData (first signer); DerError when it is none. */
export function parseCms(der: Buffer): ParsedCms {
  const top = readNode(der);
  expectTag(top, TAG.SEQUENCE, 'ContentInfo');
  const [type, wrapped] = children(top);
  if (readOid(expectTag(type, TAG.OID, 'content type')) !== OID.signedData) throw new DerError('CMS: not SignedData');
  const signedData = children(expectTag(children(expectTag(wrapped, context(0), '[0] content'))[0], TAG.SEQUENCE, 'SignedData'));
  const encap = children(expectTag(signedData[2], TAG.SEQUENCE, 'EncapsulatedContentInfo'));
  const contentType = readOid(encap[0]!);
  let content: Buffer | undefined;
  if (encap[1]) content = contentOf(expectTag(children(expectTag(encap[1], context(0), '[0] eContent'))[0], TAG.OCTET_STRING, 'eContent'));
  let index = 3;
  const certificates: Buffer[] = [];
  if (signedData[index]?.tag === context(0)) {
    for (const cert of children(signedData[index]!, MAX_CERTIFICATES)) if (cert.tag === TAG.SEQUENCE) certificates.push(rawOf(cert));
    index++;
  }
  if (signedData[index]?.tag === context(1)) index++; // CRLs
  const signerInfos = children(expectTag(signedData[index], TAG.SET, 'SignerInfos'));
  const info = children(expectTag(signerInfos[0], TAG.SEQUENCE, 'SignerInfo'));
  let i = 1;
  const sid = info[i++]!;
  const digestAlgorithm = readOid(children(expectTag(info[i++], TAG.SEQUENCE, 'digest algorithm'))[0]!);
  let signedAttributes: Buffer | undefined;
  let messageDigest: Buffer | undefined;
  if (info[i]?.tag === context(0)) {
    const node = info[i++]!;
    signedAttributes = Buffer.concat([Buffer.from([TAG.SET]), rawOf(node).subarray(1)]);
    for (const attr of children(node)) {
      const [attrType, values] = children(attr);
      if (readOid(attrType!) === OID.messageDigest)
        messageDigest = contentOf(expectTag(children(values!)[0], TAG.OCTET_STRING, 'message digest'));
    }
  }
  i++; // signature algorithm
  const signature = contentOf(expectTag(info[i++], TAG.OCTET_STRING, 'signature'));
  let timestampToken: Buffer | undefined;
  if (info[i]?.tag === context(1)) {
    for (const attr of children(info[i]!)) {
      const [attrType, values] = children(attr);
      if (readOid(attrType!) === OID.signatureTimeStampToken) timestampToken = rawOf(children(values!)[0]!);
    }
  }
  return {
    certificates,
    content,
    contentType,
    digestAlgorithm,
    signedAttributes,
    messageDigest,
    signature,
    issuerAndSerial: sid.tag === TAG.SEQUENCE ? rawOf(sid) : undefined,
    timestampToken,
  };
}

export type CmsCheck =
  | { valid: true; certificate: Buffer; parsed: ParsedCms }
  | {
      valid: false;
      reason: 'unreadable' | 'no_certificate' | 'digest_mismatch' | 'signature_invalid';
      certificate?: Buffer;
      parsed?: ParsedCms;
    };

/** The hash of `data` with a CMS digest algorithm. */
export function digestWith(algorithmOid: string, ...data: Buffer[]): Buffer {
  const name = DIGESTS[algorithmOid];
  if (!name) throw new DerError(`CMS: digest algorithm ${algorithmOid} not supported`);
  const hash = createHash(name);
  for (const part of data) hash.update(part);
  return hash.digest();
}

/**
 * Checks a CMS signature over content: `digestOf` gives the content's hash for the signature's
 * digest algorithm. The signer's certificate is the one the signer info names.
 */
export function checkCms(der: Buffer, digestOf: (algorithmOid: string) => Buffer): CmsCheck {
  let parsed: ParsedCms;
  try {
    parsed = parseCms(der);
  } catch {
    return { valid: false, reason: 'unreadable' };
  }
  const certificate = parsed.certificates.find((cert) => {
    try {
      const parts = certificateParts(cert);
      return parsed.issuerAndSerial?.equals(sequence(parts.issuer, parts.serial));
    } catch {
      return false;
    }
  });
  if (!certificate) return { valid: false, reason: 'no_certificate', parsed };
  let digest: Buffer;
  try {
    digest = digestOf(parsed.digestAlgorithm);
  } catch {
    return { valid: false, reason: 'unreadable', parsed, certificate };
  }
  if (!parsed.signedAttributes || !parsed.messageDigest || !parsed.messageDigest.equals(digest))
    return { valid: false, reason: 'digest_mismatch', parsed, certificate };
  try {
    const key = createPublicKey(new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'pem' }));
    if (verify(DIGESTS[parsed.digestAlgorithm]!, parsed.signedAttributes, key, parsed.signature))
      return { valid: true, certificate, parsed };
  } catch {
    // an unusable key or signature reads as invalid
  }
  return { valid: false, reason: 'signature_invalid', parsed, certificate };
}

/** The facts of an RFC 3161 TSTInfo. */
export interface TstInfo {
  genTime: Date;
  imprintAlgorithm: string;
  imprint: Buffer;
  serial: Buffer;
  nonce: Buffer | undefined;
}

export function parseTstInfo(der: Buffer): TstInfo {
  const fields = children(expectTag(readNode(der), TAG.SEQUENCE, 'TSTInfo'));
  const imprint = children(expectTag(fields[2], TAG.SEQUENCE, 'MessageImprint'));
  const nonce = fields.slice(5).find((f: DerNode) => f.tag === TAG.INTEGER);
  return {
    imprintAlgorithm: readOid(children(imprint[0]!)[0]!),
    imprint: contentOf(expectTag(imprint[1], TAG.OCTET_STRING, 'hashed message')),
    serial: contentOf(expectTag(fields[3], TAG.INTEGER, 'serial number')),
    genTime: readTime(fields[4]!),
    nonce: nonce ? contentOf(nonce) : undefined,
  };
}

/**
 * Checks an RFC 3161 token against the data it stamps (`stamped`: the signature value, or the
 * bytes a document time stamp covers): its own CMS signature and its message imprint.
 */
export function checkTimestampToken(token: Buffer, stamped: Buffer[]): { valid: boolean; info?: TstInfo; certificate?: Buffer } {
  let info: TstInfo | undefined;
  try {
    const parsed = parseCms(token);
    if (parsed.contentType !== OID.tstInfo || !parsed.content) return { valid: false };
    info = parseTstInfo(parsed.content);
    const content = parsed.content;
    const check = checkCms(token, (alg) => digestWith(alg, content));
    const imprintOk = digestWith(info.imprintAlgorithm, ...stamped).equals(info.imprint);
    return { valid: check.valid && imprintOk, info, certificate: check.certificate };
  } catch {
    return { valid: false, info };
  }
}
