/**
 * What a key spent in its current spending period: the period boundaries of a key policy and the sum over the
 * key's billed calls (open holds at their full amount). Read by billing's limit check and by the key alerts.
 */
import type { KeyPolicy } from './principal.js';

export { keySpendMicros } from '../storage/ledger-store/key-spend.js';

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
