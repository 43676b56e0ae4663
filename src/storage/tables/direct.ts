/** Row types of the direct thread surface. Timestamps are epoch milliseconds. */

export interface DirectThreadsTable {
  /** The app-server's thread id (UUIDv7). */
  thread_id: string;
  /** The customer whose app-server holds the thread. */
  customer_id: number;
  /** Realpath of the working directory the thread was started in (inside the customer's workspace root). */
  cwd: string;
  created_at: number;
}

export interface DirectTables {
  direct_threads: DirectThreadsTable;
}
