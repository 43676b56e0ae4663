/** Shapes of the `/api` answers the customer views read (the parts they use). */
import type { Money } from './index';

export interface WalletStatus {
  balance: Money;
  holds: Money;
  available: Money;
  cash_balance: Money;
  plan: string | null;
  plan_ends_at: string | null;
}
export interface DayTotals {
  date: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  spend: Money;
}
export interface TokenUsage {
  transactions: {
    id: number;
    model: string;
    key_id: number | null;
    input_tokens: number | null;
    output_tokens: number | null;
    cost: Money;
    status: string;
    created_at: string;
  }[];
  daily_spend: DayTotals[];
  daily_by_model: (DayTotals & { model: string })[];
}
export interface PaymentEntry {
  id: number;
  kind: string;
  wallet: 'token' | 'cash';
  amount: Money;
  memo: string | null;
  created_at: string;
}
export interface Purchase {
  payment_id: string;
  method: string;
  wallet: 'token' | 'cash';
  pack_id: string | null;
  status: string;
  amount: Money;
  credit: Money;
  refunded: Money;
  created_at: string;
  credited_at: string | null;
  [key: string]: unknown;
}
export interface Payments {
  payments: PaymentEntry[];
  purchases: Purchase[];
}
export interface Alert {
  id: number;
  key_id: number | null;
  cause: string;
  details: Record<string, unknown>;
  created_at: string;
  acknowledged: boolean;
}
export interface InboxMessage {
  id: number;
  title: string;
  body: string;
  broadcast: boolean;
  created_at: string;
  read: boolean;
}
export interface Pack {
  id: string;
  name: string;
  price_micros: number;
  credit_micros: number;
}
