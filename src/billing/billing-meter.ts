/** The real meter: key policy, limits, Unlimited coverage, then the guarded hold; settlement exactly once. */
import type { CustomerPrincipal } from '../accounts/principal.js';
import type { AppConfig } from '../config/load-config.js';
import { withBillingLink } from './billing-link.js';
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Logger } from 'pino';
import type { Storage } from '../storage/database.js';
import { freeMeter, type MeteredCall, type MeteredUsage, type Meter, type MeterRequest, type SettleOutcome } from './meter.js';
import { periodStartMs } from '../accounts/key-spend.js';
import { checkSpendingLimit, checkVip, modelAllowed } from './policy.js';
import type { RateCards } from './rate-cards.js';
import type { RateLimiter } from './rate-limiter.js';
import type { UnlimitedPlans } from './unlimited.js';
import type { HeldCall, Wallet } from './wallet.js';

export interface MeterDeps {
  config: AppConfig;
  storage: Storage;
  clock: Clock;
  logger: Logger;
  wallet: Wallet;
  rateCards: RateCards;
  limiter: RateLimiter;
  unlimited: UnlimitedPlans;
  /**
   * Called after a settlement that charged the wallet has committed, with the customer id. It must not block:
   * the meter does not wait for it (listeners run their work asynchronously and log their own errors).
   */
  afterSettle?: (customerId: number) => void;
}

function nonNegativeInteger(value: number | undefined): number {
  return Number.isFinite(value) && value! > 0 ? Math.floor(value!) : 0;
}

export function createMeter(deps: MeterDeps): Meter {
  const { config } = deps;

  async function admitRate(principal: CustomerPrincipal): Promise<() => Promise<void>> {
    const planName = principal.policy.rateLimitPlan ?? config.billing.defaultRateLimitPlan;
    if (planName === undefined) return async () => undefined;
    const rule = config.rateLimitPlans[planName];
    if (!rule) return async () => undefined;
    const admission = await deps.limiter.admit(`key:${principal.keyId}`, rule);
    if (!admission.allowed) {
      throw new AppError('RATE_LIMITED', `Rate limit of this API key reached (${admission.reason.replace(/_/g, ' ')})`, {
        retryAfterSeconds: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)),
        details: { limit_source: admission.reason },
      });
    }
    return admission.release;
  }

  const limitedKeys = new KeyedSerializer();

  async function begin(request: MeterRequest): Promise<MeteredCall> {
    const { principal } = request;
    if (principal.kind === 'operator') return freeMeter.begin(request);
    if (!modelAllowed(principal.policy, request.requestedModel, request.modelId)) {
      throw new AppError('MODEL_NOT_ALLOWED', `This API key may not use model ${request.requestedModel}`);
    }
    checkVip(config, principal, request.requestedModel, request.modelId, request.host);
    if (principal.policy.spendingLimitMicros === undefined) return admitAndHold(request, principal);
    // A limited key's check and hold run one at a time, so concurrent calls see each other's open holds.
    return limitedKeys.run(principal.keyId, async () => {
      await checkSpendingLimit(deps.storage.db, principal, deps.clock.nowMs());
      return admitAndHold(request, principal);
    });
  }

  async function admitAndHold(request: MeterRequest, principal: CustomerPrincipal): Promise<MeteredCall> {
    const release = once(await admitRate(principal));
    try {
      const surface = request.surface ?? 'gateway';
      const active = await deps.unlimited.active(principal.customerId);
      const covering = active && deps.unlimited.covers(active, request.requestedModel, request.modelId, surface) ? active : null;
      if (covering) await deps.unlimited.checkFairUse(principal.customerId, covering.plan);
      await deps.rateCards.refresh();
      const card = deps.rateCards.resolve(request.requestedModel, request.modelId);
      const held = await deps.wallet.hold({
        customerId: principal.customerId,
        keyId: principal.keyId,
        requestId: request.requestId,
        clientRequestId: request.clientRequestId,
        model: request.modelId,
        requestedModel: request.requestedModel,
        operation: request.operation,
        surface,
        card,
        estimatedInputTokens: nonNegativeInteger(request.estimatedInputTokens),
        maxOutputTokens: nonNegativeInteger(request.maxOutputTokens) || config.billing.defaultHoldOutputTokens,
        coveredPlan: covering ? covering.plan.id : null,
        agentTurn: principal.agentTurn,
        spendingLimit:
          principal.policy.spendingLimitMicros === undefined
            ? undefined
            : {
                limitMicros: principal.policy.spendingLimitMicros,
                sinceMs: periodStartMs(principal.policy.spendingPeriod, deps.clock.nowMs()),
                period: principal.policy.spendingPeriod,
              },
      });
      return meteredCall(deps, held, release, principal.customerId);
    } catch (error) {
      await release();
      throw withBillingLink(error, config);
    }
  }

  return { begin };
}

function meteredCall(deps: MeterDeps, held: HeldCall, release: () => Promise<void>, customerId: number): MeteredCall {
  let outcome: Promise<SettleOutcome> | null = null;
  return {
    holdMicros: held.holdMicros,
    // An early hold refused at its commit frees the rate-limit slot as a refused hold does.
    confirmed: held.committed?.catch(async (error: unknown) => {
      await release();
      throw withBillingLink(error, deps.config);
    }),
    settle(usage: MeteredUsage, status) {
      if (outcome) {
        deps.logger.warn({ callId: held.callId }, 'billed call settled more than once; the first settlement stands');
        return outcome;
      }
      // The call's upstream work is over: its concurrency slot frees now, not when the settlement commits.
      const released = release().catch(() => undefined);
      outcome = (async () => {
        try {
          const settled = await deps.wallet.settle(
            held,
            {
              inputTokens: nonNegativeInteger(usage.inputTokens),
              outputTokens: nonNegativeInteger(usage.outputTokens),
              cachedInputTokens: nonNegativeInteger(usage.cachedInputTokens),
              cacheWriteTokens: nonNegativeInteger(usage.cacheWriteTokens),
              cacheWrite1hTokens: nonNegativeInteger(usage.cacheWrite1hTokens),
              source: usage.source,
            },
            status,
          );
          if (settled.alreadySettled) deps.logger.error({ callId: held.callId }, 'billed call was already settled elsewhere');
          else if (settled.costMicros > 0 && deps.afterSettle) {
            try {
              deps.afterSettle(customerId);
            } catch (error) {
              deps.logger.error({ err: error, callId: held.callId }, 'after-settlement listener failed');
            }
          }
          return { costMicros: settled.costMicros, covered: settled.covered };
        } finally {
          await released;
        }
      })();
      return outcome;
    },
  };
}

/** The rate limiter's release, run at most once (a refused early hold releases it, and so does its settlement). */
function once(release: () => Promise<void>): () => Promise<void> {
  let released: Promise<void> | null = null;
  return () => (released ??= release());
}

/** Runs tasks of the same key one after another (tasks of different keys run concurrently). */
class KeyedSerializer {
  private readonly tails = new Map<number, Promise<unknown>>();

  run<T>(key: number, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
