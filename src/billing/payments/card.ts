/**
 * Card payments through the card processor's hosted checkout (Stripe's API, driven by the official `stripe`
 * client against a configurable API base URL). A checkout creates a `payments` row and a processor session;
 * the credit happens when the processor says the session is paid — by the customer's confirm (which retrieves
 * the session) or by the signed webhook — exactly once, whichever comes first. Refunds claw the credit back.
 */
import type Stripe from 'stripe';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { AppError, notFound } from '../../kernel/errors.js';
import { randomBase62 } from '../../kernel/ids.js';
import type { Clock } from '../../kernel/clock.js';
import type { AppConfig } from '../../config/load-config.js';
import type { CreditPackConfig } from '../../config/sections/payments.js';
import type { Database } from '../../storage/schema.js';
import type { Storage } from '../../storage/database.js';
import { newPaymentRow, type PaymentLedger, type PaymentRow } from './ledger-effects.js';
import type { Discounts } from './discounts.js';
import type { PaymentEvents } from './ports.js';
import { verifySignature, WebhookSignatureError } from './webhook-signature.js';

export const MICROS_PER_CENT = 10_000;

export interface CardDeps {
  config: AppConfig;
  storage: Storage;
  clock: Clock;
  logger: Logger;
  ledger: PaymentLedger;
  /** Told in the crediting and the claw-back transactions. */
  events: PaymentEvents;
  discounts: Discounts;
}

export interface CheckoutResult {
  payment: PaymentRow;
  url: string;
  sessionId: string;
}

export interface WebhookResult {
  eventId: string;
  type: string;
  duplicate: boolean;
  handled: boolean;
}

export function packOf(config: AppConfig, packId: string): CreditPackConfig {
  const pack = config.payments.packs.find((candidate) => candidate.id === packId);
  if (!pack) {
    throw new AppError('VALIDATION_FAILED', `Unknown credit pack ${packId}`, {
      issues: [{ loc: ['body', 'pack_id'], msg: `Unknown credit pack ${packId}`, type: 'value_error' }],
    });
  }
  return pack;
}

/** The processor's client. The package is loaded on first use: most processes never take a card payment. */
export async function stripeClient(config: AppConfig): Promise<Stripe> {
  const { default: StripeClient } = await import('stripe');
  const card = config.payments.card;
  const base = new URL(card.apiBaseUrl);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new StripeClient(card.secretKey || 'sk_unset', {
    host: base.hostname,
    port: base.port === '' ? (protocol === 'http' ? 80 : 443) : Number(base.port),
    protocol,
    maxNetworkRetries: 2,
    timeout: card.timeoutMs,
    telemetry: false,
  });
}

function processorError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError('UPSTREAM_FAILED', 'The card processor could not be reached or refused the request', { cause: error });
}

export class CardPayments {
  private client: Promise<Stripe> | undefined;

  constructor(private readonly deps: CardDeps) {}

  /** The processor's client, made on first use. */
  stripe(): Promise<Stripe> {
    return (this.client ??= stripeClient(this.deps.config));
  }

  private get db(): Kysely<Database> {
    return this.deps.storage.db;
  }

  private enabled(): void {
    if (!this.deps.config.payments.card.enabled) throw new AppError('NOT_FOUND', 'Card payments are not enabled on this service');
  }

