import { describe, expect, it } from 'vitest';
import { citedUrls, parsePlan } from '../../src/desktop/chat-research.js';

describe('research plan and source parsing', () => {
  it('reads the plan JSON from a bare answer, a code fence or prose, bounded and trimmed', () => {
    expect(parsePlan('{"title": "T", "sections": ["A", "B"]}', 6)).toEqual({ title: 'T', sections: ['A', 'B'] });
    expect(parsePlan('Sure!\n```json\n{"title": " Solar ", "sections": [" One ", "", {"heading": "Two"}, 3]}\n```\nDone.', 6)).toEqual({
      title: 'Solar',
      sections: ['One', 'Two'],
    });
    expect(parsePlan('{"title": "T", "sections": ["1", "2", "3", "4", "5", "6", "7", "8"]}', 6)!.sections).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(parsePlan('{"sections": ["only"]}', 6)).toEqual({ title: 'Research', sections: ['only'] });
    expect(parsePlan(`{"title": "T", "sections": ["${'x'.repeat(500)}"]}`, 6)!.sections[0]).toHaveLength(200);
  });

  it('refuses answers without a usable plan', () => {
    for (const text of [
      'no json here',
      '{"title": "T"}',
      '{"title": "T", "sections": []}',
      '{"title": "T", "sections": ["", "  "]}',
      '{broken json}',
      '["A", "B"]',
      '}{',
    ]) {
      expect(parsePlan(text, 6), text).toBeNull();
    }
  });

  it('collects cited URLs once each, in order, without trailing punctuation or brackets', () => {
    const text =
      'See https://example.org/a, (https://example.org/b) and https://example.org/a. Also <http://x.test/p?q=1>; not ftp://x.test or https://';
    expect(citedUrls(text)).toEqual(['https://example.org/a', 'https://example.org/b', 'http://x.test/p?q=1']);
    expect(citedUrls('[source](https://docs.example.com/page#part).')).toEqual(['https://docs.example.com/page#part']);
    expect(citedUrls('nothing cited')).toEqual([]);
  });
});
