import type { Kysely } from 'kysely';

/**
 * The customer's activity: the index serves the activity pages, newest first per customer. (The thread and turn a
 * billed model call of an agent turn belongs to are columns of `billing_calls` since 0024.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('billing_calls_customer_id').on('billing_calls').columns(['customer_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('billing_calls_customer_id').execute();
}
