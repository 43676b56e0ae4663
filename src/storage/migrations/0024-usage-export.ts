import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Usage an operator can ship elsewhere. A call's record keeps the client's own request id beside the service's,
 * and the agent turn it was made for (thread and turn ids), so turns can be exported with their cost. Settled
 * calls are scanned by settlement time (`billing_calls_settled`). `usage_webhook_outbox` holds one row per settled
 * call owed to the usage webhook (unique per call, so every node may enqueue and a call is delivered at least
 * once, across restarts), with its attempts and the time of the next one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('billing_calls').addColumn('client_request_id', 'text').execute();
  await db.schema.alterTable('billing_calls').addColumn('thread_id', 'text').execute();
  await db.schema.alterTable('billing_calls').addColumn('turn_id', 'text').execute();
  await db.schema.createIndex('billing_calls_settled').on('billing_calls').columns(['settled_at', 'id']).execute();

  await withId(db, db.schema.createTable('usage_webhook_outbox'))
    .addColumn('call_id', 'bigint', (column) => column.notNull().references('billing_calls.id'))
    .addColumn('settled_at', 'bigint', notNull)
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', notNull)
    .addColumn('delivered_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('usage_webhook_outbox_call').on('usage_webhook_outbox').column('call_id').unique().execute();
  await db.schema.createIndex('usage_webhook_outbox_due').on('usage_webhook_outbox').columns(['delivered_at', 'next_attempt_at']).execute();
}
