/**
 * Every text a person reads in the app is in its dictionaries (web/src/i18n/de.json, en.json):
 * both have the same keys with the same placeholders; every key the code asks for exists; and the
 * components' markup holds no text or label of its own outside `{t(…)}`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const WEB = fileURLToPath(new URL('../../web/src/', import.meta.url));
const de = JSON.parse(readFileSync(path.join(WEB, 'i18n/de.json'), 'utf8')) as Record<string, string>;
const en = JSON.parse(readFileSync(path.join(WEB, 'i18n/en.json'), 'utf8')) as Record<string, string>;

function sources(dir = WEB, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) sources(full, out);
    else if (/\.(svelte|ts)$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Keys built at run time, with every value they can take. */
const DYNAMIC: Record<string, string[]> = {
  'order.status.': ['-1', '0', '1', '2', '3'],
  'intervention.status.': ['0', '1', '2', '3'],
  'reports.status.': ['draft', 'final'],
  'signature.reason.': ['metadata_missing', 'key_unknown', 'seal_broken', 'page_count_changed', 'content_changed'],
  'signoff.missing.': ['open_items', 'no_departure', 'no_signature', 'pages_after_signature'],
  'signoff.part.': ['work', 'materials', 'times'],
  'settings.languageName.': ['de', 'en'],
  'unit.': ['Stk', 'm', 'm²', 'kg', 'l', 'h', 'Pkt'],
};

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('German and English have the same keys and placeholders', () => {
  assert.deepEqual(Object.keys(en).sort(), Object.keys(de).sort());
  for (const key of Object.keys(de)) {
    assert.ok(de[key]!.trim() && en[key]!.trim(), `${key} is empty`);
    assert.deepEqual(placeholders(en[key]!), placeholders(de[key]!), `${key}: placeholders differ`);
  }
});

test('every key the code asks for is in the dictionaries', () => {
  const has = (key: string) => key in de || `${key}_one` in de || `${key}_other` in de;
  let asked = 0;
  for (const file of sources()) {
    const text = readFileSync(file, 'utf8');
    // t('key'), and failureText(error, 'key') (the text for a request without an answer).
    for (const match of text.matchAll(/(?:\bt\(|\bfailureText\([^,()]*,)\s*(['`])([^'`$]+)(\$\{)?/g)) {
      const [, , key, dynamic] = match;
      asked++;
      if (dynamic) {
        const values = DYNAMIC[key!];
        assert.ok(values, `${path.relative(WEB, file)}: key ${key}… is built at run time; list its values in DYNAMIC`);
        for (const value of values) assert.ok(has(key + value), `${path.relative(WEB, file)}: ${key}${value} missing`);
      } else {
        assert.ok(has(key!), `${path.relative(WEB, file)}: ${key} missing`);
      }
    }
  }
  assert.ok(asked > 100, `only ${asked} texts found: the scan is broken`);
});

test('the markup of the components has no text of its own', () => {
  const ALLOWED = new Set(['fieldreport']);
  for (const file of sources().filter((f) => f.endsWith('.svelte'))) {
    const markup = readFileSync(file, 'utf8')
      .replace(/<script[\s\S]*?<\/script>/g, '')
      .replace(/<style[\s\S]*?<\/style>/g, '')
      .replace(/<!--[\s\S]*?-->/g, '');
    // Labels a screen reader reads, written as literal attribute values.
    for (const m of markup.matchAll(/\b(aria-label|alt|title|placeholder)="([^"{]*[A-Za-zÄÖÜäöü][^"{]*)"/g)) {
      assert.fail(`${path.relative(WEB, file)}: ${m[1]}="${m[2]}" is not from the dictionary`);
    }
    const text = markup
      .replace(/\{[^{}]*(\{[^{}]*\}[^{}]*)*\}/g, ' ') // {expressions}, one level of nesting
      .replace(/<[^>]*>/g, ' ');
    for (const word of text.split(/\s+/).filter((w) => /[A-Za-zÄÖÜäöüß]{2,}/.test(w))) {
      assert.ok(ALLOWED.has(word), `${path.relative(WEB, file)}: "${word}" is not from the dictionary`);
    }
  }
});

test("every error code of the service has a text in both languages (the app never shows the service's German to an English reader)", async () => {
  const { errorCatalogue } = await import('../../src/errors.js');
  const codes = Object.keys(errorCatalogue);
  assert.ok(codes.length > 50, `only ${codes.length} codes found`);
  const missing = codes.filter((code) => !(`error.${code}` in de) || !(`error.${code}` in en));
  assert.deepEqual(missing, [], 'codes without a text in de.json or en.json');
});
