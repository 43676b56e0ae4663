/**
 * Key policies checked before any money moves: allowed models (aliases count as themselves and as their
 * destination), spending limit per key and period, VIP entitlement.
 */
import type { Kysely } from 'kysely';
import type { CustomerPrincipal, KeyPolicy, Principal } from '../accounts/principal.js';
import type { AppConfig } from '../config/load-config.js';
import { AppError } from '../kernel/errors.js';
import { moneyJson } from '../kernel/money.js';
import type { Database } from '../storage/schema.js';
import { keySpendMicros, periodStartMs } from '../accounts/key-spend.js';

export function modelAllowed(policy: KeyPolicy, requestedModel: string, modelId: string): boolean {
  if (policy.models === undefined) return true;
  return policy.models.includes(requestedModel) || policy.models.includes(modelId);
}

/**
 * `allowed_models` for a route that names a model without calling it (token counts): the same 403 a model call
 * gets, so a key learns nothing of a model it may not use. Operators have no key policy.
 */
export function assertModelAllowed(principal: Principal, requestedModel: string, modelId: string): void {
  if (principal.kind === 'customer' && !modelAllowed(principal.policy, requestedModel, modelId)) {
    throw new AppError('MODEL_NOT_ALLOWED', `This API key may not use model ${requestedModel}`);
  }
}

export async function checkSpendingLimit(db: Kysely<Database>, principal: CustomerPrincipal, nowMs: number): Promise<void> {
  const limit = principal.policy.spendingLimitMicros;
  if (limit === undefined) return;
  const spent = await keySpendMicros(db, principal.keyId, periodStartMs(principal.policy.spendingPeriod, nowMs));
  if (spent >= limit) throw spendingLimitReached({ limitMicros: limit, period: principal.policy.spendingPeriod }, spent);
}

export function spendingLimitReached(limit: { limitMicros: number; period: KeyPolicy['spendingPeriod'] }, spentMicros: number): AppError {
  return new AppError('SPENDING_LIMIT_REACHED', 'The spending limit of this API key is reached', {
    details: {
      code: 'spending_limit_reached',
      spending_limit: moneyJson(limit.limitMicros),
      spent: moneyJson(spentMicros),
      period: limit.period ?? 'lifetime',
    },
  });
}

export function usesVip(config: AppConfig, requestedModel: string, modelId: string, host: string | undefined): boolean {
  const hostName = host?.split(':', 1)[0]?.toLowerCase();
  return (
    (hostName !== undefined && config.vip.hosts.some((vipHost) => vipHost.toLowerCase() === hostName)) ||
    config.vip.models.includes(requestedModel) ||
    config.vip.models.includes(modelId)
  );
}

export function checkVip(
  config: AppConfig,
  principal: CustomerPrincipal,
  requestedModel: string,
  modelId: string,
  host: string | undefined,
): void {
  if (usesVip(config, requestedModel, modelId, host) && !principal.vip) {
    throw new AppError('VIP_REQUIRED', 'This server or model is reserved for VIP customers');
  }
}
