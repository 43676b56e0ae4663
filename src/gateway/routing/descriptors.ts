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
  type: 'model' | 'alias';
  capabilities: { tools: boolean; images: boolean; responses_api: boolean; context_window: number; max_output_tokens: number };
  pricing: Record<string, unknown> | null;
}

/** The rate card a model bills by, as integer micro-USD per million tokens plus formatted USD. */
export function pricingOf(model: ModelConfig, rateCards: Readonly<Record<string, RateCardConfig>>): Record<string, unknown> | null {
  const card = rateCards[model.rateCard];
  if (!card) return null;
  return {
    rate_card: model.rateCard,
    input_micros_per_million: card.inputMicrosPerMillion,
    output_micros_per_million: card.outputMicrosPerMillion,
    ...(card.cachedInputMicrosPerMillion === undefined ? {} : { cached_input_micros_per_million: card.cachedInputMicrosPerMillion }),
    input_usd_per_million: formatUsd(card.inputMicrosPerMillion),
    output_usd_per_million: formatUsd(card.outputMicrosPerMillion),
    ...(card.note ? { note: card.note } : {}),
  };
}

function describe(id: string, model: ModelConfig, type: 'model' | 'alias', rateCards: Readonly<Record<string, RateCardConfig>>): ModelDescriptor {
  const { capabilities } = model;
  return {
    id,
    object: 'model',
    created: 0,
    owned_by: type === 'alias' ? 'switchyard' : model.provider,
    display_name: type === 'alias' ? id : (model.displayName ?? model.id),
    type,
    capabilities: {
      tools: capabilities.tools,
      images: capabilities.images,
      responses_api: capabilities.responsesApi,
      context_window: capabilities.contextWindow,
      max_output_tokens: capabilities.maxOutputTokens,
    },
    pricing: pricingOf(model, rateCards),
  };
}

export function listModels(router: ModelRouter, rateCards: Readonly<Record<string, RateCardConfig>>): ModelDescriptor[] {
  const aliases = router.aliasEntries().map(([alias]) => describe(alias, router.modelFor(alias)!, 'alias', rateCards));
  const models = [...router.catalogue.models.values()].filter((model) => !model.hidden).map((model) => describe(model.id, model, 'model', rateCards));
  return [...aliases, ...models];
}

export function describeModel(router: ModelRouter, id: string, rateCards: Readonly<Record<string, RateCardConfig>>): ModelDescriptor | undefined {
  if (router.isAlias(id)) return describe(id, router.modelFor(id)!, 'alias', rateCards);
  const model = router.catalogue.models.get(id);
  return model ? describe(model.id, model, 'model', rateCards) : undefined;
}
