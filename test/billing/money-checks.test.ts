/**
 * The money invariants as database constraints (migration 0020): a direct write that breaks one is refused by the
 * database itself, and a database whose rows already break one stops the migration with those rows' ids.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../src/storage/migrations/index.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { dialects, openTestStorage, withSchemaLock, type TestStorage } from '../helpers/databases.js';

async function seed(db: Kysely<any>): Promise<{ wallet: number; system: number; call: number }> {
  const customer = await db
    .insertInto('customers')
    .values({ email: 'checks@example.com', username: 'checks', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const account = (code: string, kind: string, balance: number, held: number) =>
    db
      .insertInto('billing_accounts')
      .values({
        code,
        customer_id: kind === 'system' ? null : customer.id,
        kind,
        balance_micros: balance,
        held_micros: held,
        created_at: 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  const wallet = await account(`customer:${customer.id}:token`, 'token_wallet', 1_000, 400);
  const system = await account('system:top_ups', 'system', -1_000, 0);
  const call = await db
    .insertInto('billing_calls')
    .values({
      customer_id: customer.id,
      account_id: wallet.id,
      key_id: null,
      request_id: 'req_1',
      node_id: 'node',
      model: 'm',
      requested_model: 'm',
      operation: 'chat',
      surface: 'gateway',
      rate_card: 'standard',
      input_micros_per_million: 1,
      output_micros_per_million: 1,
      cached_input_micros_per_million: 1,
      estimated_input_tokens: 1,
      max_output_tokens: 1,
      hold_micros: 400,
      covered_plan: null,
      status: 'open',
      created_at: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { wallet: Number(wallet.id), system: Number(system.id), call: Number(call.id) };
}

describe.each(dialects)('money checks (%s)', (dialect) => {
  let storage: TestStorage;
  afterEach(async () => {
    await storage?.destroy();
  });

  it('refuses each write that breaks an invariant, and accepts the writes that keep them', async () => {
    storage = await openTestStorage(dialect);
    const db = storage.db as unknown as Kysely<any>;
    const { wallet, system, call } = await seed(db);
    const refused: [string, () => Promise<unknown>, RegExp][] = [
      [
        'negative held',
        () => db.updateTable('billing_accounts').set({ held_micros: -1, balance_micros: 0 }).where('id', '=', system).execute(),
        /billing_accounts_held_not_negative|CHECK constraint failed/,
      ],
      [
        'wallet below its holds',
        () => db.updateTable('billing_accounts').set({ balance_micros: 399 }).where('id', '=', wallet).execute(),
        /billing_accounts_wallet_covers_holds|CHECK constraint failed/,
      ],
      [
        'holds above the wallet',
        () =>
          db
            .updateTable('billing_accounts')
            .set({ held_micros: sql`held_micros + 601` })
            .where('id', '=', wallet)
            .execute(),
        /billing_accounts_wallet_covers_holds|CHECK constraint failed/,
      ],
      [
        'unknown account kind',
        () => db.updateTable('billing_accounts').set({ kind: 'loan' }).where('id', '=', system).execute(),
        /billing_accounts_kind_known|CHECK constraint failed/,
      ],
      [
        'negative call hold',
        () => db.updateTable('billing_calls').set({ hold_micros: -5 }).where('id', '=', call).execute(),
        /billing_calls_hold_not_negative|CHECK constraint failed/,
      ],
      [
        'unknown call status',
        () => db.updateTable('billing_calls').set({ status: 'refunded' }).where('id', '=', call).execute(),
        /billing_calls_status_known|CHECK constraint failed/,
      ],
      [
        'unknown outcome',
        () => db.updateTable('billing_calls').set({ outcome: 'lost' }).where('id', '=', call).execute(),
        /billing_calls_outcome_known|CHECK constraint failed/,
      ],
      [
        'negative cost',
        () => db.updateTable('billing_calls').set({ cost_micros: -1 }).where('id', '=', call).execute(),
        /billing_calls_cost_not_negative|CHECK constraint failed/,
      ],
      [
        'negative uncollected',
        () => db.updateTable('billing_calls').set({ uncollected_micros: -1 }).where('id', '=', call).execute(),
        /billing_calls_uncollected_not_negative|CHECK constraint failed/,
      ],
    ];
    for (const [name, write, message] of refused) {
      await expect(write(), name).rejects.toThrow(message);
    }
    // Nothing of the refused writes stayed.
    expect(await db.selectFrom('billing_accounts').select(['kind', 'balance_micros', 'held_micros']).orderBy('id').execute()).toEqual([
      { kind: 'token_wallet', balance_micros: 1_000, held_micros: 400 },
      { kind: 'system', balance_micros: -1_000, held_micros: 0 },
    ]);
    // System accounts may go negative; a wallet may spend down to exactly its holds; a settled call is fine.
    await db.updateTable('billing_accounts').set({ balance_micros: -5_000 }).where('id', '=', system).execute();
    await db.updateTable('billing_accounts').set({ balance_micros: 400 }).where('id', '=', wallet).execute();
    await db
      .updateTable('billing_calls')
      .set({ status: 'settled', outcome: 'completed', cost_micros: 400, uncollected_micros: 0 })
      .where('id', '=', call)
      .execute();
    // The rebuilt tables kept their indexes and foreign keys.
    await expect(
      db
        .insertInto('billing_calls')
        .values({
          customer_id: 999_999,
          account_id: wallet,
          key_id: null,
          request_id: 'req_2',
          node_id: 'node',
          model: 'm',
          requested_model: 'm',
          operation: 'chat',
          surface: 'gateway',
          rate_card: 'standard',
          input_micros_per_million: 1,
          output_micros_per_million: 1,
          cached_input_micros_per_million: 1,
          estimated_input_tokens: 1,
          max_output_tokens: 1,
          hold_micros: 0,
          covered_plan: null,
          status: 'open',
          created_at: 1,
        })
        .execute(),
    ).rejects.toThrow(/foreign key/i);
    await expect(
      db
        .insertInto('billing_accounts')
        .values({ code: 'system:top_ups', customer_id: null, kind: 'system', balance_micros: 0, held_micros: 0, created_at: 1 })
        .execute(),
    ).rejects.toThrow(/unique|duplicate/i);
  });

  it('stops on rows that already break a check, naming their ids, and changes nothing', async () => {
    storage = await openTestStorage(dialect, { migrate: false });
    const db = storage.db as unknown as Kysely<any>;
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
      migrationTableSchema: dialect === 'postgres' ? storage.location.postgresSchema : undefined,
    });
    const lock = <T>(fn: () => Promise<T>) => (dialect === 'postgres' ? withSchemaLock(fn) : fn());
    const before = await lock(() => migrator.migrateTo('0019-scale-leases'));
    expect(before.error).toBeUndefined();
    const { wallet, call } = await seed(db);
    await db.updateTable('billing_accounts').set({ balance_micros: 100 }).where('id', '=', wallet).execute();
    await db.updateTable('billing_calls').set({ status: 'lost' }).where('id', '=', call).execute();
    await expect(lock(() => migrateToLatest(db))).rejects.toThrow(
      new RegExp(
        `0020-money-checks.*billing_accounts ids ${wallet} break billing_accounts_wallet_covers_holds.*billing_calls ids ${call} break billing_calls_status_known`,
      ),
    );
    expect(await db.selectFrom('billing_accounts').select('balance_micros').where('id', '=', wallet).executeTakeFirst()).toEqual({
      balance_micros: 100,
    });
    // Corrected, the migration runs.
    await db.updateTable('billing_accounts').set({ balance_micros: 1_000 }).where('id', '=', wallet).execute();
    await db.updateTable('billing_calls').set({ status: 'open' }).where('id', '=', call).execute();
    expect((await lock(() => migrateToLatest(db)))[0]).toBe('0020-money-checks');
    // A second process sharing the SQLite file that runs the migration after the first one finds nothing to rebuild.
    if (dialect === 'sqlite') {
      await migrations['0020-money-checks']!.up(db);
      const { rows } = await sql<{ sql: string }>`select sql from sqlite_schema where name = 'billing_calls'`.execute(db);
      expect(rows[0]!.sql.match(/billing_calls_status_known/g)).toHaveLength(1);
    }
    await expect(db.updateTable('billing_calls').set({ status: 'lost' }).where('id', '=', call).execute()).rejects.toThrow(
      /CHECK constraint|billing_calls_status_known/,
    );
  });
});
