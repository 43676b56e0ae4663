/** Chat completions body → normalized request, one row per mapping (no server). */
import { describe, expect, it } from 'vitest';
import { decodeChatRequest } from '../../../src/gateway/protocols/chat/decode.js';
import type { NormalizedRequest } from '../../../src/gateway/normalized/index.js';

const user = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] });
const base = { model: 'm', tools: [], stream: false };

describe('decodeChatRequest', () => {
  const rows: [string, Record<string, unknown>, Partial<NormalizedRequest>][] = [
    ['a user string', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { ...base, messages: [user('hi')] }],
    [
      'system and developer messages joined into the system prompt',
      {
        model: 'm',
        messages: [
          { role: 'system', content: 'a' },
          { role: 'developer', content: [{ type: 'text', text: 'b' }] },
          { role: 'user', content: 'hi' },
        ],
      },
      { ...base, system: 'a\n\nb', messages: [user('hi')] },
    ],
    [
      'image_url parts, as a string or an object with detail',
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image_url', image_url: { url: 'https://x/a.png', detail: 'low' } },
              { type: 'image_url', image_url: 'data:image/png;base64,AA' },
            ],
          },
        ],
      },
      {
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image', url: 'https://x/a.png', detail: 'low' },
              { type: 'image', url: 'data:image/png;base64,AA' },
            ],
          },
        ],
      },
    ],
    [
      'assistant tool calls (function and custom) and their tool results',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
              { id: 'c2', type: 'custom', custom: { name: 'patch', input: 'raw' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'one' },
          { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'two' }] },
        ],
      },
      {
        ...base,
        messages: [
          user('go'),
          {
            role: 'assistant',
            content: [],
            toolCalls: [
              { id: 'c1', kind: 'function', name: 'f', arguments: '{"a":1}' },
              { id: 'c2', kind: 'custom', name: 'patch', arguments: 'raw' },
            ],
          },
          { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: 'one' }] },
          { role: 'tool', toolCallId: 'c2', content: [{ type: 'text', text: 'two' }] },
        ],
      },
    ],
    [
      'tools, tool_choice and sampling options',
      {
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' }, strict: true } },
          { type: 'custom', custom: { name: 'g' } },
        ],
        tool_choice: { type: 'function', function: { name: 'f' } },
        parallel_tool_calls: false,
        max_completion_tokens: 7,
        temperature: 0.5,
        top_p: 0.9,
        stop: 'END',
        reasoning_effort: 'low',
        stream: true,
      },
      {
        model: 'm',
        messages: [user('hi')],
        tools: [
          { type: 'function', name: 'f', description: 'd', parameters: { type: 'object' }, strict: true },
          { type: 'custom', name: 'g', description: undefined, format: undefined },
        ],
        toolChoice: { name: 'f' },
        parallelToolCalls: false,
        maxOutputTokens: 7,
        temperature: 0.5,
        topP: 0.9,
        stop: ['END'],
        reasoningEffort: 'low',
        stream: true,
      },
    ],
    [
      'max_tokens when max_completion_tokens is absent; json_schema response_format; metadata',
      {
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 3,
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
        metadata: { k: 'v' },
      },
      {
        ...base,
        messages: [user('hi')],
        maxOutputTokens: 3,
        responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true },
        metadata: { k: 'v' },
      },
    ],
  ];

  it.each(rows)('%s', (_name, body, expected) => {
    const { native, source, endUser: _user, ...rest } = decodeChatRequest(body).request;
    expect(native).toEqual({ protocol: 'openai-chat', body });
    expect(source).toEqual({ protocol: 'chat', body });
    expect(JSON.parse(JSON.stringify(rest))).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('keeps the stream options, the store flag and the messages as sent', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect(decodeChatRequest({ model: 'm', messages, stream: true, stream_options: { include_usage: true }, store: true })).toMatchObject({
      includeUsage: true,
      store: true,
      messages,
    });
    expect(decodeChatRequest({ model: 'm', messages })).toMatchObject({ includeUsage: false, store: false });
  });

  it('several choices go only where the body is sent as given; legacy functions and web_search_options are read', () => {
    const messages = [{ role: 'user', content: 'x' }];
    expect(decodeChatRequest({ model: 'm', n: 2, messages }).request.nativeOnly).toEqual(['n=2']);
    const legacy = decodeChatRequest({
      model: 'm',
      messages,
      functions: [{ name: 'f' }],
      web_search_options: { search_context_size: 'low' },
    });
    expect(legacy.request.legacyFunctions).toBe(true);
    expect(legacy.request.tools).toEqual([
      { type: 'function', name: 'f' },
      { type: 'builtin', name: 'web_search', config: { type: 'web_search', search_context_size: 'low' } },
    ]);
  });

  const refused: [string, Record<string, unknown>, number, RegExp][] = [
    ['no model', { messages: [{ role: 'user', content: 'x' }] }, 422, /model/],
    ['no messages', { model: 'm', messages: [] }, 422, /messages/],
    ['an unknown role', { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 422, /role/],
    ['an unsupported content part', { model: 'm', messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] }, 400, /input_audio/],
    ['a tool message without tool_call_id', { model: 'm', messages: [{ role: 'tool', content: 'x' }] }, 422, /tool_call_id/],
    [
      'a bad reasoning effort',
      { model: 'm', reasoning_effort: 'huge', messages: [{ role: 'user', content: 'x' }] },
      422,
      /reasoning_effort/,
    ],
  ];

  it.each(refused)('refuses %s', (_name, body, status, pattern) => {
    let caught: { status: number; message: string; issues?: { loc: (string | number)[] }[] } | undefined;
    try {
      decodeChatRequest(body);
    } catch (error) {
      caught = error as typeof caught;
    }
    expect(caught?.status).toBe(status);
    expect(`${caught?.message} ${JSON.stringify(caught?.issues ?? [])}`).toMatch(pattern);
  });
});
