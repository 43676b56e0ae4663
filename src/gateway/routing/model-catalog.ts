/**
 * The model catalog as configured: providers, models and the default destination of each alias. Checked once
 * at start so a typo in the config file stops the service with a message naming the entry.
 */
import type { ModelConfig, ProviderConfig } from '../../config/sections/gateway.js';

export interface ModelCatalogConfig {
  providers: readonly ProviderConfig[];
  models: readonly ModelConfig[];
  aliases: Readonly<Record<string, string>>;
}

export class ModelCatalog {
  readonly providers = new Map<string, ProviderConfig>();
  readonly models = new Map<string, ModelConfig>();
  /** Alias → model id as the config file sets it. */
  readonly defaultAliases = new Map<string, string>();

  constructor(config: ModelCatalogConfig) {
    for (const provider of config.providers) {
      if (this.providers.has(provider.id)) throw new Error(`gateway config: provider ${provider.id} is defined twice`);
      this.providers.set(provider.id, provider);
    }
    for (const model of config.models) {
      if (this.models.has(model.id)) throw new Error(`gateway config: model ${model.id} is defined twice`);
      if (!this.providers.has(model.provider))
        throw new Error(`gateway config: model ${model.id} names unknown provider ${model.provider}`);
      this.models.set(model.id, model);
    }
    for (const [alias, modelId] of Object.entries(config.aliases)) {
      if (this.models.has(alias)) throw new Error(`gateway config: alias ${alias} has the same id as a model`);
      if (!this.models.has(modelId)) throw new Error(`gateway config: alias ${alias} points to unknown model ${modelId}`);
      this.defaultAliases.set(alias, modelId);
    }
  }

  providerOf(model: ModelConfig): ProviderConfig {
    return this.providers.get(model.provider)!;
  }
}
