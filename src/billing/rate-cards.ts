/**
 * Which rate card bills a model or alias. An operator may switch the card of a model or alias at runtime (the
 * switch is stored, and other nodes pick it up within the cache TTL). Resolution: a switch of the requested
 * alias, else the alias's configured card, else (the alias's destination or the model itself) its switch, else
 * the model's configured card.
 */
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import { formatUsd } from '../kernel/money.js';
import type { AppConfig } from '../config/load-config.js';
import type { Storage } from '../storage/database.js';

export interface ResolvedCard {
  name: string;
  label: string;
  note: string | null;
  inputMicrosPerMillion: number;
  outputMicrosPerMillion: number;
  cachedInputMicrosPerMillion: number;
  cacheWriteMicrosPerMillion: number;
  cacheWrite1hMicrosPerMillion: number;
}

export interface ModelPrices {
  model: string;
  rate_card: string;
  label: string;
  note: string | null;
  input_micros_per_million: number;
  output_micros_per_million: number;
  cached_input_micros_per_million: number;
  cache_write_micros_per_million: number;
  cache_write_1h_micros_per_million: number;
  input_usd_per_million: string;
  output_usd_per_million: string;
  currency: 'USD';
}

export class RateCards {
  private switches = new Map<string, string>();
  private loadedAtMs = -Infinity;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  /** Re-reads the stored switches when the cache is older than the TTL. */
  async refresh(force = false): Promise<void> {
    if (!force && this.clock.nowMs() - this.loadedAtMs < this.config.billing.cacheTtlMs) return;
    this.loading ??= (async () => {
      try {
        const rows = await this.storage.db.selectFrom('rate_card_assignments').select(['target', 'card']).execute();
        this.switches = new Map(rows.map((row) => [row.target, row.card]));
        this.loadedAtMs = this.clock.nowMs();
      } finally {
        this.loading = null;
      }
    })();
    await this.loading;
  }

  isTarget(target: string): boolean {
    return target in this.config.aliases || target in this.config.aliasRateCards || this.config.models.some((model) => model.id === target);
  }

  /**
   * The card in force for `requested` (a model or alias) whose destination is `destinationModelId` (the
   * gateway's current destination of an alias; default: the configured one).
   */
  cardNameFor(requested: string, destinationModelId: string = this.config.aliases[requested] ?? requested): string {
    const direct = this.switches.get(requested);
    if (direct) return direct;
    const aliasCard = requested === destinationModelId ? undefined : this.config.aliasRateCards[requested];
    if (aliasCard) return aliasCard;
    const switched = this.switches.get(destinationModelId);
    if (switched) return switched;
    const model = this.config.models.find((entry) => entry.id === destinationModelId);
    if (!model) throw new AppError('NOT_FOUND', `Model ${requested} not found`);
    return model.rateCard;
  }

  card(name: string): ResolvedCard {
    const card = this.config.rateCards[name];
    if (!card) throw new AppError('NOT_FOUND', `Rate card ${name} not found`);
    return {
      name,
      label: card.label ?? name,
      note: card.note ?? null,
      inputMicrosPerMillion: card.inputMicrosPerMillion,
      outputMicrosPerMillion: card.outputMicrosPerMillion,
      cachedInputMicrosPerMillion: card.cachedInputMicrosPerMillion ?? card.inputMicrosPerMillion,
      // Anthropic's multiples, rounded up (a named direction: the customer never pays less than the write costs).
      cacheWriteMicrosPerMillion: card.cacheWriteMicrosPerMillion ?? Math.ceil((card.inputMicrosPerMillion * 5) / 4),
      cacheWrite1hMicrosPerMillion: card.cacheWrite1hMicrosPerMillion ?? card.inputMicrosPerMillion * 2,
    };
  }

  resolve(requested: string, destinationModelId?: string): ResolvedCard {
    return this.card(this.cardNameFor(requested, destinationModelId));
  }

  prices(requested: string, destinationModelId?: string): ModelPrices {
    const card = this.resolve(requested, destinationModelId);
    return {
      model: requested,
      rate_card: card.name,
      label: card.label,
      note: card.note,
      input_micros_per_million: card.inputMicrosPerMillion,
      output_micros_per_million: card.outputMicrosPerMillion,
      cached_input_micros_per_million: card.cachedInputMicrosPerMillion,
      cache_write_micros_per_million: card.cacheWriteMicrosPerMillion,
      cache_write_1h_micros_per_million: card.cacheWrite1hMicrosPerMillion,
      input_usd_per_million: formatUsd(card.inputMicrosPerMillion),
      output_usd_per_million: formatUsd(card.outputMicrosPerMillion),
      currency: 'USD',
    };
  }

  /** Operator switch: persisted, effective at once on this node and within the cache TTL on others. */
  async switchCard(target: string, cardName: string): Promise<ModelPrices> {
    if (!this.isTarget(target)) throw new AppError('NOT_FOUND', `Model or alias ${target} not found`);
    this.card(cardName);
    const nowMs = this.clock.nowMs();
    await this.storage.db
      .insertInto('rate_card_assignments')
      .values({ target, card: cardName, updated_at: nowMs })
      .onConflict((conflict) => conflict.column('target').doUpdateSet({ card: cardName, updated_at: nowMs }))
      .execute();
    this.switches.set(target, cardName);
    return this.prices(target);
  }

  /** Every model and alias with its card in force. */
  list(): ModelPrices[] {
    const targets = [...this.config.models.map((model) => model.id), ...Object.keys(this.config.aliases)];
    return targets.map((target) => this.prices(target));
  }
}
