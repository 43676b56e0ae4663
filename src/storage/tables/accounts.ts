/** Row types of the accounts tables (migration 0010). Timestamps are epoch milliseconds; secrets are keyed hashes. */
import type { Generated } from 'kysely';

export interface DashboardSessionsTable {
  id: Generated<number>;
  customer_id: number;
  /** HMAC-SHA256 (server secret) of the session id carried by the cookie. */
  session_hash: string;
  created_at: number;
  last_seen_at: number;
  /** Absolute expiry; the idle expiry is `last_seen_at` plus the configured idle time. */
  expires_at: number;
  ended_at: number | null;
  /** When a password or an authenticator code was last checked for it; null = opened from a link. */
  authenticated_at: Generated<number | null>;
  /** The key policy it was derived from (an SSO link's), JSON; null = the dashboard's own. */
  policy_json: Generated<string | null>;
}

export interface LoginChallengesTable {
  id: Generated<number>;
  customer_id: number;
  challenge_hash: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface TotpCredentialsTable {
  customer_id: number;
  /** AES-256-GCM under a key derived from the server secret: `iv.tag.ciphertext`, base64url. */
  secret_enc: string;
  enabled_at: number | null;
  /** The last accepted time step (a code is accepted once). */
  last_step: number | null;
  created_at: number;
}

export interface PasswordResetsTable {
  id: Generated<number>;
  customer_id: number;
  token_hash: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface SsoLinksTable {
  id: Generated<number>;
  customer_id: number;
  link_hash: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
  /** The policy of the credential that minted the link, carried into the session it opens. */
  policy_json: Generated<string | null>;
}

export interface EmailChangesTable {
  id: Generated<number>;
  customer_id: number;
  old_email: string;
  new_email: string;
  /** Keyed hash of the undo token mailed to the old address. */
  token_hash: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface EmailVerificationsTable {
  id: Generated<number>;
  customer_id: number;
  email: string;
  token_hash: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface AddressEventsTable {
  id: Generated<number>;
  /** `signup` or `promotion`. */
  action: string;
  /** Keyed hash of the address prefix (/24 IPv4, /64 IPv6). */
  prefix_hash: string;
  created_at: number;
}

export interface OidcStatesTable {
  id: Generated<number>;
  state_hash: string;
  nonce: string;
  code_verifier_enc: string;
  return_to: string;
  attribution_json: Generated<string>;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface HumanChecksTable {
  id: Generated<number>;
  public_id: string;
  answer_hash: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface AccountSettingsTable {
  customer_id: number;
  edge_region: string | null;
  first_name: string | null;
  surname: string | null;
  name_dismissed_at: number | null;
  toolbox_json: Generated<string>;
  engagement_json: Generated<string>;
  updated_at: number;
}

export interface AccountAlertsTable {
  id: Generated<number>;
  customer_id: number;
  key_id: number | null;
  cause: string;
  cause_key: string;
  details_json: Generated<string>;
  created_at: number;
  acknowledged_at: number | null;
}

export interface KeyNetworksTable {
  key_id: number;
  network_hash: string;
  first_seen_at: number;
}

export interface InboxMessagesTable {
  id: Generated<number>;
  /** Null: a broadcast to every customer (stored once). */
  customer_id: number | null;
  title: string;
  body: string;
  created_at: number;
}

export interface InboxReadsTable {
  message_id: number;
  customer_id: number;
  read_at: number;
}

export interface SignupAttributionsTable {
  customer_id: number;
  referral_code: string | null;
  plan_id: string | null;
  amount_usd_micros: number | null;
  source: string | null;
  country_code: string | null;
  device_fingerprint: string | null;
  country_name: string | null;
  mobile_number: string | null;
  created_at: number;
}

export interface InvitesTable {
  id: Generated<number>;
  email: string;
  token_hash: string;
  expires_at: number;
  used_at: number | null;
  /** The account registered with it. */
  customer_id: number | null;
  created_at: number;
}

/** Mail written without SMTP, held for the operator to read in the console. */
export interface HeldMailTable {
  id: Generated<number>;
  recipient: string;
  subject: string;
  body: string;
  created_at: number;
}

export interface AccountTables {
  invites: InvitesTable;
  held_mail: HeldMailTable;
  dashboard_sessions: DashboardSessionsTable;
  login_challenges: LoginChallengesTable;
  totp_credentials: TotpCredentialsTable;
  password_resets: PasswordResetsTable;
  sso_links: SsoLinksTable;
  oidc_states: OidcStatesTable;
  human_checks: HumanChecksTable;
  account_settings: AccountSettingsTable;
  account_alerts: AccountAlertsTable;
  key_networks: KeyNetworksTable;
  inbox_messages: InboxMessagesTable;
  inbox_reads: InboxReadsTable;
  signup_attributions: SignupAttributionsTable;
  email_changes: EmailChangesTable;
  email_verifications: EmailVerificationsTable;
  address_events: AddressEventsTable;
}
