/**
 * LangChain `withStructuredOutput` against an Anthropic-kind destination: through `@langchain/openai` (JSON schema
 * response format, emulated upstream with a forced tool) and through `@langchain/anthropic` (its own tool).
 */
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
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

const City = z.object({ city: z.string(), population: z.number() });
const ROME = { city: 'Rome', population: 2_750_000 };

describe('withStructuredOutput → Anthropic-kind model', () => {
  it('ChatOpenAI (json schema): forced tool upstream, parsed object back', async () => {
    const model = new ChatOpenAI({
      model: MODELS.anthropic,
      apiKey: gateway.key,
      configuration: { baseURL: `${gateway.url}/v1` },
      maxRetries: 0,
    });
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'structured_output', arguments: JSON.stringify(ROME), callId: 'toolu_lc_1' });
    const result = await model
      .withStructuredOutput(City, { name: 'city_facts', method: 'jsonSchema' })
      .invoke('The capital of Italy and its population.');
    expect(result).toEqual(ROME);
    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe('/v1/messages');
    expect(sent!.body.tool_choice).toEqual({ type: 'tool', name: 'structured_output' });
    expect(sent!.body.tools.at(-1).input_schema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'number' } },
    });
  });

  it("ChatOpenAI (function calling): the caller's own tool passes through", async () => {
    const model = new ChatOpenAI({
      model: MODELS.anthropic,
      apiKey: gateway.key,
      configuration: { baseURL: `${gateway.url}/v1` },
      maxRetries: 0,
    });
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'city_facts', arguments: JSON.stringify(ROME), callId: 'toolu_lc_2' });
    const result = await model
      .withStructuredOutput(City, { name: 'city_facts', method: 'functionCalling' })
      .invoke('The capital of Italy.');
    expect(result).toEqual(ROME);
    const [sent] = gateway.upstream.requests;
    expect(sent!.body.tool_choice).toMatchObject({ type: 'tool', name: 'city_facts' });
  });

  it('ChatAnthropic: its request goes through as sent', async () => {
    const model = new ChatAnthropic({ model: MODELS.anthropic, apiKey: gateway.key, anthropicApiUrl: gateway.url, maxRetries: 0 });
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'city_facts', arguments: JSON.stringify(ROME), callId: 'toolu_lc_3' });
    const result = await model.withStructuredOutput(City, { name: 'city_facts' }).invoke('The capital of Italy.');
    expect(result).toEqual(ROME);
    const [sent] = gateway.upstream.requests;
    expect(sent!.body.model).toBe('upstream-claude');
    expect(sent!.body.tools[0].name).toBe('city_facts');
  });
});
