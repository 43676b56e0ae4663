/**
 * Chat completions to an OpenAI-kind model go as the caller wrote them (every field arrives, `model` rewritten) and
 * the reply is relayed; legacy `functions` callers are answered with `function_call` when the call is translated
 * (Anthropic), streamed or not; a hosted tool the model lacks is left out and named.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

let gateway: GatewayTestContext;
beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => gateway.close());
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

function post(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const EVERY_OPTION = {
  seed: 7,
  user: 'end-user-1',
  safety_identifier: 'sid-1',
  prompt_cache_key: 'thread-1',
  logit_bias: { '50256': -100 },
  logprobs: true,
  top_logprobs: 2,
  frequency_penalty: 0.1,
  presence_penalty: 0.2,
  service_tier: 'flex',
  verbosity: 'low',
  metadata: { tag: 'x' },
  a_future_option: { nested: [1, 2] },
};

describe('chat → OpenAI-kind chat: the body as sent', () => {
  it('every field arrives, only model rewritten; nothing is named as dropped', async () => {
    const body = {
      model: MODELS.openai,
      messages: [{ role: 'user', content: 'hi', cache_control: { type: 'ephemeral' } }],
      ...EVERY_OPTION,
    };
    const response = await post(body);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-dropped-fields')).toBeNull();
    const answer = await response.json();
    expect(answer.model).toBe(MODELS.openai);
    expect(answer.choices[0].message.content).toBe('Hello from the scripted model.');
    const sent = gateway.upstream.requests[0]!.body;
    expect(sent).toEqual({ ...body, model: 'upstream-gpt', stream: false });
  });

  it('streams the upstream chunks relabelled, without the usage chunk the caller did not ask for', async () => {
    const response = await post({ model: MODELS.openai, messages: [{ role: 'user', content: 'hi' }], stream: true, seed: 3 });
    const text = await response.text();
    const chunks = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice(6)));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((chunk) => chunk.model === MODELS.openai && chunk.id === chunks[0].id)).toBe(true);
    expect(chunks.some((chunk) => chunk.usage && chunk.choices.length === 0)).toBe(false);
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    const sent = gateway.upstream.requests[0]!.body;
    expect(sent).toMatchObject({ seed: 3, stream: true, stream_options: { include_usage: true } });
  });

  it('web_search_options to a chat-only model: left out and named, the call goes on', async () => {
    const response = await post({ model: MODELS.openai, messages: [{ role: 'user', content: 'hi' }], web_search_options: {} });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-dropped-tools')).toBe('web_search');
    expect(gateway.upstream.requests[0]!.body.web_search_options).toBeUndefined();
  });
});

describe('legacy functions, translated to Anthropic', () => {
  const legacy = {
    model: MODELS.anthropic,
    messages: [{ role: 'user', content: 'weather in Oslo?' }],
    functions: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
  };

  it('answers with function_call, not tool_calls', async () => {
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'get_weather', arguments: '{"city":"Oslo"}', callId: 'toolu_1' });
    const answer = await (await post(legacy)).json();
    expect(answer.choices[0].finish_reason).toBe('function_call');
    expect(answer.choices[0].message.function_call).toEqual({ name: 'get_weather', arguments: '{"city":"Oslo"}' });
    expect(answer.choices[0].message.tool_calls).toBeUndefined();
  });

  it('streams function_call deltas', async () => {
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'get_weather', arguments: '{"city":"Oslo"}', callId: 'toolu_2' });
    const text = await (await post({ ...legacy, stream: true })).text();
    const deltas = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice(6)).choices[0]);
    expect(deltas.some((choice) => choice.delta.tool_calls)).toBe(false);
    expect(deltas.find((choice) => choice.delta.function_call?.name)?.delta.function_call.name).toBe('get_weather');
    const args = deltas.map((choice) => choice.delta.function_call?.arguments ?? '').join('');
    expect(JSON.parse(args)).toEqual({ city: 'Oslo' });
    expect(deltas.at(-1)!.finish_reason).toBe('function_call');
  });
});

describe('Anthropic headers', () => {
  it('anthropic-version and anthropic-beta go upstream as sent, on messages and count_tokens', async () => {
    const headers = {
      'x-api-key': gateway.key,
      'content-type': 'application/json',
      'anthropic-version': '2024-01-01',
      'anthropic-beta': 'token-efficient-tools-2025-02-19',
    };
    const body = { model: MODELS.anthropic, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
    expect((await fetch(`${gateway.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) })).status).toBe(200);
    await fetch(`${gateway.url}/v1/messages/count_tokens`, { method: 'POST', headers, body: JSON.stringify(body) });
    const sent = gateway.upstream.requests.filter((request) => request.method === 'POST');
    expect(sent.map((request) => request.path)).toEqual(['/v1/messages', '/v1/messages/count_tokens']);
    for (const request of sent) {
      expect(request.headers['anthropic-version']).toBe('2024-01-01');
      expect(request.headers['anthropic-beta']).toBe('token-efficient-tools-2025-02-19');
    }
  });
});
