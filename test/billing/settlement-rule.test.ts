/** The settlement rule both stores apply, case by case. */
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../src/kernel/assert.js';
import { holdOnWallet, needsSpareCredit, settlementOf, type SettlementInput } from '../../src/storage/ledger-store/settlement-rule.js';

const cases: {
  name: string;
  input: SettlementInput;
  needsSpare: boolean;
  expected: [released: number, collected: number, uncollected: number];
}[] = [
  {
    name: 'usage within the hold: all collected from the hold',
    input: { status: 'open', holdMicros: 1_000, fullCostMicros: 400 },
    needsSpare: false,
    expected: [1_000, 400, 0],
  },
  {
    name: 'usage equal to the hold',
    input: { status: 'open', holdMicros: 1_000, fullCostMicros: 1_000 },
    needsSpare: false,
    expected: [1_000, 1_000, 0],
  },
  {
    name: 'nothing used: the hold is released, nothing collected',
    input: { status: 'open', holdMicros: 1_000, fullCostMicros: 0 },
    needsSpare: false,
    expected: [1_000, 0, 0],
  },
  {
    name: 'above the hold with enough spare credit',
    input: { status: 'open', holdMicros: 1_000, fullCostMicros: 1_500, spareMicros: 2_000 },
    needsSpare: true,
    expected: [1_000, 1_500, 0],
  },
  {
    name: 'above the hold with some spare credit',
    input: { status: 'open', holdMicros: 1_000, fullCostMicros: 1_500, spareMicros: 200 },
    needsSpare: true,
    expected: [1_000, 1_200, 300],
  },
  {
    name: 'above the hold with no spare credit',
    input: { status: 'open', holdMicros: 1_000, fullCostMicros: 1_500, spareMicros: 0 },
    needsSpare: true,
    expected: [1_000, 1_000, 500],
  },
  {
    name: 'a negative spare (other holds over the balance) counts as none',
    input: { status: 'open', holdMicros: 1_000, fullCostMicros: 1_500, spareMicros: -50 },
    needsSpare: true,
    expected: [1_000, 1_000, 500],
  },
  {
    name: 'released call: its hold is already off, all of it comes from spare',
    input: { status: 'released', holdMicros: 1_000, fullCostMicros: 600, spareMicros: 250 },
    needsSpare: true,
    expected: [0, 250, 350],
  },
  {
    name: 'released call with enough spare credit',
    input: { status: 'released', holdMicros: 1_000, fullCostMicros: 600, spareMicros: 5_000 },
    needsSpare: true,
    expected: [0, 600, 0],
  },
  {
    name: 'released call that used nothing',
    input: { status: 'released', holdMicros: 1_000, fullCostMicros: 0 },
    needsSpare: false,
    expected: [0, 0, 0],
  },
  {
    name: 'covered call (no hold, no cost)',
    input: { status: 'open', holdMicros: 0, fullCostMicros: 0 },
    needsSpare: false,
    expected: [0, 0, 0],
  },
];

describe('settlementOf', () => {
  it.each(cases)('$name', ({ input, needsSpare, expected }) => {
    expect(needsSpareCredit(input)).toBe(needsSpare);
    const amounts = settlementOf(input);
    expect([amounts.releasedHoldMicros, amounts.collectedMicros, amounts.uncollectedMicros]).toEqual(expected);
  });

  it('holds on the wallet: all of an open call’s hold, none of a released one’s', () => {
    expect(holdOnWallet('open', 700)).toBe(700);
    expect(holdOnWallet('released', 700)).toBe(0);
  });

  it.each([
    ['a negative hold', { status: 'open', holdMicros: -1, fullCostMicros: 0 }, /holdMicros must be a non-negative integer/],
    ['a fractional cost', { status: 'open', holdMicros: 10, fullCostMicros: 2.5 }, /fullCostMicros must be a non-negative integer/],
    ['a cost above the hold without the spare credit', { status: 'open', holdMicros: 10, fullCostMicros: 20 }, /needs the wallet/],
  ] as const)('refuses %s', (_name, input, message) => {
    expect(() => settlementOf(input as SettlementInput)).toThrow(AssertionError);
    expect(() => settlementOf(input as SettlementInput)).toThrow(message);
  });
});
