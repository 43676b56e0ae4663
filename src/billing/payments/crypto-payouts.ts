/**
 * Coin sent back to the customer's saved refund address through the processor's payout API (NOWPayments' shape:
 * `POST /v1/payout` with `withdrawals: [{address, currency, amount, unique_external_id}]`). Two causes, each at
 * most once per order (a unique row): the excess of an over-paid order, and an operator's refund. A payout
 * without an address on the order's network waits (`awaiting_address`) and is sent when the customer saves one.
 * A row is claimed (status `sent`, with the address) before the processor is asked, so two callers never pay the
 * same amount twice; a refused or unreachable payout is recorded as `failed` for the operator.
 */
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.js';
import type { Storage } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import type { CryptoPayoutsTable } from '../../storage/tables/payments.js';

export type ProcessorRequest = <T>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<T>;

export interface PayoutInput {
  paymentId: number;
  customerId: number;
  kind: CryptoPayoutsTable['kind'];
  network: string;
  currency: string;
  amount: string;
}

/** `a - b` of two decimal coin amounts, as a decimal string with at most 12 places (null when not positive). */
export function coinExcess(paid: string | null, due: string | null): string | null {
  if (paid === null || due === null) return null;
  const scale = 1e12;
  const excess = Math.round(Number(paid) * scale) - Math.round(Number(due) * scale);
  if (!Number.isFinite(excess) || excess <= 0) return null;
  return (excess / scale).toFixed(12).replace(/\.?0+$/, '');
}

export class CryptoPayouts {
  constructor(private readonly deps: { storage: Storage; clock: Clock; logger: Logger; request: ProcessorRequest }) {}

  /** Records a payout to be sent (once per order and kind); false when one was recorded before. */
  async record(trx: Transaction<Database>, input: PayoutInput): Promise<boolean> {
    const now = this.deps.clock.nowMs();
    const inserted = await trx
      .insertInto('crypto_payouts')
      .values({
        payment_id: input.paymentId,
        customer_id: input.customerId,
        kind: input.kind,
        network: input.network,
        currency: input.currency,
        amount: input.amount,
        address: null,
        status: 'awaiting_address',
        processor_payout_id: null,
        error: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.columns(['payment_id', 'kind']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** The customer's saved refund address on a network (the first saved), or null. */
  async addressFor(customerId: number, network: string): Promise<string | null> {
    const row = await this.deps.storage.db
      .selectFrom('crypto_refund_addresses')
      .select('address')
      .where('customer_id', '=', customerId)
      .where('network', '=', network)
      .orderBy('created_at')
      .orderBy('address_id')
      .executeTakeFirst();
    return row?.address ?? null;
  }

  /** Sends every waiting payout of the customer that now has an address on its network. */
  async dispatch(customerId: number): Promise<void> {
    const waiting = await this.deps.storage.db
      .selectFrom('crypto_payouts')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('status', '=', 'awaiting_address')
      .orderBy('id')
      .execute();
    for (const payout of waiting) {
      const address = await this.addressFor(customerId, payout.network);
      if (address !== null) await this.send(payout.id, address);
    }
  }

  private async send(payoutId: number, address: string): Promise<void> {
    const db = this.deps.storage.db;
    const claimed = await db
      .updateTable('crypto_payouts')
      .set({ status: 'sent', address, updated_at: this.deps.clock.nowMs() })
      .where('id', '=', payoutId)
      .where('status', '=', 'awaiting_address')
      .returningAll()
      .executeTakeFirst();
    if (!claimed) return;
    try {
      const answer = await this.deps.request<{ id?: string | number; withdrawals?: { id?: string | number }[] }>('POST', '/v1/payout', {
        withdrawals: [{ address, currency: claimed.currency, amount: Number(claimed.amount), unique_external_id: `payout-${claimed.id}` }],
      });
      const id = answer.withdrawals?.[0]?.id ?? answer.id;
      await db
        .updateTable('crypto_payouts')
        .set({ processor_payout_id: id === undefined ? null : String(id), updated_at: this.deps.clock.nowMs() })
        .where('id', '=', payoutId)
        .execute();
    } catch (error) {
      this.deps.logger.error({ err: error, payout: payoutId }, 'crypto payout failed');
      await db
        .updateTable('crypto_payouts')
        .set({ status: 'failed', error: (error as Error).message.slice(0, 500), updated_at: this.deps.clock.nowMs() })
        .where('id', '=', payoutId)
        .execute();
    }
  }

  /** The payouts of an order, as the customer and the operator see them. */
  async list(paymentId: number) {
    const rows = await this.deps.storage.db
      .selectFrom('crypto_payouts')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      kind: row.kind,
      network: row.network,
      currency: row.currency,
      amount: row.amount,
      address: row.address,
      status: row.status,
      processor_payout_id: row.processor_payout_id,
      created_at: new Date(Number(row.created_at)).toISOString(),
    }));
  }
}
