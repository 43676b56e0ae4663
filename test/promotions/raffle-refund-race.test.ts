/**
 * A refund racing the draw (PostgreSQL, where transactions run side by side): the refund takes its top-up's
 * entries out of a raffle not drawn yet, but a draw that already claimed the raffle (its row updated, not yet
 * committed) has read the entries it draws from. The refund must wait for that draw and then find the raffle
 * drawn, so the published entry list stays the one the winners were drawn from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { TEST_DATABASE_URL } from '../helpers/databases.js';
import { signUp } from '../chassis/support.js';

describe.skipIf(!TEST_DATABASE_URL)('raffle refund during a draw', () => {
  let context: TestContext;

  beforeAll(async () => {
    context = await createTestContext({ config: { promotions: { raffle: { enabled: true, periodDays: 1 } } } as never });
  });
  afterAll(async () => {
    await context.close();
  });

  it('waits for the draw holding the raffle and then leaves the drawn raffle entries alone', async () => {
    const { db } = context.services.storage;
    const raffle = context.services.promotions.raffle;
    const buyer = await signUp(context, 'buyer');
    const now = Date.now();
    await db.transaction().execute((trx) => raffle.addEntries(trx, buyer.customerId, 'payment:race', 5, now));
    const entries = () => db.selectFrom('raffle_entries').select('entries').where('source', '=', 'payment:race').execute();
    const [{ raffle_id: raffleId } = { raffle_id: 0 }] = await db
      .selectFrom('raffle_entries')
      .select('raffle_id')
      .where('source', '=', 'payment:race')
      .execute();

    // The draw's first step (its guarded claim of the raffle row), held open.
    let release: () => void = () => undefined;
    let claimed: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const claimedRow = new Promise<void>((resolve) => (claimed = resolve));
    const draw = db.transaction().execute(async (trx) => {
      await trx.updateTable('raffles').set({ drawn_at: now }).where('id', '=', Number(raffleId)).where('drawn_at', 'is', null).execute();
      claimed();
      await held;
    });
    await claimedRow;
    const refund = db.transaction().execute((trx) => raffle.removeEntries(trx, 'payment:race'));
    // Either the refund waits for the draw's lock (right) or it is already done (the race).
    let raced = false;
    const waiting = async () => {
      while (!raced) {
        const rows = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and datname = current_database() and query like '%raffles%'`.execute(db);
        if (Number(rows.rows[0]!.n) > 0) return 'waiting';
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return 'stopped';
    };
    const first = await Promise.race([refund.then(() => 'done'), waiting()]);
    raced = true;
    release();
    await draw;
    const removed = await refund;
    expect(first).toBe('waiting');
    expect(removed).toBe(0);
    expect(await entries()).toEqual([{ entries: 5 }]);
  });
});
