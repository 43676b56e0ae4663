/**
 * The ledger side of payments, always inside the caller's transaction: the credit of a paid payment (exactly
 * once: it is guarded by the payment row's state change), the claw-back of refunded credit (what is still
 * available is taken back, the rest becomes debt) and the repayment of debts from later credits. Every movement
 * is a transfer through `Wallet.creditIn` from or to a named system account.
 */
import { sql, type Transaction } from 'kysely';
import type { Wallet } from '../wallet.js';
import { accountId, walletCode, type SystemAccount } from '../ledger.js';
import type { Database } from '../../storage/schema.js';
import type { PaymentsTable, PaymentStatus } from '../../storage/tables/payments.js';
import type { Insertable, Selectable } from 'kysely';

export type PaymentRow = Selectable<PaymentsTable>;

/** The columns a new payment names; nothing refunded, clawed back or owed yet. */
export type NewPayment = Omit<
  Insertable<PaymentsTable>,
  | 'refunded_micros'
  | 'clawed_micros'
  | 'debt_micros'
  | 'created_at'
  | 'updated_at'
  | 'processor_ref'
  | 'payment_intent'
  | 'details_json'
  | 'credited_at'
> &
  Partial<Pick<Insertable<PaymentsTable>, 'processor_ref' | 'payment_intent' | 'details_json' | 'credited_at'>>;

/** A payment row to insert, at `nowMs`, with the bookkeeping columns every new payment starts with. */
export function newPaymentRow(payment: NewPayment, nowMs: number): Insertable<PaymentsTable> {
  return {
    processor_ref: null,
    payment_intent: null,
    details_json: null,
    credited_at: null,
    ...payment,
    refunded_micros: 0,
    clawed_micros: 0,
    debt_micros: 0,
    created_at: nowMs,
    updated_at: nowMs,
  };
}

