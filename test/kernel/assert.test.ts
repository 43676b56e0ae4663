import { describe, expect, it } from 'vitest';
import { assert, assertMicros, assertNever, AssertionError } from '../../src/kernel/assert.js';

describe('assert', () => {
  it('passes a condition that holds and throws AssertionError with the message otherwise', () => {
    expect(() => assert(1 + 1 === 2, 'arithmetic')).not.toThrow();
    expect(() => assert(false, 'collected exceeds held')).toThrow(new AssertionError('collected exceeds held'));
    expect(() => assert(0, 'zero is falsy')).toThrow(AssertionError);
  });

  it.each([
    [0, true],
    [1_250_000, true],
    [-1, false],
    [0.5, false],
    [Number.NaN, false],
    [2 ** 53, false],
  ])('assertMicros(%s) accepts only non-negative safe integers (%s)', (value, accepted) => {
    const check = () => assertMicros(value, 'holdMicros');
    if (accepted) expect(check).not.toThrow();
    else expect(check).toThrow(/holdMicros must be a non-negative integer of micro-USD/);
  });

  it('assertNever names the value that should not exist', () => {
    expect(() => assertNever('weird' as never, 'unknown status')).toThrow('unknown status: "weird"');
  });
});
