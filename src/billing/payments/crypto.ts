/**
 * Crypto payments through the crypto processor's invoice API (NOWPayments' shape: `POST /v1/invoice` with the
 * USD price and the chosen pay currency, payments of an invoice at `GET /v1/payment/?invoiceId=`, callbacks
 * (IPN) signed with HMAC-SHA512 of the key-sorted JSON body). An order is credited once, when a payment of its
 * invoice is finished for the full amount, after its order id, invoice, USD price and currency were checked;
 * a partial payment is shown, not credited. Refund addresses are checked per network.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { AppError, notFound, validationError } from '../../kernel/errors.js';
import { randomBase62 } from '../../kernel/ids.js';
import type { Clock } from '../../kernel/clock.js';
import type { AppConfig } from '../../config/load-config.js';
import type { Database } from '../../storage/schema.js';
import type { Storage } from '../../storage/database.js';
import type { PaymentStatus } from '../../storage/tables/payments.js';
import { packOf } from './card.js';
import { newPaymentRow, type PaymentLedger, type PaymentRow } from './ledger-effects.js';
import { validAddress } from './addresses.js';
import type { Discounts } from './discounts.js';
import { coinExcess, CryptoPayouts } from './crypto-payouts.js';
import type { PaymentEvents } from './ports.js';

export interface CryptoDeps {
  config: AppConfig;
  storage: Storage;
  clock: Clock;
  logger: Logger;
  ledger: PaymentLedger;
  /** Told in the crediting and the claw-back transactions. */
  events: PaymentEvents;
  discounts: Discounts;
}

/** A payment of an invoice as the processor reports it (IPN body, or an item of the payment list). */
export interface ProcessorPayment {
  payment_id?: number | string;
  invoice_id?: number | string | null;
  payment_status?: string;
  pay_amount?: number | string;
  actually_paid?: number | string;
  pay_currency?: string;
  price_amount?: number | string;
  price_currency?: string;
  order_id?: string;
}

export interface CryptoDetails {
  pay_currency: string;
  network: string;
  invoice_url: string;
  processor_status: string | null;
  processor_payment_id: string | null;
  pay_amount: string | null;
  actually_paid: string | null;
  mismatch?: string;
  /** A bonus code used with this checkout and the credit it added. */
  discount_code?: string;
  bonus_micros?: number;
}

