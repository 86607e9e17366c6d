/**
 * What the start and the daily clean-up remove after a killed process (recovery.ts), and what
 * they leave: temporary files of dead runs go, those of live runs and files of other forms stay;
 * old temporary files without a known run go only when older than any request; intents of dead
 * runs make file and row agree.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ORPHAN_AGE_MS, RUN_ID, createRunRegistry, runOfTempDir, runOfTempFile, tempName } from '../../src/adapters/runs.js';
import { toDbDateTime } from '../../src/db/dialect.js';
import { recoverDeadRuns } from '../../src/modules/maintenance/recovery.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

describe('temporary names', () => {
  test('carry the run, and are told apart from every other name', () => {
    const name = tempName('Zähler.jpg');
    assert.equal(runOfTempFile(name), RUN_ID);
    assert.equal(runOfTempFile('.upload-0123456789abcdef.tmp'), 'legacy');
    assert.equal(runOfTempFile('.Bericht.pdf.0123456789ab.tmp'), 'legacy');
    for (const other of ['Zähler.jpg', 'notes.tmp', '.hidden', 'a.0123456789ab.0123456789ab.tmp'])
      assert.equal(runOfTempFile(other), undefined, other);
    assert.deepEqual(runOfTempDir(`fieldreport-pdf-1234-${RUN_ID}-Ab12Cd`), { pid: 1234, run: RUN_ID });
    assert.equal(runOfTempDir('fieldreport-data-Ab12Cd'), undefined);
  });
});

for (const dialect of testDialects()) {
  describe(`recovery after a killed process [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    test('removes what dead runs left, keeps what live runs and others own', async () => {
      const root = ctx.config.dataRoot;
      const runs = createRunRegistry(root);
      const dead = 'deaddeaddead';
      const foreignLive = 'a1a1a1a1a1a1';
      mkdirSync(runs.dir, { recursive: true });
      // A dead run of this host (a pid that does not exist) and a live run of another host.
      writeFileSync(path.join(runs.dir, `${dead}.json`), JSON.stringify({ host: os.hostname(), pid: 2 ** 22 + 17 }));
      writeFileSync(path.join(runs.dir, `${foreignLive}.json`), JSON.stringify({ host: 'another-host', pid: 1 }));
      const dir = path.join(root, 'commande', 'CO2611-0001');
      mkdirSync(path.join(dir, 'thumbs'), { recursive: true });
      // An intervention's folder takes uploads too; an invoice's the copy of a final PDF.
      const intervention = path.join(root, 'ficheinter', 'FI2611-0001');
      mkdirSync(path.join(intervention, 'thumbs'), { recursive: true });
      const invoice = path.join(root, 'facture', 'FA2611-0001');
      mkdirSync(invoice, { recursive: true });
      const keptDir = path.join(
        root,
        'bericht',
        'BR2611-0001',
        'signiert',
        'unterschrift_20261127150345_8Ruyrq',
        'commande',
        'CO2611-0001',
      );
      mkdirSync(keptDir, { recursive: true });
      const put = (name: string, ageMs = 0, folder = dir) => {
        const file = path.join(folder, name);
        writeFileSync(file, 'x');
        const at = new Date(Date.now() - ageMs);
        utimesSync(file, at, at);
        return file;
      };
      const gone = [
        put(`.Foto.jpg.${dead}.0123456789ab.tmp`),
        put(`.Foto_small.jpg.${dead}.0123456789ab.tmp`, 0, path.join(dir, 'thumbs')),
        put('.upload-0123456789abcdef.tmp', ORPHAN_AGE_MS + 60_000),
        put(`.x.fffffffffff0.0123456789ab.tmp`, ORPHAN_AGE_MS + 60_000), // no marker, old
        put(`.kept.${dead}.0123456789ab.tmp`, 0, keptDir), // a copy a signature was keeping
        put(`.Zähler.jpg.${dead}.0123456789ab.tmp`, 0, intervention),
        put(`.Zähler_small.jpg.${dead}.0123456789ab.tmp`, 0, path.join(intervention, 'thumbs')),
        put(`.BR2611-0001.pdf.${dead}.0123456789ab.tmp`, 0, invoice),
      ];
      const kept = [
        put(`.Foto.jpg.${RUN_ID}.0123456789ab.tmp`),
        put(`.Foto.jpg.${foreignLive}.0123456789ab.tmp`),
        put('.upload-fedcba9876543210.tmp'), // legacy, young
        put(`.y.fffffffffff1.0123456789ab.tmp`), // no marker, young
        put('Foto.jpg'),
        put('notiz.tmp'),
        put('Foto.jpg', 0, keptDir),
        put('Zähler.jpg', 0, intervention),
        put(`.Zähler.jpg.${RUN_ID}.0123456789ab.tmp`, 0, intervention),
      ];
      const result = await recoverDeadRuns({ db: ctx.handle.db, dataRoot: root, entity: ctx.config.entity, runs });
      for (const file of gone) assert.equal(existsSync(file), false, `${file} removed`);
      for (const file of kept) assert.equal(existsSync(file), true, `${file} kept`);
      assert.equal(result.temp_files, gone.length);
    });

    test("removes a signature's kept folder that no signature page names once its run is dead or it is old; keeps stored and live ones", async () => {
      const root = ctx.config.dataRoot;
      const runs = createRunRegistry(root);
      const dead = 'dead0dead0de';
      mkdirSync(runs.dir, { recursive: true });
      writeFileSync(path.join(runs.dir, `${dead}.json`), JSON.stringify({ host: os.hostname(), pid: 2 ** 22 + 19 }));
      const creator = await ctx.make.user({ rights: ['read'] });
      const { id, ref } = await ctx.make.report({ creator: creator.id });
      const keptRoot = path.join(root, 'bericht', ref, 'signiert');
      const folder = (name: string, marker?: string, ageMs = 0) => {
        const dir = path.join(keptRoot, name);
        mkdirSync(path.join(dir, 'commande', 'CO2611-0001'), { recursive: true });
        writeFileSync(path.join(dir, 'commande', 'CO2611-0001', 'Foto.jpg'), 'x');
        const at = new Date(Date.now() - ageMs);
        if (marker) {
          writeFileSync(path.join(dir, marker), '');
          utimesSync(path.join(dir, marker), at, at);
        }
        utimesSync(dir, at, at);
        return dir;
      };
      const stored = folder('unterschrift_1_stored', `.signing-${dead}`, ORPHAN_AGE_MS + 60_000);
      const now = toDbDateTime();
      await ctx.handle.db
        .insertInto('bericht_page')
        .values({
          fk_bericht: id,
          page_order: 1,
          title: 'Unterschrift',
          note: null,
          rotation: 0,
          layout: 'signature',
          source_path: `bericht/${ref}/unterschrift_1_stored.png`,
          source_path_2: null,
          datec: now,
          tms: now,
        })
        .execute();
      const deadRun = folder('unterschrift_2_dead', `.signing-${dead}`);
      const oldWithout = folder('unterschrift_3_old', undefined, ORPHAN_AGE_MS + 60_000);
      const live = folder('unterschrift_4_live', `.signing-${RUN_ID}`, ORPHAN_AGE_MS + 60_000);
      const youngWithout = folder('unterschrift_5_young');
      const result = await recoverDeadRuns({ db: ctx.handle.db, dataRoot: root, entity: ctx.config.entity, runs });
      for (const dir of [deadRun, oldWithout]) assert.equal(existsSync(dir), false, `${dir} removed`);
      for (const dir of [stored, live, youngWithout])
        assert.equal(existsSync(path.join(dir, 'commande', 'CO2611-0001', 'Foto.jpg')), true, `${dir} kept`);
      assert.equal(result.kept_folders, 2);
    });

    test("settles a dead run's intents: both kept when file and row are there (an image's missing thumbnails made), both removed otherwise", async () => {
      const root = ctx.config.dataRoot;
      const runs = createRunRegistry(root);
      const dead = 'deadbeefdead';
      writeFileSync(path.join(runs.dir, `${dead}.json`), JSON.stringify({ host: os.hostname(), pid: 2 ** 22 + 19 }));
      const filepath = 'commande/CO2611-0002';
      const dir = path.join(root, filepath);
      mkdirSync(path.join(dir, 'thumbs'), { recursive: true });
      const now = toDbDateTime();
      const row = (filename: string) =>
        ctx.handle.db
          .insertInto('ecm_files')
          .values({
            ref: filename,
            label: '',
            share: null,
            entity: 1,
            filepath,
            filename,
            src_object_type: 'commande',
            src_object_id: 1,
            fullpath_orig: filename,
            description: '',
            keywords: '',
            gen_or_uploaded: 'uploaded',
            position: 1,
            date_c: now,
            tms: now,
            fk_user_c: null,
            fk_user_m: null,
          })
          .execute();
      const intent = (filename: string, run = dead) =>
        ctx.handle.db.insertInto('bericht_file_intent').values({ entity: 1, run_id: run, filepath, filename, datec: now }).execute();
      // complete: file, thumbnails, row
      writeFileSync(path.join(dir, 'done.jpg'), 'x');
      writeFileSync(path.join(dir, 'thumbs', 'done_small.jpg'), 'x');
      await row('done.jpg');
      await intent('done.jpg');
      // reserved, never placed: row and thumbnails, no file
      writeFileSync(path.join(dir, 'thumbs', 'half_small.jpg'), 'x');
      await row('half.jpg');
      await intent('half.jpg');
      // placed, never indexed (a finalize killed before its commit): file, no row
      writeFileSync(path.join(dir, 'orphan.pdf'), 'x');
      await intent('orphan.pdf');
      // placed, answered, killed before its thumbnails (a JPEG's come after the answer): kept, thumbnails made
      await sharp({ create: { width: 640, height: 480, channels: 3, background: '#8090a0' } })
        .jpeg()
        .toFile(path.join(dir, 'placed.jpg'));
      await row('placed.jpg');
      await intent('placed.jpg');
      // a live run's intent is not touched
      await row('busy.jpg');
      await intent('busy.jpg', RUN_ID);

      const result = await recoverDeadRuns({ db: ctx.handle.db, dataRoot: root, entity: 1, runs });
      assert.deepEqual([result.intents_kept, result.intents_removed], [2, 2]);
      assert.equal(existsSync(path.join(dir, 'done.jpg')), true);
      assert.deepEqual((await sharp(path.join(dir, 'thumbs', 'placed_small.jpg')).metadata()).width, 360);
      assert.equal((await sharp(path.join(dir, 'thumbs', 'placed_mini.jpg')).metadata()).width, 96);
      assert.equal(existsSync(path.join(dir, 'thumbs', 'done_small.jpg')), true);
      assert.equal(existsSync(path.join(dir, 'thumbs', 'half_small.jpg')), false);
      assert.equal(existsSync(path.join(dir, 'orphan.pdf')), false);
      const rows = await ctx.handle.db
        .selectFrom('ecm_files')
        .select('filename')
        .where('filepath', '=', filepath)
        .orderBy('filename')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.filename),
        ['busy.jpg', 'done.jpg', 'placed.jpg'],
      );
      const intents = await ctx.handle.db.selectFrom('bericht_file_intent').select(['filename', 'run_id']).execute();
      assert.deepEqual(intents, [{ filename: 'busy.jpg', run_id: RUN_ID }]);
    });
  });
}
