import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import { billingContext, CHAT_BODY, credit, expectLedgerConsistent, newCustomer, type TestCustomer } from '../billing/helpers.js';

describe('desktop bootstrap', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let alice: TestCustomer;
  let bob: TestCustomer;

  beforeAll(async () => {
    upstream = await startModelUpstream();
    upstream.setDefault(() => ({ kind: 'text', text: 'one two three', usage: { inputTokens: 1000, outputTokens: 500 } }));
    context = await billingContext({
      upstreamUrl: upstream.url,
      config: { releases: { cli: { version: '2.3.0', minimumVersion: '2.0.0', downloadUrl: 'https://example.test/cli' } } },
    });
    alice = await newCustomer(context);
    bob = await newCustomer(context);
    await credit(context, alice.customerId, 5_000_000);
  });
  afterAll(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  const boot = (who: TestCustomer, query = '') =>
    context.app.inject({ method: 'GET', url: `/api/v1/desktop/bootstrap${query}`, headers: bearer(who.systemToken) });

  it('verifies the token and returns account, wallet, usage, inbox, push and releases in one answer', async () => {
    const call = await context.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(alice.systemToken),
      payload: CHAT_BODY,
    });
    expect(call.statusCode, call.body).toBe(200);
    for (const payload of [
      { customer_id: alice.customerId, title: 'For alice', body: 'hello' },
      { all: true, title: 'For all', body: 'hi everyone' },
      { customer_id: bob.customerId, title: 'For bob', body: 'private' },
    ]) {
      expect((await context.app.inject({ method: 'POST', url: '/api/admin/messages', headers: operatorHeaders, payload })).statusCode).toBe(
        201,
      );
    }
    expect(
      (
        await context.app.inject({
          method: 'POST',
          url: '/api/admin/push',
          headers: operatorHeaders,
          payload: { message_key: 'bob-push', customer_id: bob.customerId, title: 'Bob', body: 'only bob' },
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await context.app.inject({
          method: 'POST',
          url: '/api/admin/push',
          headers: operatorHeaders,
          payload: { message_key: 'all-push', title: 'All', body: 'everyone' },
        })
      ).statusCode,
    ).toBe(201);

    const response = await boot(alice);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.token).toEqual({ valid: true, key_id: alice.systemKeyId, kind: expect.any(String) });
    expect(body.customer.id).toBe(alice.customerId);
    expect(body.base_url).toMatch(/\/v1$/);

    // 1000 in at $4/M + 500 out at $24/M = 4_000 + 12_000 µUSD.
    const cost = 16_000;
    expect(body.usage.days).toBe(30);
    expect(body.usage.totals).toEqual({
      requests: 1,
      input_tokens: 1000,
      output_tokens: 500,
      spend: { micros: cost, usd: expect.any(String) },
    });
    expect(body.usage.transactions).toHaveLength(1);
    expect(body.usage.daily).toHaveLength(1);
    expect(body.wallet).toMatchObject({ balance: { micros: 5_000_000 - cost }, available: { micros: 5_000_000 - cost }, currency: 'USD' });
    const summary = await context.services.billing.walletSummary(alice.customerId);
    expect(body.wallet.balance.micros).toBe(summary.balanceMicros);

    expect(body.inbox.messages.map((message: { title: string }) => message.title)).toEqual(['For all', 'For alice']);
    expect(body.inbox.unread_count).toBe(2);
    expect(body.push.messages.map((message: { message_key: string }) => message.message_key)).toEqual(['all-push']);
    expect(body.releases.cli).toMatchObject({
      product: 'cli',
      latest_version: '2.3.0',
      minimum_version: '2.0.0',
      download_url: 'https://example.test/cli',
    });
    expect(Object.keys(body.releases).sort()).toEqual(['cli', 'launcher-a', 'launcher-b']);
    expect(typeof body.server_time).toBe('string');
  });

  it("shows only the caller's data: bob sees his messages, none of alice's usage", async () => {
    const body = (await boot(bob)).json();
    expect(body.customer.id).toBe(bob.customerId);
    expect(body.usage.totals.requests).toBe(0);
    expect(body.inbox.messages.map((message: { title: string }) => message.title)).toEqual(['For bob', 'For all']);
    expect(body.push.messages.map((message: { message_key: string }) => message.message_key)).toEqual(['all-push', 'bob-push']);
  });

  it('limit bounds the lists; days and limit are validated; a bad token is 401', async () => {
    const limited = (await boot(alice, '?limit=1&days=1')).json();
    expect(limited.inbox.messages).toHaveLength(1);
    expect(limited.usage.days).toBe(1);
    expect(limited.usage.totals.requests).toBe(1);
    for (const query of ['?days=0', '?days=181', '?limit=0', '?limit=501', '?days=abc', '?days=1.5']) {
      expect((await boot(alice, query)).statusCode, query).toBe(422);
    }
    expect((await boot(alice, '?days=180&limit=500')).statusCode).toBe(200);
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/v1/desktop/bootstrap', headers: bearer('sk-not-a-real-key') })).statusCode,
    ).toBe(401);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/desktop/bootstrap' })).statusCode).toBe(401);
  });
});
