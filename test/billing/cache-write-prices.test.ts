/**
 * Prompt-cache writes are billed at their own prices (5-minute writes 1.25x input, 1-hour writes 2x by default),
 * cache reads at theirs, and the prices and token counts show in /v1/models, /api/v1/me and the token usage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf } from '../../src/billing/cost.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { expectLedgerConsistent, newCustomer } from './helpers.js';

const RATES = {
  input_micros_per_million: 4_000_000,
  output_micros_per_million: 24_000_000,
  cached_input_micros_per_million: 400_000,
  cache_write_micros_per_million: 5_000_000,
  cache_write_1h_micros_per_million: 8_000_000,
};

describe('cache-write prices', () => {
  it('splits input into plain, cache reads and 5-minute and 1-hour writes, each rounded up', () => {
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 0 }, RATES)).toBe(4_000_000);
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 1_000_000 }, RATES)).toBe(5_000_000);
    expect(
      costOf(
        { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 1_000_000, cacheWrite1hTokens: 1_000_000 },
        RATES,
      ),
    ).toBe(8_000_000);
    // 100 plain, 200 read, 300 written (100 for an hour), 10 out.
    expect(
      costOf({ inputTokens: 600, outputTokens: 10, cachedInputTokens: 200, cacheWriteTokens: 300, cacheWrite1hTokens: 100 }, RATES),
    ).toBe(400 + 80 + 1_000 + 800 + 240);
    // Reported classes never exceed the input they are part of.
    expect(
      costOf({ inputTokens: 100, outputTokens: 0, cachedInputTokens: 80, cacheWriteTokens: 500, cacheWrite1hTokens: 900 }, RATES),
    ).toBe(32 + 160);
  });

  describe('a billed Anthropic call that writes and reads the cache', () => {
    let upstream: ModelUpstream;
    let context: TestContext;
    beforeAll(async () => {
      upstream = await startModelUpstream();
      context = await createTestContext({
        config: {
          providers: [{ id: 'anthropic-fake', kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-upstream' }],
          models: [{ id: 'claude-cached', provider: 'anthropic-fake', upstreamModel: 'upstream-claude', rateCard: 'standard' }],
          aliases: {},
        } as never,
      });
    });
    afterAll(async () => {
      await expectLedgerConsistent(context);
      await context.close();
      await upstream.close();
    });

    it('bills the writes at their prices and shows prices and counts', async () => {
      const buyer = await newCustomer(context, 50_000_000);
      const headers = bearer(buyer.systemToken);
      const models = await context.app.inject({ method: 'GET', url: '/v1/models', headers });
      const listed = models.json().data.find((model: { id: string }) => model.id === 'claude-cached');
      expect(JSON.stringify(listed)).toContain('"cache_write_micros_per_million":5000000');
      expect(JSON.stringify(listed)).toContain('"cache_write_1h_micros_per_million":8000000');
      const me = await context.app.inject({ method: 'GET', url: '/api/v1/me', headers });
      expect(JSON.stringify(me.json())).toContain('"cache_write_micros_per_million":5000000');

      upstream.enqueue({
        kind: 'raw',
        contentType: 'application/json',
        body: JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'upstream-claude',
          content: [{ type: 'text', text: 'cached' }],
          stop_reason: 'end_turn',
          usage: {
            input_tokens: 100,
            output_tokens: 10,
            cache_read_input_tokens: 200,
            cache_creation_input_tokens: 300,
            cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 100 },
          },
        }),
      });
      const response = await context.app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { ...headers, 'anthropic-version': '2023-06-01' },
        payload: {
          model: 'claude-cached',
          max_tokens: 64,
          system: [{ type: 'text', text: 'long prompt', cache_control: { type: 'ephemeral', ttl: '1h' } }],
          messages: [{ role: 'user', content: 'hi' }],
        },
      });
      expect(response.statusCode, response.body).toBe(200);
      // The answer does not wait for its settlement's commit.
      await context.services.billing.wallet.settled();
      const call = await context.storage.db
        .selectFrom('billing_calls')
        .selectAll()
        .where('customer_id', '=', buyer.customerId)
        .executeTakeFirstOrThrow();
      expect(call).toMatchObject({ status: 'settled' });
      expect(Number(call.input_tokens)).toBe(600);
      expect(Number(call.cached_input_tokens)).toBe(200);
      expect(Number(call.cache_write_tokens)).toBe(300);
      expect(Number(call.cache_write_1h_tokens)).toBe(100);
      // The standard card ($4/M in, $24/M out) names no cache-read price, so reads cost the input rate.
      expect(Number(call.cost_micros)).toBe(400 + 800 + 1_000 + 800 + 240);
      const usage = await context.app.inject({ method: 'GET', url: '/api/v1/billing/token-usage', headers });
      expect(usage.json().transactions[0]).toMatchObject({ cache_write_tokens: 300, cache_write_1h_tokens: 100, cached_input_tokens: 200 });
    });
  });
});
