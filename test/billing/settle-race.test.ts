/**
 * Settlements above their holds racing for the wallet's spare credit. The rule of Wallet.settle: a call whose
 * actual cost exceeds its hold collects the hold plus at most the spare credit (balance − every open hold,
 * its own included) at the moment it settles; what the wallet cannot pay is recorded on the call as
 * `uncollected_micros`, never as debt. So however the settlements interleave, the wallet must end exactly as if
 * they had run one after another: the spare credit is collected once, first come first served, and balance −
 * holds never drops below zero. On PostgreSQL each settlement is its own transaction, so this holds only if
 * reading the spare credit and spending it are serialised by the account's row lock.
 */
import { describe, expect, it } from 'vitest';
import type { MeteredCall } from '../../src/billing/meter.js';
import { systemCode } from '../../src/billing/ledger.js';
import type { HeldCall, UsageCounts } from '../../src/billing/wallet.js';
import type { TestContext } from '../helpers/context.js';
import { beginCommitted, meterRequest, newCustomer, principalFor, walletOf, withFreshBillingContext } from './helpers.js';

/** Standard card ($4/M in, $24/M out): 100 input + 100 output tokens hold 400 + 2_400 µUSD. */
const HOLD_MICROS = 2_800;
/** Actual usage: 100 input + 250 output tokens cost 400 + 6_000 µUSD, 3_600 above the hold. */
const USAGE = { inputTokens: 100, outputTokens: 250, cachedInputTokens: 0, source: 'upstream' } as const satisfies UsageCounts;
const FULL_COST_MICROS = 6_400;
const OVERRUN_MICROS = FULL_COST_MICROS - HOLD_MICROS;
/** More calls than the PostgreSQL pool has connections, so transactions truly overlap. */
const CALLS = 16;

interface OpenCall {
  metered: MeteredCall;
  /** The same call as the wallet knows it, for a duplicate settlement that bypasses the meter's memo. */
  held: HeldCall;
}

/** What settling the calls one after another collects above each hold: the spare credit, first come first served. */
function serialOverruns(spareMicros: number, overrunsMicros: number[]): number[] {
  let leftMicros = spareMicros;
  return overrunsMicros.map((overrunMicros) => {
    const takenMicros = Math.min(leftMicros, overrunMicros);
    leftMicros -= takenMicros;
    return takenMicros;
  });
}

const descending = (values: number[]): number[] => [...values].sort((left, right) => right - left);

async function openCalls(context: TestContext, customerId: number, systemToken: string): Promise<OpenCall[]> {
  const principal = await principalFor(context, systemToken);
  const requests = Array.from({ length: CALLS }, () => meterRequest(principal, { estimatedInputTokens: 100, maxOutputTokens: 100 }));
  const metered = await Promise.all(requests.map((request) => beginCommitted(context, request)));
  const rows = await context.storage.db
    .selectFrom('billing_calls')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('status', '=', 'open')
    .execute();
  expect(rows).toHaveLength(CALLS);
  return requests.map((request, index) => {
    const row = rows.find((candidate) => candidate.request_id === request.requestId)!;
    expect(row.hold_micros).toBe(HOLD_MICROS);
    const held: HeldCall = {
      callId: row.id,
      accountId: row.account_id,
      requestId: row.request_id,
      holdMicros: row.hold_micros,
      covered: false,
      rates: {
        input_micros_per_million: row.input_micros_per_million,
        output_micros_per_million: row.output_micros_per_million,
        cached_input_micros_per_million: row.cached_input_micros_per_million,
      },
    };
    return { metered: metered[index]!, held };
  });
}

