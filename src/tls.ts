/**
 * HTTPS served by fieldreport itself (TLS_CERT and TLS_KEY, PEM files): phones give a service
 * worker, the camera, the microphone and GPS only to a secure context. The files are read and
 * checked when the configuration is loaded, so every fault is a configuration problem that names
 * its file, listed with the others, instead of a crash trace from deep inside Node's TLS when the
 * server starts: a setting without the other, a file that cannot be read, no certificate or no
 * (unencrypted) private key in it, and a key that does not belong to the certificate.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface TlsConfig {
  /** Where the certificate came from (for messages). */
  certFile: string;
  keyFile: string;
  /** The certificate (PEM), followed by its intermediate certificates, if the file has them. */
  cert: string;
  /** The private key (PEM). */
  key: string;
}

function readPem(setting: string, file: string, problems: string[]): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`${setting}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

/**
 * The certificate and key named by TLS_CERT and TLS_KEY (undefined when neither is set); each
 * fault is pushed to `problems`.
 */
export function loadTls(certSetting: string | undefined, keySetting: string | undefined, problems: string[]): TlsConfig | undefined {
  if (certSetting === undefined && keySetting === undefined) return undefined;
  if (certSetting === undefined || keySetting === undefined) {
    const [given, missing] = certSetting === undefined ? ['TLS_KEY', 'TLS_CERT'] : ['TLS_CERT', 'TLS_KEY'];
    problems.push(
      `${given} is set but ${missing} is not: give both (the certificate and its private key, PEM files) for HTTPS, or neither`,
    );
    return undefined;
  }
  const certFile = path.resolve(certSetting);
  const keyFile = path.resolve(keySetting);
  const cert = readPem('TLS_CERT', certFile, problems);
  const key = readPem('TLS_KEY', keyFile, problems);
  if (cert === undefined || key === undefined) return undefined;

  let certificate: X509Certificate | undefined;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    problems.push(`TLS_CERT: ${certFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  let privateKey: ReturnType<typeof createPrivateKey> | undefined;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    problems.push(
      `TLS_KEY: ${keyFile} holds no unencrypted PEM private key (-----BEGIN PRIVATE KEY-----; an encrypted key must be decrypted first)`,
    );
  }
  if (!certificate || !privateKey) return undefined;
  // Node would refuse the pair only when the server is made, with "key values mismatch".
  let matches = false;
  try {
    matches = certificate.checkPrivateKey(privateKey);
  } catch {
    // a key of another kind than the certificate's: no match either
  }
  if (!matches) {
    problems.push(`TLS_KEY: the private key in ${keyFile} does not belong to the certificate in ${certFile}`);
    return undefined;
  }
  return { certFile, keyFile, cert, key };
}
