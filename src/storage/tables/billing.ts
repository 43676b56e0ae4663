/** Row types of the billing tables. Money is integer micro-USD; timestamps are epoch milliseconds. */
import type { Generated } from 'kysely';

export type BillingAccountKind = 'token_wallet' | 'cash_wallet' | 'system';

export interface BillingAccountsTable {
  id: Generated<number>;
  /** `customer:<id>:token`, `customer:<id>:cash` or `system:<name>`. */
  code: string;
  customer_id: number | null;
  kind: BillingAccountKind;
  /** Always equals the sum of the account's ledger entries. */
  balance_micros: number;
  /** Sum of the open holds on this account (not ledger entries: a reservation, not a transfer). */
  held_micros: number;
  created_at: number;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  /** The entries of one transfer share this id and sum to zero. */
  transfer_id: string;
  account_id: number;
  amount_micros: number;
  /** `usage`, `adjustment`, `marketplace_credit`, `top_up`, `promotion`, `refund`. */
  kind: string;
  reference: string | null;
  memo: string | null;
  created_at: number;
}

export type BilledCallStatus = 'open' | 'settled' | 'released';

export interface BillingCallsTable {
  id: Generated<number>;
  customer_id: number;
  account_id: number;
  key_id: number | null;
  request_id: string;
  /** The process that placed the hold (start-up release of its own crashed holds). */
  node_id: string;
  model: string;
  requested_model: string;
  operation: string;
  surface: string;
  /** The rate card in force when the hold was placed; settlement uses these same rates. */
  rate_card: string;
  input_micros_per_million: number;
  output_micros_per_million: number;
  cached_input_micros_per_million: number;
  /** Null on calls billed before cache writes had prices of their own. */
  cache_write_micros_per_million: number | null;
  cache_write_1h_micros_per_million: number | null;
  estimated_input_tokens: number;
  max_output_tokens: number;
  hold_micros: number;
  /** Unlimited plan id covering the call (no wallet debit), else null. */
  covered_plan: string | null;
  status: BilledCallStatus;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  cache_write_tokens: number | null;
  cache_write_1h_tokens: number | null;
  usage_source: string | null;
  cost_micros: number | null;
  /** Part of the cost above the hold the wallet could not pay. */
  uncollected_micros: number | null;
  /** `completed`, `aborted`, `failed`, or `expired` (released by the sweeper / start-up). */
  outcome: string | null;
  /** The agent thread and turn a call of an agent turn belongs to; null for a call made with a customer's key. */
  thread_id: string | null;
  turn_id: string | null;
  created_at: number;
  settled_at: number | null;
  /** The client's own request id (its x-request-id), kept beside `request_id`. */
  client_request_id: string | null;
}

/** A settled call owed to the usage webhook (one row per call; delivered at least once). */
export interface UsageWebhookOutboxTable {
  id: Generated<number>;
  call_id: number;
  settled_at: number;
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  last_error: string | null;
  created_at: number;
}

/** Credit a process holds on a wallet to draw its calls' holds from (part of the account's `held_micros`). */
export interface BillingReservationsTable {
  node_id: string;
  account_id: number;
  held_micros: number;
  updated_at: number;
}

/** A process that places holds; its heartbeat tells whether its open holds are still in flight. */
export interface BillingNodesTable {
  node_id: string;
  hostname: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
}

export interface IdempotencyKeysTable {
  scope: string;
  idempotency_key: string;
  request_hash: string;
  status: 'pending' | 'done';
  response_status: number | null;
  response_json: string | null;
  created_at: number;
  /** A pending key whose lock expired (crashed executor) may be taken over. */
  locked_until: number;
}

export interface RateCardAssignmentsTable {
  target: string;
  card: string;
  updated_at: number;
}

export interface UnlimitedSubscriptionsTable {
  id: Generated<number>;
  customer_id: number;
  plan_id: string;
  starts_at: number;
  ends_at: number;
  created_at: number;
}

export interface MarketplaceLicencesTable {
  /** HMAC of the licence key; the key itself is not stored. */
  licence_hash: string;
  customer_id: number;
  email: string;
  claimed_at: number;
}

export interface BillingTables {
  billing_accounts: BillingAccountsTable;
  ledger_entries: LedgerEntriesTable;
  billing_calls: BillingCallsTable;
  usage_webhook_outbox: UsageWebhookOutboxTable;
  billing_nodes: BillingNodesTable;
  billing_reservations: BillingReservationsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_card_assignments: RateCardAssignmentsTable;
  unlimited_subscriptions: UnlimitedSubscriptionsTable;
  marketplace_licences: MarketplaceLicencesTable;
}
