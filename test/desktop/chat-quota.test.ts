import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { billingContext, credit, expectLedgerConsistent, MODEL, newCustomer, userKey, type TestCustomer } from '../billing/helpers.js';

const FREE = 3;

describe('desktop chat free daily quota', () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 22, 30));
  let context: TestContext;
  let upstream: ModelUpstream;

  beforeAll(async () => {
    upstream = await startModelUpstream();
    upstream.setDefault(() => ({ kind: 'text', text: 'Free answer.', usage: { inputTokens: 1000, outputTokens: 500 } }));
    context = await billingContext({
      upstreamUrl: upstream.url,
      clock,
      config: { desktop: { chat: { freeDailyMessages: FREE, freeModels: ['power-ai'] } } },
    });
  });
  afterAll(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  const chatFor = async (who: TestCustomer, model?: string) => {
    const created = await context.app.inject({
      method: 'POST',
      url: '/api/v1/desktop-chat/conversations',
      headers: bearer(who.systemToken),
      payload: model ? { model } : {},
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().id as number;
  };
  const send = (token: string, conversationId: number, payload: unknown) =>
    context.app.inject({
      method: 'POST',
      url: `/api/v1/desktop-chat/conversations/${conversationId}/messages`,
      headers: bearer(token),
      payload: payload as never,
    });
  const quota = async (who: TestCustomer) => {
    const boot = await context.app.inject({ method: 'GET', url: '/api/v1/desktop-chat/bootstrap', headers: bearer(who.systemToken) });
    expect(boot.statusCode, boot.body).toBe(200);
    return boot.json().free_quota as { daily_messages: number; used: number; left: number; resets_at: string; models: string[] };
  };
  const stored = async (who: TestCustomer, conversationId: number) =>
    (
      await context.app.inject({
        method: 'GET',
        url: `/api/v1/desktop-chat/conversations/${conversationId}/messages`,
        headers: bearer(who.systemToken),
      })
    ).json().data as unknown[];
  const balance = async (who: TestCustomer) => (await context.services.billing.walletSummary(who.customerId)).balanceMicros;

  it('free messages first (wallet untouched), 402 free_quota_exhausted when both are out, then the wallet pays', async () => {
    const alice = await newCustomer(context);
    const conversation = await chatFor(alice);
    expect(await quota(alice)).toEqual({
      daily_messages: FREE,
      used: 0,
      left: FREE,
      resets_at: '2026-06-02T00:00:00.000Z',
      models: ['power-ai'],
    });
    const boot = await context.app.inject({ method: 'GET', url: '/api/v1/desktop-chat/bootstrap', headers: bearer(alice.systemToken) });
    expect(boot.json().models.find((model: { id: string }) => model.id === 'power-ai').free).toBe(true);
    expect(boot.json().models.find((model: { id: string }) => model.id === 'other-model').free).toBe(false);

    for (let index = 1; index <= FREE; index += 1) {
      const sent = await send(alice.systemToken, conversation, { content: `question ${index}` });
      expect(sent.statusCode, sent.body).toBe(201);
      expect(sent.json()).toMatchObject({ free: true, free_quota: { used: index, left: FREE - index } });
      expect(sent.json().messages[1].content).toBe('Free answer.');
    }
    expect(await balance(alice)).toBe(0);
    const calls = upstream.requests.length;
    const refused = await send(alice.systemToken, conversation, { content: 'one more' });
    expect(refused.statusCode, refused.body).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'free_quota_exhausted', free_quota: { left: 0 } });
    expect(refused.json().detail).toMatch(/free messages of today are used up/);
    expect(upstream.requests.length).toBe(calls);
    expect(await stored(alice, conversation)).toHaveLength(FREE * 2);

    await credit(context, alice.customerId, 1_000_000);
    const paid = await send(alice.systemToken, conversation, { content: 'paid question' });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json()).toMatchObject({ free: false, free_quota: { left: 0 } });
    expect(1_000_000 - (await balance(alice))).toBe(16_000); // 1000 × $4/M + 500 × $24/M
  });

  it('the quota resets at UTC midnight (service clock)', async () => {
    const bob = await newCustomer(context);
    const conversation = await chatFor(bob);
    for (let index = 0; index < FREE; index += 1)
      expect((await send(bob.systemToken, conversation, { content: 'q' })).statusCode).toBe(201);
    expect((await quota(bob)).left).toBe(0);
    expect((await send(bob.systemToken, conversation, { content: 'q' })).statusCode).toBe(402);
    const before = clock.nowMs();
    clock.set(Date.UTC(2026, 5, 2, 0, 0, 1));
    try {
      expect(await quota(bob)).toMatchObject({ used: 0, left: FREE, resets_at: '2026-06-03T00:00:00.000Z' });
      const fresh = await send(bob.systemToken, conversation, { content: 'new day' });
      expect(fresh.statusCode, fresh.body).toBe(201);
      expect(fresh.json()).toMatchObject({ free: true, free_quota: { left: FREE - 1 } });
    } finally {
      clock.set(before);
    }
  });

  it('a call that fails upstream (before or after 200, streamed or not) gives its free message back', async () => {
    const carol = await newCustomer(context);
    const conversation = await chatFor(carol);
    upstream.enqueue({ kind: 'http_error', status: 500, body: { error: { message: 'boom' } } });
    const failed = await send(carol.systemToken, conversation, { content: 'fails' });
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    expect((await quota(carol)).left).toBe(FREE);

    upstream.enqueue({ kind: 'error_after_200', text: 'half', message: 'mid-stream failure' });
    const broken = await send(carol.systemToken, conversation, { content: 'breaks' });
    expect(broken.statusCode).toBeGreaterThanOrEqual(500);
    expect((await quota(carol)).left).toBe(FREE);

    const url = await context.listen();
    upstream.enqueue({ kind: 'error_after_200', text: 'half', message: 'mid-stream failure' });
    const streamed = await fetch(`${url}/api/v1/desktop-chat/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(carol.systemToken) },
      body: JSON.stringify({ content: 'streams and breaks', stream: true }),
    });
    expect(await streamed.text()).toContain('event: error');
    expect((await quota(carol)).left).toBe(FREE);
    expect(await stored(carol, conversation)).toEqual([]);
    const rows = await context.storage.db
      .selectFrom('desktop_chat_free_usage')
      .select('status')
      .where('customer_id', '=', carol.customerId)
      .execute();
    expect(rows).toEqual([]);

    // A streamed message that completes keeps its free message and says so in its done event.
    const ok = await fetch(`${url}/api/v1/desktop-chat/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(carol.systemToken) },
      body: JSON.stringify({ content: 'streams fine', stream: true }),
    });
    const done = (await ok.text()).split('\n\n').find((block) => block.includes('event: done'))!;
    expect(JSON.parse(/data: (.*)/.exec(done)![1]!)).toMatchObject({ free: true });
    expect((await quota(carol)).left).toBe(FREE - 1);
  });

  it('a model outside the free list is billed: 402 insufficient_credit with an empty wallet, quota untouched', async () => {
    const dave = await newCustomer(context);
    const conversation = await chatFor(dave, MODEL);
    const refused = await send(dave.systemToken, conversation, { content: 'not free' });
    expect(refused.statusCode, refused.body).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'insufficient_credit', free_quota: { left: FREE } });
    expect((await quota(dave)).left).toBe(FREE);
  });

  it("a key that may not use the model is refused (403) and keeps the customer's free message", async () => {
    const erin = await newCustomer(context);
    const conversation = await chatFor(erin);
    const limited = await userKey(context, erin.customerId, { models: ['other-model'] });
    const calls = upstream.requests.length;
    const refused = await send(limited.key, conversation, { content: 'not allowed' });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(upstream.requests.length).toBe(calls);
    expect((await quota(erin)).left).toBe(FREE);
  });

  it('concurrent sends never take more free messages than the day has', async () => {
    const frank = await newCustomer(context);
    const conversation = await chatFor(frank);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => send(frank.systemToken, conversation, { content: `race ${index}` })),
    );
    const statuses = results.map((result) => result.statusCode).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(FREE);
    expect(statuses.filter((status) => status === 402)).toHaveLength(10 - FREE);
    const rows = await context.storage.db
      .selectFrom('desktop_chat_free_usage')
      .select(['status', 'input_tokens', 'output_tokens'])
      .where('customer_id', '=', frank.customerId)
      .execute();
    expect(rows).toHaveLength(FREE);
    for (const row of rows) expect([row.status, Number(row.input_tokens), Number(row.output_tokens)]).toEqual(['used', 1000, 500]);
    expect(await balance(frank)).toBe(0);
    expect(await stored(frank, conversation)).toHaveLength(FREE * 2);
  });
});
