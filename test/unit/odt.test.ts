/**
 * ODT templates: placeholders filled in content.xml and styles.xml (escaped, split by LibreOffice
 * into spans, unknown ones kept), the zip written back with `mimetype` first and stored, broken
 * and oversized templates refused, template folders listed and named as Dolibarr does.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import sharp from 'sharp';
import {
  DEFAULT_TEMPLATE_PATH,
  MAX_TEMPLATE_BYTES,
  OdtTemplateError,
  fillOdtTemplate,
  listOdtTemplates,
  replacePlaceholders,
  templateDirs,
} from '../../src/adapters/odt.js';
import { COVER_PLACEHOLDERS, makeCoverTemplateOdt } from '../../src/demo/cover-template.js';

const MIMETYPE = 'application/vnd.oasis.opendocument.text';
const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';

const content = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NS}><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
const styles = (footer: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><office:document-styles ${NS}><office:master-styles><style:master-page style:name="Standard"><style:footer>${footer}</style:footer></style:master-page></office:master-styles></office:document-styles>`;

/** A minimal ODT; `mimetypeLevel` 6 makes a sloppy one with a compressed mimetype. */
function makeOdt(parts: { content: string; styles?: string; extra?: Zippable; mimetypeLevel?: number }): Uint8Array {
  return zipSync({
    mimetype: [strToU8(MIMETYPE), { level: (parts.mimetypeLevel ?? 0) as 0 }],
    'content.xml': strToU8(parts.content),
    ...(parts.styles === undefined ? {} : { 'styles.xml': strToU8(parts.styles) }),
    ...parts.extra,
  });
}

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-odt-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
/** Writes `odt` as a template, fills it and returns the output's entries. */
async function fill(odt: Uint8Array, values: Record<string, string>): Promise<{ out: string; entries: Record<string, Uint8Array> }> {
  counter += 1;
  const template = path.join(dir, `template-${counter}.odt`);
  const out = path.join(dir, `out-${counter}.odt`);
  writeFileSync(template, odt);
  await fillOdtTemplate(template, values, out);
  return { out, entries: unzipSync(readFileSync(out)) };
}

const text = (entries: Record<string, Uint8Array>, name: string) => strFromU8(entries[name]!);

/** The filled text of one placeholder-bearing paragraph. */
const filled = (xml: string, values: Record<string, string>) =>
  replacePlaceholders(`<text:p>${xml}</text:p>`, values).slice('<text:p>'.length, -'</text:p>'.length);

describe('fillOdtTemplate: placeholders', () => {
  test('fills content.xml and styles.xml (footer), escaping <&>"\' and keeping umlauts', async () => {
    const odt = makeOdt({
      content: content('<text:p>{company_name}</text:p><text:p>Ref: {object_ref}</text:p>'),
      styles: styles('<text:p>{mycompany_name} · {object_ref}</text:p>'),
    });
    const { entries } = await fill(odt, {
      company_name: `Müller & Söhne <GmbH> "ÄÖÜß" 'x'`,
      object_ref: 'CO2401-0001',
      mycompany_name: 'Groß KG',
    });
    const body = text(entries, 'content.xml');
    assert.ok(body.includes('<text:p>Müller &amp; Söhne &lt;GmbH&gt; &quot;ÄÖÜß&quot; &apos;x&apos;</text:p>'), body);
    assert.ok(body.includes('<text:p>Ref: CO2401-0001</text:p>'));
    assert.ok(text(entries, 'styles.xml').includes('<text:p>Groß KG · CO2401-0001</text:p>'));
  });

  test('unknown placeholders stay as they are, prototype names included', () => {
    assert.equal(filled('{unknown_key} {object_ref}', { object_ref: 'X' }), '{unknown_key} X');
    assert.equal(filled('{constructor} {toString} {__proto__}', {}), '{constructor} {toString} {__proto__}');
    assert.equal(filled('{} { object_ref } {object ref}', { object_ref: 'X' }), '{} { object_ref } {object ref}');
  });

  test('a value is inserted once: braces in it are not filled again', () => {
    assert.equal(filled('{a} {b}', { a: '{b}', b: 'B' }), '{b} B');
  });

  test('line breaks become <text:line-break/>, tabs <text:tab/>, characters XML forbids are dropped', () => {
    assert.equal(
      filled('{v}', { v: 'Hauptstraße 1\nHinterhaus\r\n3. OG\rlinks' }),
      'Hauptstraße 1<text:line-break/>Hinterhaus<text:line-break/>3. OG<text:line-break/>links',
    );
    assert.equal(filled('{v}', { v: 'a\tb' }), 'a<text:tab/>b');
    assert.equal(filled('{v}', { v: 'a\u0000b\u0007c\uFFFEd\uD800e😀' }), 'abcde😀');
  });

  test('a placeholder in an attribute value is filled there, escaped for an attribute', () => {
    const xml = '<text:a xlink:href="https://example.test/{path}?q={q}">{label}</text:a>';
    assert.equal(
      replacePlaceholders(xml, { path: 'a&b', q: 'x"y\nz', label: 'L' }),
      '<text:a xlink:href="https://example.test/a&amp;b?q=x&quot;y&#10;z">L</text:a>',
    );
  });

  test('braces inside a tag are not taken for text, and braces split across paragraphs are left alone', () => {
    assert.equal(
      replacePlaceholders('<text:p text:style-name="{x"><text:span>}</text:span></text:p>', { x: 'X' }),
      '<text:p text:style-name="{x"><text:span>}</text:span></text:p>',
    );
    assert.equal(
      replacePlaceholders('<text:p>{object_</text:p><text:p>ref}</text:p>', { object_ref: 'X' }),
      '<text:p>{object_</text:p><text:p>ref}</text:p>',
    );
  });
});

