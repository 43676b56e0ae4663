/** Every failure row of the gateway: upstream statuses, refused connections, capability refusals, mid-stream errors, disconnects. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

let gateway: GatewayTestContext;

/** A loopback port that was just closed: connecting to it is refused. */
async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

beforeAll(async () => {
  gateway = await createGatewayContext({ refusedUrl: await closedPortUrl() });
});
afterAll(async () => gateway.close());

const chatBody = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });
const messagesBody = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 50,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

function post(path: string, body: unknown, options: { signal?: AbortSignal; apiKeyHeader?: boolean } = {}): Promise<Response> {
  const auth: Record<string, string> = options.apiKeyHeader ? { 'x-api-key': gateway.key } : { authorization: `Bearer ${gateway.key}` };
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: options.signal,
  });
}

describe('upstream failures before the answer', () => {
  it('passes an upstream 429 on as 429 with the upstream Retry-After, in each protocol', async () => {
    gateway.upstream.enqueue({ kind: 'http_error', status: 429, headers: { 'retry-after': '7' } });
    const chat = await post('/v1/chat/completions', chatBody(MODELS.openai));
    expect(chat.status).toBe(429);
    expect(chat.headers.get('retry-after')).toBe('7');
    expect(chat.headers.get('x-request-id')).toMatch(/^req_/);
    expect((await chat.json()).error.type).toBe('rate_limit_error');

    gateway.upstream.enqueue({
      kind: 'http_error',
      status: 429,
      headers: {
        'anthropic-ratelimit-requests-remaining': '0',
        'anthropic-ratelimit-requests-reset': '2026-11-25T00:00:07Z',
        'x-internal-route': 'node-7',
      },
    });
    const messages = await post('/v1/messages', messagesBody(MODELS.anthropic), { apiKeyHeader: true });
    expect(messages.status).toBe(429);
    // Anthropic clients read the rate-limit headers; nothing else of the upstream's headers is passed on.
    expect(messages.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(messages.headers.get('anthropic-ratelimit-requests-reset')).toBe('2026-11-25T00:00:07Z');
    expect(messages.headers.get('x-internal-route')).toBeNull();
    expect(Number(messages.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(messages.headers.get('retry-after')))).toBe(true);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('maps an upstream 500 to 502 with Retry-After and no upstream address in the body', async () => {
    gateway.upstream.enqueue({ kind: 'http_error', status: 500, body: { error: { message: `boom at ${gateway.upstream.url}` } } });
    const before = gateway.upstream.requests.length;
    const response = await post('/v1/responses', { model: MODELS.native, input: 'hi' });
    expect(response.status).toBe(502);
    // A request that reached the upstream is never resent.
    expect(gateway.upstream.requests.length).toBe(before + 1);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const text = await response.text();
    expect(text).not.toContain('127.0.0.1');
    expect(JSON.parse(text).error.type).toBe('api_error');
  });

  it('answers 503 with Retry-After when the upstream refuses the connection, through the official client too', async () => {
    const response = await post('/v1/chat/completions', chatBody('refused-model'));
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await response.text()).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);

    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 });
    await expect(client.chat.completions.create(chatBody('refused-model') as never)).rejects.toMatchObject({ status: 503 });
  });

  it('answers 502 with Retry-After when the upstream does not answer within the request timeout, and aborts it', async () => {
    gateway.upstream.enqueue({ kind: 'hang' });
    const before = gateway.upstream.requests.length;
    const response = await post('/v1/chat/completions', chatBody('impatient-model'));
    expect(response.status).toBe(502);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await response.json()).error.message).toContain('did not answer in time');
    const [recorded] = gateway.upstream.requests.slice(before);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(recorded!.aborted).toBe(true);
  });

  it('refuses an image for a destination without image support (4xx) and never calls the upstream', async () => {
    const before = gateway.upstream.requests.length;
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };
    const chat = await post('/v1/chat/completions', {
      model: MODELS.textOnly,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, image] }],
    });
    expect(chat.status).toBe(400);
    expect((await chat.json()).error.message).toContain('does not accept image input');
    const responses = await post('/v1/responses', {
      model: MODELS.textOnly,
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] }],
    });
    expect(responses.status).toBe(400);
    const tools = await post(
      '/v1/chat/completions',
      chatBody(MODELS.textOnly, { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] }),
    );
    expect(tools.status).toBe(400);
    expect((await tools.json()).error.message).toContain('does not support tools');
    expect(gateway.upstream.requests.length).toBe(before);
  });

  it('refuses a history whose tool call has no tool result, naming the missing id', async () => {
    const before = gateway.upstream.requests.length;
    const response = await post('/v1/chat/completions', {
      model: MODELS.openai,
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_answered', type: 'function', function: { name: 'w', arguments: '{}' } },
            { id: 'call_forgotten', type: 'function', function: { name: 'w', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_answered', content: 'ok' },
        { role: 'user', content: 'and?' },
      ],
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.message).toContain('call_forgotten');
    expect(body.error.missing_tool_call_id).toBe('call_forgotten');
    expect(gateway.upstream.requests.length).toBe(before);
  });

  it("rejects malformed bodies with 400 invalid_request_error, in each protocol's shape, before any upstream call", async () => {
    const response = await post('/v1/chat/completions', { model: MODELS.openai });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    const messages = await post(
      '/v1/messages',
      { model: MODELS.anthropic, messages: [{ role: 'user', content: 'hi' }] },
      { apiKeyHeader: true },
    );
    expect(messages.status).toBe(400);
    const body = await messages.json();
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('max_tokens');
  });
});

