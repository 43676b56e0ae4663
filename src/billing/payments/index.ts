/** Payments composition: card and crypto checkout with their callbacks, cash-wallet purchases, the payment ledger effects and the purchase listing. */
import type { BillingServices } from '../index.js';
import { paymentJsonOf } from './payment-json.js';
import { CashPurchases } from './cash.js';
import { CardPayments, type PaidHook, type RefundHook } from './card.js';
import { CryptoPayments } from './crypto.js';
import { Discounts } from './discounts.js';
import { PaymentLedger } from './ledger-effects.js';
import type { Alerts, Mailer } from './ports.js';
import { AutoTopup } from './auto-topup.js';
import type { BaseDeps } from '../../storage/base-deps.js';
import type { IdentityDeps } from '../../accounts/deps.js';

/** What this domain takes from the composition root. */
export type PaymentsBaseDeps = BaseDeps & Pick<IdentityDeps, 'customers'>;

export const paymentJson = paymentJsonOf;

/** What a customer prefers at checkout; estimates may use another display currency, checkout stays USD. */
export interface PurchasePreferences {
  default_pack_id: string | null;
  payment_method: 'card' | 'crypto' | 'cash' | null;
  pay_currency: string | null;
  display_currency: string;
}

const DEFAULT_PREFERENCES: PurchasePreferences = {
  default_pack_id: null,
  payment_method: null,
  pay_currency: null,
  display_currency: 'USD',
};

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
  discounts: Discounts;
  /** Off-session card charges when a settlement takes the token wallet below the customer's threshold. */
  autoTopup: AutoTopup;
  preferences: {
    get(customerId: number): Promise<PurchasePreferences>;
    put(customerId: number, preferences: PurchasePreferences): Promise<PurchasePreferences>;
  };
}

export function createPaymentServices(deps: PaymentsBaseDeps, payment: PaymentDeps): PaymentServices {
  const ledger = new PaymentLedger(payment.billing.wallet, () => deps.clock.nowMs());
  const onPaid: PaidHook[] = [];
  const onRefund: RefundHook[] = [];
  const discounts = new Discounts(deps.config, deps.storage, deps.clock, payment.mailer);
  const card = new CardPayments({
    config: deps.config,
    storage: deps.storage,
    clock: deps.clock,
    logger: deps.logger,
    ledger,
    onPaid,
    onRefund,
    discounts,
  });
  const crypto = new CryptoPayments({ config: deps.config, storage: deps.storage, clock: deps.clock, logger: deps.logger, ledger, onPaid });
  const cash = new CashPurchases(deps.config, deps.storage, deps.clock, payment.billing.wallet, payment.billing.unlimited);
  const autoTopup = new AutoTopup({
    config: deps.config,
    storage: deps.storage,
    clock: deps.clock,
    logger: deps.logger,
    wallet: payment.billing.wallet,
    ledger,
    card,
    alerts: payment.alerts,
    onPaid,
  });
  payment.billing.settlementListeners.push(autoTopup.listener);
  return {
    autoTopup,
    card,
    crypto,
    cash,
    discounts,
    preferences: {
      async get(customerId) {
        const row = await deps.storage.db
          .selectFrom('purchase_preferences')
          .select('preferences_json')
          .where('customer_id', '=', customerId)
          .executeTakeFirst();
        return { ...DEFAULT_PREFERENCES, ...(row ? (JSON.parse(row.preferences_json) as Partial<PurchasePreferences>) : {}) };
      },
      async put(customerId, preferences) {
        const json = JSON.stringify(preferences);
        const nowMs = deps.clock.nowMs();
        await deps.storage.db
          .insertInto('purchase_preferences')
          .values({ customer_id: customerId, preferences_json: json, updated_at: nowMs })
          .onConflict((conflict) => conflict.column('customer_id').doUpdateSet({ preferences_json: json, updated_at: nowMs }))
          .execute();
        return { ...DEFAULT_PREFERENCES, ...preferences };
      },
    },
    ledger,
    mailer: payment.mailer,
    alerts: payment.alerts,
    onPaid,
    onRefund,
    async list(customerId, limit) {
      const rows = await deps.storage.db
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
