#!/usr/bin/env node
// The command line lives in the compiled sources; `npm run build` (run by `npm start`) makes them.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('fieldreport: dist/ is missing; run `npm run build` first (npm start does this for you).');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
