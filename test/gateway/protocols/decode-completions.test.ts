/** Legacy completions body → one normalized request per prompt, one row per mapping (no server). */
import { describe, expect, it } from 'vitest';
import { decodeCompletionsRequest, requestForPrompt } from '../../../src/gateway/protocols/completions/decode.js';

const prompt = (text: string) => [{ role: 'user', content: [{ type: 'text', text }] }];

describe('decodeCompletionsRequest', () => {
  const rows: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'one prompt with options',
      { model: 'm', prompt: 'Once', max_tokens: 4, temperature: 0, top_p: 1, stop: 'END' },
      {
        prompts: ['Once'],
        echo: false,
        includeUsage: true,
        request: {
          model: 'm',
          tools: [],
          stream: false,
          maxOutputTokens: 4,
          temperature: 0,
          topP: 1,
          stop: ['END'],
          messages: prompt('Once'),
        },
      },
    ],
    [
      'a batch of prompts, streamed with echo: the first prompt is the first call; usage only when asked for',
      { model: 'm', prompt: ['a', 'b'], stream: true, echo: true },
      { prompts: ['a', 'b'], echo: true, includeUsage: false, request: { model: 'm', tools: [], stream: true, messages: prompt('a') } },
    ],
    [
      'a streamed call with stream_options.include_usage',
      { model: 'm', prompt: 'a', stream: true, stream_options: { include_usage: true }, n: 1, best_of: 1, logprobs: 0 },
      { prompts: ['a'], echo: false, includeUsage: true, request: { model: 'm', tools: [], stream: true, messages: prompt('a') } },
    ],
  ];

  it.each(rows)('%s', (_name, body, expected) => {
    const decoded = decodeCompletionsRequest(body);
    expect(JSON.parse(JSON.stringify(decoded))).toMatchObject(expected);
    expect(JSON.parse(JSON.stringify(requestForPrompt(decoded, 'later')))).toMatchObject({
      ...(expected.request as object),
      messages: prompt('later'),
    });
  });

  const refused: [string, unknown, RegExp][] = [
    ['a body that is not an object', [1], /body/],
    ['no model', { prompt: 'x' }, /model is required/],
    ['no prompt', { model: 'm' }, /prompt must be/],
    ['token-id prompts', { model: 'm', prompt: [1, 2] }, /token-id prompts/],
    ['more than 16 prompts', { model: 'm', prompt: Array.from({ length: 17 }, () => 'x') }, /at most 16 prompts/],
    ['max_tokens 0', { model: 'm', prompt: 'x', max_tokens: 0 }, /positive integer/],
    ['n of 2', { model: 'm', prompt: 'x', n: 2 }, /n=1/],
    ['best_of 3', { model: 'm', prompt: 'x', best_of: 3 }, /best_of=1/],
    ['logprobs', { model: 'm', prompt: 'x', logprobs: 2 }, /logprobs/],
    ['a suffix', { model: 'm', prompt: 'x', suffix: 'y' }, /suffix/],
    ['a non-boolean stream', { model: 'm', prompt: 'x', stream: 'yes' }, /stream must be a boolean/],
    ['five stop sequences', { model: 'm', prompt: 'x', stop: ['a', 'b', 'c', 'd', 'e'] }, /up to 4/],
  ];

  it.each(refused)('refuses %s with a 422', (_name, body, pattern) => {
    expect(() => decodeCompletionsRequest(body)).toThrow(expect.objectContaining({ status: 422 }));
    try {
      decodeCompletionsRequest(body);
    } catch (error) {
      expect(JSON.stringify((error as { issues: unknown }).issues)).toMatch(pattern);
    }
  });
});
