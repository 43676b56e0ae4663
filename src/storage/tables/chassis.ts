/** Row types of the chassis tables (customers, API keys). Timestamps are epoch milliseconds; flags are 0/1. */
import type { Generated } from 'kysely';

export interface CustomersTable {
  id: Generated<number>;
  email: string;
  username: string;
  name: string | null;
  password_hash: string | null;
  status: string;
  vip: number;
  created_at: number;
  /** When the account proved it receives mail at `email` (sign-up link); null = not verified. */
  email_verified_at: Generated<number | null>;
}

export type ApiKeyKind = 'wallet' | 'username' | 'user' | 'managed';

export interface ApiKeysTable {
  id: Generated<number>;
  customer_id: number | null;
  kind: ApiKeyKind;
  /** 'customer' or 'operator' (operator only for managed keys issued with --operator). */
  role: string;
  name: string | null;
  /** HMAC-SHA256 (server secret) of the plaintext, hex. The plaintext is never stored. */
  key_hash: string;
  prefix: string;
  last_four: string;
  /** JSON: allowed surfaces and models, spending limit, rate-limit plan, rpc permission. */
  policy_json: string;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  last_used_at: number | null;
  replaced_by: number | null;
}

/** One row (id 1) whose counter triggers move when a key or its customer changes (see migration 0008). */
export interface AuthEpochTable {
  id: number;
  epoch: number;
}

export interface ChassisTables {
  customers: CustomersTable;
  api_keys: ApiKeysTable;
  auth_epoch: AuthEpochTable;
}
