/**
 * Key policies checked before any money moves: allowed models (aliases count as themselves and as their
 * destination), spending limit per key and period, VIP entitlement.
 */
import type { Kysely } from 'kysely';
import type { CustomerPrincipal, KeyPolicy } from '../accounts/principal.js';
import type { AppConfig } from '../config/load-config.js';
import { AppError } from '../kernel/errors.js';
import { moneyJson } from '../kernel/money.js';
import type { Database } from '../storage/schema.js';

export function modelAllowed(policy: KeyPolicy, requestedModel: string, modelId: string): boolean {
  if (policy.models === undefined) return true;
  return policy.models.includes(requestedModel) || policy.models.includes(modelId);
}

/** Start (epoch ms, UTC) of the spending period containing `nowMs`; 0 for a lifetime limit. */
export function periodStartMs(period: KeyPolicy['spendingPeriod'], nowMs: number): number {
  const now = new Date(nowMs);
  switch (period) {
    case 'day':
      return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    case 'week': {
      const mondayOffset = (now.getUTCDay() + 6) % 7;
      return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - mondayOffset);
    }
    case 'month':
      return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    default:
      return 0;
  }
}

/** What a key spent in its current period, counting open holds at their full amount. */
export async function keySpendMicros(db: Kysely<Database>, keyId: number, sinceMs: number): Promise<number> {
  const row = await db
    .selectFrom('billing_calls')
    .select((eb) => [
      eb.fn.sum<number>(eb.case().when('status', '=', 'open').then(eb.ref('hold_micros')).else(eb.fn.coalesce('cost_micros', eb.lit(0))).end()).as('spent'),
    ])
    .where('key_id', '=', keyId)
    .where('created_at', '>=', sinceMs)
    .executeTakeFirst();
  return Number(row?.spent ?? 0);
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

export function checkVip(config: AppConfig, principal: CustomerPrincipal, requestedModel: string, modelId: string, host: string | undefined): void {
  if (usesVip(config, requestedModel, modelId, host) && !principal.vip) {
    throw new AppError('VIP_REQUIRED', 'This server or model is reserved for VIP customers');
  }
}
