/**
 * The tables in the documents that restate code are written from the code, so they cannot drift:
 *   npm run gen:docs     rewrites them in place
 *   expectedDocs()       each document's text as it should be now (test/unit/generated-docs.test.ts
 *                        fails when a committed document differs: run npm run gen:docs)
 * A table lies between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; the rest of the
 * document is left as it is.
 *   settings    docs/operating.md, from SETTINGS and MAIL_LIMIT_SETTINGS in src/settings.ts
 *   errors      docs/api-contract.md, from errorCatalogue in src/errors.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAIL_LIMIT_SETTINGS, SETTING_GROUPS, SETTINGS, type SettingGroup, type SettingInfo } from '../src/settings.js';
import { errorCatalogue } from '../src/errors.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A table cell: a `|` would end it, a line break would end the row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function defaultCell(setting: SettingInfo): string {
  if (setting.default === undefined) return setting.defaultText ?? 'unset';
  const value = `\`${String(setting.default)}\``;
  return setting.defaultText === undefined ? value : `${value} (${setting.defaultText})`;
}

function allowedCell(setting: SettingInfo): string {
  if (setting.allowed !== undefined) return setting.allowed;
  if (setting.min !== undefined && setting.max !== undefined) return `${setting.min} to ${setting.max}`;
  return '';
}

/** The settings table: one table for each group, in SETTING_GROUPS' order, the settings in SETTINGS' order. */
export function settingsTable(): string {
  const rows = new Map<SettingGroup, string[]>(Object.keys(SETTING_GROUPS).map((group) => [group as SettingGroup, []]));
  for (const [name, setting] of Object.entries(SETTINGS) as [string, SettingInfo][]) {
    rows
      .get(setting.group)!
      .push(`| \`${name}\` | ${cell(defaultCell(setting))} | ${cell(allowedCell(setting))} | ${cell(setting.meaning)} |`);
  }
  for (const [name, limit] of Object.entries(MAIL_LIMIT_SETTINGS)) {
    const meaning = `${limit.meaning}; in \`llx_const\` or the environment (which wins), read for every mail`;
    rows.get('mail')!.push(`| \`${name}\` | \`${limit.fallback}\` | ${limit.min} to ${limit.max} | ${cell(meaning)} |`);
  }
  const sections = [...rows].map(([group, lines]) =>
    [`### ${SETTING_GROUPS[group]}`, '', '| variable | default | allowed | meaning |', '|---|---|---|---|', ...lines].join('\n'),
  );
  return [
    '<!-- Written by npm run gen:docs from src/settings.ts (SETTINGS, MAIL_LIMIT_SETTINGS): change a setting there, not here. -->',
    '',
    sections.join('\n\n'),
  ].join('\n');
}

/** The error catalogue: every code with its HTTP status and message, in the catalogue's order. */
export function errorsTable(): string {
  const lines = Object.entries(errorCatalogue).map(([code, { status, message }]) => `| \`${code}\` | ${status} | ${cell(message)} |`);
  return [
    '<!-- Written by npm run gen:docs from src/errors.ts (errorCatalogue): change an error there, not here. -->',
    '',
    '| code | status | message |',
    '|---|---|---|',
    ...lines,
  ].join('\n');
}

/** Which table goes into which document. */
export const GENERATED: readonly { file: string; name: string; render: () => string }[] = [
  { file: 'docs/operating.md', name: 'settings', render: settingsTable },
  { file: 'docs/api-contract.md', name: 'errors', render: errorsTable },
];

/** `text` with the part between the markers named `name` replaced by `content`. */
export function replaceBetweenMarkers(text: string, name: string, content: string, file = 'the document'): string {
  const start = `<!-- generated:${name} -->`;
  const end = `<!-- /generated:${name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no ${start} … ${end}`);
  if (text.indexOf(start, from + 1) >= 0) throw new Error(`${file} has ${start} more than once`);
  return `${text.slice(0, from + start.length)}\n\n${content}\n\n${text.slice(to)}`;
}

/** Each document with generated tables: its text now, and as it should be. */
export function expectedDocs(): { file: string; current: string; expected: string }[] {
  const files = [...new Set(GENERATED.map((g) => g.file))];
  return files.map((file) => {
    const current = readFileSync(path.join(ROOT, file), 'utf8');
    let expected = current;
    for (const g of GENERATED.filter((entry) => entry.file === file)) expected = replaceBetweenMarkers(expected, g.name, g.render(), file);
    return { file, current, expected };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  for (const { file, current, expected } of expectedDocs()) {
    if (current === expected) {
      console.log(`${file} is up to date`);
    } else {
      writeFileSync(path.join(ROOT, file), expected);
      console.log(`wrote ${file}`);
    }
  }
}
