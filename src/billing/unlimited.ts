/**
 * Unlimited Coding plans: an active subscription covers the models and surfaces its plan names (no wallet
 * debit; usage still recorded). Fair-use thresholds per rolling window; beyond them 429 with Retry-After.
 */
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { AppConfig } from '../config/load-config.js';
import type { UnlimitedPlanConfig } from '../config/sections/billing.js';
import type { Storage } from '../storage/database.js';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

export interface ActivePlan {
  plan: UnlimitedPlanConfig;
  endsAt: number;
}

export class UnlimitedPlans {
  private readonly cache = new Map<number, { loadedAtMs: number; active: ActivePlan | null }>();

  constructor(
    private readonly config: AppConfig,
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  plan(planId: string): UnlimitedPlanConfig {
    const plan = this.config.unlimitedPlans.find((entry) => entry.id === planId);
    if (!plan) throw new AppError('NOT_FOUND', `Unlimited plan ${planId} not found`);
    return plan;
  }

  async active(customerId: number): Promise<ActivePlan | null> {
    if (this.config.unlimitedPlans.length === 0) return null;
    const nowMs = this.clock.nowMs();
    const cached = this.cache.get(customerId);
    if (cached && nowMs - cached.loadedAtMs < this.config.billing.cacheTtlMs && (cached.active === null || cached.active.endsAt > nowMs)) {
      return cached.active;
    }
    const row = await this.storage.db
      .selectFrom('unlimited_subscriptions')
      .select(['plan_id', 'ends_at'])
      .where('customer_id', '=', customerId)
      .where('starts_at', '<=', nowMs)
      .where('ends_at', '>', nowMs)
      .orderBy('ends_at', 'desc')
      .executeTakeFirst();
    const plan = row ? this.config.unlimitedPlans.find((entry) => entry.id === row.plan_id) : undefined;
    const active = row && plan ? { plan, endsAt: row.ends_at } : null;
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(customerId, { loadedAtMs: nowMs, active });
    return active;
  }

  /** Drops the cached plan of a customer, after a subscription written in another transaction (a cash purchase). */
  forget(customerId: number): void {
    this.cache.delete(customerId);
  }

  /** Operator grant of a plan for its duration (or `days`), starting now or when the current one ends. */
  async grant(customerId: number, planId: string, days?: number): Promise<{ planId: string; startsAt: number; endsAt: number }> {
    const plan = this.plan(planId);
    const nowMs = this.clock.nowMs();
    const current = await this.active(customerId);
    const startsAt = current && current.plan.id === planId ? current.endsAt : nowMs;
    const endsAt = startsAt + (days ?? plan.durationDays) * DAY_MS;
    await this.storage.db
      .insertInto('unlimited_subscriptions')
      .values({ customer_id: customerId, plan_id: planId, starts_at: startsAt, ends_at: endsAt, created_at: nowMs })
      .execute();
    this.cache.delete(customerId);
    return { planId, startsAt, endsAt };
  }

  covers(active: ActivePlan, requestedModel: string, modelId: string, surface: string): boolean {
    const { models, surfaces } = active.plan;
    const modelCovered = models === undefined || models.includes(requestedModel) || models.includes(modelId);
    const surfaceCovered = (surfaces ?? ['gateway', 'projects']).includes(surface as 'gateway' | 'projects');
    return modelCovered && surfaceCovered;
  }

  /** 429 when the customer's covered use is beyond a fair-use threshold. */
  async checkFairUse(customerId: number, plan: UnlimitedPlanConfig): Promise<void> {
    const nowMs = this.clock.nowMs();
    const { requestsPerHour, tokensPerDay } = plan.fairUse;
    if (requestsPerHour !== undefined) {
      const recent = await this.storage.db
        .selectFrom('billing_calls')
        .select('created_at')
        .where('customer_id', '=', customerId)
        .where('covered_plan', 'is not', null)
        .where('created_at', '>', nowMs - HOUR_MS)
        .orderBy('created_at', 'desc')
        .limit(requestsPerHour)
        .execute();
      if (recent.length >= requestsPerHour) {
        throw fairUseError(recent[requestsPerHour - 1]!.created_at + HOUR_MS - nowMs, 'requests_per_hour');
      }
    }
    if (tokensPerDay !== undefined) {
      const row = await this.storage.db
        .selectFrom('billing_calls')
        .select((eb) => [
          eb.fn
            .sum<number>(eb(eb.fn.coalesce('input_tokens', 'estimated_input_tokens'), '+', eb.fn.coalesce('output_tokens', eb.lit(0))))
            .as('tokens'),
          eb.fn.min<number>('created_at').as('oldest'),
        ])
        .where('customer_id', '=', customerId)
        .where('covered_plan', 'is not', null)
        .where('created_at', '>', nowMs - DAY_MS)
        .executeTakeFirst();
      if (Number(row?.tokens ?? 0) >= tokensPerDay) {
        throw fairUseError(Number(row!.oldest) + DAY_MS - nowMs, 'tokens_per_day');
      }
    }
  }
}

function fairUseError(retryAfterMs: number, threshold: string): AppError {
  return new AppError('RATE_LIMITED', 'Fair-use threshold of the Unlimited plan reached', {
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
    details: { limit_source: 'fair_use', threshold },
  });
}
