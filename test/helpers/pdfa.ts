/**
 * PDF/A-1b checks with Apache PDFBox Preflight, as Debian installs it (libpdfbox2-java, with
 * default-jre-headless, libactivation-java and libjaxb-api-java; .ci/run installs them). Where it is
 * missing, `pdfaSkipReason` says why and the checks report that they did not run, with that reason.
 *
 * Every PDF found valid is counted: a test diagnostic `PDF/A-1b validated: <name>` (shown by the
 * test reporter), and one line appended to the file PDFA_VALIDATED_LOG names, when set (.ci/run
 * prints the total from it).
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

/** The jars Validator_A1b needs, as Debian's packages install them. */
export const PREFLIGHT_CLASSPATH = [
  'preflight.jar',
  'pdfbox2.jar',
  'fontbox2.jar',
  'xmpbox.jar',
  'commons-logging.jar',
  'javax.activation.jar',
  'jaxb-api.jar',
].map((jar) => path.join('/usr/share/java', jar));

const PACKAGES = 'libpdfbox2-java default-jre-headless libactivation-java libjaxb-api-java';

function findSkipReason(): string | undefined {
  const missing = PREFLIGHT_CLASSPATH.filter((jar) => !existsSync(jar));
  if (missing.length > 0)
    return `PDF/A-1b not checked: Apache PDFBox Preflight is not installed (${missing.map((jar) => path.basename(jar)).join(', ')} missing; apt-get install ${PACKAGES})`;
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).status !== 0)
    return `PDF/A-1b not checked: no Java runtime (apt-get install ${PACKAGES})`;
  return undefined;
}

/** Why PDF/A-1b cannot be checked here, or undefined when Preflight is installed. */
export const pdfaSkipReason: string | undefined = findSkipReason();

/** Time one Preflight run may take. */
const TIMEOUT_MS = 120_000;

/**
 * Preflight's findings for each of `files`, in one JVM (Validator_A1b's `xml group` mode: one XML
 * report for a list of files): an empty list for a valid PDF/A-1b file, else lines such as
 * `2.4.2: Invalid Color space, DestOutputProfile isn't CMYK ColorSpace (page 3)`. Null when
 * Preflight is not installed (pdfaSkipReason).
 */
