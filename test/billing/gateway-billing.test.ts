/**
 * Billing through the real HTTP gateway (`POST /v1/chat/completions` against the scripted upstream): the
 * overspend guard under 1000 concurrent requests, and exactly-once settlement of streams that clients drop.
 */
import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { operatorHeaders } from '../helpers/context.js';
import { chat, CHAT_BODY, credit, newCustomer, probeHold, walletOf, withListeningGateway } from './helpers.js';

describe('billing through the gateway', () => {
  const gateway = withListeningGateway();

  it('1000 concurrent requests against a wallet covering exactly K: K succeed, the rest get 402', async () => {
    const { context, upstream, url } = gateway;
    const buyer = await newCustomer(context, 1_000_000);
    const hold = await probeHold(context, upstream, url, buyer.systemToken, buyer.customerId);
    const K = 123;
    const { balanceMicros } = await walletOf(context, buyer.customerId);
    await credit(context, buyer.customerId, K * hold - balanceMicros);
    const responses = await Promise.all(Array.from({ length: 1000 }, () => chat(url, buyer.systemToken)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(K);
    expect(statuses.filter((status) => status === 402)).toHaveLength(1000 - K);
    const refused = await responses.find((response) => response.status === 402)!.json();
    expect(refused.error).toMatchObject({ code: 'insufficient_credit', type: 'insufficient_quota' });
    await Promise.all(responses.filter((response) => !response.bodyUsed).map((response) => response.text()));
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 0, holdsMicros: 0, availableMicros: 0 });
    const calls = await context.storage.db
      .selectFrom('billing_calls')
      .select(['status', 'cost_micros'])
      .where('customer_id', '=', buyer.customerId)
      .execute();
    expect(calls).toHaveLength(K + 1);
    expect(calls.every((call) => call.status === 'settled')).toBe(true);
  });

  it('403 for a model outside the key policy and spending_limit_reached, in the OpenAI shape', async () => {
    const { context, url } = gateway;
    const buyer = await newCustomer(context, 1_000_000);
    const created = await context.services.keys.issue(context.storage.db, {
      customerId: buyer.customerId,
      kind: 'user',
      role: 'customer',
      policy: { models: ['other-model'], spendingLimitMicros: 1 },
    });
    const denied = await chat(url, created.plaintext);
    expect(denied.status).toBe(403);
    expect((await denied.json()).error).toMatchObject({ code: 'model_not_allowed' });
    const spend = await chat(url, created.plaintext, { ...CHAT_BODY, model: 'other-model' });
    expect(spend.status).toBe(200);
    const limited = await chat(url, created.plaintext, { ...CHAT_BODY, model: 'other-model' });
    expect(limited.status).toBe(403);
    expect((await limited.json()).error).toMatchObject({ code: 'spending_limit_reached' });
  });

  it('200 streams with random client disconnects: each settled once, billed at least prompt + forwarded tokens', async () => {
    const { context, upstream, url } = gateway;
    const buyer = await newCustomer(context, 100_000_000);
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
    upstream.setDefault(() => ({ kind: 'text', text: words, chunks: 30, chunkDelayMs: 3, usage: { inputTokens: 40, outputTokens: 400 } }));
    const prompt = 'Please stream a long answer.';
    const promptTokens = encode(prompt).length;
    const results = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const controller = new AbortController();
        const response = await chat(
          url,
          buyer.systemToken,
          { model: 'power-ai', stream: true, messages: [{ role: 'user', content: prompt }], max_tokens: 500 },
          controller.signal,
        );
        const requestId = response.headers.get('x-request-id')!;
        const stopAfter = Math.random() < 0.7 ? Math.floor(Math.random() * 25) : Infinity;
        let forwarded = '';
        const decoder = new TextDecoder();
        let buffer = '';
        try {
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            buffer += decoder.decode(chunk, { stream: true });
            const events = buffer.split('\n\n');
            buffer = events.pop()!;
            for (const event of events) {
              const data = event.replace(/^data: /, '');
              if (data === '[DONE]' || !data.startsWith('{')) continue;
              forwarded += JSON.parse(data).choices?.[0]?.delta?.content ?? '';
            }
            if (forwarded.length > 0 && encode(forwarded).length >= stopAfter) {
              controller.abort();
              break;
            }
          }
        } catch (error) {
          if ((error as Error).name !== 'AbortError') throw error;
        }
        return { requestId, forwardedTokens: encode(forwarded).length, aborted: controller.signal.aborted };
      }),
    );
    expect(results.filter((result) => result.aborted).length).toBeGreaterThan(50);
    // Every call settled: no hold open, and a row for each (a call drawn from a credit reservation has its row from
    // its settlement on).
    const deadline = Date.now() + 20_000;
    const unsettled = async () =>
      (await context.storage.db.selectFrom('billing_calls').select('id').where('status', '=', 'open').execute()).length > 0 ||
      (await context.storage.db.selectFrom('billing_calls').select('id').where('customer_id', '=', buyer.customerId).execute()).length <
        200;
    while (await unsettled()) {
      if (Date.now() > deadline) throw new Error('calls still unsettled after the grace period');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const calls = await context.storage.db.selectFrom('billing_calls').selectAll().where('customer_id', '=', buyer.customerId).execute();
    expect(calls).toHaveLength(200);
    const byRequest = new Map(calls.map((call) => [call.request_id, call]));
    for (const result of results) {
      const call = byRequest.get(result.requestId)!;
      expect(call.status).toBe('settled');
      expect(call.input_tokens!).toBeGreaterThanOrEqual(promptTokens);
      expect(call.output_tokens!).toBeGreaterThanOrEqual(result.forwardedTokens);
      if (result.forwardedTokens > 0) expect(call.cost_micros!).toBeGreaterThan(0);
    }
    const usageTransfers = await context.storage.db
      .selectFrom('ledger_entries')
      .select(['reference', (eb) => eb.fn.countAll<number>().as('legs')])
      .where('kind', '=', 'usage')
      .groupBy('reference')
      .execute();
    expect(usageTransfers.every((transfer) => Number(transfer.legs) === 2)).toBe(true);
    expect(usageTransfers).toHaveLength(calls.filter((call) => call.cost_micros! > 0).length);
    const billed = calls.reduce((sum, call) => sum + call.cost_micros!, 0);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 100_000_000 - billed, holdsMicros: 0 });
    const status = await context.app.inject({ method: 'GET', url: '/api/admin/billing/invariants', headers: operatorHeaders });
    expect(status.json()).toMatchObject({ ok: true });
  });
});
