/** Normalized request → Anthropic Messages body, one row per mapping (no server). */
import { describe, expect, it } from 'vitest';
import type { NormalizedRequest } from '../../../src/gateway/normalized/index.js';
import { toAnthropicRequest } from '../../../src/gateway/providers/anthropic/convert-request.js';
import { STRUCTURED_OUTPUT_TOOL } from '../../../src/gateway/providers/shared/structured-tool.js';

const text = (value: string) => ({ type: 'text' as const, text: value });
const request = (fields: Partial<NormalizedRequest>): NormalizedRequest => ({
  model: 'alias',
  messages: [{ role: 'user', content: [text('hi')] }],
  tools: [],
  stream: false,
  ...fields,
});
const options = { upstreamModel: 'up', defaultMaxTokens: 4_096 };

describe('toAnthropicRequest', () => {
  const rows: [
    string,
    NormalizedRequest,
    Partial<typeof options & { adaptiveThinking: boolean; nativeStructuredOutput: boolean }>,
    Record<string, unknown>,
  ][] = [
    [
      'a user text with the default max_tokens',
      request({}),
      {},
      { model: 'up', max_tokens: 4_096, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false },
    ],
    [
      'a mid-conversation instruction stays in place as a system reminder in the user turn',
      request({
        system: 's',
        maxOutputTokens: 10,
        messages: [
          { role: 'user', content: [text('hi')] },
          { role: 'system', content: [text('now')] },
          { role: 'assistant', content: [text('ok')], toolCalls: [] },
          { role: 'system', content: [text('later')] },
          { role: 'user', content: [text('go')] },
        ],
      }),
      {},
      {
        model: 'up',
        max_tokens: 10,
        system: 's',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'text', text: '<system-reminder>\nnow\n</system-reminder>' },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: '<system-reminder>\nlater\n</system-reminder>' },
              { type: 'text', text: 'go' },
            ],
          },
        ],
        stream: false,
      },
    ],
    [
      'cache marks on the system prompt and on message text; the end-user id',
      request({
        system: 's',
        systemCache: { type: 'ephemeral' },
        endUser: 'u1',
        maxOutputTokens: 10,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cacheControl: { type: 'ephemeral' } }] }],
      }),
      {},
      {
        model: 'up',
        max_tokens: 10,
        system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }],
        metadata: { user_id: 'u1' },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
        stream: false,
      },
    ],
    [
      'data-URL and remote images',
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', url: 'data:image/png;base64,AA' },
              { type: 'image', url: 'https://x/a.png' },
            ],
          },
        ],
      }),
      {},
      {
        model: 'up',
        max_tokens: 4_096,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
              { type: 'image', source: { type: 'url', url: 'https://x/a.png' } },
            ],
          },
        ],
        stream: false,
      },
    ],
    [
      'tool_use blocks; tool results share one user turn with the text after them',
      request({
        messages: [
          {
            role: 'assistant',
            content: [text('calling')],
            toolCalls: [
              { id: 't1', kind: 'function', name: 'f', arguments: '{"a":1}' },
              { id: 't2', kind: 'custom', name: 'patch', arguments: 'raw' },
            ],
          },
          { role: 'tool', toolCallId: 't1', content: [text('one')], isError: true },
          { role: 'tool', toolCallId: 't2', content: [text('two')] },
          { role: 'user', content: [text('next')] },
        ],
      }),
      {},
      {
        model: 'up',
        max_tokens: 4_096,
        messages: [
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'calling' },
              { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
              { type: 'tool_use', id: 't2', name: 'patch', input: { input: 'raw' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: 'one', is_error: true },
              { type: 'tool_result', tool_use_id: 't2', content: 'two' },
              { type: 'text', text: 'next' },
            ],
          },
        ],
        stream: false,
      },
    ],
    [
      'tools, a required choice without parallel calls, web search, stop sequences and sampling',
      request({
        tools: [
          { type: 'function', name: 'f', description: 'd' },
          { type: 'builtin', name: 'web_search', config: { max_uses: 2 } },
        ],
        toolChoice: 'required',
        parallelToolCalls: false,
        stop: ['X'],
        temperature: 0.5,
        topP: 0.9,
      }),
      {},
      {
        model: 'up',
        max_tokens: 4_096,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        stream: false,
        tools: [
          { name: 'f', description: 'd', input_schema: { type: 'object', properties: {} } },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
        ],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        stop_sequences: ['X'],
        temperature: 0.5,
        top_p: 0.9,
      },
    ],
    [
      'a reasoning effort as a thinking budget below max_tokens (sampling dropped)',
      request({ reasoningEffort: 'medium', maxOutputTokens: 20_000, temperature: 0.5 }),
      {},
      {
        model: 'up',
        max_tokens: 20_000,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        stream: false,
        thinking: { type: 'enabled', budget_tokens: 8_192 },
      },
    ],
    [
      'a reasoning effort as adaptive thinking with an effort',
      request({ reasoningEffort: 'xhigh' }),
      { adaptiveThinking: true },
      {
        model: 'up',
        max_tokens: 4_096,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        stream: false,
        thinking: { type: 'adaptive' },
        output_config: { effort: 'max' },
      },
    ],
    [
      'native structured output in output_config',
      request({ responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' } } }),
      { nativeStructuredOutput: true },
      {
        model: 'up',
        max_tokens: 4_096,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        stream: false,
        output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      },
    ],
  ];

  it.each(rows)('%s', (_name, input, extra, expected) => {
    expect(JSON.parse(JSON.stringify(toAnthropicRequest(input, { ...options, ...extra })))).toEqual(expected);
  });

  it('emulated structured output forces one tool and skips thinking', () => {
    const body = toAnthropicRequest(
      request({ responseFormat: { type: 'json_object' }, reasoningEffort: 'high', maxOutputTokens: 20_000 }),
      options,
    );
    expect(body.tool_choice).toEqual({ type: 'tool', name: STRUCTURED_OUTPUT_TOOL });
    expect(body.thinking).toBeUndefined();
  });

  it('refuses history tool arguments that are not JSON, and a built-in tool Anthropic does not run', () => {
    const bad = request({
      messages: [{ role: 'assistant', content: [], toolCalls: [{ id: 't', kind: 'function', name: 'f', arguments: '{oops' }] }],
    });
    expect(() => toAnthropicRequest(bad, options)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => toAnthropicRequest(request({ tools: [{ type: 'builtin', name: 'image_generation', config: {} }] }), options)).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});
