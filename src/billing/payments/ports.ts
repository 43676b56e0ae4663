/**
 * Small ports of the payment and promotion domains onto services built elsewhere (mail, customer alerts), and the
 * payment events other domains listen to.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { PaymentRow } from './ledger-effects.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface CustomerAlert {
  cause: string;
  causeKey: string;
  details?: Record<string, unknown>;
}

export interface Alerts {
  raise(customerId: number, alert: CustomerAlert): Promise<void>;
}

/**
 * What other parts of the service do when a payment is credited or a refund is clawed back (referral earnings,
 * raffle entries, the inbox and receipt mail). Given to payments when they are built; both calls run inside the
 * transaction that changes the payment, so their writes commit or roll back with it.
 */
export interface PaymentEvents {
  /** A payment was just credited (once per payment). */
  paid(trx: Transaction<Database>, payment: PaymentRow): Promise<void>;
  /** A refund of the payment was just recorded (`refunded_micros` holds the refunded total so far). */
  refunded(trx: Transaction<Database>, payment: PaymentRow): Promise<void>;
}

/** Listeners of payment events, each free to listen to one of the two. */
export type PaymentListener = Partial<PaymentEvents>;

/** One `PaymentEvents` that tells each listener in turn, in the order given. */
export function paymentEventsOf(...listeners: PaymentListener[]): PaymentEvents {
  return {
    async paid(trx, payment) {
      for (const listener of listeners) await listener.paid?.(trx, payment);
    },
    async refunded(trx, payment) {
      for (const listener of listeners) await listener.refunded?.(trx, payment);
    },
  };
}