describe('fillOdtTemplate: placeholders LibreOffice split into spans', () => {
  const values = { object_ref: 'CO2401-0001' };
  for (const [name, xml] of [
    ['a span pair around part of the key', '{object_<text:span text:style-name="T1">ref</text:span>}'],
    ['nested span pairs', '{<text:span text:style-name="T1">object_<text:span text:style-name="T2">re</text:span>f</text:span>}'],
    ['a span pair around the whole key', '{<text:span text:style-name="T1">object_ref</text:span>}'],
    ['an empty span', '{object_<text:span text:style-name="T1"/>ref}'],
    ['a soft page break', '{object_<text:soft-page-break/>ref}'],
    ['a point bookmark', '{object_<text:bookmark text:name="b"/>ref}'],
    ['an attribute value holding ">"', '{object_<text:span text:style-name="a>b">ref</text:span>}'],
  ] as const) {
    test(`${name}: the tags go with the placeholder`, () => {
      assert.equal(filled(xml, values), 'CO2401-0001');
    });
  }

  for (const [name, xml] of [
    ['a close before an open (unbalanced inside the braces)', '{object_</text:span><text:span text:style-name="T2">ref}'],
    ['an open without its close', '{object_<text:span text:style-name="T1">ref}'],
    ['a close without its open', '{object_</text:span>ref}'],
    ['a space element (text, not markup)', '{object_<text:s/>ref}'],
    ['a line break element', '{object_<text:line-break/>ref}'],
    ['another element pair', '{object_<text:a xlink:href="x">ref</text:a>}'],
    ['a comment', '{object_<!-- c -->ref}'],
  ] as const) {
    test(`${name}: left untouched`, () => {
      assert.equal(filled(xml, values), xml);
    });
  }

  test('in a whole document: split and plain placeholders side by side', async () => {
    const odt = makeOdt({
      content: content('<text:p>Auftrag: {object_<text:span text:style-name="T1">ref</text:span>}, Kunde: {company_name}</text:p>'),
    });
    const { entries } = await fill(odt, { object_ref: 'CO2401-0001', company_name: 'A & B' });
    assert.ok(text(entries, 'content.xml').includes('<text:p>Auftrag: CO2401-0001, Kunde: A &amp; B</text:p>'));
  });
});

