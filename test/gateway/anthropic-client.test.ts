/** The official `@anthropic-ai/sdk` client against the gateway, routed to an Anthropic-kind and an OpenAI-kind upstream. */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

const PIXEL_DATA = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

let gateway: GatewayTestContext;
let client: Anthropic;

beforeAll(async () => {
  gateway = await createGatewayContext();
  // Anthropic clients send the key as x-api-key.
  client = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 });
});
afterAll(async () => gateway.close());
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

describe.each([
  { kind: 'anthropic', model: MODELS.anthropic, path: '/v1/messages' },
  { kind: 'openai', model: MODELS.openai, path: '/v1/chat/completions' },
])('messages → $kind upstream', ({ kind, model, path }) => {
  it('creates a message with an image block and gets a tool_use back', async () => {
    gateway.upstream.enqueue({
      kind: 'tool_call',
      name: 'get_weather',
      arguments: '{"city":"Rome"}',
      callId: 'toolu_1',
      text: 'Checking.',
    });
    const message = await client.messages.create({
      model,
      max_tokens: 200,
      system: 'Be brief.',
      tools: [WEATHER_TOOL],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather where this photo was taken?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL_DATA } },
          ],
        },
      ],
    });
    expect(message.type).toBe('message');
    expect(message.model).toBe(model);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toEqual({ type: 'text', text: 'Checking.' });
    expect(message.content[1]).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Rome' } });
    expect(message.usage.output_tokens).toBeGreaterThan(0);

    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe(path);
    if (kind === 'openai') {
      expect(sent!.body.messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather where this photo was taken?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_DATA}` } },
          ],
        },
      ]);
      expect(sent!.body.tools).toEqual([
        { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_TOOL.input_schema } },
      ]);
      expect(sent!.body.max_completion_tokens).toBe(200);
    } else {
      expect(sent!.body.messages[0].content[1]).toEqual({
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: PIXEL_DATA },
      });
      expect(sent!.body.tools).toEqual([WEATHER_TOOL]);
    }
  });

  it('streams a tool call then the final text through the SDK stream helper', async () => {
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'get_weather', arguments: '{"city":"Rome"}', callId: 'toolu_2' });
    const first = client.messages.stream({
      model,
      max_tokens: 200,
      tools: [WEATHER_TOOL],
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
    });
    const events: string[] = [];
    first.on('streamEvent', (event) => events.push(event.type));
    const toolMessage = await first.finalMessage();
    expect(toolMessage.stop_reason).toBe('tool_use');
    expect(toolMessage.content).toContainEqual({ type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } });
    expect(events[0]).toBe('message_start');
    expect(events).toContain('content_block_delta');
    expect(events.at(-1)).toBe('message_stop');

    gateway.upstream.enqueue({ kind: 'text', text: 'Warm and dry in Rome.', usage: { inputTokens: 30, outputTokens: 6 } });
    const second = client.messages.stream({
      model,
      max_tokens: 200,
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather in Rome?' },
        { role: 'assistant', content: toolMessage.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: '24C, dry' }] },
      ],
    });
    const deltas: string[] = [];
    second.on('text', (text) => deltas.push(text));
    const final = await second.finalMessage();
    expect(deltas.join('')).toBe('Warm and dry in Rome.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(6);

    const sent = gateway.upstream.requests[1]!;
    expect(sent.body.stream).toBe(true);
    if (kind === 'openai') {
      expect(sent.body.messages.slice(-2)).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_2', content: '24C, dry' },
      ]);
    } else {
      expect(sent.body.messages.slice(-1)).toEqual([
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: '24C, dry' }] },
      ]);
    }
  });

  it('counts tokens', async () => {
    const counted = await client.messages.countTokens({
      model,
      messages: [{ role: 'user', content: 'How many tokens is this sentence?' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    if (kind === 'anthropic') {
      // Forwarded to the Anthropic-kind upstream with its model name.
      expect(gateway.upstream.requests[0]).toMatchObject({ path: '/v1/messages/count_tokens', body: { model: 'upstream-claude' } });
    } else {
      expect(gateway.upstream.requests).toHaveLength(0);
    }
  });
});

describe('messages routes', () => {
  it('accepts the messages-api-version header and refuses a malformed one in Anthropic error shape', async () => {
    const ok = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.key, 'content-type': 'application/json', 'messages-api-version': '2023-06-01' },
      body: JSON.stringify({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(ok.status).toBe(200);
    const bad = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.key, 'content-type': 'application/json', 'messages-api-version': 'yesterday' },
      body: JSON.stringify({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('serves no /v1/messages subpath but count_tokens: batches, traversal and encoded slashes answer 404 in Anthropic shape and reach no upstream', async () => {
    const before = gateway.upstream.requests.length;
    for (const subpath of [
      'batches',
      'batches/extra',
      '..%2F..%2Fv1%2Fcomplete',
      'count_tokens/..%2F..%2Fcomplete',
      'count_tokens%3Fx=1',
    ]) {
      for (const model of [MODELS.anthropic, MODELS.openai]) {
        const refused = await fetch(`${gateway.url}/v1/messages/${subpath}`, {
          method: 'POST',
          headers: { 'x-api-key': gateway.key, 'content-type': 'application/json' },
          body: JSON.stringify({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
        });
        expect(refused.status, subpath).toBe(404);
        expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
      }
    }
    expect(gateway.upstream.requests.length).toBe(before);
  });
});
