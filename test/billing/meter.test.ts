import { describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/context.js';
import { meterRequest, newCustomer, principalFor, STANDARD_HOLD, walletOf, withFreshBillingContext } from './helpers.js';

describe('wallet holds and settlement through the meter', () => {
  let context: TestContext;
  withFreshBillingContext((created) => (context = created));

  it('holds the worst case, settles the actual usage once and releases the rest', async () => {
    const buyer = await newCustomer(context, 100_000);
    const principal = await principalFor(context, buyer.systemToken);
    const call = await context.services.billing.meter.begin(meterRequest(principal));
    expect(call.holdMicros).toBe(STANDARD_HOLD);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({
      balanceMicros: 100_000,
      holdsMicros: STANDARD_HOLD,
      availableMicros: 100_000 - STANDARD_HOLD,
    });
    const outcome = await call.settle({ inputTokens: 500, outputTokens: 100, source: 'upstream' }, 'completed');
    // 500 × $4/M = 2_000 µUSD, 100 × $24/M = 2_400 µUSD.
    expect(outcome).toEqual({ costMicros: 4_400, covered: false });
    const again = await call.settle({ inputTokens: 9_999, outputTokens: 9_999, source: 'upstream' }, 'completed');
    expect(again).toEqual(outcome);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 95_600, holdsMicros: 0, availableMicros: 95_600 });
    const rows = await context.storage.db.selectFrom('billing_calls').selectAll().where('customer_id', '=', buyer.customerId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'settled',
      input_tokens: 500,
      output_tokens: 100,
      cost_micros: 4_400,
      usage_source: 'upstream',
      rate_card: 'standard',
    });
  });

  it('refuses with 402 when available credit is short, and nothing is held', async () => {
    const buyer = await newCustomer(context, STANDARD_HOLD - 1);
    const principal = await principalFor(context, buyer.systemToken);
    await expect(context.services.billing.meter.begin(meterRequest(principal))).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDIT',
      status: 402,
    });
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: STANDARD_HOLD - 1, holdsMicros: 0 });
    const rows = await context.storage.db.selectFrom('billing_calls').select('id').where('customer_id', '=', buyer.customerId).execute();
    expect(rows).toHaveLength(0);
  });

  it('never lets concurrent holds overspend: exactly K of 1000 succeed', async () => {
    const K = 37;
    const buyer = await newCustomer(context, K * STANDARD_HOLD);
    const principal = await principalFor(context, buyer.systemToken);
    const results = await Promise.allSettled(
      Array.from({ length: 1000 }, async () => {
        const call = await context.services.billing.meter.begin(meterRequest(principal));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
        await call.settle({ inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' }, 'completed');
      }),
    );
    const ok = results.filter((result) => result.status === 'fulfilled').length;
    const refused = results.filter(
      (result) => result.status === 'rejected' && (result.reason as { status?: number }).status === 402,
    ).length;
    expect(ok).toBe(K);
    expect(refused).toBe(1000 - K);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 0, holdsMicros: 0, availableMicros: 0 });
  });

  it('does not bill operator principals', async () => {
    const call = await context.services.billing.meter.begin(meterRequest({ kind: 'operator', source: 'static', keyId: null }));
    expect(call.holdMicros).toBe(0);
    expect(await call.settle({ inputTokens: 10, outputTokens: 10, source: 'upstream' }, 'completed')).toEqual({
      costMicros: 0,
      covered: true,
    });
    expect(await context.storage.db.selectFrom('billing_calls').select('id').execute()).toHaveLength(0);
  });

  it('releases the holds of a gone process, never those of a live one; a released call is still billed when it settles', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const principal = await principalFor(context, buyer.systemToken);
    const meter = context.services.billing.meter;
    const calls = [];
    for (let index = 0; index < 3; index += 1) {
      const call = await meter.begin(meterRequest(principal));
      // A call started before its hold committed (an early hold) has its row once confirmed.
      await call.confirmed;
      calls.push(call);
    }
    const ids = (await context.storage.db.selectFrom('billing_calls').select('id').orderBy('id').execute()).map((row) => row.id);
    const nowMs = Date.now();
    // Another live process on this host (this test's pid, fresh heartbeat) and a crashed one (stale heartbeat).
    await context.storage.db
      .insertInto('billing_nodes')
      .values([
        { node_id: 'live-peer', hostname: 'elsewhere', pid: 1, started_at: nowMs, heartbeat_at: nowMs },
        { node_id: 'crashed-peer', hostname: 'elsewhere', pid: 1, started_at: nowMs - 600_000, heartbeat_at: nowMs - 600_000 },
      ])
      .execute();
    await context.storage.db.updateTable('billing_calls').set({ node_id: 'live-peer' }).where('id', '=', ids[0]!).execute();
    await context.storage.db.updateTable('billing_calls').set({ node_id: 'crashed-peer' }).where('id', '=', ids[1]!).execute();
    expect(await context.services.billing.sweep()).toBe(1);
    const statuses = await context.storage.db.selectFrom('billing_calls').select(['id', 'status', 'outcome']).orderBy('id').execute();
    expect(statuses.map((row) => row.status)).toEqual(['open', 'released', 'open']);
    expect(await context.storage.db.selectFrom('billing_nodes').select('node_id').where('node_id', '=', 'crashed-peer').execute()).toEqual(
      [],
    );
    expect((await walletOf(context, buyer.customerId)).holdsMicros).toBe(2 * STANDARD_HOLD);
    // The released call (its process was judged gone, yet it settles) is billed what it used, from the wallet; the
    // others settle normally.
    expect(await calls[1]!.settle({ inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' }, 'completed')).toEqual({
      costMicros: STANDARD_HOLD,
      covered: false,
    });
    await calls[2]!.settle({ inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' }, 'completed');
    await context.services.billing.wallet.releaseOpen({ olderThanMs: Date.now() + 1 });
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 1_000_000 - 2 * STANDARD_HOLD, holdsMicros: 0 });
    // 1 input + 1 output token: 4 + 24 µUSD.
    expect(await calls[0]!.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed')).toEqual({
      costMicros: 28,
      covered: false,
    });
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 1_000_000 - 2 * STANDARD_HOLD - 28, holdsMicros: 0 });
  });
});
