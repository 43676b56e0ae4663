import type { Kysely } from 'kysely';
import { notNull } from './kit.js';

/**
 * Scale-out: one lease row per customer whose app-server runs somewhere. The holder renews `expires_at`; another
 * node takes the row over only once it expired (or was released: `expires_at` 0), raising `token` by one. Writes
 * of the event log and thread records by a holder are checked against `token` in their own transaction (fencing).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scale_leases')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('holder_node', 'text', notNull)
    .addColumn('holder_url', 'text', notNull)
    .addColumn('token', 'bigint', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('scale_leases_holder').on('scale_leases').column('holder_node').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scale_leases').execute();
}