export async function pdfaProblemsOfAll(files: readonly string[]): Promise<string[][] | null> {
  if (pdfaSkipReason) return null;
  if (files.length === 0) return [];
  // Preflight leaves out files it cannot open, and names the rest by their base name only.
  for (const file of files) if (!(await stat(file)).isFile()) throw new Error(`pdfaProblems: not a file: ${file}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-preflight-'));
  try {
    const list = path.join(dir, 'files.txt');
    await writeFile(list, files.map((file) => path.resolve(file)).join('\n') + '\n');
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        'java',
        ['-cp', PREFLIGHT_CLASSPATH.join(':'), 'org.apache.pdfbox.preflight.Validator_A1b', 'xml', 'group', list],
        { timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => (error ? reject(new Error(`Preflight failed: ${error.message}\n${stderr}`)) : resolve(stdout)),
      );
    });
    let xml: string;
    try {
      xml = await readFile(`${list}.preflight.xml`, 'utf8');
    } catch (error) {
      throw new Error(`Preflight wrote no report: ${output}`, { cause: error });
    }
    const reports = [...xml.matchAll(/<preflight name="([^"]*)">([\s\S]*?)<\/preflight>/g)];
    const names = reports.map((report) => decodeXml(report[1]!));
    assert.deepEqual(
      names,
      files.map((file) => path.basename(file)),
      'Preflight reported on every file, in order',
    );
    return reports.map((report) => problemsOf(report[2]!));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Preflight's findings for `file`: empty when it is valid PDF/A-1b; null when Preflight is not installed. */
export async function pdfaProblems(file: string): Promise<string[] | null> {
  const all = await pdfaProblemsOfAll([file]);
  return all ? all[0]! : null;
}

/** The findings of one `<preflight>` element. */
function problemsOf(report: string): string[] {
  const valid = /<isValid[^>]*>(true|false)<\/isValid>/.exec(report)?.[1];
  const problems = [...report.matchAll(/<error count="(\d+)">([\s\S]*?)<\/error>/g)].map(([, count, error]) => {
    const code = decodeXml(/<code>([\s\S]*?)<\/code>/.exec(error!)?.[1] ?? '?');
    const details = decodeXml(/<details>([\s\S]*?)<\/details>/.exec(error!)?.[1] ?? '').slice(0, 300);
    const page = /<page>(\d+)<\/page>/.exec(error!)?.[1];
    return `${code}: ${details}${page !== undefined ? ` (page ${Number(page) + 1})` : ''}${count !== '1' ? ` ×${count}` : ''}`;
  });
  if (valid === 'true') return [];
  return problems.length > 0 ? problems : ['Preflight found the file invalid without naming an error'];
}

function decodeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (_entity, name: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
    if (named[name.toLowerCase()]) return named[name.toLowerCase()]!;
    return String.fromCodePoint(name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
  });
}

/**
 * Asserts that every one of `files` is valid PDF/A-1b (one Preflight run for all) and counts each.
 * Without Preflight nothing is asserted and the test says so (a diagnostic with the reason).
 * `label` names the PDFs in the count; the file names by default.
 */
export async function assertPdfA1b(t: TestContext, files: string | readonly string[], label?: string): Promise<void> {
  const list = typeof files === 'string' ? [files] : files;
  const results = await pdfaProblemsOfAll(list);
  if (results === null) {
    t.diagnostic(pdfaSkipReason!);
    return;
  }
  for (const [index, file] of list.entries())
    assert.deepEqual(results[index], [], `${path.basename(file)} is not valid PDF/A-1b:\n${results[index]!.join('\n')}`);
  for (const file of list)
    await countValidated(t, label ? `${label}${list.length > 1 ? ` (${path.basename(file)})` : ''}` : path.basename(file));
}

/** Writes a PDF given as bytes (an API answer) into `dir` and asserts it as assertPdfA1b does. */
export async function assertPdfA1bBytes(t: TestContext, pdf: Buffer, dir: string, label: string): Promise<void> {
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', `${label}: not a PDF`);
  const file = path.join(dir, `${label.replace(/[^A-Za-z0-9_.-]+/g, '-')}-${process.pid}-${Math.random().toString(36).slice(2, 8)}.pdf`);
  await writeFile(file, pdf);
  try {
    await assertPdfA1b(t, file, label);
  } finally {
    await rm(file, { force: true });
  }
}

async function countValidated(t: TestContext, label: string): Promise<void> {
  const line = `PDF/A-1b validated: ${label}`;
  t.diagnostic(line);
  const log = process.env.PDFA_VALIDATED_LOG;
  // One short write with O_APPEND: lines from test files running side by side do not mix.
  if (log) await appendFile(log, `${line} [${path.basename(process.argv[1] ?? '')}]\n`);
}

/**
 * Every PDF the service finalized in a test's documents folder (`files`: the final PDFs named by
 * their `ecm_files` rows) checked as PDF/A-1b in one Preflight run, each counted; throws with the
 * findings when one is not valid. Without Preflight it does nothing (the tests that assert PDF/A
 * say why).
 */
export async function checkFinalizedPdfs(files: readonly string[], source: string): Promise<void> {
  if (pdfaSkipReason || files.length === 0) return;
  const results = await pdfaProblemsOfAll(files);
  if (results === null) return;
  const invalid = files.map((file, index) => [file, results[index]!] as const).filter(([, problems]) => problems.length > 0);
  if (invalid.length > 0)
    throw new Error(
      `finalized PDFs that are not valid PDF/A-1b (${source}):\n${invalid.map(([file, problems]) => `${path.basename(file)}: ${problems.join('; ')}`).join('\n')}`,
    );
  const log = process.env.PDFA_VALIDATED_LOG;
  if (log) await appendFile(log, files.map((file) => `PDF/A-1b validated: finalized ${path.basename(file)} [${source}]\n`).join(''));
}
