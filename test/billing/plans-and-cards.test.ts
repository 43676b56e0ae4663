import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import {
  billingContext,
  expectLedgerConsistent,
  meterRequest,
  newCustomer,
  principalFor,
  STANDARD_HOLD,
  walletOf,
  withFreshBillingContext,
} from './helpers.js';

const plans = [
  {
    id: 'coder',
    name: 'Unlimited Coding',
    priceMicros: 49_000_000,
    durationDays: 30,
    models: ['power-ai'],
    surfaces: ['gateway'],
    fairUse: { requestsPerHour: 3 },
  },
];

describe('Unlimited Coding plans', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  beforeEach(async () => {
    context = await billingContext({ clock, config: { unlimitedPlans: plans } });
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
  });

  const grant = (customerId: number) =>
    context.app.inject({
      method: 'PUT',
      url: `/api/admin/customers/${customerId}/unlimited-plan`,
      headers: operatorHeaders,
      payload: { plan: 'coder' },
    });

  it('covers the named models and surfaces without debit, records usage, and 402s only when not covered', async () => {
    const buyer = await newCustomer(context, 0);
    expect((await grant(buyer.customerId)).statusCode).toBe(200);
    const principal = await principalFor(context, buyer.systemToken);
    const meter = context.services.billing.meter;
    const covered = await meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }));
    expect(covered.holdMicros).toBe(0);
    expect(await covered.settle({ inputTokens: 800, outputTokens: 300, source: 'upstream' }, 'completed')).toEqual({
      costMicros: 0,
      covered: true,
    });
    await expect(meter.begin(meterRequest(principal, { requestedModel: 'other-model', modelId: 'other-model' }))).rejects.toMatchObject({
      status: 402,
    });
    await expect(meter.begin(meterRequest(principal, { requestedModel: 'power-ai', surface: 'projects' }))).rejects.toMatchObject({
      status: 402,
    });
    const usage = await context.app.inject({ method: 'GET', url: '/api/v1/billing/token-usage', headers: bearer(buyer.systemToken) });
    expect(usage.json().transactions).toMatchObject([
      { requested_model: 'power-ai', input_tokens: 800, output_tokens: 300, cost: { micros: 0 }, covered_by_plan: 'coder' },
    ]);
    const status = await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: bearer(buyer.systemToken) });
    expect(status.json()).toMatchObject({ plan: 'coder', balance: { micros: 0 } });
    const listed = await context.app.inject({ method: 'GET', url: '/api/v1/unlimited-coding/plans', headers: bearer(buyer.systemToken) });
    expect(listed.json()).toMatchObject({
      plans: [{ id: 'coder', price: { micros: 49_000_000 }, fair_use: { requests_per_hour: 3 }, active: true }],
      active: { plan: 'coder' },
    });
  });

  it('429 with Retry-After beyond the fair-use threshold, admitted again after the window', async () => {
    const buyer = await newCustomer(context, 0);
    await grant(buyer.customerId);
    const principal = await principalFor(context, buyer.systemToken);
    const meter = context.services.billing.meter;
    for (let index = 0; index < 3; index += 1) {
      const call = await meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }));
      await call.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
      clock.advance(60_000);
    }
    const refused = await meter.begin(meterRequest(principal, { requestedModel: 'power-ai' })).catch((error) => error);
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED', details: { limit_source: 'fair_use' } });
    expect(refused.retryAfterSeconds).toBe(3600 - 180);
    clock.advance(refused.retryAfterSeconds * 1000);
    const again = await meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }));
    await again.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
  });

  it('ends with the subscription', async () => {
    const buyer = await newCustomer(context, STANDARD_HOLD);
    await grant(buyer.customerId);
    clock.advance(31 * 24 * 3600_000);
    const principal = await principalFor(context, buyer.systemToken);
    const call = await context.services.billing.meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }));
    expect(call.holdMicros).toBe(STANDARD_HOLD);
    await call.settle({ inputTokens: 0, outputTokens: 0, source: 'estimated' }, 'failed');
  });
});

