/**
 * What a key spent in its current spending period: the period boundaries of a key policy and the sum over the
 * key's billed calls (open holds at their full amount). Read by billing's limit check and by the key alerts.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { KeyPolicy } from './principal.js';

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
      eb.fn
        .sum<number>(
          eb
            .case()
            .when('status', '=', 'open')
            .then(eb.ref('hold_micros'))
            .else(eb.fn.coalesce('cost_micros', eb.lit(0)))
            .end(),
        )
        .as('spent'),
    ])
    .where('key_id', '=', keyId)
    .where('created_at', '>=', sinceMs)
    .executeTakeFirst();
  return Number(row?.spent ?? 0);
}
