/**
 * A key's policy binds agent turns as it binds `/v1`. Before the app-server hears of a thread or turn, the key
 * that asks for it must be allowed the model it names (403 MODEL_NOT_ALLOWED) and must not have reached its
 * spending limit (403 SPENDING_LIMIT_REACHED). Every model request of the turn is then checked and billed again
 * by the gateway as that key (see accounts/turn-principals.ts), so a default model the key may not use, a limit
 * reached during the turn or the key's rate-limit plan stop the turn there.
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../accounts/principal.js';
import { checkSpendingLimit, modelAllowed } from '../billing/policy.js';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import type { Database } from '../storage/schema.js';

export interface TurnPolicyDeps {
  /** The configured model an id or alias routes to now (undefined when unknown). */
  resolveModel(name: string): string | undefined;
  db: Kysely<Database>;
  clock: Clock;
  /** Refuses a start while the customer's workspace is past its quota (see workspace-quota.ts). */
  workspaceQuota?: (customerId: number) => Promise<void>;
}

export class TurnPolicy {
  constructor(private readonly deps: TurnPolicyDeps) {}

  /** Refuses a thread or turn the principal's key may not start; `model` is the override it names, if any. */
  async check(principal: Principal, model: unknown): Promise<void> {
    if (principal.kind !== 'customer') return;
    if (typeof model === 'string' && !modelAllowed(principal.policy, model, this.deps.resolveModel(model) ?? model)) {
      throw new AppError('MODEL_NOT_ALLOWED', `This API key may not use model ${model}`, { details: { param: 'model' } });
    }
    await checkSpendingLimit(this.deps.db, principal, this.deps.clock.nowMs());
    await this.deps.workspaceQuota?.(principal.customerId);
  }
}