describe('fillOdtTemplate: the written zip', () => {
  /** Reads the first local file header of a zip. */
  function firstEntry(zip: Uint8Array): { name: string; method: number; extraLength: number; data: string } {
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    assert.equal(view.getUint32(0, true), 0x04034b50, 'local file header signature');
    const method = view.getUint16(8, true);
    const size = view.getUint32(18, true);
    const nameLength = view.getUint16(26, true);
    const extraLength = view.getUint16(28, true);
    const name = strFromU8(zip.subarray(30, 30 + nameLength));
    const start = 30 + nameLength + extraLength;
    return { name, method, extraLength, data: strFromU8(zip.subarray(start, start + size)) };
  }

  /** Compression method of every entry, in archive order. */
  function methods(zip: Uint8Array): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    unzipSync(zip, { filter: (file) => (out.push([file.name, file.compression]), false) });
    return out;
  }

  test('mimetype is the first entry, stored, without extra field, even when the template compressed it', async () => {
    const picture = new Uint8Array(64).map((_, i) => (i * 37) % 256);
    const odt = makeOdt({
      content: content('<text:p>{v}</text:p>'),
      styles: styles(''),
      mimetypeLevel: 6,
      extra: { 'Pictures/logo.png': [picture, { level: 0 }], 'META-INF/manifest.xml': strToU8('<manifest/>') },
    });
    assert.equal(firstEntry(odt).method, 8, 'the sloppy template has a compressed mimetype');
    const { out, entries } = await fill(odt, { v: 'x' });
    const zip = readFileSync(out);
    assert.deepEqual(firstEntry(zip), { name: 'mimetype', method: 0, extraLength: 0, data: MIMETYPE });
    assert.deepEqual(methods(zip), [
      ['mimetype', 0],
      ['content.xml', 8],
      ['styles.xml', 8],
      ['Pictures/logo.png', 0],
      ['META-INF/manifest.xml', 8],
    ]);
    assert.deepEqual(entries['Pictures/logo.png'], picture, 'other entries are copied unchanged');
  });

  test('the demo cover template is a valid ODT: mimetype first and stored, the logo embedded, one heading, every placeholder a key the service fills', async () => {
    const odt = await makeCoverTemplateOdt();
    assert.deepEqual(firstEntry(odt), { name: 'mimetype', method: 0, extraLength: 0, data: MIMETYPE });
    const entries = unzipSync(odt);
    assert.deepEqual(Object.keys(entries).sort(), [
      'META-INF/manifest.xml',
      'Pictures/logo.png',
      'content.xml',
      'meta.xml',
      'mimetype',
      'styles.xml',
    ]);
    // The logo: a PNG, stored as it is, listed in the manifest and shown by a frame in the body.
    assert.deepEqual([...entries['Pictures/logo.png']!.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(
      methods(odt).some(([name, method]) => name === 'Pictures/logo.png' && method === 0),
      'the picture is stored',
    );
    assert.ok(text(entries, 'META-INF/manifest.xml').includes('manifest:full-path="Pictures/logo.png" manifest:media-type="image/png"'));
    assert.match(text(entries, 'content.xml'), /<draw:frame [^>]*><draw:image xlink:href="Pictures\/logo\.png"/);
    // One heading, and it is the report's title.
    const headings = [...text(entries, 'content.xml').matchAll(/<text:h [^>]*>([^<]*)<\/text:h>/g)].map((m) => m[1]);
    assert.deepEqual(headings, ['{bericht_title}']);
    const used = new Set(
      [text(entries, 'content.xml'), text(entries, 'styles.xml')].flatMap((xml) => [...xml.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!)),
    );
    for (const key of [
      'bericht_title',
      'bericht_ref',
      'bericht_version',
      'bericht_date',
      'object_ref',
      'object_ref_customer',
      'company_name',
      'company_address',
      'company_zip',
      'company_town',
      'mycompany_name',
      'mycompany_address',
      'mycompany_zip',
      'mycompany_town',
      'mycompany_phone',
      'mycompany_email',
      'mycompany_vatnumber',
      'myuser_fullname',
    ]) {
      assert.ok(used.has(key), `the template uses {${key}}`);
    }
    for (const key of used) assert.ok(Object.hasOwn(COVER_PLACEHOLDERS, key), `{${key}} is listed in COVER_PLACEHOLDERS`);

    const values = Object.fromEntries(Object.keys(COVER_PLACEHOLDERS).map((key) => [key, `<${key}>`]));
    const filledEntries = (await fill(odt, values)).entries;
    for (const name of ['content.xml', 'styles.xml'])
      assert.doesNotMatch(text(filledEntries, name), /\{[a-z_]+\}/, `${name}: no placeholder left`);
    assert.ok(text(filledEntries, 'content.xml').includes('<text:p text:style-name="Address">&lt;company_name&gt;</text:p>'));
    assert.ok(text(filledEntries, 'styles.xml').includes('USt-IdNr. &lt;mycompany_vatnumber&gt;'));
    assert.ok(text(filledEntries, 'styles.xml').includes('Bericht &lt;bericht_ref&gt; · Version &lt;bericht_version&gt;'));
    assert.deepEqual(filledEntries['Pictures/logo.png'], entries['Pictures/logo.png'], 'the logo is copied unchanged');
  });

  test('the demo cover template embeds the logo it is given', async () => {
    const logo = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const entries = unzipSync(await makeCoverTemplateOdt(logo));
    assert.deepEqual(Buffer.from(entries['Pictures/logo.png']!), logo);
    // 5.6 cm wide, the height in the picture's proportions.
    assert.match(text(entries, 'content.xml'), /<draw:frame [^>]*svg:width="5\.6cm" svg:height="1\.867cm"/);
  });
});

describe('fillOdtTemplate: refused templates', () => {
  async function refused(bytes: Uint8Array | undefined, pattern: RegExp, prepare?: (file: string) => void): Promise<void> {
    counter += 1;
    const template = path.join(dir, `bad-${counter}.odt`);
    const out = path.join(dir, `bad-out-${counter}.odt`);
    if (bytes) writeFileSync(template, bytes);
    prepare?.(template);
    await assert.rejects(fillOdtTemplate(template, {}, out), (error: unknown) => {
      assert.ok(error instanceof OdtTemplateError, `expected an OdtTemplateError, got ${String(error)}`);
      assert.match(error.message, pattern);
      return true;
    });
    assert.equal(existsSync(out), false, 'nothing is written');
  }

  test('a file that is not a zip', () => refused(strToU8('Hallo, ich bin kein ODT'), /not a valid ODT/));

  test('a zip without the ODT mimetype, or without content.xml', async () => {
    await refused(zipSync({ 'content.xml': strToU8(content('')) }), /not an OpenDocument text/);
    await refused(
      zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }], 'content.xml': strToU8('') }),
      /not an OpenDocument text/,
    );
    await refused(zipSync({ mimetype: [strToU8(MIMETYPE), { level: 0 }] }), /no content\.xml/);
  });

  test('content.xml that is not UTF-8', () =>
    refused(
      zipSync({ mimetype: [strToU8(MIMETYPE), { level: 0 }], 'content.xml': new Uint8Array([0x3c, 0xff, 0xfe, 0x3e]) }),
      /not UTF-8/,
    ));

  test(`a file above ${MAX_TEMPLATE_BYTES} bytes (sparse, never read)`, () =>
    refused(undefined, /larger than/, (file) => {
      writeFileSync(file, '');
      truncateSync(file, MAX_TEMPLATE_BYTES + 1);
    }));

  test('a zip declaring a huge unzipped size (zip bomb) is refused before inflating', async () => {
    const zip = makeOdt({ content: content('<text:p>x</text:p>') });
    // Patch the uncompressed size of content.xml in the central directory, which fflate trusts.
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    let patched = false;
    for (let at = 0; at + 46 < zip.length; at += 1) {
      if (view.getUint32(at, true) !== 0x02014b50) continue;
      const nameLength = view.getUint16(at + 28, true);
      if (strFromU8(zip.subarray(at + 46, at + 46 + nameLength)) === 'content.xml') {
        view.setUint32(at + 24, 0xfff00000, true);
        patched = true;
      }
    }
    assert.ok(patched);
    await refused(zip, /unzips to more than/);
  });

  test('a folder, and a missing file', async () => {
    await assert.rejects(fillOdtTemplate(dir, {}, path.join(dir, 'x.odt')), OdtTemplateError);
    await assert.rejects(fillOdtTemplate(path.join(dir, 'missing.odt'), {}, path.join(dir, 'x.odt')), { code: 'ENOENT' });
  });
});

