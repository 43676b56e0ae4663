/**
 * Routing: model ids and aliases to destinations, and one provider adapter (with its keep-alive connection pool)
 * per configured provider. Aliases are resolved on every call, so an operator switch applies to the next upstream
 * call, including calls admitted before the switch.
 */
import type { Logger } from 'pino';
import type { ModelConfig, ProviderConfig } from '../../config/sections/gateway.js';
import { AppError } from '../../kernel/errors.js';
import type { Routing } from '../execute.js';
import type { Destination, ProviderAdapter } from '../normalized/index.js';
import type { AliasStore } from './alias-store.js';
import type { ModelCatalog } from './model-catalog.js';

export type AdapterFactory = (provider: ProviderConfig) => ProviderAdapter;

/** How often a node re-reads alias changes made on other nodes. */
const ALIAS_REFRESH_MS = 5_000;

export class ModelRouter implements Routing {
  private aliases = new Map<string, string>();
  private readonly adapters = new Map<string, ProviderAdapter>();
  private refreshTimer: NodeJS.Timeout | undefined;
  /** Counts this node's own switches, so a reload that read the store before one of them cannot undo it. */
  private switches = 0;

  constructor(
    readonly catalog: ModelCatalog,
    private readonly store: AliasStore,
    private readonly logger: Logger,
    createAdapter: AdapterFactory,
  ) {
    for (const provider of catalog.providers.values()) this.adapters.set(provider.id, createAdapter(provider));
    this.aliases = new Map(catalog.defaultAliases);
  }

  async start(): Promise<void> {
    await this.refresh();
    this.refreshTimer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.logger.warn({ err: error }, 'reloading model aliases failed'));
    }, ALIAS_REFRESH_MS);
    this.refreshTimer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.refreshTimer);
    await Promise.all([...this.adapters.values()].map((adapter) => adapter.close()));
  }

  /** Config defaults overlaid with the stored operator changes; stored entries for unknown aliases/models are ignored. */
  private async refresh(): Promise<void> {
    const switchesBefore = this.switches;
    const stored = await this.store.load();
    // A switch made while this read was in flight is newer than what it read; the next reload includes it.
    if (this.switches !== switchesBefore) return;
    const next = new Map(this.catalog.defaultAliases);
    for (const [alias, modelId] of stored) {
      if (next.has(alias) && this.catalog.models.has(modelId)) next.set(alias, modelId);
    }
    this.aliases = next;
  }

  resolve(name: string): Destination | undefined {
    const model = this.catalog.models.get(this.aliases.get(name) ?? name);
    if (!model) return undefined;
    return { requestedModel: name, model, provider: this.catalog.providerOf(model) };
  }

  adapterFor(destination: Destination): ProviderAdapter {
    return this.adapters.get(destination.provider.id)!;
  }

  isAlias(name: string): boolean {
    return this.aliases.has(name);
  }

  aliasEntries(): [alias: string, modelId: string][] {
    return [...this.aliases.entries()];
  }

  /** Points an existing alias at an existing model; the alias id itself never changes. */
  async setAlias(alias: string, modelId: string): Promise<{ alias: string; model: string; updatedAtMs: number }> {
    if (!this.catalog.defaultAliases.has(alias)) throw new AppError('NOT_FOUND', `Alias ${alias} not found`);
    if (!this.catalog.models.has(modelId)) throw new AppError('NOT_FOUND', `Model ${modelId} not found`);
    this.switches += 1;
    const updatedAtMs = await this.store.save(alias, modelId);
    this.switches += 1;
    this.aliases.set(alias, modelId);
    return { alias, model: modelId, updatedAtMs };
  }

  modelFor(alias: string): ModelConfig | undefined {
    const modelId = this.aliases.get(alias);
    return modelId === undefined ? undefined : this.catalog.models.get(modelId);
  }
}
