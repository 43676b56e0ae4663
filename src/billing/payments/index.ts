/** Payments composition: card checkout and webhook, the payment ledger effects and the payment listing. */
import type { DomainDeps } from '../../services.js';
import type { BillingServices } from '../index.js';
import { moneyJson } from '../../kernel/money.js';
import { CardPayments, type PaidHook, type RefundHook } from './card.js';
import { CryptoPayments } from './crypto.js';
import { PaymentLedger, type PaymentRow } from './ledger-effects.js';
import type { Alerts, Mailer } from './ports.js';

export interface PaymentDeps {
  billing: BillingServices;
  mailer: Mailer;
  alerts: Alerts;
}

export interface PaymentServices {
  card: CardPayments;
  crypto: CryptoPayments;
  ledger: PaymentLedger;
  mailer: Mailer;
  alerts: Alerts;
  /** Hooks other domains add (referral earnings): run in the transaction that credits or claws back a payment. */
  onPaid: PaidHook[];
  onRefund: RefundHook[];
  /** Card, crypto, cash and top-up payments of a customer with their states, newest first. */
  list(customerId: number, limit: number): Promise<ReturnType<typeof paymentJson>[]>;
}

export function paymentJson(row: PaymentRow) {
  return {
    payment_id: row.public_id,
    method: row.method,
    wallet: row.wallet,
    pack_id: row.pack_id,
    status: row.status,
    amount: moneyJson(Number(row.amount_micros)),
    credit: moneyJson(Number(row.credit_micros)),
    refunded: moneyJson(Number(row.refunded_micros)),
    clawed_back: moneyJson(Number(row.clawed_micros)),
    debt: moneyJson(Number(row.debt_micros)),
    currency: 'USD',
    created_at: new Date(Number(row.created_at)).toISOString(),
    credited_at: row.credited_at === null ? null : new Date(Number(row.credited_at)).toISOString(),
  };
}

export function createPaymentServices(deps: DomainDeps, payment: PaymentDeps): PaymentServices {
  const ledger = new PaymentLedger(payment.billing.wallet, () => deps.clock.nowMs());
  const onPaid: PaidHook[] = [];
  const onRefund: RefundHook[] = [];
  const card = new CardPayments({ config: deps.config, storage: deps.storage, clock: deps.clock, logger: deps.logger, ledger, onPaid, onRefund });
  const crypto = new CryptoPayments({ config: deps.config, storage: deps.storage, clock: deps.clock, logger: deps.logger, ledger, onPaid });
  return {
    card,
    crypto,
    ledger,
    mailer: payment.mailer,
    alerts: payment.alerts,
    onPaid,
    onRefund,
    async list(customerId, limit) {
      const rows = await deps.storage.db.selectFrom('payments').selectAll().where('customer_id', '=', customerId).orderBy('id', 'desc').limit(limit).execute();
      return rows.map(paymentJson);
    },
  };
}
