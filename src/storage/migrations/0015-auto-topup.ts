import type { Kysely } from 'kysely';
import { notNull } from './kit.js';

/**
 * Wallet auto top-up: one settings row per customer (threshold, pack, on/off, whether it is armed for the next
 * crossing, and the saved card at the card processor), and the "charge pending" marker, whose primary key lets
 * at most one off-session charge per customer be in flight across processes and concurrent settlements.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auto_topup_settings')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('enabled', 'integer', notNull)
    .addColumn('threshold_micros', 'bigint', notNull)
    .addColumn('pack_id', 'text', notNull)
    .addColumn('armed', 'integer', notNull)
    .addColumn('processor_customer', 'text', notNull)
    .addColumn('payment_method', 'text', notNull)
    .addColumn('last_payment_id', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();

  await db.schema
    .createTable('auto_topup_pending')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('payment_id', 'bigint', (column) => column.notNull().references('payments.id'))
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('auto_topup_pending_payment').on('auto_topup_pending').column('payment_id').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['auto_topup_pending', 'auto_topup_settings']) {
    await db.schema.dropTable(table).execute();
  }
}
