/**
 * The walk of a JSON body for values no part of the service can use looks only for what the body's text could
 * hold (`bodySuspicions`). Narrowing it must never miss anything: for any JSON text, the narrowed walk finds
 * exactly what the full walk finds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodySuspicions, unusableBodyIssues } from '../../src/http/validation.js';

/** What the service's JSON parser and pre-handler do with a body's text. */
function narrowedIssues(text: string) {
  const suspicions = bodySuspicions(text);
  return suspicions ? unusableBodyIssues(JSON.parse(text), suspicions) : [];
}

const hostileString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDC00', '\uDBFF\uDFFF', '\uDFFF\uDBFF', 'e12', '1234567890123456'),
);
const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(2 ** 53, 2 ** 53 + 2, -(2 ** 60), 1e21, 1.5e-7, 9007199254740991),
);
const body = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('body suspicions', () => {
  it('say what a text could hold', () => {
    expect(bodySuspicions(JSON.stringify({ model: 'm', input: 'plain text, small numbers', n: 12 }))).toBeNull();
    expect(bodySuspicions(JSON.stringify({ s: 'a\u0000b' }))).toEqual({ strings: true, numbers: false });
    expect(bodySuspicions(JSON.stringify({ s: '\uD800' }))).toEqual({ strings: true, numbers: false });
    expect(bodySuspicions(JSON.stringify({ n: 2 ** 53 + 2 }))).toEqual({ strings: false, numbers: true });
    expect(bodySuspicions(JSON.stringify({ n: 1e300, s: '\u0000' }))).toEqual({ strings: true, numbers: true });
  });

  it('a body whose text could hold only a bad number is not scanned for bad strings', () => {
    // A lone surrogate cannot come from JSON text without a \u escape; a value built in memory shows the walk skips strings.
    expect(unusableBodyIssues({ s: '\uD800', n: 2 ** 60 }, { strings: false, numbers: true })).toEqual([
      expect.objectContaining({ loc: ['body', 'n'] }),
    ]);
  });

  it('the narrowed walk finds exactly what the full walk finds, for any JSON text', () => {
    fc.assert(
      fc.property(body, (value) => {
        const text = JSON.stringify(value);
        if (text === undefined) return;
        expect(narrowedIssues(text)).toEqual(unusableBodyIssues(JSON.parse(text)));
      }),
      { numRuns: 2_000 },
    );
  });
});
