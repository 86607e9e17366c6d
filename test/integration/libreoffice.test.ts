/**
 * The LibreOffice adapter with the real soffice: the demo cover template filled with umlauts and
 * converted, the PDF read back with pdftotext; two conversions at once; a timeout that kills the
 * whole process group and removes the profile. Fake soffice scripts check the failure paths.
 * Without soffice or pdftotext the real-LibreOffice tests are skipped, saying why.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { fillOdtTemplate } from '../../src/adapters/odt.js';
import { LibreOfficeError, createLibreOffice } from '../../src/adapters/libreoffice.js';
import { makeCoverTemplateOdt, type CoverPlaceholder } from '../../src/demo/cover-template.js';
import { DEMO_LOGO_SIZE } from '../../src/demo/logo.js';

const VALUES: Record<CoverPlaceholder, string> = {
  object_ref: 'CO2401-0042',
  object_ref_customer: 'PO-4711/B',
  company_name: 'Müller & Söhne GmbH',
  company_address: 'Hauptstraße 12\nHinterhaus',
  company_zip: '80331',
  company_town: 'München',
  mycompany_name: 'Haustechnik Weiß KG',
  mycompany_address: 'Am Mühlbach 3',
  mycompany_zip: '10115',
  mycompany_town: 'Berlin',
  mycompany_phone: '+49 30 1234567',
  mycompany_email: 'büro@weiss-haustechnik.example',
  mycompany_vatnumber: 'DE811234567',
  myuser_fullname: 'Jürgen Öztürk',
  current_date: '06.03.2024',
  current_datehour: '06.03.2024 14:05',
  bericht_ref: 'BER2403-0007',
  bericht_title: 'Prüfbericht Ölheizung',
  bericht_version: '2',
  bericht_date: '05.03.2024',
  bericht_page_count: '4',
};

let dir: string;
/** Where the adapter makes its temporary profiles during this file (TMPDIR is read per call). */
let tmp: string;
let previousTmpdir: string | undefined;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-lo-test-'));
  tmp = path.join(dir, 'tmp');
  mkdirSync(tmp);
  previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
});
after(() => {
  if (previousTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmpdir;
  rmSync(dir, { recursive: true, force: true });
});

const hasPdftotext = spawnSync('pdftotext', ['-v']).error === undefined;

/** True when the real tools are there; otherwise marks the test skipped with the reason. */
async function realToolsOrSkip(t: TestContext): Promise<boolean> {
  if (!(await createLibreOffice().available())) {
    t.skip('LibreOffice (soffice) is not installed: apt-get install libreoffice-writer-nogui');
    return false;
  }
  if (!hasPdftotext) {
    t.skip('pdftotext is not installed: apt-get install poppler-utils');
    return false;
  }
  return true;
}

function pdfText(file: string): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
}

async function filledCover(name: string, values: Record<string, string>): Promise<string> {
  const template = path.join(dir, 'template_servicebericht.odt');
  if (!existsSync(template)) writeFileSync(template, await makeCoverTemplateOdt());
  const out = path.join(dir, 'in', `${name}.odt`);
  await fillOdtTemplate(template, values, out);
  return out;
}

