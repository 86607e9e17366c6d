/**
 * The OpenAPI document passes Redocly CLI's recommended rules with no error and no warning (an
 * operationId on every operation, a server, a license, 2xx and 4xx answers), and every
 * operationId is one the table in openapi.ts names: the app's generated client calls them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OPERATION_IDS } from '../../src/plugins/openapi.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('the OpenAPI document [sqlite]', () => {
  let ctx: TestContext;
  let document: { paths: Record<string, Record<string, { operationId?: string }>> };
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-openapi-'));
  before(async () => {
    ctx = await createTestContext('sqlite');
    const res = await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' });
    document = res.json();
    writeFileSync(path.join(folder, 'openapi.json'), res.body);
  });
  after(async () => {
    await ctx?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test("passes Redocly's recommended lint rules with no error and no warning", () => {
    const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
    const run = spawnSync(process.execPath, [cli, 'lint', path.join(folder, 'openapi.json'), '--format=json'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    assert.deepEqual(
      report.problems.map((p) => `${p.ruleId}: ${p.message}`),
      [],
    );
    assert.deepEqual([report.totals.errors, report.totals.warnings], [0, 0]);
  });

  test('every operation has the operationId the table names, each once', () => {
    const ids: string[] = [];
    for (const [url, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        assert.equal(op.operationId, OPERATION_IDS[`${method.toUpperCase()} ${url}`], `${method.toUpperCase()} ${url}`);
        ids.push(op.operationId!);
      }
    }
    assert.equal(new Set(ids).size, ids.length, 'no operationId twice');
    assert.deepEqual(ids.sort(), Object.values(OPERATION_IDS).sort(), 'the table names no route that is gone');
  });
});
