/**
 * What a key spent in its current spending period: the sum over the key's billed calls, open holds at their full
 * amount. One definition for both ledger stores: Kysely (`keySpendMicros`) and the SQLite ledger thread
 * (`KEY_SPEND_SQL`, the same sum as a prepared statement).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** What a key spent since `sinceMs`, counting open holds at their full amount. */
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

/** The same sum for the SQLite ledger thread; parameters: key id, since (epoch ms). */
export const KEY_SPEND_SQL =
  "SELECT COALESCE(SUM(CASE WHEN status = 'open' THEN hold_micros ELSE COALESCE(cost_micros, 0) END), 0) FROM billing_calls WHERE key_id = ? AND created_at >= ?";
