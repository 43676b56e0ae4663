/** The dashboard's shared helpers that turn answers into words: money, validator issues, and "out of credit". */
import { describe, expect, it } from 'vitest';
import { ApiError, describeDetail } from '../../web/shared/api.js';
import { creditProblem } from '../../web/shared/credit.js';
import { duration, usd } from '../../web/shared/format.js';

const ORIGIN = 'http://127.0.0.1:8080';

describe('usd: one money format', () => {
  it('shows cents always and every significant micro-dollar, with separators and a real minus sign', () => {
    expect(usd(0)).toBe('$0.00');
    expect(usd(12_500_000)).toBe('$12.50');
    expect(usd(6_400)).toBe('$0.0064');
    expect(usd(479)).toBe('$0.000479');
    expect(usd(-1_250_000_000)).toBe('−$1,250.00');
    expect(usd(4_993_520)).toBe('$4.99352');
    expect(usd(null)).toBe('—');
    expect(duration(840)).toBe('840 ms');
    expect(duration(2_400)).toBe('2.4 s');
  });
});

describe('validator issues as sentences', () => {
  it('names the field and says what is wanted instead of the validator text', () => {
    const detail = [
      { loc: ['body', 'new_password'], msg: 'must NOT have fewer than 8 characters', type: 'string_too_short' },
      { loc: ['body', 'email'], msg: 'must match pattern "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$"', type: 'string_pattern_mismatch' },
      { loc: ['body', 'first_name'], msg: 'Field required', type: 'missing' },
      { loc: ['query', 'days'], msg: 'must be <= 365', type: 'less_than_equal' },
      { loc: ['body', 'walet'], msg: 'must NOT have additional properties', type: 'extra_forbidden' },
    ];
    expect(describeDetail(detail)).toBe(
      'New password needs at least 8 characters. Email is not a valid email address. First name is required. ' +
        'Days must be at most 365. Walet is not a field this form sends.',
    );
    expect(describeDetail('Plain text stays')).toBe('Plain text stays');
  });
});

describe('creditProblem: every way a want of credit reaches a page', () => {
  const money = `${ORIGIN}/dashboard.html#/money`;
  it('reads a 402 ApiError, a gateway body with billing_url, and the text Codex prints for a refused model call', () => {
    expect(creditProblem(new ApiError(402, 'Insufficient', { detail: 'Insufficient', billing_url: money }), ORIGIN)).toEqual({
      url: '/dashboard.html#/money',
    });
    expect(creditProblem({ error: { type: 'insufficient_quota', billing_url: money } }, ORIGIN)).toEqual({ url: '/dashboard.html#/money' });
    const codex = `unexpected status 402 Payment Required: {"error":{"message":"Insufficient wallet credit for this request. Add credit at ${money}"}}, url: ${ORIGIN}/v1/responses`;
    expect(creditProblem(codex, ORIGIN)).toEqual({ url: '/dashboard.html#/money' });
    expect(creditProblem({ message: codex }, ORIGIN)).toEqual({ url: '/dashboard.html#/money' });
  });

  it('never links elsewhere, and leaves other errors alone', () => {
    expect(creditProblem({ billing_url: 'https://evil.test/dashboard.html#/money' }, ORIGIN)).toEqual({ url: '/dashboard.html#/money' });
    expect(creditProblem(new ApiError(403, 'Forbidden', {}), ORIGIN)).toBeNull();
    expect(creditProblem('unexpected status 500 Internal Server Error', ORIGIN)).toBeNull();
    expect(creditProblem(undefined, ORIGIN)).toBeNull();
  });
});