/** Processes whose command line mentions `needle` (zombies have none, and count as gone). */
function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(needle)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** A stand-in for soffice: a shell script with the given body. */
function fakeSoffice(name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** The value of `--outdir` and the profile folder in the arguments a fake recorded. */
function recordedArgs(file: string): { outdir: string; profile: string } {
  const args = readFileSync(file, 'utf8').split('\n');
  const outdir = args[args.indexOf('--outdir') + 1]!;
  const profileUrl = args.find((a) => a.startsWith('-env:UserInstallation='))!.slice('-env:UserInstallation='.length);
  return { outdir, profile: new URL(profileUrl).pathname };
}

describe('LibreOffice: real conversions', () => {
  test('the filled demo cover converts to a PDF whose text holds the values (umlauts, &, footer from styles.xml) and shows the logo', async (t) => {
    if (!(await realToolsOrSkip(t))) return;
    const lo = createLibreOffice({ resident: false });
    const input = await filledCover('BER2403-0007_servicebericht', VALUES);
    const outDir = path.join(dir, 'out');

    let started = performance.now();
    const pdf = await lo.convertToPdf(input, outDir);
    const first = Math.round(performance.now() - started);
    assert.equal(pdf, path.join(outDir, 'BER2403-0007_servicebericht.pdf'));
    assert.equal(readFileSync(pdf).subarray(0, 5).toString('latin1'), '%PDF-');
    const text = pdfText(pdf);
    for (const expected of [
      'Servicebericht',
      'Prüfbericht Ölheizung',
      'Müller & Söhne GmbH',
      'BER2403-0007',
      'CO2401-0042',
      'PO-4711/B',
      'Hauptstraße 12',
      'Hinterhaus',
      '80331 München',
      'Jürgen Öztürk',
      'Haustechnik Weiß KG',
    ]) {
      assert.ok(text.includes(expected), `the PDF text holds "${expected}":\n${text}`);
    }
    assert.doesNotMatch(text, /\{[a-z_]+\}/, 'no placeholder left');
    for (const expected of [
      'Telefon +49 30 1234567',
      'E-Mail büro@weiss-haustechnik.example',
      'USt-IdNr. DE811234567',
      'Bericht BER2403-0007 · Version 2',
      'Seite 1',
    ]) {
      assert.ok(text.includes(expected), `the footer (styles.xml) is filled: "${expected}"\n${text}`);
    }
    // The logo is drawn: one picture on the page, in the demo logo's proportions (LibreOffice may
    // scale it down to its export resolution).
    const images = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .slice(2)
      .map((line) => line.trim().split(/\s+/));
    const pictures = images.filter((cols) => cols[2] === 'image');
    assert.equal(pictures.length, 1, `one picture:\n${images.join('\n')}`);
    const [page, , , width, height] = pictures[0]!;
    assert.equal(page, '1');
    assert.ok(
      Math.abs(Number(width) / Number(height) - DEMO_LOGO_SIZE.width / DEMO_LOGO_SIZE.height) < 0.05,
      `the logo's proportions: ${width} × ${height}`,
    );

    started = performance.now();
    await lo.convertToPdf(input, outDir);
    const warm = Math.round(performance.now() - started);
    t.diagnostic(`conversion with a fresh profile: first ${first} ms, second ${warm} ms`);
    assert.deepEqual(readdirSync(outDir), ['BER2403-0007_servicebericht.pdf'], 'only the PDF in the output folder');
    assert.deepEqual(readdirSync(tmp), [], 'the temporary profiles are gone');
  });

  test('two conversions at once both succeed (one profile each)', async (t) => {
    if (!(await realToolsOrSkip(t))) return;
    const lo = createLibreOffice({ resident: false, concurrency: 2 });
    const [a, b] = await Promise.all([
      filledCover('parallel-a', { ...VALUES, bericht_ref: 'BER-PARALLEL-A' }),
      filledCover('parallel-b', { ...VALUES, bericht_ref: 'BER-PARALLEL-B' }),
    ]);
    const started = performance.now();
    const [pdfA, pdfB] = await Promise.all([lo.convertToPdf(a, path.join(dir, 'par')), lo.convertToPdf(b, path.join(dir, 'par'))]);
    t.diagnostic(`two conversions in parallel: ${Math.round(performance.now() - started)} ms`);
    assert.ok(pdfText(pdfA).includes('BER-PARALLEL-A'));
    assert.ok(pdfText(pdfB).includes('BER-PARALLEL-B'));
    assert.deepEqual(readdirSync(tmp), []);
  });

  test('a timeout kills soffice and everything it started, and removes the profile', async (t) => {
    if (!(await realToolsOrSkip(t))) return;
    const warnings: unknown[] = [];
    const lo = createLibreOffice({ resident: false, timeoutMs: 250, logger: { warn: (obj) => warnings.push(obj) } });
    const input = await filledCover('timeout', VALUES);
    const conversion = lo.convertToPdf(input, path.join(dir, 'timeout-out'));
    let settled = false;
    conversion.catch(() => {}).finally(() => (settled = true));
    // The launcher and soffice.bin it starts (both name the profile under `tmp`), seen while running.
    const seen = new Set<number>();
    while (!settled) {
      for (const pid of processesMentioning(tmp)) seen.add(pid);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await assert.rejects(conversion, (error: unknown) => {
      assert.ok(error instanceof LibreOfficeError);
      assert.match(error.message, /did not finish within 250 ms/);
      return true;
    });
    t.diagnostic(`soffice processes seen before the timeout: ${seen.size}`);
    assert.ok(seen.size > 0, 'soffice was running');
    assert.ok(await eventually(() => [...seen].every((pid) => !isRunning(pid))), 'every process seen is killed');
    assert.ok(
      await eventually(() => processesMentioning(tmp).length === 0),
      `no soffice process is left: ${processesMentioning(tmp).join(', ')}`,
    );
    assert.deepEqual(readdirSync(tmp), []);
    assert.equal(existsSync(path.join(dir, 'timeout-out', 'timeout.pdf')), false);
    assert.equal(warnings.length, 1);
  });

  test('a file LibreOffice cannot load (it still exits 0) gives a LibreOfficeError with its message, not a PDF', async (t) => {
    if (!(await realToolsOrSkip(t))) return;
    const input = path.join(dir, 'garbage.odt');
    writeFileSync(input, 'PK\u0003\u0004garbage');
    const lo = createLibreOffice({ resident: false });
    await assert.rejects(lo.convertToPdf(input, path.join(dir, 'garbage-out')), (error: unknown) => {
      assert.ok(error instanceof LibreOfficeError);
      assert.match(error.message, /produced no PDF for garbage\.odt \(exit code 0\): .*source file could not be loaded/);
      return true;
    });
    assert.deepEqual(readdirSync(path.join(dir, 'garbage-out')), []);
  });
});

/** soffice.bin processes started on a profile under `tmp` (a LibreOffice kept running, or a conversion's own). */
function officesUnderTmp(): number[] {
  return processesMentioning(tmp).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0]!.endsWith('soffice.bin');
    } catch {
      return false;
    }
  });
}

