import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import { billingContext, expectLedgerConsistent, meterRequest, newCustomer, principalFor, userKey } from './helpers.js';

describe('wallet routes', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  beforeEach(async () => {
    upstream = await startModelUpstream();
    context = await billingContext({
      upstreamUrl: upstream.url,
      config: { currencyEstimates: { rates: { EUR: 0.92, JPY: 155.5 }, asOf: '2026-11-01' } },
    });
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  const adjust = (customerId: number, key: string | undefined, payload: Record<string, unknown>) =>
    context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${customerId}/wallet/adjust`,
      headers: { ...operatorHeaders, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    });
  const entryCount = async () => (await context.storage.db.selectFrom('ledger_entries').select('id').execute()).length;

  it('adjusts with Idempotency-Key: replay returns the first result, another body is 422 with no ledger row', async () => {
    const buyer = await newCustomer(context);
    const first = await adjust(buyer.customerId, 'adj-1', { amount_micros: 5_000_000, reason: 'goodwill' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ amount: { micros: 5_000_000, usd: '5.000000' }, balance: { micros: 5_000_000 } });
    const replay = await adjust(buyer.customerId, 'adj-1', { reason: 'goodwill', amount_micros: 5_000_000 });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    const entries = await entryCount();
    const mismatch = await adjust(buyer.customerId, 'adj-1', { amount_micros: 6_000_000, reason: 'goodwill' });
    expect(mismatch.statusCode).toBe(422);
    expect(await entryCount()).toBe(entries);
    // Keys are scoped per customer: the same key for another customer is a new operation.
    const other = await newCustomer(context);
    expect((await adjust(other.customerId, 'adj-1', { amount_micros: 1, reason: 'goodwill' })).json()).toMatchObject({
      balance: { micros: 1 },
    });
    // A correction is a new entry, never an edit.
    const correction = await adjust(buyer.customerId, 'adj-2', { amount_micros: -1_000_000, reason: 'correction' });
    expect(correction.json()).toMatchObject({ balance: { micros: 4_000_000 } });
    const payments = await context.app.inject({
      method: 'GET',
      url: '/api/v1/wallet/payments?limit=1',
      headers: bearer(buyer.systemToken),
    });
    expect(payments.json().payments).toMatchObject([{ kind: 'adjustment', amount: { micros: -1_000_000 }, memo: 'correction' }]);
  });

  it('executes 100 concurrent same-key adjustments once', async () => {
    const buyer = await newCustomer(context);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => adjust(buyer.customerId, 'burst', { amount_micros: 1_000, reason: 'burst' })),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(100).fill(200));
    expect(new Set(responses.map((response) => response.json().transfer_id)).size).toBe(1);
    expect((await context.services.billing.walletSummary(buyer.customerId)).balanceMicros).toBe(1_000);
  });

  it('validates adjustments: key required, amount integer and non-zero, debits bounded by available credit', async () => {
    const buyer = await newCustomer(context);
    expect((await adjust(buyer.customerId, undefined, { amount_micros: 5, reason: 'x' })).statusCode).toBe(422);
    expect((await adjust(buyer.customerId, 'k1', { amount_micros: 1.5, reason: 'x' })).statusCode).toBe(422);
    expect((await adjust(buyer.customerId, 'k2', { amount_micros: 0, reason: 'x' })).statusCode).toBe(422);
    expect((await adjust(buyer.customerId, 'k3', { amount_micros: 5 })).statusCode).toBe(422);
    expect((await adjust(buyer.customerId, 'k4', { amount_micros: -5, reason: 'overdraw' })).statusCode).toBe(402);
    expect((await adjust(999_999, 'k5', { amount_micros: 5, reason: 'x' })).statusCode).toBe(404);
    expect(await entryCount()).toBe(0);
    const customerCall = await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${buyer.customerId}/wallet/adjust`,
      headers: { ...bearer(buyer.systemToken), 'idempotency-key': 'self' },
      payload: { amount_micros: 5, reason: 'self-credit' },
    });
    expect(customerCall.statusCode).toBe(404);
    // The failed attempt freed its key: a corrected retry runs.
    expect((await adjust(buyer.customerId, 'k4', { amount_micros: 5, reason: 'overdraw' })).statusCode).toBe(200);
  });

  it('refuses unknown body fields on money routes (a misspelt wallet must not credit the other one) and moves nothing', async () => {
    const buyer = await newCustomer(context);
    const misspelt = await adjust(buyer.customerId, 'typo', { amount_micros: 5_000, reason: 'refund', walet: 'cash' });
    expect(misspelt.statusCode).toBe(422);
    expect(misspelt.json().detail).toContainEqual(expect.objectContaining({ loc: ['body', 'walet'], type: 'extra_forbidden' }));
    expect(await entryCount()).toBe(0);
    const others = [
      { method: 'PUT' as const, url: '/api/admin/rate-cards/active', payload: { target: 'power-ai', card: 'heavy-load', scope: 'all' } },
      { method: 'PUT' as const, url: `/api/admin/customers/${buyer.customerId}/unlimited-plan`, payload: { plan: 'coder', day: 3 } },
      {
        method: 'POST' as const,
        url: '/api/v1/marketplace/register',
        payload: { email: 'buyer@example.com', license_key: 'LIC-1234', credit_micros: 1 },
      },
    ];
    for (const request of others) {
      const response = await context.app.inject({ ...request, headers: operatorHeaders });
      expect(response.statusCode, request.url).toBe(422);
      expect(response.json().detail[0].type, request.url).toBe('extra_forbidden');
    }
    expect(await context.storage.db.selectFrom('rate_card_assignments').selectAll().execute()).toEqual([]);
    expect(await entryCount()).toBe(0);
    // The token wallet is untouched, and the key is free for the corrected request.
    expect((await adjust(buyer.customerId, 'typo', { amount_micros: 5_000, reason: 'refund', wallet: 'cash' })).json()).toMatchObject({
      wallet: 'cash',
    });
    expect(await context.services.billing.walletSummary(buyer.customerId)).toMatchObject({ balanceMicros: 0, cashBalanceMicros: 5_000 });
  });

  it('reports status, payments paging, token usage, daily spend and per-key usage (404 for other keys)', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const { key, keyId } = await userKey(context, buyer.customerId);
    const principal = await principalFor(context, key);
    const call = await context.services.billing.meter.begin(meterRequest(principal));
    const open = await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: bearer(key) });
    expect(open.json()).toMatchObject({
      balance: { micros: 1_000_000 },
      holds: { micros: 28_000 },
      available: { micros: 972_000 },
      plan: null,
      currency: 'USD',
    });
    await call.settle({ inputTokens: 100, outputTokens: 10, source: 'estimated' }, 'aborted');
    const usage = await context.app.inject({
      method: 'GET',
      url: `/api/v1/me/api-keys/${keyId}/usage?days=7`,
      headers: bearer(buyer.systemToken),
    });
    expect(usage.statusCode).toBe(200);
    expect(usage.json()).toMatchObject({
      key_id: keyId,
      days: 7,
      totals: { requests: 1, input_tokens: 100, output_tokens: 10, spend: { micros: 640 } },
    });
    expect(usage.json().daily).toHaveLength(1);
    const tokens = await context.app.inject({ method: 'GET', url: '/api/v1/billing/token-usage', headers: bearer(key) });
    expect(tokens.json().transactions).toMatchObject([
      { usage_source: 'estimated', outcome: 'aborted', cost: { micros: 640 }, key_id: keyId },
    ]);
    expect(tokens.json().daily_spend).toMatchObject([{ requests: 1, spend: { micros: 640 } }]);
    expect(tokens.json().daily_by_model).toMatchObject([
      { model: tokens.json().transactions[0].model, requests: 1, input_tokens: 100, output_tokens: 10, spend: { micros: 640 } },
    ]);
    for (const days of [0, 366]) {
      expect(
        (await context.app.inject({ method: 'GET', url: `/api/v1/me/api-keys/${keyId}/usage?days=${days}`, headers: bearer(key) }))
          .statusCode,
      ).toBe(422);
    }
    for (const limit of [0, 101, 'x']) {
      expect(
        (await context.app.inject({ method: 'GET', url: `/api/v1/wallet/payments?limit=${limit}`, headers: bearer(key) })).statusCode,
      ).toBe(422);
    }
    const stranger = await newCustomer(context);
    expect(
      (await context.app.inject({ method: 'GET', url: `/api/v1/me/api-keys/${keyId}/usage`, headers: bearer(stranger.systemToken) }))
        .statusCode,
    ).toBe(404);
    expect(
      (await context.app.inject({ method: 'GET', url: `/api/v1/me/api-keys/${keyId}/health`, headers: bearer(stranger.systemToken) }))
        .statusCode,
    ).toBe(404);
  });

  it('health checks are non-billable: key, wallet and a reachability probe, no model call', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const { keyId } = await userKey(context, buyer.customerId, { models: ['power-ai'] });
    const health = await context.app.inject({
      method: 'GET',
      url: `/api/v1/me/api-keys/${keyId}/health`,
      headers: bearer(buyer.systemToken),
    });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({
      ok: true,
      billable: false,
      key: { id: keyId, active: true },
      model: { requested: 'power-ai', resolved: 'test-model', allowed: true },
      wallet: { ok: true },
      destination: { provider: 'scripted', reachable: true, status: 200 },
    });
    const setup = await context.app.inject({
      method: 'POST',
      url: '/api/v1/setup/health-check',
      headers: bearer(buyer.systemToken),
      payload: { model: 'other-model' },
    });
    expect(setup.json()).toMatchObject({ ok: true, model: { resolved: 'other-model' } });
    expect(upstream.requests.map((request) => request.path)).toEqual(['/v1/models', '/v1/models']);
    const poor = await newCustomer(context, 0);
    const empty = await context.app.inject({ method: 'POST', url: '/api/v1/setup/health-check', headers: bearer(poor.systemToken) });
    expect(empty.json()).toMatchObject({ ok: false, wallet: { ok: false } });
    expect(await context.storage.db.selectFrom('billing_calls').select('id').execute()).toHaveLength(0);
    await upstream.close();
    const down = await context.app.inject({ method: 'POST', url: '/api/v1/setup/health-check', headers: bearer(buyer.systemToken) });
    expect(down.json()).toMatchObject({ ok: false, destination: { reachable: false } });
    upstream = await startModelUpstream();
  });

  it('currency estimates are marked as estimates and checkout stays USD', async () => {
    const buyer = await newCustomer(context, 10_000_000);
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/v1/billing/currency-estimates',
      headers: bearer(buyer.systemToken),
    });
    expect(response.json()).toMatchObject({
      estimate: true,
      checkout_currency: 'USD',
      as_of: '2026-11-01',
      available: { micros: 10_000_000 },
      estimates: [
        { currency: 'EUR', per_usd: 0.92, available_estimate: 9.2 },
        { currency: 'JPY', per_usd: 155.5, available_estimate: 1555 },
      ],
    });
  });

  it('keys limited to other surfaces cannot read the wallet; operators have no wallet', async () => {
    const buyer = await newCustomer(context, 0);
    const { key } = await userKey(context, buyer.customerId, { surfaces: ['gateway'] });
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: bearer(key) })).statusCode).toBe(403);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: operatorHeaders })).statusCode).toBe(404);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status' })).statusCode).toBe(401);
  });
});