describe('listOdtTemplates', () => {
  test('lists *.odt regular files and links staying inside; skips hidden, other types, folders, links out, dangling links', async () => {
    const root = mkdtempSync(path.join(dir, 'list-'));
    const one = path.join(root, 'one');
    const two = path.join(root, 'two');
    const outside = path.join(root, 'outside');
    for (const d of [one, two, outside, path.join(one, 'sub'), path.join(one, 'folder.odt')]) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(one, 'template_b.odt'), 'bb');
    writeFileSync(path.join(one, 'template_a.ODT'), 'a');
    writeFileSync(path.join(one, '.hidden.odt'), 'h');
    writeFileSync(path.join(one, 'notes.txt'), 't');
    writeFileSync(path.join(one, 'template.ods'), 's');
    writeFileSync(path.join(one, 'sub', 'nested.odt'), 'n');
    writeFileSync(path.join(outside, 'secret.odt'), 'secret');
    symlinkSync(path.join(one, 'sub', 'nested.odt'), path.join(one, 'link_in.odt'));
    symlinkSync(path.join(outside, 'secret.odt'), path.join(one, 'link_out.odt'));
    symlinkSync('../outside/secret.odt', path.join(one, 'link_out_relative.odt'));
    symlinkSync(path.join(one, 'gone.odt'), path.join(one, 'dangling.odt'));
    symlinkSync(path.join(one, 'sub'), path.join(one, 'dirlink.odt'));
    writeFileSync(path.join(two, 'template_b.odt'), 'second');
    writeFileSync(path.join(two, 'a_first.odt'), 'x');

    const list = await listOdtTemplates([one, path.join(root, 'missing'), two, one]);
    assert.deepEqual(
      list.map(({ name, dir: folder, size }) => [name, path.relative(root, folder), size]),
      [
        ['a_first.odt', 'two', 1],
        ['link_in.odt', 'one', 1],
        ['template_a.ODT', 'one', 1],
        ['template_b.odt', 'one', 2],
        ['template_b.odt', 'two', 6],
      ],
    );
    for (const item of list) assert.ok(item.mtime > Date.now() - 60_000 && item.mtime <= Date.now() + 1000);
  });

  test('no folders, missing folders, and a file given as folder list nothing', async () => {
    assert.deepEqual(await listOdtTemplates([]), []);
    writeFileSync(path.join(dir, 'plain-file'), 'x');
    assert.deepEqual(await listOdtTemplates([path.join(dir, 'nope'), path.join(dir, 'plain-file')]), []);
  });
});