/** Credit still available on a wallet (balance − holds), read under the account's row lock. */
async function lockedAvailable(trx: Transaction<Database>, customerId: number, wallet: 'token' | 'cash'): Promise<number> {
  const id = await accountId(trx, walletCode(customerId, wallet));
  // A no-op update takes the row lock on PostgreSQL (SQLite already holds the write lock).
  await trx
    .updateTable('billing_accounts')
    .set({ balance_micros: sql`balance_micros` })
    .where('id', '=', id)
    .execute();
  const row = await trx
    .selectFrom('billing_accounts')
    .select(['balance_micros', 'held_micros'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return Math.max(0, Number(row.balance_micros) - Number(row.held_micros));
}

export class PaymentLedger {
  constructor(
    private readonly wallet: Wallet,
    private readonly nowMs: () => number,
  ) {}

  /**
   * Moves the payment from one of `from` to `paid` and credits it, once: the state change is a guarded update,
   * so a second caller (webhook and confirm racing, a duplicate event) finds nothing to change and credits
   * nothing. Returns the row when this call credited it, null otherwise.
   */
  async markPaid(
    trx: Transaction<Database>,
    paymentId: number,
    from: PaymentStatus[],
    options: { system?: SystemAccount; kind: string; paymentIntent?: string | null; details?: Record<string, unknown> },
  ): Promise<PaymentRow | null> {
    const nowMs = this.nowMs();
    const updated = await trx
      .updateTable('payments')
      .set({
        status: 'paid',
        credited_at: nowMs,
        updated_at: nowMs,
        ...(options.paymentIntent ? { payment_intent: options.paymentIntent } : {}),
        ...(options.details ? { details_json: JSON.stringify(options.details) } : {}),
      })
      .where('id', '=', paymentId)
      .where('status', 'in', from)
      .returningAll()
      .executeTakeFirst();
    if (!updated) return null;
    await this.wallet.creditIn(trx, {
      customerId: updated.customer_id,
      wallet: updated.wallet,
      amountMicros: Number(updated.credit_micros),
      system: options.system ?? 'top_ups',
      kind: options.kind,
      memo: updated.pack_id,
      reference: `payment:${updated.public_id}`,
    });
    await this.repayDebts(trx, updated.customer_id, updated.wallet);
    // A refund that arrived before the payment was credited is applied now.
    if (Number(updated.refunded_micros) > 0) await this.applyRefunds(trx, updated.id);
    return updated;
  }

  /**
   * Brings the claw-back of a paid payment up to its refunded amount: the share of the credit that was refunded
   * is taken from the wallet as far as it is available, the rest is recorded as debt. Refund amounts are
   * cumulative, so applying the same refund twice changes nothing.
   */
  async applyRefunds(trx: Transaction<Database>, paymentId: number): Promise<{ clawedMicros: number; debtMicros: number }> {
    // Row lock on the payment first (PostgreSQL), so two refund deliveries do not both claw the same amount.
    await trx
      .updateTable('payments')
      .set({ updated_at: sql`updated_at` })
      .where('id', '=', paymentId)
      .execute();
    const payment = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
    if (payment.status !== 'paid') return { clawedMicros: 0, debtMicros: 0 };
    const credit = Number(payment.credit_micros);
    const amount = Number(payment.amount_micros);
    const refunded = Math.min(Number(payment.refunded_micros), amount);
    // The refunded share of the credit, rounded in the service's favour (a full refund takes back all of it).
    const target = amount === 0 ? 0 : Math.min(credit, Math.ceil((credit * refunded) / amount));
    const due = target - Number(payment.clawed_micros) - Number(payment.debt_micros);
    if (due <= 0) return { clawedMicros: 0, debtMicros: 0 };
    if (payment.wallet === 'token') await this.wallet.giveBackReservedIn(trx, payment.customer_id);
    const available = await lockedAvailable(trx, payment.customer_id, payment.wallet);
    const take = Math.min(due, available);
    const debt = due - take;
    if (take > 0) {
      await this.wallet.creditIn(trx, {
        customerId: payment.customer_id,
        wallet: payment.wallet,
        amountMicros: -take,
        system: 'refunds',
        kind: 'refund_clawback',
        memo: payment.pack_id,
        reference: `payment:${payment.public_id}`,
      });
    }
    const nowMs = this.nowMs();
    if (debt > 0) {
      await trx
        .insertInto('payment_debts')
        .values({
          customer_id: payment.customer_id,
          wallet: payment.wallet,
          payment_id: payment.id,
          amount_micros: debt,
          repaid_micros: 0,
          created_at: nowMs,
        })
        .execute();
    }
    await trx
      .updateTable('payments')
      .set({ clawed_micros: sql`clawed_micros + ${take}`, debt_micros: sql`debt_micros + ${debt}`, updated_at: nowMs })
      .where('id', '=', payment.id)
      .execute();
    return { clawedMicros: take, debtMicros: debt };
  }

  /** Repays outstanding refund debts of a wallet from its available credit (oldest first). */
  async repayDebts(trx: Transaction<Database>, customerId: number, wallet: 'token' | 'cash'): Promise<number> {
    const debts = await trx
      .selectFrom('payment_debts')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('wallet', '=', wallet)
      .where(sql<boolean>`amount_micros > repaid_micros`)
      .orderBy('id')
      .execute();
    if (debts.length === 0) return 0;
    if (wallet === 'token') await this.wallet.giveBackReservedIn(trx, customerId);
    let available = await lockedAvailable(trx, customerId, wallet);
    let repaid = 0;
    for (const debt of debts) {
      if (available <= 0) break;
      const amount = Math.min(available, Number(debt.amount_micros) - Number(debt.repaid_micros));
      await this.wallet.creditIn(trx, {
        customerId,
        wallet,
        amountMicros: -amount,
        system: 'refunds',
        kind: 'debt_repayment',
        memo: null,
        reference: `debt:${debt.id}`,
      });
      await trx
        .updateTable('payment_debts')
        .set({ repaid_micros: sql`repaid_micros + ${amount}` })
        .where('id', '=', debt.id)
        .execute();
      available -= amount;
      repaid += amount;
    }
    return repaid;
  }

  /** Outstanding debt of a customer (both wallets). */
  async outstandingDebt(
    trx: Transaction<Database> | { selectFrom: Transaction<Database>['selectFrom'] },
    customerId: number,
  ): Promise<number> {
    const rows = await trx
      .selectFrom('payment_debts')
      .select(['amount_micros', 'repaid_micros'])
      .where('customer_id', '=', customerId)
      .execute();
    return rows.reduce((sum, row) => sum + Number(row.amount_micros) - Number(row.repaid_micros), 0);
  }
}
