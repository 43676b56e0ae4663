import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { billingContext, credit, expectLedgerConsistent, newCustomer, type TestCustomer } from '../billing/helpers.js';

describe('desktop chat messages through the gateway', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let url: string;
  let alice: TestCustomer;
  let bob: TestCustomer;
  let aliceChat: number;
  let bobChat: number;

  beforeAll(async () => {
    upstream = await startModelUpstream();
    upstream.setDefault(() => ({ kind: 'text', text: 'Ship it today.', usage: { inputTokens: 1000, outputTokens: 500 } }));
    // Every message here is billed: no free daily messages.
    context = await billingContext({ upstreamUrl: upstream.url, config: { desktop: { chat: { freeDailyMessages: 0 } } } });
    url = await context.listen();
    alice = await newCustomer(context);
    bob = await newCustomer(context);
    await credit(context, alice.customerId, 5_000_000);
    aliceChat = (
      await context.app.inject({
        method: 'POST',
        url: '/api/v1/desktop-chat/conversations',
        headers: bearer(alice.systemToken),
        payload: { system_prompt: 'Be brief.' },
      })
    ).json().id;
    bobChat = (
      await context.app.inject({ method: 'POST', url: '/api/v1/desktop-chat/conversations', headers: bearer(bob.systemToken), payload: {} })
    ).json().id;
  });
  afterAll(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  const send = (who: TestCustomer, conversationId: number, payload: unknown) =>
    context.app.inject({
      method: 'POST',
      url: `/api/v1/desktop-chat/conversations/${conversationId}/messages`,
      headers: bearer(who.systemToken),
      payload: payload as never,
    });
  const history = async (who: TestCustomer, conversationId: number) =>
    (
      await context.app.inject({
        method: 'GET',
        url: `/api/v1/desktop-chat/conversations/${conversationId}/messages`,
        headers: bearer(who.systemToken),
      })
    ).json().data as { role: string; content: string }[];

  it('a message is a billed model call with the saved context; prompt and reply are stored', async () => {
    const before = await context.services.billing.walletSummary(alice.customerId);
    const first = await send(alice, aliceChat, { content: 'What should I do?' });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().messages.map((message: { role: string; content: string }) => [message.role, message.content])).toEqual([
      ['user', 'What should I do?'],
      ['assistant', 'Ship it today.'],
    ]);
    expect(first.json().messages[1]).toMatchObject({ input_tokens: 1000, output_tokens: 500, model: 'power-ai' });
    const after = await context.services.billing.walletSummary(alice.customerId);
    expect(before.balanceMicros - after.balanceMicros).toBe(16_000); // 1000 × $4/M + 500 × $24/M

    const calls = upstream.requests.length;
    expect((await send(alice, aliceChat, { content: 'And tomorrow?' })).statusCode).toBe(201);
    expect(upstream.requests.length).toBe(calls + 1);
    const sentMessages = JSON.stringify(upstream.requests.at(-1)!.body.messages);
    for (const text of ['Be brief.', 'What should I do?', 'Ship it today.', 'And tomorrow?']) expect(sentMessages).toContain(text);
    expect((await history(alice, aliceChat)).map((message) => message.content)).toEqual([
      'What should I do?',
      'Ship it today.',
      'And tomorrow?',
      'Ship it today.',
    ]);
  });

  it('402 when the wallet cannot cover the call: nothing sent, nothing stored', async () => {
    const calls = upstream.requests.length;
    const refused = await send(bob, bobChat, { content: 'hello' });
    expect(refused.statusCode, refused.body).toBe(402);
    expect(upstream.requests.length).toBe(calls);
    expect(await history(bob, bobChat)).toEqual([]);
  });

  it("BOLA: sending into another customer's conversation → 404, not called, not billed", async () => {
    const calls = upstream.requests.length;
    const before = await context.services.billing.walletSummary(alice.customerId);
    const foreign = await send(alice, bobChat, { content: 'sneaky' });
    expect(foreign.statusCode).toBe(404);
    expect(upstream.requests.length).toBe(calls);
    expect((await context.services.billing.walletSummary(alice.customerId)).balanceMicros).toBe(before.balanceMicros);
    expect(await history(bob, bobChat)).toEqual([]);
    expect((await send(alice, aliceChat, { content: '' })).statusCode).toBe(422);
    expect((await send(alice, aliceChat, { content: 'x', extra: 1 })).statusCode).toBe(422);
  });

  it('stream: true answers server-sent delta events and a done event with the stored messages', async () => {
    const response = await fetch(`${url}/api/v1/desktop-chat/conversations/${aliceChat}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(alice.systemToken) },
      body: JSON.stringify({ content: 'Stream it', stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = text
      .split('\n\n')
      .filter((block) => block.includes('event: '))
      .map((block) => ({ event: /event: (.*)/.exec(block)![1], data: JSON.parse(/data: (.*)/.exec(block)![1]!) }));
    const deltas = events
      .filter((event) => event.event === 'delta')
      .map((event) => event.data.text)
      .join('');
    expect(deltas).toBe('Ship it today.');
    const done = events.find((event) => event.event === 'done')!;
    expect(done.data.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant']);
    const stored = await history(alice, aliceChat);
    expect(stored.slice(-2).map((message) => message.content)).toEqual(['Stream it', 'Ship it today.']);
  });
});
