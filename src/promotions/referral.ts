/**
 * Referral: one code per customer (made on first use), the customers a code brought in (attributed once, never
 * to oneself), and the referrer's cash-wallet earnings: a configured share of each paid top-up of a referred
 * customer, credited in the transaction that credits the payment and clawed back in the one that claws back its
 * refund.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Wallet } from '../billing/wallet.js';
import { accountId, walletCode } from '../billing/ledger.js';
import type { PaymentRow } from '../billing/payments/ledger-effects.js';
import type { PaymentListener } from '../billing/payments/ports.js';
import { randomBase62 } from '../kernel/ids.js';
import type { Database } from '../storage/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

export const REFERRAL_CODE_PATTERN = /^[A-Za-z0-9]{6,32}$/;

/** The customer's referral code, created on first use (safe under concurrent first uses). */
export async function referralCodeOf(db: Executor, customerId: number, nowMs: number): Promise<string> {
  const existing = await db.selectFrom('referral_codes').select('code').where('customer_id', '=', customerId).executeTakeFirst();
  if (existing) return existing.code;
  await db
    .insertInto('referral_codes')
    .values({ customer_id: customerId, code: randomBase62(10), created_at: nowMs })
    .onConflict((conflict) => conflict.column('customer_id').doNothing())
    .execute();
  const row = await db.selectFrom('referral_codes').select('code').where('customer_id', '=', customerId).executeTakeFirstOrThrow();
  return row.code;
}

export async function customerOfCode(db: Executor, code: string): Promise<number | null> {
  if (!REFERRAL_CODE_PATTERN.test(code)) return null;
  const row = await db.selectFrom('referral_codes').select('customer_id').where('code', '=', code).executeTakeFirst();
  return row ? Number(row.customer_id) : null;
}

/**
 * Records that `customerId` signed up with `referralCode`. Unknown codes, one's own code and a second
 * attribution change nothing. Returns the referrer when this call recorded it.
 */
export async function attributeReferral(
  db: Kysely<Database>,
  customerId: number,
  referralCode: string,
  nowMs: number,
): Promise<number | null> {
  const referrer = await customerOfCode(db, referralCode.trim());
  if (referrer === null || referrer === customerId) return null;
  const inserted = await db
    .insertInto('referrals')
    .values({ referred_customer_id: customerId, referrer_customer_id: referrer, created_at: nowMs })
    .onConflict((conflict) => conflict.column('referred_customer_id').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1 ? referrer : null;
}

/** Listens to payment events: earns on a referred customer's paid top-up, claws back on its refund. */
export class ReferralEarnings implements PaymentListener {
  constructor(
    private readonly wallet: Wallet,
    private readonly shareBasisPoints: () => number,
    private readonly nowMs: () => number,
  ) {}

  /** Paid top-up of a referred customer → the referrer's share, once per payment. */
  async paid(trx: Transaction<Database>, payment: PaymentRow): Promise<void> {
    if (payment.method !== 'card' && payment.method !== 'crypto') return;
    const referral = await trx
      .selectFrom('referrals')
      .select('referrer_customer_id')
      .where('referred_customer_id', '=', payment.customer_id)
      .executeTakeFirst();
    if (!referral) return;
    const amount = Math.floor((Number(payment.amount_micros) * this.shareBasisPoints()) / 10_000);
    if (amount <= 0) return;
    const inserted = await trx
      .insertInto('referral_earnings')
      .values({
        payment_id: payment.id,
        referrer_customer_id: referral.referrer_customer_id,
        amount_micros: amount,
        clawed_micros: 0,
        created_at: this.nowMs(),
      })
      .onConflict((conflict) => conflict.column('payment_id').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return;
    await this.wallet.creditIn(trx, {
      customerId: Number(referral.referrer_customer_id),
      wallet: 'cash',
      amountMicros: amount,
      system: 'promotions',
      kind: 'referral_earning',
      memo: null,
      reference: `payment:${payment.public_id}`,
    });
  }

  /** Refunded payment → the refunded share of the earning is taken back from the referrer's cash wallet, as far as available. */
  async refunded(trx: Transaction<Database>, payment: PaymentRow): Promise<void> {
    const earning = await trx.selectFrom('referral_earnings').selectAll().where('payment_id', '=', payment.id).executeTakeFirst();
    if (!earning) return;
    const amount = Number(payment.amount_micros);
    const target =
      amount === 0
        ? 0
        : Math.min(
            Number(earning.amount_micros),
            Math.ceil((Number(earning.amount_micros) * Math.min(Number(payment.refunded_micros), amount)) / amount),
          );
    const due = target - Number(earning.clawed_micros);
    if (due <= 0) return;
    const referrer = Number(earning.referrer_customer_id);
    const id = await accountId(trx, walletCode(referrer, 'cash'));
    await trx
      .updateTable('billing_accounts')
      .set({ balance_micros: sql`balance_micros` })
      .where('id', '=', id)
      .execute();
    const account = await trx
      .selectFrom('billing_accounts')
      .select(['balance_micros', 'held_micros'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const take = Math.min(due, Math.max(0, Number(account.balance_micros) - Number(account.held_micros)));
    if (take > 0) {
      await this.wallet.creditIn(trx, {
        customerId: referrer,
        wallet: 'cash',
        amountMicros: -take,
        system: 'promotions',
        kind: 'referral_clawback',
        memo: null,
        reference: `payment:${payment.public_id}`,
      });
    }
    // What could not be taken back is forgiven (recorded as clawed so a later delivery does not retry it).
    await trx.updateTable('referral_earnings').set({ clawed_micros: target }).where('payment_id', '=', payment.id).execute();
  }
}