describe('upstream failures after the stream started', () => {
  it('chat: an error chunk then [DONE], never a normal finish', async () => {
    gateway.upstream.enqueue({ kind: 'error_after_200', text: 'Partial answer', message: 'upstream exploded' });
    const response = await post('/v1/chat/completions', chatBody(MODELS.anthropic, { stream: true }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const text = await response.text();
    expect(text).toContain('"content":"Partial ');
    expect(text).toMatch(/data: \{"error":\{"message":"upstream exploded"[^\n]*\n\ndata: \[DONE\]\n\n$/);
    expect(text).not.toContain('"finish_reason":"stop"');
  });

  it('responses: response.failed (built, and relayed from a native upstream), never response.completed', async () => {
    gateway.upstream.enqueue({ kind: 'drop_mid_stream', text: 'one two three four', afterChunks: 2 });
    const built = await (await post('/v1/responses', { model: MODELS.openai, input: 'hi', stream: true })).text();
    expect(built).toContain('event: response.output_text.delta');
    expect(built).toContain('event: response.failed');
    expect(built).not.toContain('response.completed');

    gateway.upstream.enqueue({ kind: 'error_after_200', text: 'Partial', message: 'native failure' });
    const native = await (await post('/v1/responses', { model: MODELS.native, input: 'hi', stream: true })).text();
    const failed = native.split('\n\n').find((frame) => frame.startsWith('event: response.failed'));
    expect(failed).toBeDefined();
    const payload = JSON.parse(failed!.split('data: ')[1]!);
    expect(payload.response).toMatchObject({ status: 'failed', model: MODELS.native, error: { message: 'native failure' } });
    expect(native).not.toContain('response.completed');

    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 });
    gateway.upstream.enqueue({ kind: 'drop_mid_stream', text: 'one two three', afterChunks: 1 });
    const types: string[] = [];
    for await (const event of await client.responses.create({ model: MODELS.anthropic, input: 'hi', stream: true })) types.push(event.type);
    expect(types.at(-1)).toBe('response.failed');
  });

  it('a stream whose upstream falls silent longer than the idle timeout ends with an error event', async () => {
    gateway.upstream.enqueue({ kind: 'text', text: 'slow words here', chunkDelayMs: 1_000 });
    const text = await (await post('/v1/chat/completions', chatBody('impatient-model', { stream: true }))).text();
    expect(text).toContain('"content":"slow ');
    expect(text).toMatch(/data: \{"error":\{"message":"The upstream model provider did not answer in time"[^\n]*\n\ndata: \[DONE\]\n\n$/);
  });

  it('messages: event: error and no message_stop', async () => {
    gateway.upstream.enqueue({ kind: 'error_after_200', text: 'Partial', message: 'overheated' });
    const response = await post('/v1/messages', messagesBody(MODELS.openai, { stream: true }), { apiKeyHeader: true });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('event: message_start');
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"overheated"\}\}\n\n$/);
    expect(text).not.toContain('message_stop');
  });

  it('a non-streaming call whose upstream broke mid-body gets 502, not a partial success', async () => {
    gateway.upstream.enqueue({ kind: 'drop_mid_stream', text: 'x y z', afterChunks: 1 });
    const response = await post('/v1/chat/completions', chatBody(MODELS.openai));
    expect(response.status).toBe(502);
    expect(response.headers.get('retry-after')).not.toBeNull();
  });
});

describe('client disconnects', () => {
  async function expectUpstreamAbortedWithinOneSecond(path: string, body: unknown, apiKeyHeader = false): Promise<void> {
    const before = gateway.upstream.requests.length;
    gateway.upstream.enqueue({ kind: 'text', text: 'a '.repeat(100), chunks: 100, chunkDelayMs: 100 });
    const controller = new AbortController();
    const response = await post(path, body, { signal: controller.signal, apiKeyHeader });
    const reader = response.body!.getReader();
    await reader.read();
    const [recorded] = (await gateway.upstream.waitForRequests(before + 1)).slice(before);
    controller.abort();
    const abortedAtMs = Date.now();
    while (!recorded!.aborted && Date.now() - abortedAtMs < 1_000) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(recorded!.aborted).toBe(true);
    expect(Date.now() - abortedAtMs).toBeLessThan(1_000);
  }

  it('chat stream → the upstream request is aborted within 1 s', async () => {
    await expectUpstreamAbortedWithinOneSecond('/v1/chat/completions', chatBody(MODELS.openai, { stream: true }));
  });

  it('messages stream → the upstream request is aborted within 1 s', async () => {
    await expectUpstreamAbortedWithinOneSecond('/v1/messages', messagesBody(MODELS.anthropic, { stream: true }), true);
  });

  it('native responses stream → the upstream request is aborted within 1 s', async () => {
    await expectUpstreamAbortedWithinOneSecond('/v1/responses', { model: MODELS.native, input: 'hi', stream: true });
  });

  it('a client that leaves while the upstream has not answered yet aborts it too', async () => {
    const before = gateway.upstream.requests.length;
    gateway.upstream.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const pending = post('/v1/chat/completions', chatBody(MODELS.openai), { signal: controller.signal }).catch(() => undefined);
    const [recorded] = (await gateway.upstream.waitForRequests(before + 1)).slice(before);
    controller.abort();
    await pending;
    const abortedAtMs = Date.now();
    while (!recorded!.aborted && Date.now() - abortedAtMs < 1_000) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(recorded!.aborted).toBe(true);
  });
});
