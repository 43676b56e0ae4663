/** Every call is metered: begin before the upstream, settle exactly once on every exit path, usage estimated when missing. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Meter, MeteredUsage, MeterRequest } from '../../src/billing/meter.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

interface Settlement {
  request: MeterRequest;
  usage: MeteredUsage;
  status: string;
}

let gateway: GatewayTestContext;
let begun: MeterRequest[] = [];
let settlements: Settlement[] = [];

const recordingMeter: Meter = {
  async begin(request) {
    begun.push(request);
    return {
      holdMicros: 0,
      async settle(usage, status) {
        settlements.push({ request, usage, status });
        return { costMicros: 0, covered: true };
      },
    };
  },
};

beforeAll(async () => {
  gateway = await createGatewayContext();
  gateway.context.services.gateway.executeDeps.meter = recordingMeter;
});
afterAll(async () => gateway.close());
beforeEach(() => {
  begun = [];
  settlements = [];
});

function post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

async function settled(count: number): Promise<Settlement[]> {
  const deadline = Date.now() + 2_000;
  while (settlements.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
  return settlements;
}

describe('metering', () => {
  it('begins with the requested alias and its destination, and settles upstream usage once', async () => {
    gateway.upstream.enqueue({ kind: 'text', text: 'fine', usage: { inputTokens: 11, outputTokens: 3 } });
    const response = await post('/v1/chat/completions', { model: 'power-ai', max_tokens: 99, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(begun).toEqual([
      expect.objectContaining({
        requestedModel: 'power-ai',
        modelId: MODELS.openai,
        operation: 'chat',
        maxOutputTokens: 99,
        requestId: response.headers.get('x-request-id'),
      }),
    ]);
    expect(await settled(1)).toEqual([
      expect.objectContaining({
        status: 'completed',
        usage: { inputTokens: 11, outputTokens: 3, cachedInputTokens: undefined, source: 'upstream' },
      }),
    ]);
  });

  it('estimates with the tokenizer when the upstream reports no usage, and says so', async () => {
    gateway.upstream.enqueue({ kind: 'text', text: 'a reply of several words', omitUsage: true });
    const response = await post('/v1/messages', {
      model: MODELS.openai,
      max_tokens: 20,
      stream: true,
      messages: [{ role: 'user', content: 'count me' }],
    });
    await response.text();
    const [settlement] = await settled(1);
    expect(settlement).toMatchObject({ status: 'completed', usage: { source: 'estimated' } });
    expect(settlement!.usage.outputTokens).toBeGreaterThan(1);
    expect(settlement!.usage.inputTokens).toBeGreaterThan(0);
  });

  it('settles once as aborted, with the streamed output estimated, when the client disconnects', async () => {
    gateway.upstream.enqueue({ kind: 'text', text: 'word '.repeat(50), chunks: 50, chunkDelayMs: 50 });
    const controller = new AbortController();
    const response = await post(
      '/v1/chat/completions',
      { model: MODELS.openai, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      controller.signal,
    );
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    controller.abort();
    const all = await settled(1);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ status: 'aborted', usage: { source: 'estimated' } });
    expect(all[0]!.usage.outputTokens).toBeGreaterThanOrEqual(1);
  });

  it('settles once as failed on an upstream error before or after the stream started', async () => {
    gateway.upstream.enqueue({ kind: 'http_error', status: 500 });
    expect((await post('/v1/responses', { model: MODELS.native, input: 'hi' })).status).toBe(502);
    gateway.upstream.enqueue({ kind: 'error_after_200', text: 'partial', message: 'gone' });
    await (await post('/v1/responses', { model: MODELS.openai, input: 'hi', stream: true })).text();
    const all = await settled(2);
    expect(all.map((settlement) => settlement.status)).toEqual(['failed', 'failed']);
    // The 500 consumed nothing: nothing is billed for it.
    expect(all[0]!.usage).toMatchObject({ inputTokens: 0, outputTokens: 0 });
    expect(all[1]!.usage.outputTokens).toBeGreaterThan(0);
  });

  it('does not begin a metered call for a request refused before the upstream (unknown model, capability)', async () => {
    await post('/v1/chat/completions', { model: 'nope', messages: [{ role: 'user', content: 'hi' }] });
    await post('/v1/chat/completions', {
      model: MODELS.textOnly,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] }],
    });
    expect(begun).toHaveLength(0);
    expect(settlements).toHaveLength(0);
  });
});
