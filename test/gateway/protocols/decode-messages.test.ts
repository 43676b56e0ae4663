/** Anthropic Messages body and headers → normalized request, one row per mapping (no server). */
import { describe, expect, it } from 'vitest';
import { checkMessagesVersion, decodeMessagesRequest } from '../../../src/gateway/protocols/messages/decode.js';
import type { NormalizedRequest } from '../../../src/gateway/normalized/index.js';

const text = (value: string) => ({ type: 'text' as const, text: value });

function decoded(body: Record<string, unknown>, headers: Record<string, string> = {}): Partial<NormalizedRequest> {
  const { native, source, endUser: _user, ...rest } = decodeMessagesRequest(body, { requireMaxTokens: true, headers });
  expect(native).toMatchObject({ protocol: 'anthropic-messages', body });
  expect(source).toEqual({ protocol: 'messages', body });
  return JSON.parse(JSON.stringify(rest));
}

describe('decodeMessagesRequest', () => {
  const rows: [string, Record<string, unknown>, Partial<NormalizedRequest>][] = [
    [
      'a string system and a user string',
      { model: 'm', max_tokens: 5, system: 'be brief', messages: [{ role: 'user', content: 'hi' }] },
      { model: 'm', system: 'be brief', messages: [{ role: 'user', content: [text('hi')] }], tools: [], maxOutputTokens: 5, stream: false },
    ],
    [
      'system blocks joined by newlines; base64 and url images',
      {
        model: 'm',
        max_tokens: 5,
        system: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
              { type: 'image', source: { type: 'url', url: 'https://x/a.png' } },
            ],
          },
        ],
      },
      {
        model: 'm',
        system: 'a\nb',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', url: 'data:image/png;base64,AA' },
              { type: 'image', url: 'https://x/a.png' },
            ],
          },
        ],
        tools: [],
        maxOutputTokens: 5,
        stream: false,
      },
    ],
    [
      "tool_use in the assistant turn; tool_result blocks become tool messages before the user's text; thinking is dropped",
      {
        model: 'm',
        max_tokens: 5,
        messages: [
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hm' },
              { type: 'text', text: 'calling' },
              { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: 'done', is_error: true },
              { type: 'text', text: 'next' },
            ],
          },
        ],
      },
      {
        model: 'm',
        messages: [
          { role: 'assistant', content: [text('calling')], toolCalls: [{ id: 't1', kind: 'function', name: 'f', arguments: '{"a":1}' }] },
          { role: 'tool', toolCallId: 't1', content: [text('done')], isError: true },
          { role: 'user', content: [text('next')] },
        ],
        tools: [],
        maxOutputTokens: 5,
        stream: false,
      },
    ],
    [
      'a mid-conversation system message stays in place; a document block is native-only',
      {
        model: 'm',
        max_tokens: 5,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', source: {} },
              { type: 'text', text: 'x' },
            ],
          },
          { role: 'system', content: 'now' },
        ],
      },
      {
        model: 'm',
        messages: [
          { role: 'user', content: [text('x')] },
          { role: 'system', content: [text('now')] },
        ],
        tools: [],
        maxOutputTokens: 5,
        stream: false,
        nativeOnly: ['content block type document at messages.0.content.0'],
      },
    ],
    [
      'client and server tools, tool_choice any without parallel calls, stop sequences, sampling, metadata',
      {
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          { name: 'f', description: 'd', input_schema: { type: 'object' } },
          { type: 'web_search_20250305', name: 'web_search' },
        ],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        stop_sequences: ['X'],
        temperature: 0.2,
        top_p: 0.3,
        metadata: { user_id: 'u1' },
        stream: true,
      },
      {
        model: 'm',
        messages: [{ role: 'user', content: [text('hi')] }],
        tools: [
          { type: 'function', name: 'f', description: 'd', parameters: { type: 'object' } },
          { type: 'builtin', name: 'web_search', config: { type: 'web_search_20250305', name: 'web_search' } },
        ],
        toolChoice: 'required',
        parallelToolCalls: false,
        maxOutputTokens: 5,
        temperature: 0.2,
        topP: 0.3,
        stop: ['X'],
        metadata: { user_id: 'u1' },
        stream: true,
      },
    ],
    [
      'thinking budget and output_config: effort and json_schema output',
      {
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
        thinking: { type: 'enabled', budget_tokens: 20_000 },
        output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      },
      {
        model: 'm',
        messages: [{ role: 'user', content: [text('hi')] }],
        tools: [],
        maxOutputTokens: 5,
        reasoningEffort: 'high',
        responseFormat: { type: 'json_schema', name: 'output', schema: { type: 'object' } },
        stream: false,
      },
    ],
  ];

  it.each(rows)('%s', (_name, body, expected) => {
    expect(decoded(body)).toEqual(expected);
  });

  it('carries the anthropic-beta list to a native destination', () => {
    const request = decodeMessagesRequest(
      { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] },
      { requireMaxTokens: true, headers: { 'anthropic-beta': ['a', 'b'] } },
    );
    expect(request.native).toMatchObject({ headers: { 'anthropic-beta': 'a,b' } });
  });

  const versions: [string, Record<string, string>, boolean][] = [
    ['no version header (2023-06-01 assumed)', {}, true],
    ['anthropic-version 2023-06-01', { 'anthropic-version': '2023-06-01' }, true],
    ['messages-api-version before anthropic-version', { 'messages-api-version': '2024-01-01', 'anthropic-version': 'latest' }, true],
    ['a version that is not a date', { 'anthropic-version': 'latest' }, false],
  ];

  it.each(versions)('version check: %s', (_name, headers, accepted) => {
    const body = { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] };
    if (accepted) {
      expect(() => checkMessagesVersion(headers)).not.toThrow();
      expect(() => decodeMessagesRequest(body, { requireMaxTokens: true, headers })).not.toThrow();
    } else {
      expect(() => decodeMessagesRequest(body, { requireMaxTokens: true, headers })).toThrow(
        expect.objectContaining({ status: 400, message: expect.stringMatching(/Unsupported messages API version latest/) }),
      );
    }
  });

  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['no max_tokens', { model: 'm', messages: [{ role: 'user', content: 'x' }] }, /max_tokens/],
    ['no messages', { model: 'm', max_tokens: 1, messages: [] }, /messages/],
    ['an unknown role', { model: 'm', max_tokens: 1, messages: [{ role: 'robot', content: 'x' }] }, /role/],
    [
      'a tool_use without id',
      { model: 'm', max_tokens: 1, messages: [{ role: 'assistant', content: [{ type: 'tool_use', name: 'f' }] }] },
      /tool_use/,
    ],
    [
      'an unknown tool_choice',
      { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }], tool_choice: { type: 'maybe' } },
      /tool_choice/,
    ],
  ];

  it.each(refused)('refuses %s with a 422 naming the field', (_name, body, pattern) => {
    expect(() => decodeMessagesRequest(body)).toThrow(expect.objectContaining({ status: 422 }));
    try {
      decodeMessagesRequest(body);
    } catch (error) {
      expect(JSON.stringify((error as { issues: unknown }).issues)).toMatch(pattern);
    }
  });

  it('count_tokens needs no max_tokens', () => {
    expect(
      decodeMessagesRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, { requireMaxTokens: false }).maxOutputTokens,
    ).toBeUndefined();
  });
});
