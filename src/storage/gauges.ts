/** The storage figures the service's gauges read at scrape time (the queries live here, beside the schema). */
import type { Storage } from './database.js';

export interface StorageGauges {
  /** Holds (billed calls not yet settled) in the database. */
  holdsOpen(): Promise<number>;
  /** True when a trivial query answers. */
  databaseUp(): Promise<boolean>;
  /** PostgreSQL pool figures, when the storage is a pool. */
  pool?(): { total: number; idle: number; waiting: number };
}

export function storageGauges(storage: Storage): StorageGauges {
  return {
    async holdsOpen() {
      const row = await storage.db
        .selectFrom('billing_calls')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'open')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    databaseUp: () =>
      storage.db
        .selectFrom('customers')
        .select('id')
        .limit(1)
        .execute()
        .then(
          () => true,
          () => false,
        ),
    pool: storage.poolStats ? () => storage.poolStats!() : undefined,
  };
}
