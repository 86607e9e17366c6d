/**
 * A full documents disk: a small tmpfs mounted as the documents folder (root only; skipped with
 * the reason otherwise). Whatever fills it up (the photo itself, its thumbnails, a voice note, a
 * signature, a report's PDF) is 507 STORAGE_FULL with its message, never "the photo is broken"
 * or a 500, and leaves nothing half-written: no file, no thumbnail, no row, no temporary file.
 */
import { sign } from '../helpers/signature.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';

const FIXTURES = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../fixtures/uploads');

/** Why the test cannot run here, or undefined. */
function cannotMount(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux (tmpfs)';
  if (process.getuid?.() !== 0) return 'needs root to mount a small tmpfs as the documents folder';
  const probe = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
    execFileSync('umount', [probe]);
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed here: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const reason = cannotMount();
if (reason) console.log(`# storage-full tests skipped: ${reason}`);

/** Every file below `dir`, relative. */
function files(dir: string, rel = ''): string[] {
  if (!existsSync(path.join(dir, rel))) return [];
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(dir, path.join(rel, e.name)) : [path.join(rel, e.name)],
  );
}

for (const dialect of reason ? [] : testDialects()) {
  describe(`a full documents disk [${dialect}]`, () => {
    const mountPoint = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-full-'));
    const filler = path.join(mountPoint, 'filler');
    let ctx: TestContext;
    let headers: Record<string, string>;
    let order: { id: number; ref: string };
    let photo: Buffer;
    let png: Buffer;

    before(async () => {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint]);
      ctx = await createTestContext(dialect, { dataRoot: path.join(mountPoint, 'documents') });
      const user = await ctx.make.user({ rights: ['read', 'write', 'delete'] });
      headers = { authorization: `Bearer ${await ctx.make.token(user)}` };
      order = await ctx.make.order({ author: user.id });
      // A detailed photo: its thumbnails take tens of kilobytes.
      const noise = Buffer.alloc(1600 * 1200 * 3);
      for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919) % 251;
      photo = await sharp(noise, { raw: { width: 1600, height: 1200, channels: 3 } })
        .jpeg({ quality: 92 })
        .toBuffer();
      png = await sharp(noise, { raw: { width: 1600, height: 1200, channels: 3 } })
        .png({ compressionLevel: 1 })
        .toBuffer();
    });
    after(async () => {
      await ctx?.close();
      execFileSync('umount', [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    });

    /** Fills the disk until `room` bytes are left. */
    function leaveRoom(room: number): void {
      rmSync(filler, { force: true });
      const { bavail, bsize } = statfsSync(mountPoint);
      writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - room)));
    }

    function upload(
      url: string,
      field: { filename: string; type: string; data: Buffer },
      extra: Array<{ name: string; data: string }> = [],
    ) {
      const form = multipart([...extra.map((f) => ({ ...f, type: 'text/plain; charset=utf-8' })), { name: 'file', ...field }]);
      return ctx.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': form.contentType }, payload: form.payload });
    }

    function assertStorageFull(res: { statusCode: number; json(): unknown; body: string }): void {
      assert.equal(res.statusCode, 507, res.body);
      const body = res.json() as { code: string; error: string };
      assert.equal(body.code, 'STORAGE_FULL');
      assert.match(body.error, /Speicher des Servers ist voll/);
    }

    const orderDir = () => objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref).dir;
    const ecmRows = () =>
      ctx.handle.db.selectFrom('ecm_files').select('filename').where('filepath', '=', `commande/${order.ref}`).execute();

    test('room for a PNG but not its thumbnails (made before the answer): 507, no photo, no thumbnail, no row', async () => {
      await mkdir(path.join(orderDir(), 'thumbs'), { recursive: true });
      leaveRoom(png.length + 4096);
      const res = await upload(`/api/orders.php?id=${order.id}&action=upload_photo`, {
        filename: 'Zähler.png',
        type: 'image/png',
        data: png,
      });
      assertStorageFull(res);
      assert.deepEqual(files(orderDir()), [], 'nothing half-written in the order folder');
      assert.deepEqual(await ecmRows(), []);
    });

    test('room for a JPEG but not its thumbnails (made after the answer): the photo is kept with its row, its thumbnails are made when there is room', async () => {
      await mkdir(path.join(orderDir(), 'thumbs'), { recursive: true });
      leaveRoom(photo.length + 4096);
      const res = await upload(`/api/orders.php?id=${order.id}&action=upload_photo`, {
        filename: 'Zähler.jpg',
        type: 'image/jpeg',
        data: photo,
      });
      assert.equal(res.statusCode, 201, res.body);
      const name = (res.json() as { name: string }).name;
      await ctx.app.printQueue.idle();
      assert.deepEqual(files(orderDir()), [name], 'the photo, no half-written thumbnail');
      assert.deepEqual(
        (await ecmRows()).map((r) => r.filename),
        [name],
      );
      rmSync(filler, { force: true });
      const thumb = await ctx.app.inject({
        method: 'GET',
        url: `/api/photo.php?modulepart=commande&file=${encodeURIComponent(`${order.ref}/${name}`)}&size=small`,
        headers,
      });
      assert.equal(thumb.statusCode, 200, thumb.body);
      assert.ok(existsSync(path.join(orderDir(), 'thumbs', name.replace(/\.jpg$/, '_small.jpg'))));
      // Left as the next test expects to begin: no photo in the order.
      const deleted = await ctx.app.inject({
        method: 'POST',
        url: '/api/delete_photo.php',
        headers,
        payload: { id: order.id, file: name },
      });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.deepEqual(files(orderDir()), []);
      assert.deepEqual(await ecmRows(), []);
    });

    test('no room at all: photo, voice note, signature and finalize are 507 and write nothing', async () => {
      // A draft with one page, made while there is room.
      rmSync(filler, { force: true });
      await mkdir(orderDir(), { recursive: true });
      await sharp({ create: { width: 320, height: 240, channels: 3, background: '#468' } })
        .jpeg()
        .toFile(path.join(orderDir(), 'a.jpg'));
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/api/reports.php?action=create',
        headers,
        payload: { fk_element: order.id, title: 'Wartung' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const report = created.json() as { id: number; ref: string };
      assert.equal(
        (
          await ctx.app.inject({
            method: 'POST',
            url: `/api/pages.php?action=add&bericht_id=${report.id}`,
            headers,
            payload: { source: 'a.jpg' },
          })
        ).statusCode,
        201,
      );
      const before = files(ctx.config.dataRoot).filter((f) => f !== '../filler');

      leaveRoom(0);
      assertStorageFull(
        await upload(`/api/orders.php?id=${order.id}&action=upload_photo`, { filename: 'b.jpg', type: 'image/jpeg', data: photo }),
      );
      assertStorageFull(
        await upload(`/api/voice.php?id=${order.id}`, {
          filename: 'Notiz.ogg',
          type: 'audio/ogg',
          data: await readFile(path.join(FIXTURES, 'voice.ogg')),
        }),
      );
      assertStorageFull(await sign(ctx.app, headers, report.id, 'Erika Müller'));
      assertStorageFull(await ctx.app.inject({ method: 'POST', url: `/api/reports.php?id=${report.id}&action=finalize`, headers }));

      rmSync(filler, { force: true });
      assert.deepEqual(
        files(ctx.config.dataRoot).filter((f) => !f.startsWith(`bericht${path.sep}temp${path.sep}`)),
        before.filter((f) => !f.startsWith(`bericht${path.sep}temp${path.sep}`)),
        'no file added, none half-written',
      );
      assert.deepEqual(
        (await ecmRows()).map((r) => r.filename),
        [],
        'no row added',
      );
      const pages = await ctx.handle.db.selectFrom('bericht_page').select('layout').where('fk_bericht', '=', report.id).execute();
      assert.deepEqual(
        pages.map((p) => p.layout),
        ['photo'],
        'no signature page without its files',
      );
      const detail = await ctx.app.inject({ method: 'GET', url: `/api/reports.php?id=${report.id}`, headers });
      assert.equal((detail.json() as { status: string }).status, 'draft');
      // With room again, everything works.
      const ok = await upload(`/api/orders.php?id=${order.id}&action=upload_photo`, { filename: 'b.jpg', type: 'image/jpeg', data: photo });
      assert.equal(ok.statusCode, 201, ok.body);
    });
  });
}
