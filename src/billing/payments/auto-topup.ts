/**
 * Wallet auto top-up: when a settlement leaves the customer's available token-wallet balance below their
 * threshold, one off-session charge of the saved card (a PaymentIntent with `confirm` and `off_session` through
 * the official client) buys the chosen pack. Once per crossing: the settings row is "armed" and a charge
 * disarms it (a guarded update); it is re-armed when the balance is seen at or above the threshold again, or
 * when the setting is saved. Never while one is pending: the `auto_topup_pending` row (one per customer, primary
 * key) is inserted in the same transaction, so concurrent settlements and other processes start one charge at
 * most. A succeeded charge credits its `payments` row through the same guarded `markPaid` as a paid checkout, so
 * the processor's webhook for the same PaymentIntent credits nothing more. A failed charge credits nothing,
 * raises an alert and stays disarmed until re-armed.
 */
import type Stripe from 'stripe';
import type { Logger } from 'pino';
import type { Transaction } from 'kysely';
import { AppError } from '../../kernel/errors.js';
import { randomBase62 } from '../../kernel/ids.js';
import type { Clock } from '../../kernel/clock.js';
import type { AppConfig } from '../../config/load-config.js';
import type { CreditPackConfig } from '../../config/sections/payments.js';
import type { Database } from '../../storage/schema.js';
import type { Storage } from '../../storage/database.js';
import type { Wallet } from '../wallet.js';
import { walletCode } from '../ledger.js';
import { MICROS_PER_CENT, packOf, type CardPayments } from './card.js';
import { newPaymentRow, type PaymentLedger, type PaymentRow } from './ledger-effects.js';
import type { Alerts, PaymentListener } from './ports.js';

export interface AutoTopupDeps {
  config: AppConfig;
  storage: Storage;
  clock: Clock;
  logger: Logger;
  wallet: Wallet;
  ledger: PaymentLedger;
  card: CardPayments;
  alerts: Alerts;
}

export interface AutoTopupSetting {
  enabled: boolean;
  threshold_micros: number;
  pack_id: string | null;
  armed: boolean;
  pending: boolean;
  saved_card: boolean;
}

export type ChargeOutcome = 'not_enabled' | 'above_threshold' | 'disarmed' | 'pending' | 'credited' | 'failed' | 'processing';

/** What the customer's token wallet can spend now (balance less holds). */
async function tokenAvailableIn(trx: Transaction<Database>, customerId: number): Promise<number> {
  const row = await trx
    .selectFrom('billing_accounts')
    .select(['balance_micros', 'held_micros'])
    .where('code', '=', walletCode(customerId, 'token'))
    .executeTakeFirst();
  return row ? Number(row.balance_micros) - Number(row.held_micros) : 0;
}

/**
 * In the crediting transaction of any payment: a credited payment re-arms auto top-up when it lifts the token
 * balance to the threshold, and a credited auto top-up clears its pending marker (whoever credits it: the charging
 * process or the webhook).
 */
export function autoTopupPaymentListener(clock: Clock): PaymentListener {
  return {
    async paid(trx, payment) {
      await trx.deleteFrom('auto_topup_pending').where('payment_id', '=', payment.id).execute();
      if (payment.wallet !== 'token') return;
      const setting = await trx
        .selectFrom('auto_topup_settings')
        .select(['threshold_micros', 'armed'])
        .where('customer_id', '=', payment.customer_id)
        .executeTakeFirst();
      if (!setting || Number(setting.armed) === 1) return;
      const available = await tokenAvailableIn(trx, payment.customer_id);
      if (available >= Number(setting.threshold_micros)) {
        await trx
          .updateTable('auto_topup_settings')
          .set({ armed: 1, updated_at: clock.nowMs() })
          .where('customer_id', '=', payment.customer_id)
          .execute();
      }
    },
  };
}

export class AutoTopup {
  /** Charges started by this process and not finished yet (tests and shutdown wait on them). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /**
   * Customers seen without auto top-up, until when (ms) that answer is trusted: the check after each settlement
   * then costs no query. Saving the setting here forgets it at once; a save on another process is seen within
   * `billing.cacheTtlMs`.
   */
  private readonly notEnabledUntil = new Map<number, number>();

  constructor(private readonly deps: AutoTopupDeps) {}

