/**
 * The OpenAI Agents SDK (`@openai/agents`) as its users run it: default settings (the Responses API over HTTP, the
 * client taken from OPENAI_BASE_URL and OPENAI_API_KEY), an agent with a function tool the SDK runs locally and the
 * SDK's hosted web search tool. Against a chat-only model (translated, web search dropped and named), a Responses
 * model (the body as given) and an Anthropic-kind model: a text turn, and a tool turn (the model calls the tool, the
 * SDK runs it and sends its output back, the model answers).
 */
import { Agent, run, tool, webSearchTool } from '@openai/agents';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGatewayContext, MODELS, type GatewayTestContext } from '../gateway/gateway-context.js';

let gateway: GatewayTestContext;
beforeAll(async () => {
  gateway = await createGatewayContext();
  // The SDK's defaults read these, as a user's shell would set them; its trace export (to OpenAI) is off here.
  process.env.OPENAI_BASE_URL = `${gateway.url}/v1`;
  process.env.OPENAI_API_KEY = gateway.key;
  process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
});
afterAll(async () => {
  // Test files share their worker's process (vitest.config.ts: isolate false): the next file starts without these.
  delete process.env.OPENAI_BASE_URL;
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_AGENTS_DISABLE_TRACING;
  await gateway.close();
});
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

const ran: string[] = [];
const weather = tool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    ran.push(city);
    return `Sunny in ${city}, 21 C`;
  },
});

const agentFor = (model: string) =>
  new Agent({ name: 'Assistant', instructions: 'You are terse.', model, tools: [weather, webSearchTool()] });

const KINDS = [
  { destination: 'chat-only', model: MODELS.openai, path: '/v1/chat/completions' },
  { destination: 'Responses', model: MODELS.native, path: '/v1/responses' },
  { destination: 'Anthropic-kind', model: MODELS.anthropic, path: '/v1/messages' },
] as const;

describe('the Agents SDK with its default settings', () => {
  it.each(KINDS)('$destination model: a text turn', async ({ model, path }) => {
    gateway.upstream.enqueue({ kind: 'text', text: 'Hello from the agent.' });
    const result = await run(agentFor(model), 'Say hello.');
    expect(result.finalOutput).toBe('Hello from the agent.');
    const received = gateway.upstream.requests.filter((request) => request.method === 'POST');
    expect(received.map((request) => request.path)).toEqual([path]);
    const sent = JSON.stringify(received[0]!.body);
    expect(sent).toContain('You are terse.');
    expect(sent).toContain('Say hello.');
  });

  it.each(KINDS)('$destination model: a tool turn runs the tool and answers with its result', async ({ destination, model, path }) => {
    ran.length = 0;
    gateway.upstream.enqueue(
      { kind: 'tool_call', name: 'weather', arguments: JSON.stringify({ city: 'Rome' }), callId: 'call_weather_1' },
      { kind: 'text', text: 'It is sunny in Rome.' },
    );
    const result = await run(agentFor(model), 'Weather in Rome?');
    expect(result.finalOutput).toBe('It is sunny in Rome.');
    expect(ran).toEqual(['Rome']);
    const received = gateway.upstream.requests.filter((request) => request.method === 'POST');
    expect(received.map((request) => request.path)).toEqual([path, path]);
    // The tool's output went back to the model in the second request.
    expect(JSON.stringify(received[1]!.body)).toContain('Sunny in Rome, 21 C');
    const tools = JSON.stringify(received[0]!.body.tools);
    expect(tools).toContain('weather');
    // Web search goes where the model runs it; a chat-only model gets the call without it.
    if (destination === 'chat-only') {
      expect(tools).not.toContain('web_search');
      expect(received[0]!.body.web_search_options).toBeUndefined();
    } else expect(tools).toContain('web_search');
  });
});
