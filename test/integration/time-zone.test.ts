/**
 * The zone a served instance shows times in when TIME_ZONE names none: Dolibarr's MAIN_SERVER_TZ
 * (this entity's over entity 0's; `auto`, empty or no zone means none), else the process's. The
 * demo names its company's zone (Europe/Berlin) as Dolibarr's and writes its dates in it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO_TIME_ZONE, seedDemo } from '../../src/demo/seed.js';
import { dolibarrServerTimeZone, SERVER_TZ_CONST, withDolibarrTimeZone } from '../../src/dolibarr/time-zone.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';

describe('the time zone Dolibarr uses [sqlite]', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite', { timeZone: 'UTC', timeZoneSet: false });
  });
  after(async () => ctx?.close());

  const setConst = async (entity: number, value: string | null) => {
    await ctx.handle.db.deleteFrom('const').where('name', '=', SERVER_TZ_CONST).where('entity', '=', entity).execute();
    if (value !== null)
      await ctx.handle.db.insertInto('const').values({ name: SERVER_TZ_CONST, entity, value, type: 'chaine', visible: 0 }).execute();
  };

  test('MAIN_SERVER_TZ names the zone unless TIME_ZONE does; auto, empty and no zone name none', async () => {
    const db = ctx.handle.db;
    const unset = { ...ctx.config, timeZone: 'UTC', timeZoneSet: false };
    assert.equal((await withDolibarrTimeZone(unset, db)).timeZone, 'UTC', 'no constant: the process zone');
    await setConst(0, 'Europe/Vienna');
    assert.equal((await withDolibarrTimeZone(unset, db)).timeZone, 'Europe/Vienna', "entity 0's constant");
    await setConst(ctx.config.entity, 'Europe/Lisbon');
    assert.equal(await dolibarrServerTimeZone(db, ctx.config.entity), 'Europe/Lisbon', "the entity's own over entity 0's");
    assert.equal((await withDolibarrTimeZone({ ...unset, timeZoneSet: true }, db)).timeZone, 'UTC', 'TIME_ZONE wins');
    for (const value of ['auto', '  ', 'Mars/Olympus']) {
      await setConst(ctx.config.entity, value);
      await setConst(0, null);
      assert.equal((await withDolibarrTimeZone(unset, db)).timeZone, 'UTC', `"${value}" names no zone`);
    }
    await setConst(ctx.config.entity, null);
  });

  test("the demo names its company zone as Dolibarr's and writes its dates in it; with TIME_ZONE, that one", async () => {
    const seeded = await seedDemo(ctx.handle, { ...ctx.config, timeZoneSet: false });
    assert.equal(seeded, true);
    assert.equal(await dolibarrServerTimeZone(ctx.handle.db, ctx.config.entity), DEMO_TIME_ZONE);
    assert.equal((await withDolibarrTimeZone({ ...ctx.config, timeZoneSet: false }, ctx.handle.db)).timeZone, DEMO_TIME_ZONE);
  });
});
