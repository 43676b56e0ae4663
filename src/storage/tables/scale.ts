/** Row types of scale-out. Timestamps are epoch milliseconds. */
export interface ScaleLeasesTable {
  customer_id: number;
  /** The node id of the holder (random per service process unless configured). */
  holder_node: string;
  /** Base URL other nodes forward the customer's requests to. */
  holder_url: string;
  /** Fencing token: raised by one at every change of holder. */
  token: number;
  /** The holder renews this; 0 = released. */
  expires_at: number;
  updated_at: number;
}

export interface ScaleTables {
  scale_leases: ScaleLeasesTable;
}