  private get db() {
    return this.deps.storage.db;
  }

  private availableIn(trx: Transaction<Database>, customerId: number): Promise<number> {
    return tokenAvailableIn(trx, customerId);
  }

  async get(customerId: number): Promise<AutoTopupSetting> {
    const row = await this.db.selectFrom('auto_topup_settings').selectAll().where('customer_id', '=', customerId).executeTakeFirst();
    const pending = await this.db
      .selectFrom('auto_topup_pending')
      .select('payment_id')
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    const saved = row !== undefined || (await this.lastPaidCheckout(customerId)) !== undefined;
    return {
      enabled: Number(row?.enabled ?? 0) === 1,
      threshold_micros: Number(row?.threshold_micros ?? 0),
      pack_id: row?.pack_id ?? null,
      armed: Number(row?.armed ?? 0) === 1,
      pending: pending !== undefined,
      saved_card: saved,
    };
  }

  private lastPaidCheckout(customerId: number): Promise<PaymentRow | undefined> {
    return this.db
      .selectFrom('payments')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('method', '=', 'card')
      .where('status', '=', 'paid')
      .where('processor_ref', 'is not', null)
      .where('payment_intent', 'is not', null)
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /**
   * Saves the setting. Turning it on needs a saved card: the processor customer and payment method of the
   * customer's latest paid card checkout (409 when there is none). Saving re-arms it.
   */
  async put(customerId: number, input: { enabled: boolean; thresholdMicros: number; packId: string }): Promise<AutoTopupSetting> {
    packOf(this.deps.config, input.packId);
    this.notEnabledUntil.delete(customerId);
    const existing = await this.db.selectFrom('auto_topup_settings').selectAll().where('customer_id', '=', customerId).executeTakeFirst();
    let card = existing ? { customer: existing.processor_customer, paymentMethod: existing.payment_method } : null;
    if (input.enabled && !card) {
      if (!this.deps.config.payments.card.enabled) throw new AppError('UPSTREAM_UNAVAILABLE', 'Card payments are not configured');
      card = await this.savedCardOf(customerId);
      if (!card) throw new AppError('CONFLICT', 'Auto top-up needs a saved card: pay one card checkout first');
    }
    if (!card) {
      // Off without a card yet: nothing to save beyond "off".
      if (!existing) return this.get(customerId);
      card = { customer: existing.processor_customer, paymentMethod: existing.payment_method };
    }
    const nowMs = this.deps.clock.nowMs();
    const values = {
      enabled: input.enabled ? 1 : 0,
      threshold_micros: input.thresholdMicros,
      pack_id: input.packId,
      armed: 1,
      processor_customer: card.customer,
      payment_method: card.paymentMethod,
      updated_at: nowMs,
    };
    await this.db
      .insertInto('auto_topup_settings')
      .values({ customer_id: customerId, ...values, last_payment_id: null, created_at: nowMs })
      .onConflict((conflict) => conflict.column('customer_id').doUpdateSet(values))
      .execute();
    return this.get(customerId);
  }

  /** The card saved by the latest paid checkout, read from its PaymentIntent at the processor. */
  private async savedCardOf(customerId: number): Promise<{ customer: string; paymentMethod: string } | null> {
    const payment = await this.lastPaidCheckout(customerId);
    if (!payment?.payment_intent) return null;
    const stripe = await this.deps.card.stripe();
    let intent: Stripe.PaymentIntent;
    try {
      intent = await stripe.paymentIntents.retrieve(payment.payment_intent);
    } catch (error) {
      throw new AppError('UPSTREAM_FAILED', 'The card processor could not be reached or refused the request', { cause: error });
    }
    const customer = typeof intent.customer === 'string' ? intent.customer : (intent.customer?.id ?? null);
    const paymentMethod = typeof intent.payment_method === 'string' ? intent.payment_method : (intent.payment_method?.id ?? null);
    return customer && paymentMethod ? { customer, paymentMethod } : null;
  }

  /** The settlement listener: never throws, never delays the caller. */
  readonly listener = (customerId: number): void => {
    const run = this.afterSettlement(customerId).catch((error) => this.deps.logger.error({ err: error, customerId }, 'auto top-up failed'));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  };

  /** Waits for the charges this process has started (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * The job runner's sweep: every armed, enabled setting is checked as after a settlement, so a customer whose
   * balance fell below the threshold without a settlement seen here (a node that stopped before its check ran)
   * is charged too. Returns how many charges started.
   */
  async sweep(): Promise<number> {
    const rows = await this.db
      .selectFrom('auto_topup_settings')
      .select('customer_id')
      .where('enabled', '=', 1)
      .where('armed', '=', 1)
      .execute();
    let started = 0;
    for (const row of rows) {
      const outcome = await this.afterSettlement(Number(row.customer_id));
      if (outcome === 'credited' || outcome === 'failed' || outcome === 'processing') started += 1;
    }
    return started;
  }

  /** Checks the balance after a settlement; starts one charge when it crossed below the threshold. */
  async afterSettlement(customerId: number): Promise<ChargeOutcome> {
    const checkedAtMs = this.deps.clock.nowMs();
    if ((this.notEnabledUntil.get(customerId) ?? 0) > checkedAtMs) return 'not_enabled';
    const setting = await this.db.selectFrom('auto_topup_settings').selectAll().where('customer_id', '=', customerId).executeTakeFirst();
    if (!setting || Number(setting.enabled) !== 1) {
      if (this.notEnabledUntil.size > 50_000) this.notEnabledUntil.clear();
      this.notEnabledUntil.set(customerId, checkedAtMs + this.deps.config.billing.cacheTtlMs);
      return 'not_enabled';
    }
    this.notEnabledUntil.delete(customerId);
    const { token } = await this.deps.wallet.balances(customerId);
    const available = token.balance - token.held;
    const threshold = Number(setting.threshold_micros);
    if (available >= threshold) {
      if (Number(setting.armed) !== 1) {
        await this.db
          .updateTable('auto_topup_settings')
          .set({ armed: 1, updated_at: this.deps.clock.nowMs() })
          .where('customer_id', '=', customerId)
          .where('armed', '=', 0)
          .execute();
      }
      return 'above_threshold';
    }
    if (Number(setting.armed) !== 1) return 'disarmed';
    const pack = this.deps.config.payments.packs.find((candidate) => candidate.id === setting.pack_id);
    if (!pack) {
      this.deps.logger.error({ customerId, packId: setting.pack_id }, 'auto top-up pack is no longer configured');
      return 'not_enabled';
    }
    const claimed = await this.claimCharge(customerId, pack, threshold);
    if (claimed === 'above_threshold') return claimed;
    if (!claimed) return 'pending';
    return this.charge(claimed, setting.processor_customer, setting.payment_method);
  }

  /**
   * Disarms the setting and opens the charge's payment and pending marker in one transaction: the new payment, or
   * null when another check holds the claim, or `above_threshold` when the balance read again under the claim no
   * longer needs one.
   */
  private claimCharge(customerId: number, pack: CreditPackConfig, threshold: number): Promise<PaymentRow | 'above_threshold' | null> {
    const publicId = `pay_${randomBase62(20)}`;
    const nowMs = this.deps.clock.nowMs();
    return this.db
      .transaction()
      .execute(async (trx) => {
        const disarmed = await trx
          .updateTable('auto_topup_settings')
          .set({ armed: 0, updated_at: nowMs })
          .where('customer_id', '=', customerId)
          .where('armed', '=', 1)
          .where('enabled', '=', 1)
          .executeTakeFirst();
        if (Number(disarmed.numUpdatedRows) !== 1) return null;
        // The balance read above may predate a charge that another check claimed, credited and re-armed meanwhile:
        // read it again under the claim (the settings row is locked on PostgreSQL; SQLite writes one at a time).
        const wallet = await trx
          .selectFrom('billing_accounts')
          .select(['balance_micros', 'held_micros'])
          .where('code', '=', walletCode(customerId, 'token'))
          .executeTakeFirst();
        if (wallet && Number(wallet.balance_micros) - Number(wallet.held_micros) >= threshold) throw new ClaimNotNeeded();
        const already = await trx
          .selectFrom('auto_topup_pending')
          .select('payment_id')
          .where('customer_id', '=', customerId)
          .executeTakeFirst();
        if (already) return null;
        const payment = await trx
          .insertInto('payments')
          .values(
            newPaymentRow(
              {
                public_id: publicId,
                customer_id: customerId,
                method: 'card',
                wallet: 'token',
                pack_id: pack.id,
                amount_micros: pack.priceMicros,
                credit_micros: pack.creditMicros ?? pack.priceMicros,
                status: 'open',
                details_json: JSON.stringify({ auto_topup: true, threshold_micros: threshold }),
              },
              nowMs,
            ),
          )
          .returningAll()
          .executeTakeFirstOrThrow();
        // The primary key makes a second pending charge of the customer fail (and this transaction roll back).
        await trx.insertInto('auto_topup_pending').values({ customer_id: customerId, payment_id: payment.id, created_at: nowMs }).execute();
        await trx.updateTable('auto_topup_settings').set({ last_payment_id: payment.id }).where('customer_id', '=', customerId).execute();
        return payment;
      })
      .catch((error: unknown) => {
        if (error instanceof ClaimNotNeeded) return 'above_threshold' as const;
        // A concurrent claim on another process won the pending row: nothing to do here.
        this.deps.logger.warn({ err: error, customerId }, 'auto top-up claim not taken (another charge is pending)');
        return null;
      });
  }

  private async charge(payment: PaymentRow, customer: string, paymentMethod: string): Promise<ChargeOutcome> {
    const stripe = await this.deps.card.stripe();
    let intent: Stripe.PaymentIntent;
    try {
      intent = await stripe.paymentIntents.create(
        {
          amount: Number(payment.amount_micros) / MICROS_PER_CENT,
          currency: 'usd',
          customer,
          payment_method: paymentMethod,
          confirm: true,
          off_session: true,
          metadata: {
            payment_id: payment.public_id,
            customer_id: String(payment.customer_id),
            pack_id: payment.pack_id ?? '',
            auto_topup: 'true',
          },
        },
        { idempotencyKey: `auto-topup-${payment.public_id}` },
      );
    } catch (error) {
      await this.fail(payment, error);
      return 'failed';
    }
    if (intent.status !== 'succeeded') {
      // Still processing: the processor's webhook (payment_intent.succeeded / payment_failed) finishes it.
      await this.db
        .updateTable('payments')
        .set({ status: 'pending', payment_intent: intent.id, updated_at: this.deps.clock.nowMs() })
        .where('id', '=', payment.id)
        .where('status', '=', 'open')
        .execute();
      return 'processing';
    }
    const credited = await this.db
      .transaction()
      .execute((trx) => this.deps.card.creditPaymentIntent(trx, payment.id, intent, 'auto_topup'));
    return credited ? 'credited' : 'processing';
  }

  private async fail(payment: PaymentRow, error: unknown): Promise<void> {
    const { default: StripeClient } = await import('stripe');
    const reason =
      error instanceof StripeClient.errors.StripeError
        ? {
            type: error.type,
            code: error.code ?? null,
            decline_code: (error as Stripe.errors.StripeCardError).decline_code ?? null,
            message: error.message,
          }
        : { type: 'unreachable', message: error instanceof Error ? error.message : String(error) };
    this.deps.logger.warn({ payment: payment.public_id, customerId: payment.customer_id, reason }, 'auto top-up charge failed');
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('payments')
        .set({ status: 'failed', updated_at: this.deps.clock.nowMs(), details_json: JSON.stringify({ auto_topup: true, failure: reason }) })
        .where('id', '=', payment.id)
        .where('status', 'in', ['open', 'pending'])
        .execute();
      await trx.deleteFrom('auto_topup_pending').where('payment_id', '=', payment.id).execute();
    });
    await this.deps.alerts
      .raise(payment.customer_id, {
        cause: 'auto_topup_failed',
        causeKey: payment.public_id,
        details: {
          payment_id: payment.public_id,
          pack_id: payment.pack_id,
          amount_micros: Number(payment.amount_micros),
          reason: reason.message,
          code: 'code' in reason ? reason.code : null,
        },
      })
      .catch((alertError) =>
        this.deps.logger.error({ err: alertError, payment: payment.public_id }, 'raising the auto top-up alert failed'),
      );
  }
}

/** Rolls a claim back (the setting stays armed) when the balance is no longer below the threshold. */
class ClaimNotNeeded extends Error {}
