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

const only = process.argv.slice(2);
const files = only.length > 0 ? only : [...find('test'), ...find('src')].sort();
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
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
