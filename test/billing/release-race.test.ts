/**
 * Releases of open holds racing with each other (two nodes sweeping the same expired holds) and with the
 * settlement of the same call. Each hold leaves the wallet's held amount exactly once, whoever wins: on
 * PostgreSQL every release and settlement is its own transaction, so the loser must notice it lost.
 */
import { describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/context.js';
import { beginCommitted, meterRequest, newCustomer, principalFor, STANDARD_HOLD, walletOf, withFreshBillingContext } from './helpers.js';

const CALLS = 20;

describe('concurrent releases of open holds', () => {
  let context: TestContext;
  withFreshBillingContext((created) => (context = created));

  async function openHolds(fundedMicros: number) {
    const buyer = await newCustomer(context, fundedMicros);
    const principal = await principalFor(context, buyer.systemToken);
    const calls = await Promise.all(Array.from({ length: CALLS }, () => beginCommitted(context, meterRequest(principal))));
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ holdsMicros: CALLS * STANDARD_HOLD });
    return { buyer, calls };
  }

  it('two sweeps releasing the same expired holds free each hold once', async () => {
    const fundedMicros = CALLS * STANDARD_HOLD;
    const { buyer } = await openHolds(fundedMicros);
    const olderThanMs = Date.now() + 60_000;
    const released = await Promise.all([
      context.services.billing.wallet.releaseOpen({ olderThanMs }),
      context.services.billing.wallet.releaseOpen({ olderThanMs }),
    ]);
    expect(released[0] + released[1]).toBe(CALLS);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({
      balanceMicros: fundedMicros,
      holdsMicros: 0,
      availableMicros: fundedMicros,
    });
  });

  it('a release racing the settlement of the same call frees the hold once', async () => {
    const fundedMicros = CALLS * STANDARD_HOLD;
    const { buyer, calls } = await openHolds(fundedMicros);
    const olderThanMs = Date.now() + 60_000;
    const [, outcomes] = await Promise.all([
      context.services.billing.wallet.releaseOpen({ olderThanMs }),
      Promise.all(calls.map((call) => call.settle({ inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' }, 'completed'))),
    ]);
    const chargedMicros = outcomes.reduce((sum, outcome) => sum + outcome.costMicros, 0);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({
      balanceMicros: fundedMicros - chargedMicros,
      holdsMicros: 0,
      availableMicros: fundedMicros - chargedMicros,
    });
  });
});
