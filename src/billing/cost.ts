/** Cost arithmetic of billed calls: integer micro-USD, each token class rounded up. */
import { tokenCostCeil } from '../kernel/money.js';
import type { ResolvedCard } from './rate-cards.js';

export interface CardRates {
  input_micros_per_million: number;
  output_micros_per_million: number;
  cached_input_micros_per_million: number;
}

/** Cost of usage at the given rates; each token class rounded up to a whole micro-USD. */
export function costOf(usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number }, rates: CardRates): number {
  const cached = Math.min(Math.max(0, usage.cachedInputTokens), Math.max(0, usage.inputTokens));
  return (
    tokenCostCeil(usage.inputTokens - cached, rates.input_micros_per_million) +
    tokenCostCeil(cached, rates.cached_input_micros_per_million) +
    tokenCostCeil(usage.outputTokens, rates.output_micros_per_million)
  );
}

/** The rates of a card as recorded on a billed call. */
export function ratesOf(card: ResolvedCard): CardRates {
  return {
    input_micros_per_million: card.inputMicrosPerMillion,
    output_micros_per_million: card.outputMicrosPerMillion,
    cached_input_micros_per_million: card.cachedInputMicrosPerMillion,
  };
}

export function worstCaseMicros(rates: CardRates, estimatedInputTokens: number, maxOutputTokens: number): number {
  return costOf({ inputTokens: estimatedInputTokens, outputTokens: maxOutputTokens, cachedInputTokens: 0 }, rates);
}