describe('LibreOffice kept running (resident)', () => {
  test('one soffice converts one cover after another: the same process, the values in each PDF; close() leaves nothing', async (t) => {
    if (!(await realToolsOrSkip(t))) return;
    const lo = createLibreOffice();
    try {
      await lo.warmUp();
      const offices = officesUnderTmp();
      assert.equal(offices.length, 1, 'one soffice started by warmUp');
      const times: number[] = [];
      for (const ref of ['BER-KEPT-1', 'BER-KEPT-2', 'BER-KEPT-3']) {
        const input = await filledCover(ref, { ...VALUES, bericht_ref: ref });
        const started = performance.now();
        const pdf = await lo.convertToPdf(input, path.join(dir, 'kept'));
        times.push(Math.round(performance.now() - started));
        assert.equal(pdf, path.join(dir, 'kept', `${ref}.pdf`));
        assert.ok(pdfText(pdf).includes(ref), `${ref} in its PDF`);
        assert.ok(pdfText(pdf).includes('Müller & Söhne GmbH'));
      }
      t.diagnostic(`three conversions through the LibreOffice kept running: ${times.join(', ')} ms`);
      assert.deepEqual(officesUnderTmp(), offices, 'the same soffice did all three');
      assert.deepEqual(readdirSync(path.join(dir, 'kept')).sort(), ['BER-KEPT-1.pdf', 'BER-KEPT-2.pdf', 'BER-KEPT-3.pdf']);
    } finally {
      await lo.close();
    }
    assert.ok(await eventually(() => processesMentioning(tmp).length === 0, 5000), `nothing left running: ${processesMentioning(tmp)}`);
    assert.ok(await eventually(() => readdirSync(tmp).length === 0), `its folder is removed: ${readdirSync(tmp)}`);
  });

  test('a file it cannot load is an error naming it, and the next one converts; soffice killed: the next conversion still succeeds', async (t) => {
    if (!(await realToolsOrSkip(t))) return;
    const lo = createLibreOffice({ logger: { warn: () => {} } });
    try {
      const garbage = path.join(dir, 'kept-garbage.odt');
      writeFileSync(garbage, 'PK\u0003\u0004garbage');
      await assert.rejects(lo.convertToPdf(garbage, path.join(dir, 'kept-bad')), (error: unknown) => {
        assert.ok(error instanceof LibreOfficeError);
        assert.match(error.message, /produced no PDF for kept-garbage\.odt: .*(could not load|IllegalArgument|IOException)/);
        return true;
      });
      assert.equal(existsSync(path.join(dir, 'kept-bad', 'kept-garbage.pdf')), false);
      const good = await filledCover('BER-AFTER-BAD', { ...VALUES, bericht_ref: 'BER-AFTER-BAD' });
      assert.ok(pdfText(await lo.convertToPdf(good, path.join(dir, 'kept-bad'))).includes('BER-AFTER-BAD'));

      const [office] = officesUnderTmp();
      assert.ok(office, 'soffice is running');
      process.kill(office, 'SIGKILL');
      assert.ok(await eventually(() => !isRunning(office)));
      const again = await filledCover('BER-AFTER-KILL', { ...VALUES, bericht_ref: 'BER-AFTER-KILL' });
      assert.ok(pdfText(await lo.convertToPdf(again, path.join(dir, 'kept-bad'))).includes('BER-AFTER-KILL'));
    } finally {
      await lo.close();
    }
    assert.ok(await eventually(() => processesMentioning(tmp).length === 0, 5000), `nothing left running: ${processesMentioning(tmp)}`);
  });

  test('a conversion over its time stops the LibreOffice kept running, every process of it, and removes its folder', async (t) => {
    if (!(await realToolsOrSkip(t))) return;
    const warnings: unknown[] = [];
    const lo = createLibreOffice({ timeoutMs: 30, logger: { warn: (obj) => warnings.push(obj) } });
    try {
      await lo.warmUp();
      const seen = processesMentioning(tmp);
      assert.ok(seen.length > 0);
      const input = await filledCover('kept-timeout', VALUES);
      await assert.rejects(lo.convertToPdf(input, path.join(dir, 'kept-timeout')), /did not finish within 30 ms/);
      assert.ok(await eventually(() => seen.every((pid) => !isRunning(pid)), 5000), 'every process of it is stopped');
      assert.ok(warnings.length >= 1);
    } finally {
      await lo.close();
    }
    assert.ok(await eventually(() => processesMentioning(tmp).length === 0, 5000), `nothing left running: ${processesMentioning(tmp)}`);
    assert.ok(await eventually(() => readdirSync(tmp).length === 0), `its folder is removed: ${readdirSync(tmp)}`);
  });
});

