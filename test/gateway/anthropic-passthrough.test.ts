/**
 * Messages → Anthropic-kind destination is a near-lossless passthrough: a recorded Claude Code 2.1.197 request
 * (system blocks with cache marks, a mid-conversation system message, adaptive thinking, output_config,
 * context_management, metadata, 24 tools, beta headers) reaches the upstream as sent apart from the model, and the
 * upstream's reply comes back as sent apart from the model. Towards an OpenAI-kind destination the same request
 * is translated (system in place, effort).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

interface Fixture {
  path: string;
  headers: Record<string, string>;
  body: Record<string, any>;
}

const FIXTURE: Fixture = JSON.parse(readFileSync(new URL('../fixtures/claude-code-2.1.197-tool-round-trip.json', import.meta.url), 'utf8'));

let gateway: GatewayTestContext;
beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => gateway.close());
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

function post(body: unknown, headers: Record<string, string> = FIXTURE.headers): Promise<Response> {
  return fetch(`${gateway.url}${FIXTURE.path}`, {
    method: 'POST',
    headers: { ...headers, 'x-api-key': gateway.key },
    body: JSON.stringify(body),
  });
}

function sse(events: Record<string, any>[]): string {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

const UPSTREAM_EVENTS = [
  {
    type: 'message_start',
    message: {
      id: 'msg_up_1',
      type: 'message',
      role: 'assistant',
      model: 'upstream-claude',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 20_000,
        cache_read_input_tokens: 3_000,
        output_tokens: 1,
        service_tier: 'standard',
      },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The note names a bird.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-abc' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'The word is heron.' } },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 25 },
    context_management: { applied_edits: [] },
  },
  { type: 'message_stop' },
];

describe('Claude Code request → Anthropic-kind model', () => {
  it('reaches the upstream as sent: cache marks, system blocks, system messages, thinking, beta headers', async () => {
    gateway.upstream.enqueue({ kind: 'raw', contentType: 'text/event-stream', body: sse(UPSTREAM_EVENTS) });
    const response = await post({ ...FIXTURE.body, model: MODELS.anthropic });
    expect(response.status).toBe(200);
    const text = await response.text();

    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe('/v1/messages');
    expect(sent!.body).toEqual({ ...FIXTURE.body, model: 'upstream-claude' });
    expect(sent!.headers['anthropic-beta']).toBe(FIXTURE.headers['anthropic-beta']);
    expect(sent!.headers['x-api-key']).toBe('sk-upstream-anthropic');
    // The checks the fixture exists for, spelled out.
    expect(sent!.body.system).toHaveLength(3);
    expect(JSON.stringify(sent!.body).match(/"cache_control"/g)).toHaveLength(3);
    expect(sent!.body.messages[1]).toMatchObject({ role: 'system' });
    expect(sent!.body.thinking).toEqual({ type: 'adaptive' });
    expect(sent!.body.output_config).toEqual({ effort: 'high' });
    expect(sent!.body.context_management).toEqual(FIXTURE.body.context_management);
    expect(sent!.body.metadata).toEqual(FIXTURE.body.metadata);
    expect(sent!.body.tools).toHaveLength(24);

    // The stream comes back event for event, only the model relabelled.
    const expected = UPSTREAM_EVENTS.map((event) =>
      event.type === 'message_start' ? { ...event, message: { ...event.message, model: MODELS.anthropic } } : event,
    );
    const received = text
      .split('\n\n')
      .filter((block) => block.startsWith('event:'))
      .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)));
    expect(received).toEqual(expected);
  });

  it('keeps signed thinking blocks in history, top_k, service_tier and unknown fields; returns the body as sent', async () => {
    const body = structuredClone(FIXTURE.body);
    const assistant = body.messages.find((message: { role: string }) => message.role === 'assistant');
    assistant.content.unshift(
      { type: 'thinking', thinking: 'I should read the file.', signature: 'sig-history' },
      { type: 'redacted_thinking', data: 'opaque' },
    );
    body.messages[0].content.push({
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: 'notes' },
      cache_control: { type: 'ephemeral', ttl: '1h' },
    });
    Object.assign(body, { model: MODELS.anthropic, stream: false, top_k: 5, service_tier: 'auto', a_future_field: { kept: true } });
    const upstreamReply = {
      id: 'msg_up_2',
      type: 'message',
      role: 'assistant',
      model: 'upstream-claude',
      content: [
        { type: 'thinking', thinking: 'Reading done.', signature: 'sig-reply' },
        { type: 'text', text: 'heron', citations: null },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 20_000,
        output_tokens: 7,
        service_tier: 'standard',
      },
      container: null,
    };
    gateway.upstream.enqueue({ kind: 'raw', contentType: 'application/json', body: JSON.stringify(upstreamReply) });
    const response = await post(body);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ...upstreamReply, model: MODELS.anthropic });
    const [sent] = gateway.upstream.requests;
    expect(sent!.body).toEqual({ ...body, model: 'upstream-claude' });
  });

  it('refuses, never trims, a block only an Anthropic-kind model reads when the model is OpenAI-kind', async () => {
    const body = structuredClone(FIXTURE.body);
    body.messages[0].content.push({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' } });
    const response = await post({ ...body, model: MODELS.openai, stream: false });
    expect(response.status).toBe(400);
    const error = await response.json();
    expect(error.error.message).toContain('content block type document');
    expect(gateway.upstream.requests).toHaveLength(0);
  });
});

describe('Claude Code request → OpenAI-kind model', () => {
  it('keeps mid-conversation system messages in place and maps the effort', async () => {
    gateway.upstream.enqueue({ kind: 'text', text: 'The word is heron.' });
    const response = await post({ ...FIXTURE.body, model: MODELS.openai });
    expect(response.status).toBe(200);
    await response.text();
    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    const messages = sent!.body.messages;
    expect(messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'system', 'assistant', 'tool']);
    // The system array arrives as one system message, in order.
    expect(messages[0].content).toBe(FIXTURE.body.system.map((block: { text: string }) => block.text).join('\n'));
    expect(messages[2].content).toBe(FIXTURE.body.messages[1].content);
    expect(messages[4]).toMatchObject({ role: 'tool', tool_call_id: 'toolu_read_1' });
    expect(sent!.body.reasoning_effort).toBe('high');
    expect(sent!.body.tools).toHaveLength(24);
  });
});

describe('reasoning from an OpenAI-kind model to a Messages caller', () => {
  const chatReply = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'upstream-gpt',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'heron', reasoning_content: 'The note names a bird.' }, finish_reason: 'stop' },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };

  it('comes back as a thinking block, whole or streamed', async () => {
    gateway.upstream.enqueue({ kind: 'raw', contentType: 'application/json', body: JSON.stringify(chatReply) });
    const whole = await post(
      { model: MODELS.openai, max_tokens: 100, messages: [{ role: 'user', content: 'Which bird?' }] },
      { 'content-type': 'application/json' },
    );
    expect((await whole.json()).content).toEqual([
      { type: 'thinking', thinking: 'The note names a bird.', signature: '' },
      { type: 'text', text: 'heron' },
    ]);

    const chunks = [
      {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'upstream-gpt',
        choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'Birds.' }, finish_reason: null }],
      },
      {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'upstream-gpt',
        choices: [{ index: 0, delta: { content: 'heron' }, finish_reason: null }],
      },
      {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'upstream-gpt',
        choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      },
      {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'upstream-gpt',
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
    ];
    gateway.upstream.enqueue({
      kind: 'raw',
      contentType: 'text/event-stream',
      body: `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`,
    });
    const streamed = await post(
      { model: MODELS.openai, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Which bird?' }] },
      { 'content-type': 'application/json' },
    );
    const events = (await streamed.text())
      .split('\n\n')
      .filter((block) => block.startsWith('event:'))
      .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)));
    expect(events.find((event) => event.type === 'content_block_start')).toMatchObject({ index: 0, content_block: { type: 'thinking' } });
    expect(events).toContainEqual({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Birds.' } });
    expect(events).toContainEqual({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'heron' } });
  });
});
