import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import { billingContext, meterRequest, newCustomer, principalFor, walletOf } from '../billing/helpers.js';
import { expectInvariants } from './support.js';

const plans = [
  {
    id: 'coder',
    name: 'Unlimited Coding',
    priceMicros: 49_000_000,
    durationDays: 30,
    models: ['power-ai'],
    surfaces: ['gateway'],
    fairUse: {},
  },
];

describe('cash-wallet purchases', () => {
  let context: TestContext;
  beforeEach(async () => {
    context = await billingContext({ config: { unlimitedPlans: plans } });
  });
  afterEach(async () => {
    await expectInvariants(context);
    await context.close();
  });

  const fundCash = async (customerId: number, micros: number) => {
    const response = await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${customerId}/wallet/adjust`,
      headers: { ...operatorHeaders, 'idempotency-key': `cash-${Math.random()}` },
      payload: { amount_micros: micros, reason: 'cash load', wallet: 'cash' },
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  const buy = (token: string, path: string, payload: Record<string, unknown>, key?: string) =>
    context.app.inject({
      method: 'POST',
      url: `/api/v1/cash-wallet/${path}`,
      headers: { ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    });

  it('token purchase: 402 when cash is short, once per Idempotency-Key, replay returns the first answer', async () => {
    const buyer = await newCustomer(context);
    const short = await buy(buyer.systemToken, 'token-purchase', { pack_id: 'pack-25' }, 'p1');
    expect(short.statusCode).toBe(402);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 0, cashBalanceMicros: 0 });
    await fundCash(buyer.customerId, 30_000_000);
    expect((await buy(buyer.systemToken, 'token-purchase', { pack_id: 'pack-25' })).statusCode).toBe(422);
    expect((await buy(buyer.systemToken, 'token-purchase', { pack_id: 'nope' }, 'p0')).statusCode).toBe(422);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => buy(buyer.systemToken, 'token-purchase', { pack_id: 'pack-25' }, 'p1')),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(new Set(responses.map((response) => response.json().purchase.payment_id)).size).toBe(1);
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 25_000_000, cashBalanceMicros: 5_000_000 });
    expect((await buy(buyer.systemToken, 'token-purchase', { pack_id: 'pack-10' }, 'p1')).statusCode).toBe(422);
    // Different keys competing for cash that covers one purchase: exactly one succeeds.
    const competing = await Promise.all(
      Array.from({ length: 10 }, (_, index) => buy(buyer.systemToken, 'token-purchase', { pack_id: 'pack-10' }, `race-${index}`)),
    );
    expect(competing.filter((response) => response.statusCode === 402)).toHaveLength(10);
    await fundCash(buyer.customerId, 5_000_000);
    const second = await Promise.all(
      Array.from({ length: 10 }, (_, index) => buy(buyer.systemToken, 'token-purchase', { pack_id: 'pack-10' }, `race2-${index}`)),
    );
    expect(second.filter((response) => response.statusCode === 200)).toHaveLength(1);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 35_000_000, cashBalanceMicros: 0 });
    const listed = (await context.app.inject({ method: 'GET', url: '/api/v1/wallet/payments', headers: bearer(buyer.systemToken) })).json()
      .purchases;
    expect(listed.filter((row: { method: string }) => row.method === 'cash')).toHaveLength(2);
  });

  it('unlimited purchase: paid from cash, the plan covers calls from that moment', async () => {
    const buyer = await newCustomer(context);
    await fundCash(buyer.customerId, 50_000_000);
    const principal = await principalFor(context, buyer.systemToken);
    await expect(context.services.billing.meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }))).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDIT',
    });
    const bought = await buy(buyer.systemToken, 'unlimited-purchase', { plan_id: 'coder' }, 'u1');
    expect(bought.statusCode, bought.body).toBe(200);
    expect(bought.json()).toMatchObject({ plan: 'coder', paid: { micros: 49_000_000 } });
    const covered = await context.services.billing.meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }));
    expect(covered.holdMicros).toBe(0);
    await covered.settle({ inputTokens: 10, outputTokens: 10, source: 'upstream' }, 'completed');
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ plan: 'coder', cashBalanceMicros: 1_000_000 });
    expect((await buy(buyer.systemToken, 'unlimited-purchase', { plan_id: 'coder' }, 'u2')).statusCode).toBe(402);
    expect((await buy(buyer.systemToken, 'unlimited-purchase', { plan_id: 'none' }, 'u3')).statusCode).toBe(404);
  });
});
