/**
 * Reading PDFs back with poppler (pdfinfo, pdftotext), as a reader of the file would see it.
 * poppler-utils is installed by .ci/run; where it is missing, tests that need it skip and say so.
 */
import { execFileSync, execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Runs a poppler tool and gives its standard output (large PDFs: up to 64 MB of it). */
export async function poppler(tool: string, args: string[]): Promise<string> {
  return (await execFileAsync(tool, args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
}

/** Whether `tool` runs here. */
export function hasTool(tool: string): boolean {
  try {
    execFileSync(tool, ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why PDF tests cannot run here, or undefined when pdfinfo and pdftotext are both present. */
export const pdfToolsMissing: string | undefined =
  hasTool('pdfinfo') && hasTool('pdftotext') ? undefined : 'poppler-utils (pdfinfo, pdftotext) is not installed';

export interface PdfInfo {
  pages: number;
  /** Size of the first page in points, as pdfinfo reports it. */
  width: number;
  height: number;
  /** Every page's size in points. */
  sizes: Array<{ width: number; height: number }>;
  title: string | undefined;
  /** Every `Name: value` line of pdfinfo. */
  fields: Record<string, string>;
}

export async function pdfInfo(file: string): Promise<PdfInfo> {
  const stdout = await poppler('pdfinfo', ['-f', '1', '-l', '100000', '-enc', 'UTF-8', file]);
  const fields = Object.fromEntries([...stdout.matchAll(/^(\w+):\s+(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const sizes = [...stdout.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => ({
    width: Number(m[1]),
    height: Number(m[2]),
  }));
  return {
    pages: Number(fields.Pages),
    width: sizes[0]?.width ?? NaN,
    height: sizes[0]?.height ?? NaN,
    sizes,
    title: fields.Title,
    fields,
  };
}

/** The text of the PDF, pages separated by form feeds. */
export async function pdfText(file: string): Promise<string> {
  return poppler('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-']);
}

/** Where each of `needles` is in `text`, each after the one before; -1 where one is missing or out of order. */
export function inOrder(text: string, needles: readonly string[]): number[] {
  let from = 0;
  return needles.map((needle) => {
    const at = text.indexOf(needle, from);
    if (at >= 0) from = at + needle.length;
    return at;
  });
}

/** The text of a PDF given as bytes (an API answer), or of its page `page` (1-based), read by pdftotext with its layout; the file is written into `dir`. */
export function pdfBytesText(pdf: Buffer, dir: string, page?: number): string {
  const file = path.join(dir, `read-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  const range = page ? ['-f', String(page), '-l', String(page)] : [];
  return execFileSync('pdftotext', [...range, '-layout', file, '-'], { encoding: 'utf8' });
}
