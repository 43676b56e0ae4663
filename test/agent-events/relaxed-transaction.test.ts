import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, openTestStorage, type TestStorage } from '../helpers/databases.js';

/** The commit the event log and activity timestamps use: not waiting for the disk, otherwise an ordinary transaction. */
describe.each(dialects)('relaxed transaction (%s)', (dialect) => {
  let storage: TestStorage;

  beforeAll(async () => {
    storage = await openTestStorage(dialect);
  });
  afterAll(async () => storage.destroy());

  const names = async () =>
    (await storage.db.selectFrom('kysely_migration').select('name').where('name', 'like', 'relaxed-%').orderBy('name').execute()).map(
      (row) => row.name,
    );

  it('commits its work, rolls it back on an error, and leaves later commits waiting for the disk', async () => {
    const setting = await storage.relaxedTransaction(async (trx) => {
      await trx.insertInto('kysely_migration').values({ name: 'relaxed-1', timestamp: 'now' }).execute();
      return dialect === 'sqlite'
        ? (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(trx)).rows[0]!.synchronous
        : (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(trx)).rows[0]!.synchronous_commit;
    });
    expect(setting).toBe(dialect === 'sqlite' ? 1 : 'off');
    await expect(
      storage.relaxedTransaction(async (trx) => {
        await trx.insertInto('kysely_migration').values({ name: 'relaxed-2', timestamp: 'now' }).execute();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await names()).toEqual(['relaxed-1']);
    if (dialect === 'sqlite') {
      // synchronous=FULL (2) again for every other statement on the one connection.
      expect((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(storage.db)).rows[0]!.synchronous).toBe(2);
    } else {
      const after = await storage.db
        .transaction()
        .execute(
          async (trx) => (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(trx)).rows[0]!.synchronous_commit,
        );
      expect(after).toBe('on');
    }
  });
});
