/** Payments composition: card and crypto checkout with their callbacks, cash-wallet purchases, the payment ledger effects and the purchase listing. */
import type { BillingServices } from '../index.js';
import { paymentJsonOf } from './payment-json.js';
import { CashPurchases } from './cash.js';
import { CardPayments } from './card.js';
import { CryptoPayments } from './crypto.js';
import { Discounts } from './discounts.js';
import { PaymentLedger } from './ledger-effects.js';
import { paymentEventsOf, type Alerts, type Mailer, type PaymentEvents } from './ports.js';
import { AutoTopup, autoTopupPaymentListener } from './auto-topup.js';
import type { PurchasePreferenceStore } from './preferences.js';
import type { BaseDeps } from '../../storage/base-deps.js';
import type { IdentityDeps } from '../../accounts/deps.js';

/** What this domain takes from the composition root. */
export type PaymentsBaseDeps = BaseDeps & Pick<IdentityDeps, 'customers'>;

export const paymentJson = paymentJsonOf;
export { packForSignup, PurchasePreferenceStore, type PurchasePreferences } from './preferences.js';
export { paymentEventsOf, type PaymentEvents, type PaymentListener } from './ports.js';

export interface PaymentDeps {
  billing: BillingServices;
  mailer: Mailer;
  alerts: Alerts;
  /** What other domains do when a payment is credited or refunded (told after auto top-up's own listener). */
  events: PaymentEvents;
  preferences: PurchasePreferenceStore;
}

export interface PaymentServices {
  card: CardPayments;
  crypto: CryptoPayments;
  ledger: PaymentLedger;
  mailer: Mailer;
  alerts: Alerts;
  /** Card, crypto, cash and top-up payments of a customer with their states, newest first. */
  list(customerId: number, limit: number): Promise<ReturnType<typeof paymentJsonOf>[]>;
  cash: CashPurchases;
  discounts: Discounts;
  /** Off-session card charges when a settlement takes the token wallet below the customer's threshold. */
  autoTopup: AutoTopup;
  preferences: PurchasePreferenceStore;
}

export function createPaymentServices(deps: PaymentsBaseDeps, payment: PaymentDeps): PaymentServices {
  const { config, storage, clock, logger } = deps;
  const { billing, mailer, alerts } = payment;
  const ledger = new PaymentLedger(billing.wallet, () => clock.nowMs());
  const events = paymentEventsOf(autoTopupPaymentListener(clock), payment.events);
  const discounts = new Discounts(config, storage, clock, mailer);
  const card = new CardPayments({ config, storage, clock, logger, ledger, events, discounts });
  const crypto = new CryptoPayments({ config, storage, clock, logger, ledger, events, discounts });
  const cash = new CashPurchases(config, storage, clock, billing.wallet, billing.unlimited);
  const autoTopup = new AutoTopup({ config, storage, clock, logger, wallet: billing.wallet, ledger, card, alerts });
  billing.settlementListeners.push(autoTopup.listener);
  return {
    autoTopup,
    card,
    crypto,
    cash,
    discounts,
    preferences: payment.preferences,
    ledger,
    mailer,
    alerts,
    async list(customerId, limit) {
      const rows = await storage.db
        .selectFrom('payments')
        .selectAll()
        .where('customer_id', '=', customerId)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(paymentJsonOf);
    },
  };
}
