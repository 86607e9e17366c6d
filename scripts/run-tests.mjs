#!/usr/bin/env node
// Runs every test file with Node's test runner (TypeScript through tsx) and prints, after the
// runner's own summary, how many tests ran on each database.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function find(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) find(full, out);
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

/**
 * `--quick` (npm run test:quick): a subset a developer runs in under a minute, on SQLite only: the
 * unit tests that render no PDF and start no process or browser, and the API tests of orders,
 * customers, materials, list totals, health and blank input (login is in every one of them).
 * Everything else (PDFs, LibreOffice, Chromium, MariaDB, PostgreSQL) runs in `npm test`.
 */
const QUICK = [
  ...[
    'address',
    'address-key',
    'charset',
    'checklist-view',
    'client-address',
    'config',
    'coordinate',
    'dolibarr',
    'early',
    'fingerprint',
    'generated-docs',
    'kept-copies',
    'price',
    'report-view',
    'send-as',
    'server-process',
    'signature-hash',
    'strokes',
    'time',
    'upload-file-name',
  ].map((name) => `test/unit/${name}.test.ts`),
  ...['orders', 'customers', 'materials', 'list-totals', 'health', 'blank-input'].map((name) => `test/api/${name}.test.ts`),
];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.filter((arg) => arg !== '--quick');
const files = quick ? QUICK : only.length > 0 ? only : [...find('test'), ...find('src')].sort();
if (quick) process.env.DIALECTS = 'sqlite';
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-timeout=300000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/dialect-reporter.mjs',
    '--test-reporter-destination=stdout',
    ...files,
  ],
  { stdio: 'inherit', env: process.env },
);
process.exit(result.status ?? 1);
