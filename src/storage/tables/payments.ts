/** Row types of the payment tables. Money is integer micro-USD; timestamps are epoch milliseconds. */
import type { Generated } from 'kysely';

export type PaymentMethod = 'card' | 'crypto' | 'cash' | 'top_up';
/** open: awaiting payment; pending: paid asynchronously, not settled; paid: credited; failed/expired: nothing credited. */
export type PaymentStatus = 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';

export interface PaymentsTable {
  id: Generated<number>;
  /** The id customers see (`pay_…` for card, `ord_…` for crypto). */
  public_id: string;
  customer_id: number;
  method: PaymentMethod;
  /** Wallet credited when paid: `token` or `cash`. */
  wallet: 'token' | 'cash';
  pack_id: string | null;
  /** Price charged (USD). */
  amount_micros: number;
  /** Credit loaded when paid (price plus any bonus). */
  credit_micros: number;
  status: PaymentStatus;
  /** The processor's id: checkout session id, invoice id. */
  processor_ref: string | null;
  payment_intent: string | null;
  /** Amount the processor refunded so far (cumulative, USD). */
  refunded_micros: number;
  /** Credit taken back from the wallet because of refunds. */
  clawed_micros: number;
  /** Credit that could not be taken back (already spent), recorded as debt. */
  debt_micros: number;
  details_json: string | null;
  credited_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface PaymentEventsTable {
  /** `card`, `crypto`. */
  source: string;
  event_id: string;
  type: string;
  received_at: number;
}

export interface PaymentDebtsTable {
  id: Generated<number>;
  customer_id: number;
  wallet: 'token' | 'cash';
  payment_id: number;
  amount_micros: number;
  repaid_micros: number;
  created_at: number;
}

export interface CryptoRefundAddressesTable {
  address_id: string;
  customer_id: number;
  network: string;
  address: string;
  label: string | null;
  created_at: number;
}

export interface DiscountRedemptionsTable {
  code: string;
  customer_id: number;
  payment_public_id: string;
  created_at: number;
}

export interface SessionDiscountsTable {
  code: string;
  customer_id: number;
  bonus_percent: number;
  expires_at: number;
  created_at: number;
}

export interface PurchasePreferencesTable {
  customer_id: number;
  preferences_json: string;
  updated_at: number;
}

/** Coin sent back to a saved refund address: an over-payment's excess or an operator's refund, once per order each. */
export interface CryptoPayoutsTable {
  id: Generated<number>;
  payment_id: number;
  customer_id: number;
  kind: 'overpayment' | 'refund';
  network: string;
  currency: string;
  /** Coin amount as a decimal string (the processor's unit). */
  amount: string;
  /** Null while waiting for a refund address on `network`. */
  address: string | null;
  status: 'awaiting_address' | 'sent' | 'failed';
  processor_payout_id: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface PaymentTables {
  crypto_payouts: CryptoPayoutsTable;
  discount_redemptions: DiscountRedemptionsTable;
  session_discounts: SessionDiscountsTable;
  purchase_preferences: PurchasePreferencesTable;
  crypto_refund_addresses: CryptoRefundAddressesTable;
  payments: PaymentsTable;
  payment_events: PaymentEventsTable;
  payment_debts: PaymentDebtsTable;
}
