/**
 * Concurrent requests with one Idempotency-Key wait for the first one's result however the service's clock is
 * set: the wait is real time, so a clock behind or ahead of the wall clock neither cuts it short nor makes it
 * endless.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { operatorHeaders, type TestContext } from '../helpers/context.js';
import { billingContext, expectLedgerConsistent, newCustomer } from './helpers.js';

describe('Idempotency-Key waits with a service clock apart from the wall clock', () => {
  let context: TestContext;
  beforeEach(async () => {
    context = await billingContext({ clock: new FakeClock(Date.UTC(2026, 0, 1)) });
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
  });

  it('20 concurrent same-key adjustments all answer the one result', async () => {
    const buyer = await newCustomer(context);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        context.app.inject({
          method: 'POST',
          url: `/api/admin/customers/${buyer.customerId}/wallet/adjust`,
          headers: { ...operatorHeaders, 'idempotency-key': 'clock' },
          payload: { amount_micros: 1_000, reason: 'burst' },
        }),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(new Set(responses.map((response) => response.json().transfer_id)).size).toBe(1);
    expect((await context.services.billing.walletSummary(buyer.customerId)).balanceMicros).toBe(1_000);
  });
});
