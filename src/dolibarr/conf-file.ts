/**
 * Reads a Dolibarr `conf.php` without running PHP. The file is a list of assignments such as
 * `$dolibarr_main_db_host='localhost';`; we scan it as PHP would tokenise it (strings, comments)
 * and keep the scalar assignments. Anything else in the file (includes, expressions) is ignored.
 */
import { dolDecode } from './crypto.js';

export type PhpScalar = string | number | boolean | null;

/**
 * Parses the top-level `$name = scalar;` assignments of a PHP file. Later assignments win.
 * A name assigned something else (an expression such as `__DIR__.'/x'`) maps to `undefined`, so
 * the caller can say it could not be read rather than silently use a default.
 */
export function parsePhpAssignments(source: string): Map<string, PhpScalar | undefined> {
  const vars = new Map<string, PhpScalar | undefined>();
  let i = 0;
  const n = source.length;

  const skipSpaceAndComments = (): void => {
    while (i < n) {
      const c = source[i];
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
        i++;
      } else if (c === '#' || (c === '/' && source[i + 1] === '/')) {
        while (i < n && source[i] !== '\n') i++;
      } else if (c === '/' && source[i + 1] === '*') {
        const end = source.indexOf('*/', i + 2);
        i = end < 0 ? n : end + 2;
      } else {
        return;
      }
    }
  };

  const readString = (quote: string): string => {
    i++; // opening quote
    let out = '';
    while (i < n && source[i] !== quote) {
      const c = source[i]!;
      if (c === '\\' && i + 1 < n) {
        const next = source[i + 1]!;
        if (quote === "'") {
          // Single quotes only know \' and \\.
          out += next === "'" || next === '\\' ? next : c + next;
        } else {
          const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', $: '$', '0': '\0' };
          out += escapes[next] ?? c + next;
        }
        i += 2;
      } else {
        out += c;
        i++;
      }
    }
    i++; // closing quote
    return out;
  };

  while (i < n) {
    skipSpaceAndComments();
    if (i >= n) break;
    const c = source[i]!;
    if (c === "'" || c === '"') {
      readString(c); // a string outside an assignment: skip it whole so its content is not parsed
      continue;
    }
    if (c !== '$') {
      i++;
      continue;
    }
    const name = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(source.slice(i, i + 200));
    if (!name) {
      i++;
      continue;
    }
    i += name[0].length;
    skipSpaceAndComments();
    if (source[i] !== '=' || source[i + 1] === '=') continue;
    i++;
    skipSpaceAndComments();
    const q = source[i];
    let value: PhpScalar | undefined;
    if (q === "'" || q === '"') {
      value = readString(q);
    } else {
      const bare = /^[^;\n]*/.exec(source.slice(i))![0].trim();
      i += bare.length;
      if (/^-?\d+$/.test(bare)) value = Number(bare);
      else if (/^(true|false)$/i.test(bare)) value = bare.toLowerCase() === 'true';
      else if (/^null$/i.test(bare)) value = null;
    }
    skipSpaceAndComments();
    if (value !== undefined && source[i] === ';') vars.set(name[1]!, value);
    else vars.set(name[1]!, undefined);
  }
  return vars;
}

export interface DolibarrConf {
  dialect?: 'mysql' | 'postgres';
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  prefix?: string;
  dataRoot?: string;
  instanceUniqueId?: string;
  /** Problems found while reading the file, by the setting they affect, in words a person can act on. */
  problems: ConfProblem[];
}

/** The settings a conf.php can fill; an environment variable given for one makes its problems moot. */
export type ConfSetting = 'database' | 'prefix' | 'dataRoot' | 'instanceUniqueId';

export interface ConfProblem {
  setting: ConfSetting;
  message: string;
}

const SETTING_OF: Readonly<Record<string, ConfSetting>> = {
  dolibarr_main_db_type: 'database',
  dolibarr_main_db_host: 'database',
  dolibarr_main_db_port: 'database',
  dolibarr_main_db_name: 'database',
  dolibarr_main_db_user: 'database',
  dolibarr_main_db_pass: 'database',
  dolibarr_main_db_encrypted_pass: 'database',
  dolibarr_main_db_prefix: 'prefix',
  dolibarr_main_data_root: 'dataRoot',
  dolibarr_main_instance_unique_id: 'instanceUniqueId',
  dolibarr_main_cookie_cryptkey: 'instanceUniqueId',
};

/** Maps the variables of a conf.php to our settings. */
export function readDolibarrConf(source: string): DolibarrConf {
  const vars = parsePhpAssignments(source);
  const conf: DolibarrConf = { problems: [] };
  const problem = (key: string, message: string) => conf.problems.push({ setting: SETTING_OF[key]!, message });
  const str = (key: string): string | undefined => {
    const v = vars.get(key);
    if (v === undefined && vars.has(key)) {
      problem(key, `$${key} is not a plain value (an expression?); give the setting as an environment variable instead`);
    }
    return v === undefined || v === null || v === '' ? undefined : String(v);
  };

  const type = str('dolibarr_main_db_type');
  if (type === 'mysqli' || type === 'mysql') conf.dialect = 'mysql';
  else if (type === 'pgsql') conf.dialect = 'postgres';
  else if (type !== undefined) problem('dolibarr_main_db_type', `$dolibarr_main_db_type '${type}' is not supported (mysqli or pgsql)`);

  conf.host = str('dolibarr_main_db_host');
  const port = str('dolibarr_main_db_port');
  if (port !== undefined) {
    if (/^\d+$/.test(port) && Number(port) > 0 && Number(port) < 65536) conf.port = Number(port);
    else problem('dolibarr_main_db_port', `$dolibarr_main_db_port '${port}' is not a port number`);
  }
  conf.database = str('dolibarr_main_db_name');
  conf.user = str('dolibarr_main_db_user');

  // The password may be obfuscated. As Dolibarr's filefunc.inc.php: a `crypted:` db_pass first,
  // then $dolibarr_main_db_encrypted_pass, then db_pass as it is.
  const encrypted = str('dolibarr_main_db_encrypted_pass');
  const pass = str('dolibarr_main_db_pass');
  if (pass !== undefined && /crypted:/i.test(pass)) conf.password = dolDecode(pass.replace(/crypted:/i, ''));
  else if (encrypted !== undefined) conf.password = dolDecode(encrypted);
  else conf.password = pass;

  conf.prefix = str('dolibarr_main_db_prefix');
  conf.dataRoot = str('dolibarr_main_data_root');
  // Old installs only have the cookie key; Dolibarr itself falls back to it.
  conf.instanceUniqueId = str('dolibarr_main_instance_unique_id') ?? str('dolibarr_main_cookie_cryptkey');
  return conf;
}
