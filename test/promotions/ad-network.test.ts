import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAdNetwork, type AdNetworkDouble } from '../fakes/ad-network.js';
import type { TestContext } from '../helpers/context.js';
import { expectInvariants, paymentsContext } from '../payments/support.js';

describe('ad-network conversions against the double', () => {
  let network: AdNetworkDouble;
  let context: TestContext;
  beforeEach(async () => {
    network = await startAdNetwork();
    context = await paymentsContext({
      config: {
        adNetwork: {
          enabled: true,
          apiBaseUrl: network.url,
          accountId: network.accountId,
          accessToken: network.token,
          requestsPerMinute: 30,
        },
      },
    });
  });
  afterEach(async () => {
    await expectInvariants(context);
    await context.close();
    await network.close();
  });

  const send = (payload: Record<string, unknown>, remoteAddress = '198.51.100.1') =>
    context.app.inject({ method: 'POST', url: '/api/v1/adnetwork/conversion', payload, remoteAddress });

  it('forwards a conversion in the Conversions API shape with the bearer and nothing about the customer', async () => {
    const response = await send({ event_id: 'evt-1', event_type: 'SignUp', click_id: 'click-abc', event_at: '2026-11-01T10:00:00Z' });
    expect(response.statusCode, response.body).toBe(202);
    expect(network.received).toHaveLength(1);
    expect(network.received[0]!.authorization).toBe(`Bearer ${network.token}`);
    expect(network.received[0]!.body).toEqual({
      test_mode: false,
      events: [
        {
          event_at: '2026-11-01T10:00:00Z',
          event_type: { tracking_type: 'SignUp' },
          click_id: 'click-abc',
          event_metadata: { conversion_id: 'evt-1' },
        },
      ],
    });
  });

  it('deduplicates by event id, also under 20 concurrent deliveries; a failed forward can be retried', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => send({ event_id: 'evt-dup', event_type: 'Purchase', value: 25, currency: 'USD' })),
    );
    expect(responses.filter((response) => response.statusCode === 202)).toHaveLength(1);
    expect(responses.filter((response) => response.statusCode === 200 && response.json().duplicate === true)).toHaveLength(19);
    expect(network.received).toHaveLength(1);
    expect(network.received[0]!.body.events[0]).toMatchObject({
      event_metadata: { conversion_id: 'evt-dup', value_decimal: 25, currency: 'USD' },
    });
    network.failNext = 1;
    expect((await send({ event_id: 'evt-retry', event_type: 'Lead' })).statusCode).toBe(502);
    expect((await send({ event_id: 'evt-retry', event_type: 'Lead' })).statusCode).toBe(202);
    expect(network.received).toHaveLength(2);
  });

  it('validates the body (unknown fields, event types, customer data refused) and rate-limits per address', async () => {
    expect((await send({ event_id: 'x', event_type: 'Nope' })).statusCode).toBe(422);
    expect((await send({ event_id: 'x', event_type: 'SignUp', email: 'a@example.com' })).statusCode).toBe(422);
    expect((await send({ event_type: 'SignUp' })).statusCode).toBe(422);
    const burst = [];
    for (let index = 0; index < 31; index += 1)
      burst.push(await send({ event_id: `rl-${index}`, event_type: 'PageVisit' }, '203.0.113.50'));
    expect(burst.filter((response) => response.statusCode === 202)).toHaveLength(30);
    expect(burst[30]!.statusCode).toBe(429);
    expect((await send({ event_id: 'other-address', event_type: 'PageVisit' }, '203.0.113.51')).statusCode).toBe(202);
  });
});
