/**
 * A hold placed in one transaction of the writer queue (PostgreSQL, or SQLite without the ledger worker): the
 * guarded UPDATE (held grows only while balance − held covers it) and the call's row. For a key with a spending
 * limit the transaction first takes the key's lock and checks the key's spend inside it, so processes sharing the
 * database see each other's holds and together admit no more than the limit covers (the per-process serializer in
 * billing-meter.ts orders calls within one process; this orders them across processes).
 */
import { sql, type Insertable, type Transaction } from 'kysely';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { BillingCallsTable } from '../storage/tables/billing.js';
import { keySpendMicros } from '../accounts/key-spend.js';

/** Lock scope of spending-limit checks (any constant unique among the service's advisory locks). */
const SPENDING_LIMIT_LOCK_SCOPE = 0x5350_4c4d;

export interface HoldInTransaction {
  accountId: number;
  holdMicros: number;
  call: Insertable<BillingCallsTable>;
  spendingLimit?: { keyId: number; limitMicros: number; sinceMs: number };
}

/** The call id; null when the wallet is short; `{ spentMicros }` when the key's spending limit is reached. */
export async function placeHold(
  storage: Storage,
  trx: Transaction<Database>,
  hold: HoldInTransaction,
): Promise<number | null | { spentMicros: number }> {
  if (hold.spendingLimit) {
    const { keyId, limitMicros, sinceMs } = hold.spendingLimit;
    await storage.lockInTransaction(trx, SPENDING_LIMIT_LOCK_SCOPE, keyId);
    const spentMicros = await keySpendMicros(trx, keyId, sinceMs);
    if (spentMicros >= limitMicros) return { spentMicros };
  }
  if (hold.holdMicros > 0) {
    const guarded = await trx
      .updateTable('billing_accounts')
      .set({ held_micros: sql`held_micros + ${hold.holdMicros}` })
      .where('id', '=', hold.accountId)
      .where(sql<boolean>`balance_micros - held_micros >= ${hold.holdMicros}`)
      .executeTakeFirst();
    if (Number(guarded.numUpdatedRows) !== 1) return null;
  }
  const row = await trx.insertInto('billing_calls').values(hold.call).returning('id').executeTakeFirstOrThrow();
  return row.id;
}
