/** Row types of the promotion tables. Money is integer micro-USD; timestamps are epoch milliseconds. */
import type { Generated } from 'kysely';

export interface PromotionGrantsTable {
  customer_id: number;
  /** `checkin`, `spin`, `share_credit`, `raffle`. */
  promotion: string;
  /** Once-only promotions use `once`; the check-in its UTC day; the raffle its raffle id. */
  grant_key: string;
  amount_micros: number;
  details_json: string | null;
  created_at: number;
}

export interface ReferralCodesTable {
  customer_id: number;
  code: string;
  created_at: number;
}

export interface ReferralsTable {
  referred_customer_id: number;
  referrer_customer_id: number;
  created_at: number;
}

export interface ReferralEarningsTable {
  payment_id: number;
  referrer_customer_id: number;
  amount_micros: number;
  clawed_micros: number;
  created_at: number;
}

export interface ShareVisitsTable {
  code: string;
  /** Keyed hash of the visitor's address and user agent. */
  visitor_hash: string;
  /** Keyed hash of the visitor's address alone. */
  address_hash: string;
  created_at: number;
}

/** Keyed hashes of the addresses a customer used the promotion routes from (their own visits do not count). */
export interface CustomerAddressesTable {
  customer_id: number;
  address_hash: string;
  created_at: number;
}

export interface RafflesTable {
  id: Generated<number>;
  /** Index of the raffle period since the epoch. */
  period: number;
  opens_at: number;
  draws_at: number;
  /** SHA-256 of the seed, published from the opening. */
  seed_hash: string;
  /** Secret until the draw, published after it. */
  seed: string;
  prize_micros: number;
  winner_count: number;
  winners_json: string | null;
  drawn_at: number | null;
}

export interface RaffleEntriesTable {
  raffle_id: number;
  customer_id: number;
  /** What earned the entries (`checkin:<day>:<customer>`, `payment:<id>`): each source counts once. */
  source: string;
  entries: number;
  created_at: number;
}

export interface AdConversionsTable {
  event_id: string;
  event_type: string;
  /** `sending` while forwarded, `sent` after. */
  status: string;
  created_at: number;
}

export interface PromotionTables {
  ad_conversions: AdConversionsTable;
  promotion_grants: PromotionGrantsTable;
  referral_codes: ReferralCodesTable;
  referrals: ReferralsTable;
  referral_earnings: ReferralEarningsTable;
  share_visits: ShareVisitsTable;
  customer_addresses: CustomerAddressesTable;
  raffles: RafflesTable;
  raffle_entries: RaffleEntriesTable;
}
