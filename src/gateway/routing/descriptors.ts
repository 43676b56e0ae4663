/**
 * `GET /v1/models` descriptors. Aliases are listed with the capabilities and price of their current destination
 * but without naming it: the alias is the stable product, the destination an operator detail.
 */
import type { RateCardConfig } from '../../config/sections/billing.js';
import type { ModelConfig } from '../../config/sections/gateway.js';
import { formatUsd } from '../../kernel/money.js';
import type { ModelRouter } from './router.js';

export interface ModelDescriptor {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  display_name: string;
  /** Anthropic clients read `type` and `created_at` from the same list. */
  type: 'model';
  created_at: string;
  /** True for a service alias (`power-ai`) whose destination may change. */
  alias: boolean;
  capabilities: { tools: boolean; images: boolean; responses_api: boolean; context_window: number; max_output_tokens: number };
  pricing: Record<string, unknown> | null;
}

/** The rate card a model bills by, as integer micro-USD per million tokens plus formatted USD. */
export function pricingOf(cardName: string, rateCards: Readonly<Record<string, RateCardConfig>>): Record<string, unknown> | null {
  const card = rateCards[cardName];
  if (!card) return null;
  return {
    rate_card: cardName,
    input_micros_per_million: card.inputMicrosPerMillion,
    output_micros_per_million: card.outputMicrosPerMillion,
    ...(card.cachedInputMicrosPerMillion === undefined ? {} : { cached_input_micros_per_million: card.cachedInputMicrosPerMillion }),
    input_usd_per_million: formatUsd(card.inputMicrosPerMillion),
    output_usd_per_million: formatUsd(card.outputMicrosPerMillion),
    ...(card.note ? { note: card.note } : {}),
  };
}

export interface PriceBook {
  rateCards: Readonly<Record<string, RateCardConfig>>;
  /** An alias may bill by its own card (billing's `aliasRateCards`) instead of its destination's. */
  aliasRateCards: Readonly<Record<string, string>>;
}

function describe(id: string, model: ModelConfig, type: 'model' | 'alias', prices: PriceBook): ModelDescriptor {
  const { capabilities } = model;
  return {
    id,
    object: 'model',
    created: 0,
    owned_by: type === 'alias' ? 'switchyard' : model.provider,
    display_name: type === 'alias' ? id : (model.displayName ?? model.id),
    type: 'model',
    created_at: new Date(0).toISOString(),
    alias: type === 'alias',
    capabilities: {
      tools: capabilities.tools,
      images: capabilities.images,
      responses_api: capabilities.responsesApi,
      context_window: capabilities.contextWindow,
      max_output_tokens: capabilities.maxOutputTokens,
    },
    pricing: pricingOf((type === 'alias' ? prices.aliasRateCards[id] : undefined) ?? model.rateCard, prices.rateCards),
  };
}

export function listModels(router: ModelRouter, prices: PriceBook): ModelDescriptor[] {
  const aliases = router.aliasEntries().map(([alias]) => describe(alias, router.modelFor(alias)!, 'alias', prices));
  const models = [...router.catalogue.models.values()].filter((model) => !model.hidden).map((model) => describe(model.id, model, 'model', prices));
  return [...aliases, ...models];
}

export function describeModel(router: ModelRouter, id: string, prices: PriceBook): ModelDescriptor | undefined {
  if (router.isAlias(id)) return describe(id, router.modelFor(id)!, 'alias', prices);
  const model = router.catalogue.models.get(id);
  return model ? describe(model.id, model, 'model', prices) : undefined;
}
