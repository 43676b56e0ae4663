/**
 * Calls that outlive the hold TTL. A stream has no overall time limit, so a live process's call may still be
 * running long after `billing.holdTtlMs`; its hold must stay until it settles, and it must be billed what it
 * used. Only holds no live process owns are released by the TTL (live holds only after a much longer backstop),
 * and a settlement that finds its hold already released still collects its cost from what the wallet has.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LIVE_HOLD_BACKSTOP_MS } from '../../src/billing/index.js';
import { FakeClock } from '../../src/kernel/clock.js';
import type { TestContext } from '../helpers/context.js';
import {
  beginCommitted,
  billingContext,
  expectLedgerConsistent,
  meterRequest,
  newCustomer,
  principalFor,
  STANDARD_HOLD,
  walletOf,
} from './helpers.js';

/** 1_000 input + 1_000 output tokens on the standard card cost exactly the default hold. */
const FULL_USAGE = { inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' } as const;

describe('calls longer than the hold TTL', () => {
  let context: TestContext;
  let clock: FakeClock;
  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    context = await billingContext({ clock });
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
  });

  async function callRows(customerId: number) {
    return context.storage.db.selectFrom('billing_calls').selectAll().where('customer_id', '=', customerId).orderBy('id').execute();
  }

  it('a live call keeps its hold past the TTL and is billed its cost when it settles', async () => {
    const buyer = await newCustomer(context, 100_000);
    const principal = await principalFor(context, buyer.systemToken);
    const call = await context.services.billing.meter.begin(meterRequest(principal));
    clock.advance(context.config.billing.holdTtlMs + 5 * 60_000);
    expect(await context.services.billing.sweep()).toBe(0);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({
      holdsMicros: STANDARD_HOLD,
      availableMicros: 100_000 - STANDARD_HOLD,
    });
    expect(await call.settle(FULL_USAGE, 'completed')).toEqual({ costMicros: STANDARD_HOLD, covered: false });
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 100_000 - STANDARD_HOLD, holdsMicros: 0 });
    expect(await callRows(buyer.customerId)).toMatchObject([{ status: 'settled', cost_micros: STANDARD_HOLD, uncollected_micros: 0 }]);
  });

  it('releases by the TTL the holds of a process no longer registered, and live holds only after the backstop', async () => {
    const buyer = await newCustomer(context, 100_000);
    const principal = await principalFor(context, buyer.systemToken);
    await beginCommitted(context, meterRequest(principal));
    await beginCommitted(context, meterRequest(principal));
    const [orphan] = await callRows(buyer.customerId);
    await context.storage.db.updateTable('billing_calls').set({ node_id: 'unregistered-node' }).where('id', '=', orphan!.id).execute();
    clock.advance(context.config.billing.holdTtlMs - 1);
    expect(await context.services.billing.sweep()).toBe(0);
    clock.advance(2);
    expect(await context.services.billing.sweep()).toBe(1);
    expect((await callRows(buyer.customerId)).map((row) => row.status)).toEqual(['released', 'open']);
    clock.advance(LIVE_HOLD_BACKSTOP_MS - context.config.billing.holdTtlMs);
    expect(await context.services.billing.sweep()).toBe(1);
    expect((await callRows(buyer.customerId)).map((row) => row.status)).toEqual(['released', 'released']);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 100_000, holdsMicros: 0 });
  });

  it('a live process judged gone and forgotten registers again at its next beat, so its long calls keep their holds', async () => {
    const buyer = await newCustomer(context, 100_000);
    const principal = await principalFor(context, buyer.systemToken);
    // Another process found this one's heartbeat stale (a long pause) and forgot it, though it still runs.
    await context.storage.db.deleteFrom('billing_nodes').where('node_id', '=', context.services.billing.wallet.nodeId).execute();
    const call = await context.services.billing.meter.begin(meterRequest(principal));
    clock.advance(context.config.billing.holdTtlMs + 1);
    expect(await context.services.billing.sweep()).toBe(0);
    const registered = await context.storage.db
      .selectFrom('billing_nodes')
      .select('node_id')
      .where('node_id', '=', context.services.billing.wallet.nodeId)
      .execute();
    expect(registered).toHaveLength(1);
    expect(await call.settle(FULL_USAGE, 'completed')).toEqual({ costMicros: STANDARD_HOLD, covered: false });
  });

  it('a call whose hold was released before it settled is billed its cost from the wallet, once', async () => {
    const buyer = await newCustomer(context, 100_000);
    const principal = await principalFor(context, buyer.systemToken);
    const call = await context.services.billing.meter.begin(meterRequest(principal));
    clock.advance(LIVE_HOLD_BACKSTOP_MS + 1);
    expect(await context.services.billing.sweep()).toBe(1);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 100_000, holdsMicros: 0 });
    expect(await call.settle(FULL_USAGE, 'completed')).toEqual({ costMicros: STANDARD_HOLD, covered: false });
    expect(await callRows(buyer.customerId)).toMatchObject([
      { status: 'settled', outcome: 'completed', output_tokens: 1_000, cost_micros: STANDARD_HOLD, uncollected_micros: 0 },
    ]);
    // A duplicate settlement (bypassing the meter's memo) and a second sweep change nothing.
    const [row] = await callRows(buyer.customerId);
    const again = await context.services.billing.wallet.settle(
      {
        callId: row!.id,
        accountId: row!.account_id,
        requestId: row!.request_id,
        holdMicros: row!.hold_micros,
        covered: false,
        rates: {
          input_micros_per_million: row!.input_micros_per_million,
          output_micros_per_million: row!.output_micros_per_million,
          cached_input_micros_per_million: row!.cached_input_micros_per_million,
        },
      },
      { ...FULL_USAGE, cachedInputTokens: 0 },
      'completed',
    );
    expect(again).toMatchObject({ costMicros: 0, alreadySettled: true });
    expect(await context.services.billing.sweep()).toBe(0);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 100_000 - STANDARD_HOLD, holdsMicros: 0 });
  });

  it('a late settlement collects only what the wallet has left and records the rest as uncollected', async () => {
    const buyer = await newCustomer(context, STANDARD_HOLD + 10_000);
    const principal = await principalFor(context, buyer.systemToken);
    const meter = context.services.billing.meter;
    const late = await meter.begin(meterRequest(principal));
    clock.advance(LIVE_HOLD_BACKSTOP_MS + 1);
    expect(await context.services.billing.sweep()).toBe(1);
    // The released credit is held again by another call before the late one settles.
    const other = await meter.begin(meterRequest(principal));
    expect(await late.settle(FULL_USAGE, 'completed')).toEqual({ costMicros: 10_000, covered: false });
    expect(await walletOf(context, buyer.customerId)).toMatchObject({
      balanceMicros: STANDARD_HOLD,
      holdsMicros: STANDARD_HOLD,
      availableMicros: 0,
    });
    expect(await other.settle(FULL_USAGE, 'completed')).toEqual({ costMicros: STANDARD_HOLD, covered: false });
    expect(await callRows(buyer.customerId)).toMatchObject([
      { status: 'settled', cost_micros: 10_000, uncollected_micros: STANDARD_HOLD - 10_000 },
      { status: 'settled', cost_micros: STANDARD_HOLD, uncollected_micros: 0 },
    ]);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 0, holdsMicros: 0, availableMicros: 0 });
  });
});
