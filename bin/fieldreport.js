#!/usr/bin/env node
// The command line lives in the compiled sources; `npm run build` (run by `npm start`) makes them.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('fieldreport: dist/ is missing; run `npm run build` first (npm start does this for you).');
  process.exit(1);
}
// A server starts itself again in place with the settings of dist/server-process.js when it lacks them.
if (process.argv.slice(2).find((arg) => !arg.startsWith('-')) === 'serve') {
  const { restartWithServerSettings } = await import(new URL('../dist/server-process.js', import.meta.url).href);
  restartWithServerSettings();
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