describe('templateDirs', () => {
  const root = '/srv/dolibarr/documents';

  test('unset or blank: DOL_DATA_ROOT/doctemplates/bericht', () => {
    assert.equal(DEFAULT_TEMPLATE_PATH, 'DOL_DATA_ROOT/doctemplates/bericht');
    assert.deepEqual(templateDirs(root, undefined), [`${root}/doctemplates/bericht`]);
    assert.deepEqual(templateDirs(root, ''), [`${root}/doctemplates/bericht`]);
    assert.deepEqual(templateDirs(`${root}/2/`, ' \n '), [`${root}/2/doctemplates/bericht`]);
  });

  test('comma- and newline-separated, trimmed, DOL_DATA_ROOT substituted, duplicates dropped', () => {
    assert.deepEqual(
      templateDirs(root, ' DOL_DATA_ROOT/doctemplates/bericht ,DOL_DATA_ROOT/custom\r\n/opt/vorlagen/\n\n,,DOL_DATA_ROOT/custom/'),
      [`${root}/doctemplates/bericht`, `${root}/custom`, '/opt/vorlagen'],
    );
  });

  test('absolute folders outside the documents root are kept; relative ones are dropped', () => {
    assert.deepEqual(
      templateDirs(root, 'doctemplates/bericht,./x,../y,DOL_DOCUMENT_ROOT/install/doctemplates,/etc/vorlagen,DOL_DATA_ROOT/../shared'),
      ['/etc/vorlagen', '/srv/dolibarr/shared'],
    );
    assert.deepEqual(templateDirs(root, 'relative/only'), []);
  });

  test('a root holding "$&" is inserted literally', () => {
    assert.deepEqual(templateDirs('/data/$&x', 'DOL_DATA_ROOT/t'), ['/data/$&x/t']);
  });
});
