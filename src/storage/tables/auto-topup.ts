/** Row types of wallet auto top-up. Money is integer micro-USD; timestamps are epoch milliseconds. */
export interface AutoTopupSettingsTable {
  customer_id: number;
  /** 1 = on, 0 = off. */
  enabled: number;
  /** A settlement that leaves the available token-wallet balance below this starts one charge. */
  threshold_micros: number;
  pack_id: string;
  /** 1 = the next crossing below the threshold charges; 0 = already fired for this crossing (re-armed above it). */
  armed: number;
  /** The saved card at the card processor: its customer and payment method ids. */
  processor_customer: string;
  payment_method: string;
  /** `payments.id` of the latest auto top-up charge. */
  last_payment_id: number | null;
  created_at: number;
  updated_at: number;
}

/** At most one row per customer: an off-session charge is in flight. */
export interface AutoTopupPendingTable {
  customer_id: number;
  payment_id: number;
  created_at: number;
}

export interface AutoTopupTables {
  auto_topup_settings: AutoTopupSettingsTable;
  auto_topup_pending: AutoTopupPendingTable;
}
