/** Responses create body → normalized request, one row per mapping (no server). */
import { describe, expect, it } from 'vitest';
import { decodeResponsesRequest, inputItemsOf } from '../../../src/gateway/protocols/responses/decode.js';
import type { NormalizedRequest } from '../../../src/gateway/normalized/index.js';

const text = (value: string) => ({ type: 'text' as const, text: value });

/** The normalized request without the native body, source and chat hints every Responses request carries. */
function decoded(body: Record<string, unknown>): Partial<NormalizedRequest> {
  const { native, source, openaiHints: _hints, endUser: _user, ...rest } = decodeResponsesRequest(body);
  expect(native).toEqual({ protocol: 'openai-responses', body });
  expect(source).toEqual({ protocol: 'responses', body });
  return JSON.parse(JSON.stringify(rest));
}

describe('decodeResponsesRequest', () => {
  const rows: [string, Record<string, unknown>, Partial<NormalizedRequest>][] = [
    [
      'a string input',
      { model: 'm', input: 'hi' },
      { model: 'm', messages: [{ role: 'user', content: [text('hi')] }], tools: [], stream: false },
    ],
    [
      'instructions and system/developer items joined into the system prompt',
      {
        model: 'm',
        instructions: 'a',
        input: [
          { role: 'developer', content: 'b' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        ],
      },
      { model: 'm', system: 'a\n\nb', messages: [{ role: 'user', content: [text('hi')] }], tools: [], stream: false },
    ],
    [
      'function and custom tool calls merge into one assistant turn; their outputs become tool messages',
      {
        model: 'm',
        input: [
          { role: 'assistant', content: [{ type: 'output_text', text: 'calling' }] },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
          { type: 'custom_tool_call', call_id: 'c2', name: 'patch', input: 'raw' },
          { type: 'function_call_output', call_id: 'c1', output: 'done' },
          { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'ok' }] },
        ],
      },
      {
        model: 'm',
        messages: [
          {
            role: 'assistant',
            content: [text('calling')],
            toolCalls: [
              { id: 'c1', kind: 'function', name: 'f', arguments: '{}' },
              { id: 'c2', kind: 'custom', name: 'patch', arguments: 'raw' },
            ],
          },
          { role: 'tool', toolCallId: 'c1', content: [text('done')] },
          { role: 'tool', toolCallId: 'c2', content: [text('ok')] },
        ],
        tools: [],
        stream: false,
      },
    ],
    [
      "reasoning and item references are the upstream's own state and are skipped",
      {
        model: 'm',
        input: [
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { type: 'item_reference', id: 'x' },
          { role: 'user', content: 'hi' },
        ],
      },
      { model: 'm', messages: [{ role: 'user', content: [text('hi')] }], tools: [], stream: false },
    ],
    [
      'an image by URL; one by file id is native-only',
      {
        model: 'm',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_image', image_url: 'https://x/a.png', detail: 'high' },
              { type: 'input_image', file_id: 'file_1' },
            ],
          },
        ],
      },
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', url: 'https://x/a.png', detail: 'high' },
              { type: 'image', url: '' },
            ],
          },
        ],
        tools: [],
        stream: false,
        nativeOnly: ['an input_image by file_id at input.0.content'],
      },
    ],
    [
      'function, custom, namespaced, web search and other built-in tools',
      {
        model: 'm',
        input: 'hi',
        tools: [
          { type: 'function', name: 'f', parameters: { type: 'object' }, strict: false },
          { type: 'custom', name: 'g', description: 'd' },
          { type: 'namespace', tools: [{ type: 'function', name: 'inner' }] },
          { type: 'web_search_preview' },
          { type: 'tool_search', execution: 'client', parameters: { type: 'object' } },
          { type: 'image_generation' },
        ],
        tool_choice: { type: 'function', name: 'f' },
      },
      {
        model: 'm',
        messages: [{ role: 'user', content: [text('hi')] }],
        tools: [
          { type: 'function', name: 'f', parameters: { type: 'object' }, strict: false },
          { type: 'custom', name: 'g', description: 'd' },
          { type: 'function', name: 'inner' },
          { type: 'builtin', name: 'web_search', config: { type: 'web_search_preview' } },
          { type: 'function', name: 'tool_search', parameters: { type: 'object' } },
          { type: 'builtin', name: 'image_generation', config: { type: 'image_generation' } },
        ],
        toolChoice: { name: 'f' },
        stream: false,
      },
    ],
    [
      'options: max_output_tokens, sampling, reasoning effort, text.format, metadata, stream',
      {
        model: 'm',
        input: 'hi',
        max_output_tokens: 9,
        temperature: 1,
        top_p: 0.5,
        reasoning: { effort: 'high' },
        text: { format: { type: 'json_object' } },
        metadata: { a: 'b' },
        stream: true,
        parallel_tool_calls: true,
      },
      {
        model: 'm',
        messages: [{ role: 'user', content: [text('hi')] }],
        tools: [],
        parallelToolCalls: true,
        maxOutputTokens: 9,
        temperature: 1,
        topP: 0.5,
        reasoningEffort: 'high',
        responseFormat: { type: 'json_object' },
        metadata: { a: 'b' },
        stream: true,
      },
    ],
    [
      'an unknown item type is native-only',
      { model: 'm', input: [{ type: 'computer_call_output', call_id: 'c' }] },
      { model: 'm', messages: [], tools: [], stream: false, nativeOnly: ['input item type computer_call_output at input.0'] },
    ],
  ];

  it.each(rows)('%s', (_name, body, expected) => {
    expect(decoded(body)).toEqual(expected);
  });

  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['no model', { input: 'x' }, /model/],
    ['no input', { model: 'm' }, /input/],
    ['an input that is neither text nor items', { model: 'm', input: 5 }, /input/],
    ['a message with an unknown role', { model: 'm', input: [{ type: 'message', role: 'robot', content: 'x' }] }, /role/],
    ['a tool call without call_id', { model: 'm', input: [{ type: 'function_call', name: 'f' }] }, /call_id/],
    ['tools that are not a list', { model: 'm', input: 'x', tools: {} }, /tools/],
  ];

  it.each(refused)('refuses %s with a 422 naming the field', (_name, body, pattern) => {
    expect(() => decodeResponsesRequest(body)).toThrow(expect.objectContaining({ status: 422 }));
    try {
      decodeResponsesRequest(body);
    } catch (error) {
      expect(JSON.stringify((error as { issues: unknown }).issues)).toMatch(pattern);
    }
  });

  it('lists a string input as one user message item', () => {
    expect(inputItemsOf('hi')).toEqual([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]);
    expect(inputItemsOf([{ type: 'x' }])).toEqual([{ type: 'x' }]);
  });
});