  /** Creates a hosted checkout session for a pack; the wallet is credited once the session is paid. */
  async checkout(input: { customerId: number; packId: string; wallet: 'token' | 'cash'; discountCode?: string }): Promise<CheckoutResult> {
    this.enabled();
    const pack = packOf(this.deps.config, input.packId);
    const packCredit = pack.creditMicros ?? pack.priceMicros;
    // A bonus code is checked before the processor is asked, and used with the checkout's row.
    const bonus =
      input.discountCode === undefined ? null : await this.deps.discounts.bonusFor(input.customerId, input.discountCode, packCredit);
    const publicId = `pay_${randomBase62(20)}`;
    const dashboard = `${this.deps.config.publicBaseUrl.replace(/\/+$/, '')}/dashboard.html`;
    const successUrl = this.deps.config.payments.card.successUrl ?? `${dashboard}?checkout={CHECKOUT_SESSION_ID}`;
    const cancelUrl = this.deps.config.payments.card.cancelUrl ?? `${dashboard}?checkout=cancelled`;
    const stripe = await this.stripe();
    let session: Stripe.Checkout.Session;
    try {
      session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          client_reference_id: publicId,
          success_url: successUrl,
          cancel_url: cancelUrl,
          line_items: [
            {
              quantity: 1,
              price_data: { currency: 'usd', unit_amount: pack.priceMicros / MICROS_PER_CENT, product_data: { name: pack.name } },
            },
          ],
          metadata: { payment_id: publicId, customer_id: String(input.customerId), wallet: input.wallet, pack_id: pack.id },
          // The card is saved at the processor for later off-session charges (auto top-up).
          customer_creation: 'always',
          payment_intent_data: { metadata: { payment_id: publicId }, setup_future_usage: 'off_session' },
        },
        { idempotencyKey: `checkout-${publicId}` },
      );
    } catch (error) {
      throw processorError(error);
    }
    if (!session.url) throw new AppError('UPSTREAM_FAILED', 'The card processor answered no checkout URL');
    const nowMs = this.deps.clock.nowMs();
    const payment = await this.db.transaction().execute(async (trx) => {
      if (bonus) await this.deps.discounts.redeem(trx, input.customerId, bonus.discount.code, publicId);
      return trx
        .insertInto('payments')
        .values(
          newPaymentRow(
            {
              public_id: publicId,
              customer_id: input.customerId,
              method: 'card',
              wallet: input.wallet,
              pack_id: pack.id,
              amount_micros: pack.priceMicros,
              credit_micros: packCredit + (bonus?.bonusMicros ?? 0),
              status: 'open',
              processor_ref: session.id,
              payment_intent: typeof session.payment_intent === 'string' ? session.payment_intent : null,
              details_json: bonus ? JSON.stringify({ discount_code: bonus.discount.code, bonus_micros: bonus.bonusMicros }) : null,
            },
            nowMs,
          ),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return { payment, url: session.url, sessionId: session.id };
  }

  /** The caller's card payment of a session id, either wallet (404 for another customer's). */
  async findOwn(customerId: number, sessionId: string): Promise<PaymentRow> {
    const row = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('method', '=', 'card')
      .where('processor_ref', '=', sessionId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw notFound('Checkout session');
    return row;
  }

  /** The caller's card payment of a session id (404 for another customer's). */
  async ownPayment(customerId: number, sessionId: string, wallet: 'token' | 'cash'): Promise<PaymentRow> {
    const row = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('method', '=', 'card')
      .where('processor_ref', '=', sessionId)
      .where('customer_id', '=', customerId)
      .where('wallet', '=', wallet)
      .executeTakeFirst();
    if (!row) throw notFound('Checkout session');
    return row;
  }

  /** Retrieves the session from the processor and credits it when paid (once, whoever else credits it). */
  async confirm(customerId: number, sessionId: string, wallet: 'token' | 'cash'): Promise<{ payment: PaymentRow; credited: boolean }> {
    this.enabled();
    const payment = await this.ownPayment(customerId, sessionId, wallet);
    if (payment.status === 'paid') return { payment, credited: false };
    const stripe = await this.stripe();
    let session: Stripe.Checkout.Session;
    try {
      session = await stripe.checkout.sessions.retrieve(sessionId);
    } catch (error) {
      throw processorError(error);
    }
    const credited = await this.db.transaction().execute((trx) => this.applySession(trx, payment.id, session, 'confirm'));
    const fresh = await this.db.selectFrom('payments').selectAll().where('id', '=', payment.id).executeTakeFirstOrThrow();
    return { payment: fresh, credited };
  }

  /**
   * Applies what a session says to its payment: paid → credit (amount and currency checked first); complete but
   * unpaid → pending; expired → expired. Returns whether this call credited it.
   */
  private async applySession(
    trx: Transaction<Database>,
    paymentId: number,
    session: Stripe.Checkout.Session,
    via: string,
  ): Promise<boolean> {
    const payment = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
    const nowMs = this.deps.clock.nowMs();
    const paymentIntent = typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null);
    if (session.payment_status === 'paid' || session.payment_status === 'no_payment_required') {
      if (!this.amountMatches(payment, session)) {
        await trx
          .updateTable('payments')
          .set({
            status: 'failed',
            updated_at: nowMs,
            details_json: JSON.stringify({ via, mismatch: { amount_total: session.amount_total, currency: session.currency } }),
          })
          .where('id', '=', payment.id)
          .where('status', 'in', ['open', 'pending'])
          .execute();
        return false;
      }
      const credited = await this.deps.ledger.markPaid(trx, payment.id, ['open', 'pending', 'expired'], {
        kind: 'card_payment',
        paymentIntent,
      });
      if (credited) await this.deps.events.paid(trx, credited);
      return credited !== null;
    }
    if (session.status === 'complete') {
      await trx
        .updateTable('payments')
        .set({ status: 'pending', updated_at: nowMs, ...(paymentIntent ? { payment_intent: paymentIntent } : {}) })
        .where('id', '=', payment.id)
        .where('status', '=', 'open')
        .execute();
    } else if (session.status === 'expired') {
      await trx
        .updateTable('payments')
        .set({ status: 'expired', updated_at: nowMs })
        .where('id', '=', payment.id)
        .where('status', '=', 'open')
        .execute();
    }
    return false;
  }

  /**
   * Credits a payment charged directly as a PaymentIntent (an off-session auto top-up) when the intent succeeded
   * for exactly its price in USD: the same guarded `markPaid` and paid hooks as a checkout, so the intent's
   * webhook and the charging process credit it once between them. Returns whether this call credited it.
   */
  async creditPaymentIntent(
    trx: Transaction<Database>,
    paymentId: number,
    intent: { id: string; status: string; amount: number; currency: string },
    via: string,
  ): Promise<boolean> {
    if (intent.status !== 'succeeded') return false;
    const payment = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
    if (intent.amount !== Number(payment.amount_micros) / MICROS_PER_CENT || intent.currency.toLowerCase() !== 'usd') {
      this.deps.logger.error(
        { payment: payment.public_id, amount: intent.amount, currency: intent.currency, via },
        'payment intent amount does not match its payment; not credited',
      );
      return false;
    }
    const credited = await this.deps.ledger.markPaid(trx, payment.id, ['open', 'pending', 'failed'], {
      kind: 'card_payment',
      paymentIntent: intent.id,
    });
    if (credited) await this.deps.events.paid(trx, credited);
    return credited !== null;
  }

  private async paymentByIntent(trx: Transaction<Database>, intent: Record<string, unknown>): Promise<PaymentRow | undefined> {
    if (typeof intent.id !== 'string') return undefined;
    const byIntent = await trx
      .selectFrom('payments')
      .selectAll()
      .where('method', '=', 'card')
      .where('payment_intent', '=', intent.id)
      .executeTakeFirst();
    if (byIntent) return byIntent;
    // An off-session charge whose create answer was lost still names its payment in the metadata.
    const metadata = intent.metadata as Record<string, unknown> | undefined;
    if (typeof metadata?.payment_id !== 'string') return undefined;
    return trx
      .selectFrom('payments')
      .selectAll()
      .where('method', '=', 'card')
      .where('public_id', '=', metadata.payment_id)
      .where('processor_ref', 'is', null)
      .executeTakeFirst();
  }

  /** A paid session credits only when it charged exactly the payment's price in USD. */
  private amountMatches(payment: PaymentRow, session: Stripe.Checkout.Session): boolean {
    const expectedCents = Number(payment.amount_micros) / MICROS_PER_CENT;
    if (session.amount_total === expectedCents && (session.currency ?? '').toLowerCase() === 'usd') return true;
    this.deps.logger.error(
      { payment: payment.public_id, amountTotal: session.amount_total, currency: session.currency },
      'card session amount does not match its payment; not credited',
    );
    return false;
  }

  /**
   * Handles one signed webhook delivery. The event id is recorded in the same transaction as its effect, so a
   * duplicate (or concurrent) delivery changes nothing; an event whose processing fails is not recorded and
   * the processor's retry applies it.
   */
  async webhook(rawBody: string, signature: string | string[] | undefined): Promise<WebhookResult> {
    const card = this.deps.config.payments.card;
    try {
      verifySignature(signature, rawBody, card.webhookSecret, card.webhookToleranceSeconds, this.deps.clock.nowMs());
    } catch (error) {
      if (error instanceof WebhookSignatureError)
        throw new AppError('BAD_REQUEST', 'Webhook signature verification failed', { details: { reason: error.reason } });
      throw error;
    }
    let event: { id?: unknown; type?: unknown; data?: { object?: unknown } };
    try {
      event = JSON.parse(rawBody) as typeof event;
    } catch {
      throw new AppError('BAD_REQUEST', 'Webhook body is not JSON');
    }
    if (
      typeof event?.id !== 'string' ||
      typeof event.type !== 'string' ||
      typeof event.data?.object !== 'object' ||
      event.data.object === null
    ) {
      throw new AppError('BAD_REQUEST', 'Webhook body is not an event');
    }
    const eventId = event.id;
    const type = event.type;
    const object = event.data.object as Record<string, unknown>;
    // The processor is asked outside the transaction (never hold locks across the network).
    const sessionForCharge = type === 'charge.refunded' ? await this.sessionIdForCharge(object) : undefined;
    return this.db.transaction().execute(async (trx) => {
      const recorded = await trx
        .insertInto('payment_events')
        .values({ source: 'card', event_id: eventId, type, received_at: this.deps.clock.nowMs() })
        .onConflict((conflict) => conflict.columns(['source', 'event_id']).doNothing())
        .executeTakeFirst();
      if (Number(recorded.numInsertedOrUpdatedRows ?? 0) !== 1) return { eventId, type, duplicate: true, handled: false };
      const handled = await this.applyEvent(trx, type, object, sessionForCharge);
      return { eventId, type, duplicate: false, handled };
    });
  }

  private async paymentBySession(trx: Transaction<Database>, sessionId: unknown): Promise<PaymentRow | undefined> {
    if (typeof sessionId !== 'string') return undefined;
    return trx.selectFrom('payments').selectAll().where('method', '=', 'card').where('processor_ref', '=', sessionId).executeTakeFirst();
  }

  private async applyEvent(
    trx: Transaction<Database>,
    type: string,
    object: Record<string, unknown>,
    sessionForCharge: string | null | undefined,
  ): Promise<boolean> {
    switch (type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const payment = await this.paymentBySession(trx, object.id);
        if (!payment) return false;
        await this.applySession(trx, payment.id, object as unknown as Stripe.Checkout.Session, type);
        return true;
      }
      case 'checkout.session.async_payment_failed': {
        const payment = await this.paymentBySession(trx, object.id);
        if (!payment) return false;
        await trx
          .updateTable('payments')
          .set({ status: 'failed', updated_at: this.deps.clock.nowMs() })
          .where('id', '=', payment.id)
          .where('status', 'in', ['open', 'pending'])
          .execute();
        return true;
      }
      case 'checkout.session.expired': {
        const payment = await this.paymentBySession(trx, object.id);
        if (!payment) return false;
        await trx
          .updateTable('payments')
          .set({ status: 'expired', updated_at: this.deps.clock.nowMs() })
          .where('id', '=', payment.id)
          .where('status', '=', 'open')
          .execute();
        return true;
      }
      case 'payment_intent.succeeded': {
        const payment = await this.paymentByIntent(trx, object);
        if (!payment) return false;
        const intent = object as { id: string; status: string; amount: number; currency: string };
        if (typeof intent.amount !== 'number' || typeof intent.currency !== 'string') return false;
        await this.creditPaymentIntent(trx, payment.id, intent, type);
        return true;
      }
      case 'payment_intent.payment_failed': {
        const payment = await this.paymentByIntent(trx, object);
        if (!payment) return false;
        const nowMs = this.deps.clock.nowMs();
        await trx
          .updateTable('payments')
          .set({ status: 'failed', updated_at: nowMs })
          .where('id', '=', payment.id)
          .where('status', 'in', ['open', 'pending'])
          .execute();
        // An auto top-up that failed is no longer pending.
        await trx.deleteFrom('auto_topup_pending').where('payment_id', '=', payment.id).execute();
        return true;
      }
      case 'charge.refunded':
        return this.applyChargeRefunded(trx, object, sessionForCharge);
      default:
        return false;
    }
  }

  /** A refund of a card charge (amounts are cumulative): the largest refunded amount seen is clawed back once. */
  private async applyChargeRefunded(
    trx: Transaction<Database>,
    object: Record<string, unknown>,
    sessionForCharge: string | null | undefined,
  ): Promise<boolean> {
    const paymentIntent = typeof object.payment_intent === 'string' ? object.payment_intent : null;
    let payment = paymentIntent
      ? await trx
          .selectFrom('payments')
          .selectAll()
          .where('method', '=', 'card')
          .where('payment_intent', '=', paymentIntent)
          .executeTakeFirst()
      : undefined;
    payment ??= await this.paymentBySession(trx, sessionForCharge);
    if (!payment) return false;
    const refundedCents =
      typeof object.amount_refunded === 'number' && Number.isSafeInteger(object.amount_refunded) ? object.amount_refunded : 0;
    const refundedMicros = Math.min(refundedCents * MICROS_PER_CENT, Number(payment.amount_micros));
    // Refund amounts are cumulative: keep the largest seen, so out-of-order deliveries end the same.
    if (refundedMicros > Number(payment.refunded_micros)) {
      await trx
        .updateTable('payments')
        .set({
          refunded_micros: refundedMicros,
          updated_at: this.deps.clock.nowMs(),
          ...(paymentIntent && !payment.payment_intent ? { payment_intent: paymentIntent } : {}),
        })
        .where('id', '=', payment.id)
        .execute();
    }
    const applied = await this.deps.ledger.applyRefunds(trx, payment.id);
    if (applied.clawedMicros + applied.debtMicros > 0) {
      const fresh = await trx.selectFrom('payments').selectAll().where('id', '=', payment.id).executeTakeFirstOrThrow();
      await this.deps.events.refunded(trx, fresh);
    }
    return true;
  }

  /** The checkout session of a refunded charge whose payment intent is not known here yet (refund before completion). */
  private async sessionIdForCharge(charge: Record<string, unknown>): Promise<string | null> {
    const paymentIntent = typeof charge.payment_intent === 'string' ? charge.payment_intent : null;
    if (!paymentIntent) return null;
    const known = await this.db
      .selectFrom('payments')
      .select('id')
      .where('method', '=', 'card')
      .where('payment_intent', '=', paymentIntent)
      .executeTakeFirst();
    if (known) return null;
    const stripe = await this.stripe();
    try {
      const sessions = await stripe.checkout.sessions.list({ payment_intent: paymentIntent, limit: 1 });
      return sessions.data[0]?.id ?? null;
    } catch (error) {
      throw processorError(error);
    }
  }
}