describe('LibreOffice: finding soffice and failures (fake binaries)', () => {
  test('a missing binary: available() is false, conversions fail clearly', async () => {
    const warnings: unknown[] = [];
    const lo = createLibreOffice({
      resident: false,
      binary: path.join(dir, 'no-such-soffice'),
      logger: { warn: (obj) => warnings.push(obj) },
    });
    assert.equal(await lo.available(), false);
    assert.equal(await lo.available(), false);
    assert.equal(warnings.length, 1, 'reported once: the lookup is cached');
    await assert.rejects(lo.convertToPdf(path.join(dir, 'x.odt'), dir), /not installed or not found/);
    assert.equal(await createLibreOffice({ binary: 'no-such-soffice-in-path' }).available(), false);
  });

  test('a file that is not executable is not a binary', async () => {
    const file = path.join(dir, 'not-executable');
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o644);
    assert.equal(await createLibreOffice({ binary: file }).available(), false);
  });

  test('the timeout kills the process group (children too) and removes the profile folder', async () => {
    const record = path.join(dir, 'sleeper-args');
    const pids = path.join(dir, 'sleeper-pids');
    const soffice = fakeSoffice(
      'sleeper',
      `printf '%s\\n' "$@" > '${record}'
profile=$(printf '%s\\n' "$@" | sed -n 's|^-env:UserInstallation=file://||p')
mkdir -p "$profile/user" && echo lock > "$profile/user/.lock"
sleep 30 &
echo "$$ $!" > '${pids}'
wait`,
    );
    const warnings: unknown[] = [];
    const lo = createLibreOffice({ resident: false, binary: soffice, timeoutMs: 300, logger: { warn: (obj) => warnings.push(obj) } });
    const input = path.join(dir, 'input.odt');
    writeFileSync(input, 'x');
    const started = Date.now();
    await assert.rejects(lo.convertToPdf(input, path.join(dir, 'sleeper-out')), /did not finish within 300 ms and was stopped/);
    assert.ok(Date.now() - started < 5000, 'rejected soon after the timeout');
    const [shellPid, sleepPid] = readFileSync(pids, 'utf8').trim().split(' ').map(Number) as [number, number];
    assert.ok(await eventually(() => !isRunning(shellPid) && !isRunning(sleepPid)), 'the script and its child are killed');
    const { profile } = recordedArgs(record);
    assert.ok(profile.startsWith(tmp + path.sep), `a private profile under TMPDIR: ${profile}`);
    assert.equal(existsSync(profile), false, 'the profile folder is removed');
    assert.deepEqual(readdirSync(tmp), []);
    assert.deepEqual(warnings, [{ input, timeoutMs: 300 }]);
  });

  test('an exit without PDF, a non-PDF file and a failing exit code are errors with the tail of stderr', async () => {
    const input = path.join(dir, 'input.odt');
    writeFileSync(input, 'x');
    const cases: Array<[string, string, RegExp]> = [
      [
        'no-pdf',
        `echo 'Error: source file could not be loaded' >&2; exit 0`,
        /produced no PDF for input\.odt \(exit code 0\): Error: source file could not be loaded/,
      ],
      [
        'not-pdf',
        `out=''; prev=''; for a in "$@"; do [ "$prev" = --outdir ] && out="$a"; prev="$a"; done; echo 'hello' > "$out/input.pdf"`,
        /produced no PDF/,
      ],
      ['exit-1', `echo 'first line' >&2; echo 'Fatal: boom' >&2; exit 1`, /\(exit code 1\): first line \| Fatal: boom$/],
    ];
    for (const [name, body, pattern] of cases) {
      const lo = createLibreOffice({ resident: false, binary: fakeSoffice(name, body) });
      await assert.rejects(lo.convertToPdf(input, path.join(dir, `${name}-out`)), (error: unknown) => {
        assert.ok(error instanceof LibreOfficeError, `${name}: ${String(error)}`);
        assert.match(error.message, pattern, name);
        return true;
      });
      assert.equal(existsSync(path.join(dir, `${name}-out`, 'input.pdf')), false, `${name}: no PDF left behind`);
    }
    assert.deepEqual(readdirSync(tmp), []);
  });

  test('the child sees a small environment, not ours', async () => {
    const record = path.join(dir, 'env-record');
    const soffice = fakeSoffice(
      'env-printer',
      `env > '${record}'
out=''; prev=''; for a in "$@"; do [ "$prev" = --outdir ] && out="$a"; prev="$a"; done
printf '%%PDF-1.4\\n%%%%EOF\\n' > "$out/input.pdf"`,
    );
    process.env.FIELDREPORT_TEST_SECRET = 'do-not-pass';
    try {
      const input = path.join(dir, 'input.odt');
      writeFileSync(input, 'x');
      const pdf = await createLibreOffice({ resident: false, binary: soffice }).convertToPdf(input, path.join(dir, 'env-out'));
      assert.equal(pdf, path.join(dir, 'env-out', 'input.pdf'));
      const env = readFileSync(record, 'utf8');
      assert.doesNotMatch(env, /FIELDREPORT_TEST_SECRET/);
      assert.match(env, /^PATH=/m);
      assert.match(env, /^HOME=.*fieldreport-soffice-/m);
    } finally {
      delete process.env.FIELDREPORT_TEST_SECRET;
    }
  });

  test('at most `concurrency` conversions run at once; the rest wait their turn', async () => {
    const log = path.join(dir, 'concurrency-log');
    writeFileSync(log, '');
    const soffice = fakeSoffice(
      'slow',
      `echo start >> '${log}'; sleep 0.3; echo end >> '${log}'
out=''; prev=''; for a in "$@"; do [ "$prev" = --outdir ] && out="$a"; prev="$a"; done
for a in "$@"; do last="$a"; done
name=$(basename "$last" .odt)
printf '%%PDF-1.4\\n' > "$out/$name.pdf"`,
    );
    const lo = createLibreOffice({ resident: false, binary: soffice, concurrency: 2 });
    const inputs = ['c1', 'c2', 'c3', 'c4', 'c5'].map((name) => {
      const file = path.join(dir, `${name}.odt`);
      writeFileSync(file, 'x');
      return file;
    });
    const pdfs = await Promise.all(inputs.map((input) => lo.convertToPdf(input, path.join(dir, 'concurrency-out'))));
    assert.deepEqual(
      pdfs.map((p) => path.basename(p)),
      ['c1.pdf', 'c2.pdf', 'c3.pdf', 'c4.pdf', 'c5.pdf'],
    );
    let running = 0;
    let peak = 0;
    for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
      running += line === 'start' ? 1 : -1;
      peak = Math.max(peak, running);
    }
    assert.equal(peak, 2);
  });

  test('a missing input is refused before soffice runs', async () => {
    const lo = createLibreOffice({ resident: false, binary: fakeSoffice('never', 'exit 3') });
    await assert.rejects(lo.convertToPdf(path.join(dir, 'missing.odt'), dir), /Input file not found/);
  });
});