/** Reads the wallet row until `settled` ends; returns the lowest balance and the lowest balance − holds seen. */
async function watchWallet(context: TestContext, accountId: number, settled: Promise<unknown>) {
  let done = false;
  void settled.finally(() => (done = true)).catch(() => undefined);
  let lowestBalanceMicros = Number.POSITIVE_INFINITY;
  let lowestAvailableMicros = Number.POSITIVE_INFINITY;
  while (!done) {
    const account = await context.storage.db
      .selectFrom('billing_accounts')
      .select(['balance_micros', 'held_micros'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    lowestBalanceMicros = Math.min(lowestBalanceMicros, Number(account.balance_micros));
    lowestAvailableMicros = Math.min(lowestAvailableMicros, Number(account.balance_micros) - Number(account.held_micros));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { lowestBalanceMicros, lowestAvailableMicros };
}

/** Revenue and the wallet's usage entries: one balanced transfer per call, for exactly what the call row says it cost. */
async function expectOneTransferPerCall(context: TestContext, accountId: number, costs: Map<number, number>): Promise<void> {
  const revenue = await context.services.billing.wallet.accountOf(systemCode('revenue'));
  const references = [...costs.keys()].map((callId) => `call:${callId}`);
  const entries = await context.storage.db.selectFrom('ledger_entries').selectAll().where('reference', 'in', references).execute();
  for (const [callId, costMicros] of costs) {
    const ofCall = entries.filter((entry) => entry.reference === `call:${callId}`);
    expect(
      ofCall
        .map((entry) => ({ kind: entry.kind, account: entry.account_id, amount: Number(entry.amount_micros) }))
        .sort((left, right) => left.amount - right.amount),
    ).toEqual([
      { kind: 'usage', account: accountId, amount: -costMicros },
      { kind: 'usage', account: revenue, amount: costMicros },
    ]);
    expect(new Set(ofCall.map((entry) => entry.transfer_id)).size).toBe(1);
  }
}

/**
 * One round: a wallet holding CALLS holds plus `spareMicros`, every call settled twice at once (through the meter
 * as the gateway does, and directly through the wallet as a duplicate) with usage above its hold.
 */
async function raceRound(context: TestContext, spareMicros: number): Promise<void> {
  const fundedMicros = CALLS * HOLD_MICROS + spareMicros;
  const buyer = await newCustomer(context, fundedMicros);
  const accountId = await context.services.billing.wallet.walletAccount(buyer.customerId);
  const revenue = await context.services.billing.wallet.accountOf(systemCode('revenue'));
  const revenueBefore = await context.storage.db
    .selectFrom('billing_accounts')
    .select('balance_micros')
    .where('id', '=', revenue)
    .executeTakeFirstOrThrow();
  const calls = await openCalls(context, buyer.customerId, buyer.systemToken);
  expect(await walletOf(context, buyer.customerId)).toMatchObject({
    balanceMicros: fundedMicros,
    holdsMicros: CALLS * HOLD_MICROS,
    availableMicros: spareMicros,
  });
  expect(CALLS * OVERRUN_MICROS).toBeGreaterThan(spareMicros);

  const settled = Promise.all(
    calls.map(({ metered, held }) =>
      Promise.all([
        metered.settle(USAGE, 'completed').then((outcome) => outcome.costMicros),
        context.services.billing.wallet
          .settle(held, USAGE, 'completed')
          .then((outcome) => (outcome.alreadySettled ? 0 : outcome.costMicros)),
      ]),
    ),
  );
  const [claimed, watched] = await Promise.all([settled, watchWallet(context, accountId, settled)]);

  // Balance − holds never went below zero while the settlements ran, and the wallet ends empty: every hold was
  // collected and the spare credit exactly once.
  expect(watched.lowestAvailableMicros).toBeGreaterThanOrEqual(0);
  expect(watched.lowestBalanceMicros).toBeGreaterThanOrEqual(0);
  expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 0, holdsMicros: 0, availableMicros: 0 });

  const rows = await context.storage.db
    .selectFrom('billing_calls')
    .selectAll()
    .where('customer_id', '=', buyer.customerId)
    .orderBy('id')
    .execute();
  expect(rows).toHaveLength(CALLS);
  const costs = new Map<number, number>();
  rows.forEach((row) => {
    expect(row).toMatchObject({ status: 'settled', outcome: 'completed', input_tokens: 100, output_tokens: 250 });
    expect(Number(row.cost_micros) + Number(row.uncollected_micros)).toBe(FULL_COST_MICROS);
    costs.set(row.id, Number(row.cost_micros));
  });
  // Exactly one of each call's two settlements won, and it reported what the call row recorded.
  calls.forEach(({ held }, index) => expect(claimed[index]!.filter((costMicros) => costMicros > 0)).toEqual([costs.get(held.callId)]));

  // The outcome equals settling one after another: some calls collect their whole overrun, at most one a part,
  // the rest nothing above the hold.
  const collected = rows.map((row) => Number(row.cost_micros) - row.hold_micros);
  expect(descending(collected)).toEqual(
    descending(
      serialOverruns(
        spareMicros,
        rows.map(() => OVERRUN_MICROS),
      ),
    ),
  );
  expect(rows.reduce((sum, row) => sum + Number(row.uncollected_micros), 0)).toBe(CALLS * OVERRUN_MICROS - spareMicros);

  const revenueAfter = await context.storage.db
    .selectFrom('billing_accounts')
    .select('balance_micros')
    .where('id', '=', revenue)
    .executeTakeFirstOrThrow();
  expect(Number(revenueAfter.balance_micros) - Number(revenueBefore.balance_micros)).toBe(fundedMicros);
  await expectOneTransferPerCall(context, accountId, costs);
}

describe('concurrent settlements above their holds', () => {
  let context: TestContext;
  withFreshBillingContext((created) => (context = created));

  // Spare credit covering two overruns and part of a third, only part of one, and exactly ten.
  it.each([2 * OVERRUN_MICROS + 1_800, OVERRUN_MICROS - 1, 10 * OVERRUN_MICROS])(
    'collect a spare credit of %i µUSD once between them and leave the rest uncollected, never as debt',
    async (spareMicros) => {
      for (let round = 0; round < 3; round += 1) await raceRound(context, spareMicros);
    },
  );
});
