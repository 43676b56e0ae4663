/** `POST /v1/embeddings` with the official `openai` client: routed to a declared embedding model, metered by input tokens. */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Meter, MeteredUsage, MeterRequest } from '../../src/billing/meter.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from '../gateway/gateway-context.js';

const EMBEDDER = 'embed-test';
let gateway: GatewayTestContext;
let client: OpenAI;
let begun: MeterRequest[] = [];
let settled: { usage: MeteredUsage; status: string }[] = [];

const recordingMeter: Meter = {
  async begin(request) {
    begun.push(request);
    return {
      holdMicros: 0,
      async settle(usage, status) {
        settled.push({ usage, status });
        return { costMicros: 0, covered: true };
      },
    };
  },
};

beforeAll(async () => {
  gateway = await createGatewayContext({
    models: [
      { id: EMBEDDER, provider: 'openai-fake', upstreamModel: 'upstream-embedder', capabilities: { tools: false, embeddings: true } },
    ],
  });
  gateway.context.services.gateway.executeDeps.meter = recordingMeter;
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 });
});
afterAll(async () => gateway.close());
beforeEach(() => {
  gateway.upstream.requests.length = 0;
  begun = [];
  settled = [];
});

describe('embeddings', () => {
  it('embeds one string (the client asks for base64 and decodes it), metered by input tokens', async () => {
    const result = await client.embeddings.create({ model: EMBEDDER, input: 'hello world' });
    expect(result.model).toBe(EMBEDDER);
    expect(result.data).toHaveLength(1);
    expect(result.data[0]!.embedding).toEqual([11, 0.5, 0.25]);
    expect(result.usage.prompt_tokens).toBe(2);
    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe('/v1/embeddings');
    expect(sent!.body).toMatchObject({ model: 'upstream-embedder', input: 'hello world', encoding_format: 'base64' });
    expect(sent!.headers.authorization).toBe('Bearer sk-upstream-openai');
    expect(begun[0]).toMatchObject({ operation: 'embeddings', requestedModel: EMBEDDER, modelId: EMBEDDER, maxOutputTokens: 0 });
    expect(begun[0]!.estimatedInputTokens).toBeGreaterThan(0);
    expect(settled).toEqual([{ usage: { inputTokens: 2, outputTokens: 0, source: 'upstream' }, status: 'completed' }]);
  });

  it('embeds a list of strings with float encoding and dimensions', async () => {
    const result = await client.embeddings.create({ model: EMBEDDER, input: ['a', 'bcd'], encoding_format: 'float', dimensions: 4 });
    expect(result.data.map((item) => item.embedding)).toEqual([
      [1, 0.5, 0.25, 0.125],
      [3, 0.5, 0.25, 0.125],
    ]);
    expect(gateway.upstream.requests[0]!.body).toMatchObject({ input: ['a', 'bcd'], encoding_format: 'float', dimensions: 4 });
  });

  it('is listed in /v1/models with its capability', async () => {
    const model = await client.models.retrieve(EMBEDDER);
    expect((model as unknown as { capabilities: { embeddings: boolean } }).capabilities.embeddings).toBe(true);
  });

  it('refuses a chat model for embeddings, and an embedding model for chat, without calling the upstream', async () => {
    await expect(client.embeddings.create({ model: MODELS.openai, input: 'x' })).rejects.toMatchObject({ status: 400 });
    await expect(client.chat.completions.create({ model: EMBEDDER, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 400,
    });
    await expect(client.embeddings.create({ model: EMBEDDER, input: '' })).rejects.toMatchObject({ status: 400 });
    expect(gateway.upstream.requests).toHaveLength(0);
    expect(settled).toEqual([]);
  });
});
