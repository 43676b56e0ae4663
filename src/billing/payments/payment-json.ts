/** The JSON of a payment row (purchases listing, checkout answers). */
import { moneyJson } from '../../kernel/money.js';
import type { PaymentRow } from './ledger-effects.js';

export function paymentJsonOf(row: PaymentRow) {
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
