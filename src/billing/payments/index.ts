/** Payments composition: card and crypto checkout with their callbacks, cash-wallet purchases, the payment ledger effects and the purchase listing. */
import type { DomainDeps } from '../../services.js';
import type { BillingServices } from '../index.js';
import { paymentJsonOf } from './payment-json.js';
import { CashPurchases } from './cash.js';
import { CardPayments, type PaidHook, type RefundHook } from './card.js';
import { CryptoPayments } from './crypto.js';
import { PaymentLedger } from './ledger-effects.js';
import type { Alerts, Mailer } from './ports.js';

export const paymentJson = paymentJsonOf;

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
  list(customerId: number, limit: number): Promise<ReturnType<typeof paymentJsonOf>[]>;
  cash: CashPurchases;
}


export function createPaymentServices(deps: DomainDeps, payment: PaymentDeps): PaymentServices {
  const ledger = new PaymentLedger(payment.billing.wallet, () => deps.clock.nowMs());
  const onPaid: PaidHook[] = [];
  const onRefund: RefundHook[] = [];
  const card = new CardPayments({ config: deps.config, storage: deps.storage, clock: deps.clock, logger: deps.logger, ledger, onPaid, onRefund });
  const crypto = new CryptoPayments({ config: deps.config, storage: deps.storage, clock: deps.clock, logger: deps.logger, ledger, onPaid });
  const cash = new CashPurchases(deps.config, deps.storage, deps.clock, payment.billing.wallet, payment.billing.unlimited);
  return {
    card,
    crypto,
    cash,
    ledger,
    mailer: payment.mailer,
    alerts: payment.alerts,
    onPaid,
    onRefund,
    async list(customerId, limit) {
      const rows = await deps.storage.db.selectFrom('payments').selectAll().where('customer_id', '=', customerId).orderBy('id', 'desc').limit(limit).execute();
      return rows.map(paymentJsonOf);
    },
  };
}
