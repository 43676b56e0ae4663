import type { Kysely } from 'kysely';

/**
 * One index fewer written by every billed call's hold: `billing_calls_customer_id` (customer, id) repeated what
 * `billing_calls_customer` (customer, created_at) already serves. Each reader of a customer's calls (activity,
 * spend, digests, exports) filters on the customer and a time window; the activity page groups its rows before
 * ordering them, so no reader walks the calls in id order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('billing_calls_customer_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('billing_calls_customer_id').on('billing_calls').columns(['customer_id', 'id']).execute();
}
