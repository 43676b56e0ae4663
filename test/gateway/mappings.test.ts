/** The small pure mappings of the gateway, one assertion group each. */
import { describe, expect, it } from 'vitest';
import { checkToolResults } from '../../src/gateway/checks.js';
import { messageObject } from '../../src/gateway/protocols/messages/encode.js';
import { chatCompletionObject } from '../../src/gateway/protocols/chat/encode.js';
import { usageFromAnthropic } from '../../src/gateway/providers/anthropic/convert-usage.js';
import { finishFromAnthropic } from '../../src/gateway/providers/anthropic/map-stop-reason.js';
import { usageFromChat } from '../../src/gateway/providers/openai/convert-usage.js';
import { finishFromChat, finishFromResponse } from '../../src/gateway/providers/openai/map-stop-reason.js';
import { ToolCallTracker } from '../../src/gateway/providers/shared/custom-tools.js';
import { sseEventBatches } from '../../src/gateway/providers/shared/sse-decoder.js';
import { parseRetryAfter, upstreamError } from '../../src/gateway/normalized/index.js';
import type { NormalizedRequest } from '../../src/gateway/normalized/index.js';

describe('upstream error factory', () => {
  it('maps statuses to what the caller sees, always with a Retry-After for 429 and 5xx', () => {
    expect(upstreamError({ kind: 'status', upstreamStatus: 429, retryAfterHeader: '12' })).toMatchObject({
      status: 429,
      retryable: true,
      retryAfterSeconds: 12,
    });
    expect(upstreamError({ kind: 'status', upstreamStatus: 429 }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(upstreamError({ kind: 'status', upstreamStatus: 500 })).toMatchObject({ status: 502, retryable: true });
    expect(upstreamError({ kind: 'status', upstreamStatus: 529 })).toMatchObject({ status: 503 });
    expect(upstreamError({ kind: 'status', upstreamStatus: 401 })).toMatchObject({ status: 502, retryable: false });
    expect(upstreamError({ kind: 'connect' })).toMatchObject({ status: 503, retryable: true });
    expect(upstreamError({ kind: 'timeout' }).status).toBe(502);
    const client = upstreamError({ kind: 'status', upstreamStatus: 400, message: 'bad at http://10.0.0.5:8080/v1 and 10.0.0.5:8080' });
    expect(client.status).toBe(400);
    expect(client.message).not.toMatch(/10\.0\.0\.5|http:/);
    expect(upstreamError({ kind: 'status', upstreamStatus: 503 }).toAppError()).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryAfterSeconds: 2,
    });
  });

  it('reads Retry-After as seconds or an HTTP date, rounding up to whole seconds', () => {
    expect(parseRetryAfter('1.2')).toBe(2);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('stop reasons and usage', () => {
  it('normalizes finish reasons of both providers', () => {
    expect(['stop', 'length', 'tool_calls', 'content_filter', null].map(finishFromChat)).toEqual([
      'stop',
      'length',
      'tool-calls',
      'content-filter',
      'other',
    ]);
    expect(['end_turn', 'max_tokens', 'tool_use', 'refusal', 'pause_turn', 'unknown'].map(finishFromAnthropic)).toEqual([
      'stop',
      'length',
      'tool-calls',
      'content-filter',
      'pause',
      'other',
    ]);
    // A paused turn reaches an Anthropic caller as paused (it continues the turn), an OpenAI caller as a stop.
    const paused = { text: 'working', reasoning: '', toolCalls: [], finish: 'pause' as const };
    expect(messageObject({ model: 'm', collected: paused, estimatedInputTokens: 1 }).stop_reason).toBe('pause_turn');
    expect(
      (chatCompletionObject({ id: 'c', createdSeconds: 0, model: 'm', collected: paused }).choices as { finish_reason: string }[])[0]!
        .finish_reason,
    ).toBe('stop');
    expect(finishFromResponse({ status: 'completed', output: [{ type: 'custom_tool_call' }] })).toBe('tool-calls');
    expect(finishFromResponse({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })).toBe('length');
  });

  it('counts Anthropic cache reads and writes as input and keeps cached tokens apart', () => {
    const usage = usageFromAnthropic({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 });
    expect(usage).toEqual({ inputTokens: 130, outputTokens: 5, cachedInputTokens: 100, cacheWriteInputTokens: 20 });
    // An Anthropic caller gets the three input figures back apart, as Anthropic reports them.
    const collected = { text: '', reasoning: '', toolCalls: [], usage, finish: 'stop' as const };
    expect(messageObject({ model: 'm', collected, estimatedInputTokens: 1 }).usage).toMatchObject({
      input_tokens: 10,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 20,
    });
    expect(usageFromChat({ prompt_tokens: 7, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } })).toMatchObject({
      inputTokens: 7,
      outputTokens: 3,
      cachedInputTokens: 2,
    });
  });
});

describe('custom (freeform) tool calls on JSON-only upstreams', () => {
  it('collects the wrapped arguments and emits the raw input once the call ends', () => {
    const tracker = new ToolCallTracker(new Set(['apply_patch']));
    expect(tracker.start(0, 'call_1', 'apply_patch')).toMatchObject({ kind: 'custom' });
    expect(tracker.delta(0, '{"input":"*** Begin')).toBeUndefined();
    expect(tracker.delta(0, ' Patch\\n"}')).toBeUndefined();
    expect(tracker.end(0)).toEqual([
      { type: 'tool-call-delta', index: 0, delta: '*** Begin Patch\n' },
      { type: 'tool-call-end', index: 0 },
    ]);
    const functions = new ToolCallTracker(new Set());
    expect(functions.start(1, 'call_2', 'exec')).toMatchObject({ kind: 'function' });
    expect(functions.delta(1, '{"a":1}')).toEqual({ type: 'tool-call-delta', index: 1, delta: '{"a":1}' });
  });
});

describe('SSE decoding', () => {
  it('handles CRLF, comments, multi-line data and events split across chunks and inside UTF-8 characters', async () => {
    const text = ': keep-alive\r\nevent: a\r\ndata: {"x":\r\ndata: "é"}\r\n\r\ndata: [DONE]\n\n';
    const bytes = Buffer.from(text, 'utf8');
    const chunks = [bytes.subarray(0, 30), bytes.subarray(30, 41), bytes.subarray(41)];
    const events = [];
    for await (const batch of sseEventBatches(
      (async function* () {
        yield* chunks;
      })(),
    ))
      events.push(...batch);
    expect(events.map((event) => [event.event, event.data])).toEqual([
      ['a', '{"x":\n"é"}'],
      [undefined, '[DONE]'],
    ]);
  });
});

describe('tool result check', () => {
  const request = (messages: NormalizedRequest['messages']): NormalizedRequest => ({ model: 'm', messages, tools: [], stream: false });
  it('passes answered calls and names the first unanswered one', () => {
    const call = (id: string) => ({ id, kind: 'function' as const, name: 'f', arguments: '{}' });
    expect(() =>
      checkToolResults(
        request([
          { role: 'assistant', content: [], toolCalls: [call('a')] },
          { role: 'tool', toolCallId: 'a', content: [] },
        ]),
      ),
    ).not.toThrow();
    expect(() =>
      checkToolResults(
        request([
          { role: 'assistant', content: [], toolCalls: [call('a'), call('b')] },
          { role: 'tool', toolCallId: 'a', content: [] },
          { role: 'assistant', content: [], toolCalls: [] },
        ]),
      ),
    ).toThrow(/missing tool_call_id: b/);
  });
});
