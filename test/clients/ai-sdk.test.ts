/**
 * Vercel AI SDK 6 against the service with an Anthropic-kind destination: `generateObject` through the OpenAI chat
 * and Responses providers (structured output emulated with a forced tool, the object parsed from the answer), and
 * reasoning options translated both ways.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGatewayContext, MODELS, type GatewayTestContext } from '../gateway/gateway-context.js';

let gateway: GatewayTestContext;
beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => gateway.close());
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

const Recipe = z.object({ name: z.string(), minutes: z.number().int() });
const RECIPE = { name: 'Pancakes', minutes: 20 };

describe('generateObject → Anthropic-kind model', () => {
  it.each(['chat', 'responses'] as const)('through the OpenAI %s provider: forced tool upstream, parsed object back', async (api) => {
    const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key });
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'structured_output', arguments: JSON.stringify(RECIPE), callId: 'toolu_so_1' });
    const result = await generateObject({
      model: api === 'chat' ? openai.chat(MODELS.anthropic) : openai.responses(MODELS.anthropic),
      schema: Recipe,
      prompt: 'A quick breakfast recipe.',
    });
    expect(result.object).toEqual(RECIPE);
    expect(result.finishReason).toBe('stop');

    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe('/v1/messages');
    expect(sent!.body.tool_choice).toEqual({ type: 'tool', name: 'structured_output' });
    const tool = sent!.body.tools.find((entry: { name: string }) => entry.name === 'structured_output');
    expect(tool.input_schema).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string' }, minutes: { type: 'integer' } },
      required: ['name', 'minutes'],
    });
  });
});

describe('reasoning options', () => {
  it('OpenAI reasoning effort → Anthropic thinking with a budget below max_tokens', async () => {
    const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key });
    gateway.upstream.enqueue({ kind: 'text', text: 'Thought about it.' });
    const result = await generateText({
      model: openai.chat(MODELS.anthropic),
      prompt: 'Think, then answer.',
      maxOutputTokens: 20_000,
      providerOptions: { openai: { reasoningEffort: 'high', forceReasoning: true } },
    });
    expect(result.text).toBe('Thought about it.');
    const [sent] = gateway.upstream.requests;
    expect(sent!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 16_384 });
    expect(sent!.body.max_tokens).toBe(20_000);
    expect(sent!.body.temperature).toBeUndefined();
  });

  it('Anthropic thinking from the Anthropic provider → reasoning_effort on an OpenAI-kind model', async () => {
    const anthropic = createAnthropic({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key });
    gateway.upstream.enqueue({ kind: 'text', text: 'Reasoned.' });
    const result = await generateText({
      model: anthropic(MODELS.openai),
      prompt: 'Think, then answer.',
      maxOutputTokens: 30_000,
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 20_000 } } },
    });
    expect(result.text).toBe('Reasoned.');
    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.body.reasoning_effort).toBe('high');
  });
});
