import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { renderError } from '../../src/http/error-render.js';
import { bearer, type TestContext } from '../helpers/context.js';
import {
  billingContext,
  expectLedgerConsistent,
  meterRequest,
  newCustomer,
  principalFor,
  STANDARD_HOLD,
  userKey,
  walletOf,
} from './helpers.js';
import { CHAT_BODY } from './helpers.js';

describe('key policies in the meter', () => {
  let context: TestContext;
  beforeEach(async () => {
    context = await billingContext({ config: { vip: { hosts: ['vip.switchyard.test'], models: ['other-model'] } } });
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
  });

  it('403 MODEL_NOT_ALLOWED for a model outside the key policy; aliases may be named', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const { key } = await userKey(context, buyer.customerId, { models: ['power-ai'] });
    const principal = await principalFor(context, key);
    await expect(
      context.services.billing.meter.begin(meterRequest(principal, { requestedModel: 'other-model', modelId: 'other-model' })),
    ).rejects.toMatchObject({
      code: 'MODEL_NOT_ALLOWED',
      status: 403,
    });
    const call = await context.services.billing.meter.begin(meterRequest(principal, { requestedModel: 'power-ai' }));
    await call.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
    expect((await walletOf(context, buyer.customerId)).holdsMicros).toBe(0);
  });

  it('403 spending_limit_reached once a key spent its limit in the period, rendered in every protocol', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const { key } = await userKey(context, buyer.customerId, { spendingLimitMicros: 50_000, spendingPeriod: 'day' });
    const principal = await principalFor(context, key);
    for (let index = 0; index < 2; index += 1) {
      const call = await context.services.billing.meter.begin(meterRequest(principal));
      await call.settle({ inputTokens: 1_000, outputTokens: 1_000, source: 'upstream' }, 'completed');
    }
    const error = (await context.services.billing.meter.begin(meterRequest(principal)).catch((caught) => caught)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(403);
    expect(renderError('openai', error, 'req_1')).toMatchObject({ error: { code: 'spending_limit_reached', type: 'permission_error' } });
    expect(renderError('api', error, 'req_1')).toMatchObject({ code: 'spending_limit_reached', spent: { micros: 56_000 } });
    expect(renderError('anthropic', error, 'req_1')).toMatchObject({ error: { code: 'spending_limit_reached' } });
    // Another key of the same customer is not limited.
    const other = await principalFor(context, buyer.systemToken);
    const call = await context.services.billing.meter.begin(meterRequest(other));
    await call.settle({ inputTokens: 0, outputTokens: 0, source: 'estimated' }, 'failed');
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(1_000_000 - 56_000);
  });

  it('counts open holds toward the spending limit', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const { key } = await userKey(context, buyer.customerId, { spendingLimitMicros: STANDARD_HOLD });
    const principal = await principalFor(context, key);
    const open = await context.services.billing.meter.begin(meterRequest(principal));
    await expect(context.services.billing.meter.begin(meterRequest(principal))).rejects.toMatchObject({ code: 'SPENDING_LIMIT_REACHED' });
    await open.settle({ inputTokens: 10, outputTokens: 10, source: 'upstream' }, 'completed');
  });

  it("concurrent calls on a limited key see each other's holds: the limit admits exactly as many as it covers", async () => {
    const buyer = await newCustomer(context, 10_000_000);
    const { key } = await userKey(context, buyer.customerId, { spendingLimitMicros: 3 * STANDARD_HOLD - 1 });
    const principal = await principalFor(context, key);
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, () => context.services.billing.meter.begin(meterRequest(principal))),
    );
    const admitted = attempts.filter((attempt) => attempt.status === 'fulfilled');
    expect(admitted).toHaveLength(3);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect(attempt.reason).toMatchObject({ code: 'SPENDING_LIMIT_REACHED' });
    }
    for (const attempt of admitted) await attempt.value.settle({ inputTokens: 10, outputTokens: 10, source: 'upstream' }, 'completed');
  });

  it('401 for an expired key before any billing', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const { key } = await userKey(context, buyer.customerId, {}, Date.now() - 1_000);
    const response = await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: bearer(key) });
    expect(response.statusCode).toBe(401);
    await expect(principalFor(context, key)).rejects.toMatchObject({ status: 401 });
  });

  it('403 VIP_REQUIRED on a VIP host or VIP model without entitlement; VIP customers pass', async () => {
    const buyer = await newCustomer(context, 1_000_000);
    const principal = await principalFor(context, buyer.systemToken);
    await expect(context.services.billing.meter.begin(meterRequest(principal, { host: 'VIP.switchyard.test:443' }))).rejects.toMatchObject({
      code: 'VIP_REQUIRED',
      status: 403,
    });
    await expect(
      context.services.billing.meter.begin(meterRequest(principal, { requestedModel: 'other-model', modelId: 'other-model' })),
    ).rejects.toMatchObject({ code: 'VIP_REQUIRED' });
    // Through the gateway: the Host header of the request names the VIP server.
    const viaHost = await context.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...bearer(buyer.systemToken), host: 'vip.switchyard.test' },
      payload: CHAT_BODY,
    });
    expect(viaHost.statusCode, viaHost.body).toBe(403);
    expect(viaHost.json().error.code).toBe('vip_required');
    // Written outside the service (as an operator would): nodes see it within the key-change poll interval.
    await context.storage.db.updateTable('customers').set({ vip: 1 }).where('id', '=', buyer.customerId).execute();
    await expect.poll(async () => principalFor(context, buyer.systemToken), { timeout: 1000, interval: 20 }).toMatchObject({ vip: true });
    const vipPrincipal = await principalFor(context, buyer.systemToken);
    const call = await context.services.billing.meter.begin(meterRequest(vipPrincipal, { host: 'vip.switchyard.test' }));
    await call.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
    const vip = await context.app.inject({ method: 'GET', url: '/api/v1/vip', headers: bearer(buyer.systemToken) });
    expect(vip.json()).toMatchObject({ vip: true, servers: ['vip.switchyard.test'], models: ['other-model'] });
    const anonymous = await context.app.inject({ method: 'GET', url: '/api/v1/vip' });
    expect(anonymous.json()).toMatchObject({ vip: null });
  });
});
