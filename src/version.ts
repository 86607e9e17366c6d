/** The package's version, without loading the app (the command line and the primary of `serve --workers` stay small). */
import { readFileSync } from 'node:fs';

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
