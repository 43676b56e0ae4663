/** Cost arithmetic of billed calls: integer micro-USD, each token class rounded up. */
import { tokenCostCeil } from '../kernel/money.js';
import type { ResolvedCard } from './rate-cards.js';

export interface CardRates {
  input_micros_per_million: number;
  output_micros_per_million: number;
  cached_input_micros_per_million: number;
  cache_write_micros_per_million: number;
  cache_write_1h_micros_per_million: number;
}

export interface BilledTokens {
  inputTokens: number;
  outputTokens: number;
  /** Read from the prompt cache (part of inputTokens). */
  cachedInputTokens: number;
  /** Written to the prompt cache (part of inputTokens), of which `cacheWrite1hTokens` kept for an hour. */
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
}

const clamp = (value: number | undefined, max: number): number => Math.min(Math.max(0, value ?? 0), Math.max(0, max));

/**
 * Cost of usage at the given rates; each token class rounded up to a whole micro-USD. Input tokens are split into
 * cache reads, cache writes (5-minute and 1-hour) and the rest, each class never more than what is left of the input.
 */
export function costOf(usage: BilledTokens, rates: CardRates): number {
  const input = Math.max(0, usage.inputTokens);
  const cached = clamp(usage.cachedInputTokens, input);
  const written = clamp(usage.cacheWriteTokens, input - cached);
  const writtenHour = clamp(usage.cacheWrite1hTokens, written);
  return (
    tokenCostCeil(input - cached - written, rates.input_micros_per_million) +
    tokenCostCeil(cached, rates.cached_input_micros_per_million) +
    tokenCostCeil(written - writtenHour, rates.cache_write_micros_per_million) +
    tokenCostCeil(writtenHour, rates.cache_write_1h_micros_per_million) +
    tokenCostCeil(usage.outputTokens, rates.output_micros_per_million)
  );
}

/** The rates of a card as recorded on a billed call. */
export function ratesOf(card: ResolvedCard): CardRates {
  return {
    input_micros_per_million: card.inputMicrosPerMillion,
    output_micros_per_million: card.outputMicrosPerMillion,
    cached_input_micros_per_million: card.cachedInputMicrosPerMillion,
    cache_write_micros_per_million: card.cacheWriteMicrosPerMillion,
    cache_write_1h_micros_per_million: card.cacheWrite1hMicrosPerMillion,
  };
}

/**
 * The hold: every input token at the input rate. Cache writes cost more, but only a caller who marks its prompt for
 * caching causes them; a settlement above its hold collects the difference from what the wallet has spare.
 */
export function worstCaseMicros(rates: CardRates, estimatedInputTokens: number, maxOutputTokens: number): number {
  return costOf({ inputTokens: estimatedInputTokens, outputTokens: maxOutputTokens, cachedInputTokens: 0 }, rates);
}
