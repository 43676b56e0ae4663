/** Translations where the destination differs: structured output (native or forced tool) and reasoning ↔ thinking. */
import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from '../../src/gateway/providers/anthropic/convert-request.js';
import { toChatRequest } from '../../src/gateway/providers/openai/convert-request.js';
import { effortOf } from '../../src/gateway/protocols/messages/decode.js';
import type { NormalizedRequest } from '../../src/gateway/normalized/index.js';

const SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

function request(extra: Partial<NormalizedRequest>): NormalizedRequest {
  return { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stream: false, ...extra };
}

describe('structured output → Anthropic-kind', () => {
  const json = request({ responseFormat: { type: 'json_schema', name: 'answer', schema: SCHEMA } });

  it('uses output_config.format where the model has native structured output', () => {
    const body = toAnthropicRequest(json, { upstreamModel: 'u', defaultMaxTokens: 1000, nativeStructuredOutput: true });
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema: SCHEMA } });
    expect(body.tools).toBeUndefined();
  });

  it('forces a tool otherwise, and thinking yields to it', () => {
    const body = toAnthropicRequest({ ...json, reasoningEffort: 'high' }, { upstreamModel: 'u', defaultMaxTokens: 30_000 });
    expect(body.tools).toEqual([{ name: 'structured_output', description: expect.any(String), input_schema: SCHEMA }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'structured_output' });
    expect(body.thinking).toBeUndefined();
  });

  it('json_object becomes an open object schema', () => {
    const body = toAnthropicRequest(request({ responseFormat: { type: 'json_object' } }), { upstreamModel: 'u', defaultMaxTokens: 1000 });
    expect(body.tools![0]).toMatchObject({ input_schema: { type: 'object', additionalProperties: true } });
  });
});

describe('structured output → OpenAI-kind chat model without native structured output', () => {
  it('forces a function instead of response_format', () => {
    const body = toChatRequest(request({ responseFormat: { type: 'json_schema', name: 'answer', schema: SCHEMA } }), 'u', {
      nativeStructuredOutput: false,
    });
    expect(body.response_format).toBeUndefined();
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'structured_output' } });
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'structured_output', description: expect.any(String), parameters: SCHEMA } },
    ]);
  });
});

describe('reasoning effort ↔ thinking', () => {
  it('adaptive thinking with output_config.effort where the model supports it', () => {
    const body = toAnthropicRequest(request({ reasoningEffort: 'xhigh', temperature: 0.2 }), {
      upstreamModel: 'u',
      defaultMaxTokens: 1000,
      adaptiveThinking: true,
    });
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toEqual({ effort: 'max' });
    expect(body.temperature).toBeUndefined();
  });

  it('a thinking budget below max_tokens otherwise; none when it cannot fit', () => {
    expect(toAnthropicRequest(request({ reasoningEffort: 'medium' }), { upstreamModel: 'u', defaultMaxTokens: 4_000 }).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 3_999,
    });
    expect(
      toAnthropicRequest(request({ reasoningEffort: 'low', maxOutputTokens: 500 }), { upstreamModel: 'u', defaultMaxTokens: 4_000 })
        .thinking,
    ).toBeUndefined();
    expect(
      toAnthropicRequest(request({ reasoningEffort: 'none' }), { upstreamModel: 'u', defaultMaxTokens: 4_000 }).thinking,
    ).toBeUndefined();
  });

  it('Anthropic thinking and effort read as a reasoning effort', () => {
    expect(effortOf({ type: 'adaptive' }, { effort: 'low' })).toBe('low');
    expect(effortOf({ type: 'adaptive' }, undefined)).toBe('medium');
    expect(effortOf(undefined, { effort: 'max' })).toBe('xhigh');
    expect(effortOf({ type: 'enabled', budget_tokens: 2_000 }, undefined)).toBe('low');
    expect(effortOf({ type: 'disabled' }, undefined)).toBeUndefined();
  });
});

describe('legacy chat functions', () => {
  it('accepts role "function" answering a function_call, and functions / function_call', async () => {
    const { decodeChatRequest } = await import('../../src/gateway/protocols/chat/decode.js');
    const { request } = decodeChatRequest({
      model: 'm',
      functions: [{ name: 'lookup', parameters: { type: 'object', properties: {} } }],
      function_call: { name: 'lookup' },
      messages: [
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"x"}' } },
        { role: 'function', name: 'lookup', content: 'found' },
      ],
    });
    expect(request.tools).toEqual([
      { type: 'function', name: 'lookup', description: undefined, parameters: { type: 'object', properties: {} } },
    ]);
    expect(request.toolChoice).toEqual({ name: 'lookup' });
    expect(request.messages[1]).toEqual({
      role: 'assistant',
      content: [],
      toolCalls: [{ id: 'call_function_1', kind: 'function', name: 'lookup', arguments: '{"q":"x"}' }],
    });
    expect(request.messages[2]).toEqual({ role: 'tool', toolCallId: 'call_function_1', content: [{ type: 'text', text: 'found' }] });
    const body = toChatRequest(request, 'u');
    expect(body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_function_1', content: 'found' });
  });

  it('refuses a function message that answers no call', async () => {
    const { decodeChatRequest } = await import('../../src/gateway/protocols/chat/decode.js');
    expect(() =>
      decodeChatRequest({
        model: 'm',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'function', name: 'lookup', content: 'found' },
        ],
      }),
    ).toThrow();
  });
});
