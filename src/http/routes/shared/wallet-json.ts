/** The JSON view of a wallet summary (`/api/v1/wallet/status`, the operator console's customer). */
import type { BillingServices } from '../../../billing/index.js';
import { moneyJson } from '../../../kernel/money.js';

export function walletJson(summary: Awaited<ReturnType<BillingServices['walletSummary']>>) {
  return {
    balance: moneyJson(summary.balanceMicros),
    holds: moneyJson(summary.holdsMicros),
    available: moneyJson(summary.availableMicros),
    cash_balance: moneyJson(summary.cashBalanceMicros),
    plan: summary.plan,
    plan_ends_at: summary.planEndsAt === null ? null : new Date(summary.planEndsAt).toISOString(),
    currency: 'USD',
  };
}
