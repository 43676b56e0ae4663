import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * What a model call went on without: the hosted tools and request fields its destination does not take, named in
 * the answer's `x-switchyard-dropped-tools` / `x-switchyard-dropped-fields` headers and kept here beside the call's
 * billing record (joined on the customer and request id), so the transactions list shows them later. Rows exist
 * only for calls that dropped something.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('call_notes'))
    .addColumn('customer_id', 'bigint', notNull)
    .addColumn('request_id', 'text', notNull)
    .addColumn('dropped_tools', 'text', notNull)
    .addColumn('dropped_fields', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('call_notes_request').on('call_notes').columns(['customer_id', 'request_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('call_notes').execute();
}
