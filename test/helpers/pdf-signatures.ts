/**
 * Reading a PDF's signatures as an outside checker does, to hand them to pdfsig and openssl:
 * each /ByteRange, the bytes it covers, and the DER in /Contents cut at its own ASN.1 length
 * (the placeholder's zero padding dropped). Independent of the service's own reader.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface RawSignature {
  byteRange: number[];
  /** The covered bytes, in order. */
  signed: Buffer;
  /** The CMS (or RFC 3161 token) DER. */
  der: Buffer;
  subFilter: string | undefined;
}

function derLength(der: Buffer): number {
  const first = der[1]!;
  if (first < 0x80) return 2 + first;
  const n = first & 0x7f;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + der[2 + i]!;
  return 2 + n + len;
}

export function rawSignatures(pdf: Buffer): RawSignature[] {
  const text = pdf.toString('latin1');
  return [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].map((m) => {
    const [a, b, c, d] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
    const hex = Buffer.from(text.slice(b + 1, c - 1), 'hex');
    const dict = text.slice(text.lastIndexOf(' obj', m.index), text.indexOf('endobj', m.index));
    return {
      byteRange: [a, b, c, d],
      signed: Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]),
      der: hex.subarray(0, derLength(hex)),
      subFilter: /\/SubFilter\s*\/(\S+)/.exec(dict)?.[1],
    };
  });
}

/** pdfsig's report on `file`: its whole output, and per signature whether it is valid and covers the whole document. */
export async function pdfsig(file: string): Promise<{
  output: string;
  signatures: Array<{ valid: boolean; total: boolean; subFilter: string | undefined; commonName: string | undefined }>;
}> {
  let output: string;
  try {
    output = (await run('pdfsig', [file])).stdout;
  } catch (error) {
    // pdfsig exits non-zero when a signature is invalid; its report is still on stdout.
    output = (error as { stdout?: string }).stdout ?? '';
  }
  const blocks = output.split(/^Signature #\d+:$/m).slice(1);
  return {
    output,
    signatures: blocks.map((block) => ({
      valid: /Signature Validation: Signature is Valid\./.test(block),
      total: /^\s*- Total document signed$/m.test(block),
      subFilter: /Signature Type: (\S+)/.exec(block)?.[1],
      commonName: /Signer Certificate Common Name: (.+)/.exec(block)?.[1]?.trim(),
    })),
  };
}

/** `openssl cms -verify` of a detached signature over `signed`, trusting `caFile`: its exit and messages. */
export async function opensslCmsVerify(dir: string, sig: RawSignature, caFile: string): Promise<{ ok: boolean; output: string }> {
  const derFile = path.join(dir, 'sig.der');
  const contentFile = path.join(dir, 'signed.bin');
  await writeFile(derFile, sig.der);
  await writeFile(contentFile, sig.signed);
  try {
    const r = await run('openssl', [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      derFile,
      '-content',
      contentFile,
      '-CAfile',
      caFile,
      '-out',
      '/dev/null',
    ]);
    return { ok: true, output: r.stderr };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
  }
}

/** `openssl ts -verify` of a time-stamp token over `data`, trusting `caFile`. */
export async function opensslTsVerify(dir: string, token: Buffer, data: Buffer, caFile: string): Promise<{ ok: boolean; output: string }> {
  const tokenFile = path.join(dir, 'token.der');
  const dataFile = path.join(dir, 'stamped.bin');
  await writeFile(tokenFile, token);
  await writeFile(dataFile, data);
  try {
    const r = await run('openssl', ['ts', '-verify', '-in', tokenFile, '-token_in', '-data', dataFile, '-CAfile', caFile]);
    return { ok: /Verification: OK/.test(r.stdout + r.stderr), output: r.stdout + r.stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? String(error)}` };
  }
}