/** JSON with object keys sorted at every level (what the IPN signature covers). */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${sortedJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function ipnSignature(secret: string, body: unknown): string {
  return createHmac('sha512', secret).update(sortedJson(body)).digest('hex');
}

const STATUS_OF: Record<string, PaymentStatus> = {
  waiting: 'open',
  confirming: 'pending',
  confirmed: 'pending',
  sending: 'pending',
  partially_paid: 'partially_paid',
  failed: 'failed',
  expired: 'expired',
};

export class CryptoPayments {
  /** Coin sent back to saved refund addresses (over-payments, refunds). */
  readonly payouts: CryptoPayouts;

  constructor(private readonly deps: CryptoDeps) {
    this.payouts = new CryptoPayouts({
      storage: deps.storage,
      clock: deps.clock,
      logger: deps.logger,
      request: (method, path, body) => this.request(method, path, body),
    });
  }

  /** Sends the customer's waiting payouts; a failure is logged and left for the next occasion. */
  private async dispatchPayouts(customerId: number): Promise<void> {
    await this.payouts.dispatch(customerId).catch((error: unknown) => this.deps.logger.error({ err: error }, 'crypto payouts not sent'));
  }

  private get db(): Kysely<Database> {
    return this.deps.storage.db;
  }

  private get dashboardUrl(): string {
    return `${this.deps.config.publicBaseUrl.replace(/\/+$/, '')}/dashboard.html`;
  }

  private get settings() {
    return this.deps.config.payments.crypto;
  }

  private enabled(): void {
    if (!this.settings.enabled) throw new AppError('NOT_FOUND', 'Crypto payments are not enabled on this service');
  }

  options() {
    return {
      enabled: this.settings.enabled,
      price_currency: 'USD',
      coins: this.settings.coins.map((coin) => ({ currency: coin.currency, name: coin.name, network: coin.network })),
      packs: this.deps.config.payments.packs.map((pack) => ({
        id: pack.id,
        name: pack.name,
        price_micros: pack.priceMicros,
        credit_micros: pack.creditMicros ?? pack.priceMicros,
      })),
      max_refund_addresses: this.settings.maxRefundAddresses,
    };
  }

  private coin(payCurrency: string) {
    const coin = this.settings.coins.find((candidate) => candidate.currency.toLowerCase() === payCurrency.toLowerCase());
    if (!coin)
      throw validationError([{ loc: ['body', 'pay_currency'], msg: `Unsupported pay currency ${payCurrency}`, type: 'value_error' }]);
    return coin;
  }

  private async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.settings.apiBaseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: { 'x-api-key': this.settings.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      throw new AppError('UPSTREAM_FAILED', 'The crypto processor could not be reached', { cause: error });
    }
    const text = await response.text();
    if (!response.ok)
      throw new AppError('UPSTREAM_FAILED', 'The crypto processor refused the request', {
        cause: new Error(`${response.status} ${text.slice(0, 200)}`),
      });
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new AppError('UPSTREAM_FAILED', 'The crypto processor answered unreadable JSON', { cause: error });
    }
  }

  /** Opens an invoice for a pack in the chosen coin; the order is credited (with a bonus code's extra) when paid in full. */
  async checkout(input: {
    customerId: number;
    packId: string;
    payCurrency: string;
    wallet: 'token' | 'cash';
    discountCode?: string;
  }): Promise<PaymentRow> {
    this.enabled();
    const pack = packOf(this.deps.config, input.packId);
    const coin = this.coin(input.payCurrency);
    const packCredit = pack.creditMicros ?? pack.priceMicros;
    // A bonus code is checked before the processor is asked, and used with the order's row (as at card checkout).
    const bonus =
      input.discountCode === undefined ? null : await this.deps.discounts.bonusFor(input.customerId, input.discountCode, packCredit);
    const publicId = `ord_${randomBase62(20)}`;
    const callback = this.settings.ipnCallbackUrl ?? `${this.deps.config.publicBaseUrl.replace(/\/+$/, '')}/api/v1/crypto/ipn`;
    const invoice = await this.request<{ id?: string | number; invoice_url?: string }>('POST', '/v1/invoice', {
      price_amount: pack.priceMicros / 1_000_000,
      price_currency: 'usd',
      pay_currency: coin.currency,
      order_id: publicId,
      order_description: pack.name,
      ipn_callback_url: callback,
      success_url: this.settings.successUrl ?? `${this.dashboardUrl}?crypto=paid`,
      cancel_url: this.settings.cancelUrl ?? `${this.dashboardUrl}?crypto=cancelled`,
    });
    if (invoice.id === undefined || typeof invoice.invoice_url !== 'string')
      throw new AppError('UPSTREAM_FAILED', 'The crypto processor answered no invoice');
    const nowMs = this.deps.clock.nowMs();
    const details: CryptoDetails = {
      pay_currency: coin.currency,
      network: coin.network,
      invoice_url: invoice.invoice_url,
      processor_status: 'waiting',
      processor_payment_id: null,
      pay_amount: null,
      actually_paid: null,
      ...(bonus ? { discount_code: bonus.discount.code, bonus_micros: bonus.bonusMicros } : {}),
    };
    return this.db.transaction().execute(async (trx) => {
      if (bonus) await this.deps.discounts.redeem(trx, input.customerId, bonus.discount.code, publicId);
      return trx
        .insertInto('payments')
        .values(
          newPaymentRow(
            {
              public_id: publicId,
              customer_id: input.customerId,
              method: 'crypto',
              wallet: input.wallet,
              pack_id: pack.id,
              amount_micros: pack.priceMicros,
              credit_micros: packCredit + (bonus?.bonusMicros ?? 0),
              status: 'open',
              processor_ref: String(invoice.id),
              details_json: JSON.stringify(details),
            },
            nowMs,
          ),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /** The caller's crypto order (404 for another customer's or an unknown id). */
  async ownOrder(customerId: number, orderId: string): Promise<PaymentRow> {
    const row = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('public_id', '=', orderId)
      .where('method', '=', 'crypto')
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw notFound('Order');
    return row;
  }

  /** The caller's order with its status refreshed from the processor (credited once when paid in full). */
  async refresh(customerId: number, orderId: string): Promise<PaymentRow> {
    const order = await this.ownOrder(customerId, orderId);
    if (order.status === 'paid' || !this.settings.enabled) return order;
    const list = await this.request<{ data?: ProcessorPayment[] }>(
      'GET',
      `/v1/payment/?invoiceId=${encodeURIComponent(order.processor_ref ?? '')}`,
    );
    const payments = Array.isArray(list.data) ? list.data : [];
    // The most advanced payment of the invoice decides (a finished one over a partial one).
    const rank = (payment: ProcessorPayment) =>
      ['finished', 'partially_paid', 'confirmed', 'sending', 'confirming', 'waiting', 'failed', 'expired'].indexOf(
        payment.payment_status ?? '',
      );
    const best = payments.filter((payment) => rank(payment) >= 0).sort((a, b) => rank(a) - rank(b))[0];
    if (best) await this.db.transaction().execute((trx) => this.apply(trx, order.id, best, 'refresh'));
    await this.dispatchPayouts(customerId);
    return this.db.selectFrom('payments').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
  }

  /** Verifies and applies a processor callback; duplicates (the same body again) change nothing. */
  async ipn(body: unknown, signature: string | string[] | undefined): Promise<{ duplicate: boolean; handled: boolean }> {
    const secret = this.settings.ipnSecret;
    const expected = secret === '' ? null : Buffer.from(ipnSignature(secret, body), 'hex');
    const given = typeof signature === 'string' && /^[0-9a-f]{128}$/i.test(signature) ? Buffer.from(signature, 'hex') : null;
    if (expected === null || given === null || !timingSafeEqual(expected, given))
      throw new AppError('BAD_REQUEST', 'IPN signature verification failed');
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError('BAD_REQUEST', 'IPN body is not a payment');
    const payment = body as ProcessorPayment;
    // The same callback delivered again has the same body; any difference (another status, amount) is a new event.
    const eventId = `${String(payment.payment_id)}:${createHash('sha256').update(sortedJson(body)).digest('hex')}`;
    const outcome = await this.db.transaction().execute(async (trx) => {
      const recorded = await trx
        .insertInto('payment_events')
        .values({ source: 'crypto', event_id: eventId, type: String(payment.payment_status), received_at: this.deps.clock.nowMs() })
        .onConflict((conflict) => conflict.columns(['source', 'event_id']).doNothing())
        .executeTakeFirst();
      if (Number(recorded.numInsertedOrUpdatedRows ?? 0) !== 1) return { duplicate: true, handled: false };
      const order =
        typeof payment.order_id === 'string'
          ? await trx
              .selectFrom('payments')
              .select(['id', 'customer_id'])
              .where('public_id', '=', payment.order_id)
              .where('method', '=', 'crypto')
              .executeTakeFirst()
          : undefined;
      if (!order) return { duplicate: false, handled: false };
      await this.apply(trx, order.id, payment, 'ipn');
      return { duplicate: false, handled: true, customerId: Number(order.customer_id) };
    });
    if ('customerId' in outcome && outcome.customerId !== undefined) await this.dispatchPayouts(outcome.customerId);
    return { duplicate: outcome.duplicate, handled: outcome.handled };
  }

  /** Applies a processor payment to an order: checks first, then the state change, and the credit once. */
  private async apply(trx: Transaction<Database>, orderId: number, payment: ProcessorPayment, via: string): Promise<void> {
    const order = await trx.selectFrom('payments').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
    const details = JSON.parse(order.details_json ?? '{}') as CryptoDetails;
    const nowMs = this.deps.clock.nowMs();
    const mismatch =
      payment.order_id !== order.public_id
        ? 'order_id'
        : payment.invoice_id !== undefined && payment.invoice_id !== null && String(payment.invoice_id) !== order.processor_ref
          ? 'invoice_id'
          : String(payment.price_currency ?? '').toLowerCase() !== 'usd'
            ? 'price_currency'
            : Math.round(Number(payment.price_amount) * 1_000_000) !== Number(order.amount_micros)
              ? 'price_amount'
              : String(payment.pay_currency ?? '').toLowerCase() !== details.pay_currency.toLowerCase()
                ? 'pay_currency'
                : null;
    const next: CryptoDetails = {
      ...details,
      processor_status: payment.payment_status ?? null,
      processor_payment_id: payment.payment_id === undefined ? details.processor_payment_id : String(payment.payment_id),
      pay_amount: payment.pay_amount === undefined ? details.pay_amount : String(payment.pay_amount),
      actually_paid: payment.actually_paid === undefined ? details.actually_paid : String(payment.actually_paid),
    };
    if (mismatch) {
      this.deps.logger.error({ order: order.public_id, mismatch, via }, 'crypto payment does not match its order; not credited');
      await trx
        .updateTable('payments')
        .set({ details_json: JSON.stringify({ ...details, mismatch }), updated_at: nowMs })
        .where('id', '=', order.id)
        .execute();
      return;
    }
    const paidInFull =
      payment.payment_status === 'finished' &&
      Number(payment.actually_paid) >= Number(payment.pay_amount) &&
      Number(payment.pay_amount) > 0;
    if (paidInFull) {
      const credited = await this.deps.ledger.markPaid(trx, order.id, ['open', 'pending', 'partially_paid', 'expired', 'failed'], {
        kind: 'crypto_payment',
        details: next as unknown as Record<string, unknown>,
      });
      if (credited) await this.deps.events.paid(trx, credited);
      // Paid more coin than the invoice asked: the excess goes back to the customer's refund address.
      const excess = coinExcess(next.actually_paid, next.pay_amount);
      if (excess !== null) {
        await this.payouts.record(trx, {
          paymentId: order.id,
          customerId: Number(order.customer_id),
          kind: 'overpayment',
          network: details.network,
          currency: details.pay_currency,
          amount: excess,
        });
      }
      return;
    }
    const status = STATUS_OF[payment.payment_status === 'finished' ? 'partially_paid' : (payment.payment_status ?? '')];
    await trx
      .updateTable('payments')
      .set({ details_json: JSON.stringify(next), updated_at: nowMs, ...(status ? { status } : {}) })
      .where('id', '=', order.id)
      .where('status', '!=', 'paid')
      .execute();
  }

  async refundAddresses(customerId: number) {
    const rows = await this.db
      .selectFrom('crypto_refund_addresses')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .orderBy('address_id')
      .execute();
    return rows.map((row) => ({
      address_id: row.address_id,
      network: row.network,
      address: row.address,
      label: row.label,
      created_at: new Date(Number(row.created_at)).toISOString(),
    }));
  }

  async saveRefundAddress(customerId: number, input: { network: string; address: string; label?: string }) {
    const coin = this.settings.coins.find((candidate) => candidate.network === input.network);
    if (!coin) throw validationError([{ loc: ['body', 'network'], msg: `Unknown network ${input.network}`, type: 'value_error' }]);
    const address = input.address.trim();
    if (!validAddress(coin.addressFormat, address)) {
      throw validationError([{ loc: ['body', 'address'], msg: `Not a valid ${input.network} address`, type: 'value_error' }]);
    }
    const addressId = `addr_${randomBase62(16)}`;
    await this.db.transaction().execute(async (trx) => {
      // Serializes this customer's saves (PostgreSQL row lock on the customer) so the cap holds under concurrency.
      await trx.updateTable('customers').set({ id: customerId }).where('id', '=', customerId).execute();
      const existing = await trx
        .selectFrom('crypto_refund_addresses')
        .select(['address_id', 'network', 'address'])
        .where('customer_id', '=', customerId)
        .execute();
      if (existing.some((row) => row.network === input.network && row.address === address))
        throw new AppError('CONFLICT', 'This refund address is already saved');
      if (existing.length >= this.settings.maxRefundAddresses) {
        throw new AppError('CONFLICT', `At most ${this.settings.maxRefundAddresses} refund addresses can be saved; delete one first`);
      }
      await trx
        .insertInto('crypto_refund_addresses')
        .values({
          address_id: addressId,
          customer_id: customerId,
          network: input.network,
          address,
          label: input.label ?? null,
          created_at: this.deps.clock.nowMs(),
        })
        .execute();
    });
    // Payouts that waited for an address on this network go out now.
    await this.dispatchPayouts(customerId);
    return (await this.refundAddresses(customerId)).find((row) => row.address_id === addressId)!;
  }

  /**
   * An operator's full refund of a paid order: the coin paid for the invoice goes back to the customer's refund
   * address on the order's network (none saved → 409, nothing changes), the credit is clawed back as far as it
   * is available (the rest is debt) and the refund hooks run (referral claw-back) — once per order.
   */
  async refund(orderId: string): Promise<PaymentRow> {
    this.enabled();
    const order = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('public_id', '=', orderId)
      .where('method', '=', 'crypto')
      .executeTakeFirst();
    if (!order) throw notFound('Order');
    if (order.status !== 'paid') throw new AppError('CONFLICT', 'Only a paid order can be refunded');
    const details = JSON.parse(order.details_json ?? '{}') as CryptoDetails;
    const customerId = Number(order.customer_id);
    if ((await this.payouts.addressFor(customerId, details.network)) === null) {
      throw new AppError('CONFLICT', `The customer has no saved refund address on ${details.network}`);
    }
    await this.db.transaction().execute(async (trx) => {
      const recorded = await this.payouts.record(trx, {
        paymentId: order.id,
        customerId,
        kind: 'refund',
        network: details.network,
        currency: details.pay_currency,
        amount: details.pay_amount ?? '0',
      });
      if (!recorded) throw new AppError('CONFLICT', 'This order was already refunded');
      await trx
        .updateTable('payments')
        .set({ refunded_micros: order.amount_micros, updated_at: this.deps.clock.nowMs() })
        .where('id', '=', order.id)
        .execute();
      await this.deps.ledger.applyRefunds(trx, order.id);
      const fresh = await trx.selectFrom('payments').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
      await this.deps.events.refunded(trx, fresh);
    });
    await this.dispatchPayouts(customerId);
    return this.db.selectFrom('payments').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
  }

  async deleteRefundAddress(customerId: number, addressId: string): Promise<void> {
    const deleted = await this.db
      .deleteFrom('crypto_refund_addresses')
      .where('address_id', '=', addressId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (Number(deleted.numDeletedRows) !== 1) throw notFound('Refund address');
  }
}