describe('rate cards', () => {
  let context: TestContext;
  withFreshBillingContext((created) => (context = created));

  const switchCard = (target: string, card: string) =>
    context.app.inject({ method: 'PUT', url: '/api/admin/rate-cards/active', headers: operatorHeaders, payload: { target, card } });

  it('switches the card of an alias at runtime; a call settles with the card in force at its hold', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const principal = await principalFor(context, buyer.systemToken);
    const meter = context.services.billing.meter;
    const before = await meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }));
    expect(before.holdMicros).toBe(STANDARD_HOLD);
    const switched = await switchCard('power-ai', 'heavy-load');
    expect(switched.statusCode).toBe(200);
    expect(switched.json()).toMatchObject({
      model: 'power-ai',
      rate_card: 'heavy-load',
      note: 'applied because of heavy load',
      input_usd_per_million: '6.000000',
      output_usd_per_million: '32.000000',
    });
    const after = await meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }));
    expect(after.holdMicros).toBe(6_000 + 32_000);
    // The destination model itself keeps its own card.
    expect(context.services.billing.pricesFor('test-model')).toMatchObject({ rate_card: 'standard' });
    expect((await before.settle({ inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' }, 'completed')).costMicros).toBe(28_000);
    expect((await after.settle({ inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' }, 'completed')).costMicros).toBe(38_000);
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(1_000_000 - 66_000);
    const stored = await context.storage.db.selectFrom('rate_card_assignments').selectAll().execute();
    expect(stored).toMatchObject([{ target: 'power-ai', card: 'heavy-load' }]);
    const listed = await context.app.inject({ method: 'GET', url: '/api/admin/rate-cards', headers: operatorHeaders });
    expect(listed.json().active).toEqual(expect.arrayContaining([expect.objectContaining({ model: 'power-ai', rate_card: 'heavy-load' })]));
    // The model listing shows the card billing now charges, not the one in the config file.
    const models = await context.app.inject({ method: 'GET', url: '/v1/models/power-ai', headers: bearer(buyer.systemToken) });
    expect(models.json().pricing).toMatchObject({
      rate_card: 'heavy-load',
      note: 'applied because of heavy load',
      input_micros_per_million: 6_000_000,
    });
    const me = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(buyer.systemToken) });
    expect(me.json().prices).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ model: 'power-ai', rate_card: 'heavy-load', output_usd_per_million: '32.000000' }),
      ]),
    );
  });

  it('switching a model applies to aliases that follow it, also when the alias points elsewhere at runtime', async () => {
    await switchCard('test-model', 'heavy-load');
    expect(context.services.billing.pricesFor('power-ai')).toMatchObject({ rate_card: 'heavy-load', input_micros_per_million: 6_000_000 });
    expect(context.services.billing.pricesFor('power-ai', 'other-model')).toMatchObject({ rate_card: 'standard' });
    await switchCard('other-model', 'heavy-load');
    const buyer = await newCustomer(context, 1_000_000);
    const principal = await principalFor(context, buyer.systemToken);
    const call = await context.services.billing.meter.begin(
      meterRequest(principal, { requestedModel: 'power-ai', modelId: 'other-model' }),
    );
    expect(call.holdMicros).toBe(38_000);
    await call.settle({ inputTokens: 0, outputTokens: 0, source: 'estimated' }, 'failed');
  });

  it('rejects unknown cards and targets and changes nothing; customers cannot switch', async () => {
    const unknownCard = await switchCard('power-ai', 'free-lunch');
    expect(unknownCard.statusCode).toBe(422);
    expect((await switchCard('no-such-model', 'heavy-load')).statusCode).toBe(404);
    const buyer = await newCustomer(context, 0);
    const denied = await context.app.inject({
      method: 'PUT',
      url: '/api/admin/rate-cards/active',
      headers: bearer(buyer.systemToken),
      payload: { target: 'power-ai', card: 'heavy-load' },
    });
    expect(denied.statusCode).toBe(404);
    expect(await context.storage.db.selectFrom('rate_card_assignments').selectAll().execute()).toEqual([]);
    expect(context.services.billing.pricesFor('power-ai').rate_card).toBe('standard');
  });
});
