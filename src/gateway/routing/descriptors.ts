/**
 * `GET /v1/models` descriptors. Aliases are listed with the capabilities and price of their current destination
 * but without naming it: the alias is the stable product, the destination an operator detail.
 */
import type { ModelConfig } from '../../config/sections/gateway.js';
import type { ModelRouter } from './router.js';
import { nativeStructuredOutput, webSearchCapable } from '../normalized/index.js';

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
  capabilities: {
    tools: boolean;
    images: boolean;
    responses_api: boolean;
    context_window: number;
    max_output_tokens: number;
    structured_output: boolean;
    web_search: boolean;
    embeddings: boolean;
  };
  pricing: object | null;
}

/**
 * Prices of a model or alias as billing charges them right now (runtime rate-card switches included):
 * billing's `pricesFor`, so the listing and the hold always use the same card.
 */
export type PriceOf = (id: string, destinationModelId: string) => object | null;

function describe(router: ModelRouter, id: string, model: ModelConfig, type: 'model' | 'alias', priceOf: PriceOf): ModelDescriptor {
  const { capabilities } = model;
  const destination = { requestedModel: id, model, provider: router.catalog.providerOf(model) };
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
      // Structured output works everywhere (native or emulated); this says whether it is native.
      structured_output: nativeStructuredOutput(destination),
      web_search: webSearchCapable(destination),
      embeddings: capabilities.embeddings,
    },
    pricing: priceOf(id, model.id),
  };
}

export function listModels(router: ModelRouter, priceOf: PriceOf): ModelDescriptor[] {
  const aliases = router.aliasEntries().map(([alias]) => describe(router, alias, router.modelFor(alias)!, 'alias', priceOf));
  const models = [...router.catalog.models.values()]
    .filter((model) => !model.hidden)
    .map((model) => describe(router, model.id, model, 'model', priceOf));
  return [...aliases, ...models];
}

export function describeModel(router: ModelRouter, id: string, priceOf: PriceOf): ModelDescriptor | undefined {
  if (router.isAlias(id)) return describe(router, id, router.modelFor(id)!, 'alias', priceOf);
  const model = router.catalog.models.get(id);
  return model ? describe(router, model.id, model, 'model', priceOf) : undefined;
}
