/**
 * A promotion grant: one row keyed (customer, promotion, grant key) and its ledger transfer from the promotions
 * account, in one transaction. The key is the primary key, so of any number of concurrent claims exactly one
 * inserts the row and credits; the others find it and credit nothing.
 */
import type { Transaction } from 'kysely';
import type { Wallet } from '../billing/wallet.js';
import type { Database } from '../storage/schema.js';

export interface GrantInput {
  customerId: number;
  promotion: string;
  grantKey: string;
  amountMicros: number;
  wallet?: 'token' | 'cash';
  details?: Record<string, unknown>;
  nowMs: number;
}

/** Inserts the grant and credits it; false (and nothing credited) when it was already granted. */
export async function grantOnce(trx: Transaction<Database>, wallet: Wallet, input: GrantInput): Promise<boolean> {
  const inserted = await trx
    .insertInto('promotion_grants')
    .values({
      customer_id: input.customerId,
      promotion: input.promotion,
      grant_key: input.grantKey,
      amount_micros: input.amountMicros,
      details_json: input.details ? JSON.stringify(input.details) : null,
      created_at: input.nowMs,
    })
    .onConflict((conflict) => conflict.columns(['customer_id', 'promotion', 'grant_key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
  if (input.amountMicros > 0) {
    await wallet.creditIn(trx, {
      customerId: input.customerId,
      wallet: input.wallet ?? 'token',
      amountMicros: input.amountMicros,
      system: 'promotions',
      kind: 'promotion',
      memo: input.promotion,
      reference: `promotion:${input.promotion}:${input.grantKey}`,
    });
  }
  return true;
}
