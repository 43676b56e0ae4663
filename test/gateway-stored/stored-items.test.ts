import { describe, expect, it } from 'vitest';
import { metadataFilterFromQuery, parseMetadata } from '../../src/gateway/stored/metadata.js';
import { chatStoreMessages, responseInputItems } from '../../src/gateway/stored/stored-items.js';
import { AppError } from '../../src/kernel/errors.js';

function issuesOf(run: () => unknown): unknown[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).issues ?? [];
  }
  throw new Error('expected a validation error');
}

describe('stored object metadata', () => {
  it('accepts up to 16 string pairs within the length limits', () => {
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`k${index}`, 'v'.repeat(512)]));
    expect(parseMetadata(sixteen)).toEqual(sixteen);
    expect(parseMetadata(null)).toEqual({});
  });

  it('names every broken pair', () => {
    const seventeen = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));
    expect(issuesOf(() => parseMetadata(seventeen))).toHaveLength(1);
    const issues = issuesOf(() => parseMetadata({ ['k'.repeat(65)]: 'v', long: 'v'.repeat(513), number: 3 }));
    expect(issues.map((issue) => (issue as { loc: string[] }).loc.at(-1))).toEqual(['k'.repeat(65), 'long', 'number']);
    expect(issuesOf(() => parseMetadata(['a']))).toHaveLength(1);
  });

  it('reads metadata[key]=value query filters', () => {
    expect(metadataFilterFromQuery({ limit: 3, 'metadata[topic]': 'alpha', 'metadata[a b]': 'c' })).toEqual({ topic: 'alpha', 'a b': 'c' });
    expect(metadataFilterFromQuery({ limit: 3 })).toBeUndefined();
    expect(issuesOf(() => metadataFilterFromQuery({ 'metadata[topic]': ['a', 'b'] }))).toHaveLength(1);
  });
});

describe('stored items', () => {
  it('keeps chat request messages with ids and content parts', () => {
    const items = chatStoreMessages('chatcmpl-1', [
      { role: 'user', content: 'hello' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ]);
    expect(items.map((entry) => entry.itemId)).toEqual(['chatcmpl-1-0', 'chatcmpl-1-1']);
    expect(items[0]!.item).toEqual({ id: 'chatcmpl-1-0', role: 'user', content: 'hello', content_parts: null });
    expect(items[1]!.item).toMatchObject({ content: 'look', content_parts: [{ type: 'text' }, { type: 'image_url' }] });
  });

  it('turns a Responses input into typed items with ids', () => {
    const [single] = responseInputItems('hi');
    expect(single!.item).toMatchObject({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'hi' }],
      status: 'completed',
    });
    expect(single!.itemId).toMatch(/^msg_/);
    const items = responseInputItems([
      { role: 'assistant', content: 'earlier answer' },
      { type: 'function_call_output', call_id: 'call_1', output: '42' },
      { id: 'msg_given', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'again' }] },
    ]);
    expect(items[0]!.item).toMatchObject({ content: [{ type: 'output_text', text: 'earlier answer' }] });
    expect(items[1]!.itemId).toMatch(/^fco_/);
    expect(items[2]!.itemId).toBe('msg_given');
  });
});
