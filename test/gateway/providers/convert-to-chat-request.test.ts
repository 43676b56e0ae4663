/** Normalized request → OpenAI chat completions body, one row per mapping (no server). */
import { describe, expect, it } from 'vitest';
import type { NormalizedRequest } from '../../../src/gateway/normalized/index.js';
import { toChatRequest } from '../../../src/gateway/providers/openai/convert-request.js';
import { STRUCTURED_OUTPUT_TOOL } from '../../../src/gateway/providers/shared/structured-tool.js';

const text = (value: string) => ({ type: 'text' as const, text: value });
const request = (fields: Partial<NormalizedRequest>): NormalizedRequest => ({
  model: 'alias',
  messages: [{ role: 'user', content: [text('hi')] }],
  tools: [],
  stream: false,
  ...fields,
});

describe('toChatRequest', () => {
  const rows: [string, NormalizedRequest, Record<string, unknown>][] = [
    ['a user text, model rewritten', request({}), { model: 'up', messages: [{ role: 'user', content: 'hi' }], stream: false }],
    [
      'a system prompt first; a stream asks for usage',
      request({ system: 's', stream: true }),
      {
        model: 'up',
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: 'hi' },
        ],
        stream: true,
        stream_options: { include_usage: true },
      },
    ],
    [
      'images as image_url parts',
      request({ messages: [{ role: 'user', content: [text('see'), { type: 'image', url: 'https://x/a.png', detail: 'low' }] }] }),
      {
        model: 'up',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image_url', image_url: { url: 'https://x/a.png', detail: 'low' } },
            ],
          },
        ],
        stream: false,
      },
    ],
    [
      'tool calls (a custom call as a one-string function) and tool results; images a tool returned follow in a user message',
      request({
        messages: [
          {
            role: 'assistant',
            content: [],
            toolCalls: [
              { id: 'c1', kind: 'function', name: 'f', arguments: '{}' },
              { id: 'c2', kind: 'custom', name: 'patch', arguments: 'raw' },
            ],
          },
          { role: 'tool', toolCallId: 'c1', content: [text('one'), { type: 'image', url: 'https://x/p.png' }] },
          { role: 'tool', toolCallId: 'c2', content: [text('two')] },
        ],
      }),
      {
        model: 'up',
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
              { id: 'c2', type: 'function', function: { name: 'patch', arguments: '{"input":"raw"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'one' },
          { role: 'tool', tool_call_id: 'c2', content: 'two' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Images returned by tool call c1:' },
              { type: 'image_url', image_url: { url: 'https://x/p.png' } },
            ],
          },
        ],
        stream: false,
      },
    ],
    [
      'tools with choice and parallel flag; web search as web_search_options; options',
      request({
        tools: [
          { type: 'function', name: 'f', parameters: { type: 'object' }, strict: true },
          { type: 'builtin', name: 'web_search', config: {} },
        ],
        toolChoice: { name: 'f' },
        parallelToolCalls: false,
        maxOutputTokens: 5,
        temperature: 0.1,
        topP: 0.2,
        stop: ['X'],
        reasoningEffort: 'low',
      }),
      {
        model: 'up',
        messages: [{ role: 'user', content: 'hi' }],
        stream: false,
        web_search_options: {},
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }],
        tool_choice: { type: 'function', function: { name: 'f' } },
        parallel_tool_calls: false,
        max_completion_tokens: 5,
        temperature: 0.1,
        top_p: 0.2,
        stop: ['X'],
        reasoning_effort: 'low',
      },
    ],
    [
      'a json_schema response format',
      request({ responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true } }),
      {
        model: 'up',
        messages: [{ role: 'user', content: 'hi' }],
        stream: false,
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
      },
    ],
  ];

  it.each(rows)('%s', (_name, input, expected) => {
    expect(JSON.parse(JSON.stringify(toChatRequest(input, 'up')))).toEqual(expected);
  });

  it('structured output without native support becomes one forced function', () => {
    const body = toChatRequest(request({ responseFormat: { type: 'json_object' } }), 'up', { nativeStructuredOutput: false });
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: STRUCTURED_OUTPUT_TOOL } });
    expect(body.tools?.at(-1)?.function).toMatchObject({
      name: STRUCTURED_OUTPUT_TOOL,
      parameters: { type: 'object', additionalProperties: true },
    });
    expect(body.response_format).toBeUndefined();
  });

  it('refuses a built-in tool the destination does not run', () => {
    expect(() => toChatRequest(request({ tools: [{ type: 'builtin', name: 'image_generation', config: {} }] }), 'up')).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});
