/** The token counts of recurring instructions and tool definitions are cached: same answer, bounded size. */
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import type { NormalizedRequest } from '../../src/gateway/normalized/index.js';
import { countInputTokens, TokenCountCache } from '../../src/gateway/tokens.js';

const INSTRUCTIONS = 'You are a coding agent. Follow the repository conventions and explain what you change. '.repeat(60);

function request(instructions: string, question: string): NormalizedRequest {
  return {
    model: 'm',
    system: instructions,
    messages: [
      { role: 'user', content: [{ type: 'text', text: question }] },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Running it.' }],
        toolCalls: [{ id: 'c1', name: 'exec_command', arguments: '{"cmd":"ls"}' }],
      },
    ] as NormalizedRequest['messages'],
    tools: [
      {
        type: 'function',
        name: 'exec_command',
        description: 'Runs a shell command. '.repeat(80),
        parameters: { type: 'object', properties: { cmd: { type: 'string' } } },
      },
      { type: 'custom', name: 'apply_patch', description: 'Applies a patch.' },
    ],
    stream: true,
  };
}

describe('token counts of recurring request text', () => {
  it('gives the uncached answer, from the cache when the instructions and tools recur', async () => {
    const cache = new TokenCountCache();
    const uncached = new TokenCountCache(0);
    const first = request(INSTRUCTIONS, 'What does this repository do?');
    const expected = await countInputTokens(first, uncached);
    expect(uncached.size).toBe(0);
    // The parts counted one by one, plus 3 tokens per message.
    const tools = `exec_command${'Runs a shell command. '.repeat(80)}${JSON.stringify({ type: 'object', properties: { cmd: { type: 'string' } } })}apply_patchApplies a patch.`;
    expect(expected).toBe(
      countTokens(INSTRUCTIONS) + countTokens(tools) + countTokens('What does this repository do?Running it.exec_command{"cmd":"ls"}') + 6,
    );

    expect(await countInputTokens(first, cache)).toBe(expected);
    expect(cache.size).toBe(2);
    // Same instructions and tools, another question: two hits, the answer still equals the uncached one.
    const second = request(INSTRUCTIONS, 'And how is it tested?');
    expect(await countInputTokens(second, cache)).toBe(await countInputTokens(second, uncached));
    expect(cache.size).toBe(2);
    // Changed instructions of the same length are another entry, never the old count.
    const changed = request(INSTRUCTIONS.replace('coding', 'typing'), 'And how is it tested?');
    expect(changed.system!.length).toBe(INSTRUCTIONS.length);
    expect(await countInputTokens(changed, cache)).toBe(await countInputTokens(changed, uncached));
    expect(cache.size).toBe(3);
  });

  it('keeps at most entriesMax counts, dropping the least recently used, and counts short text directly', () => {
    const cache = new TokenCountCache(3, 10);
    let counted = 0;
    const counter = (text: string) => {
      counted += 1;
      return countTokens(text);
    };
    const texts = Array.from({ length: 5 }, (_, index) => `instructions number ${index} `.repeat(5));
    for (const text of texts.slice(0, 3)) cache.count(text, counter);
    cache.count(texts[0]!, counter); // a hit: texts[0] becomes the most recently used
    expect(counted).toBe(3);
    for (const text of texts.slice(3)) expect(cache.count(text, counter)).toBe(countTokens(text));
    expect(cache.size).toBe(3);
    expect(counted).toBe(5);
    cache.count(texts[0]!, counter); // kept
    expect(counted).toBe(5);
    cache.count(texts[1]!, counter); // dropped as the least recently used, counted again
    expect(counted).toBe(6);
    expect(cache.size).toBe(3);
    expect(cache.count('short', counter)).toBe(countTokens('short'));
    expect(cache.size).toBe(3);
  });
});
