/**
 * Reading PDFs back with poppler (pdfinfo, pdftotext), as a reader of the file would see it.
 * poppler-utils is installed by .ci/run; where it is missing, tests that need it skip and say so.
 */
import { execFileSync, execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

function has(tool: string): boolean {
  try {
    execFileSync(tool, ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why PDF tests cannot run here, or undefined when pdfinfo and pdftotext are both present. */
export const pdfToolsMissing: string | undefined = has('pdfinfo') && has('pdftotext') ? undefined : 'poppler-utils (pdfinfo, pdftotext) is not installed';

export interface PdfInfo {
  pages: number;
  /** Size of the first page in points, as pdfinfo reports it. */
  width: number;
  height: number;
  /** Every page's size in points. */
  sizes: Array<{ width: number; height: number }>;
  title: string | undefined;
}

export async function pdfInfo(file: string): Promise<PdfInfo> {
  const { stdout } = await run('pdfinfo', ['-f', '1', '-l', '100000', file], { maxBuffer: 64 * 1024 * 1024 });
  const pages = Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
  const sizes = [...stdout.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => ({ width: Number(m[1]), height: Number(m[2]) }));
  return { pages, width: sizes[0]?.width ?? NaN, height: sizes[0]?.height ?? NaN, sizes, title: /^Title:\s+(.*)$/m.exec(stdout)?.[1] };
}

/** The text of the PDF, pages separated by form feeds. */
export async function pdfText(file: string): Promise<string> {
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}
