import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Desktop chat: the free daily message quota (one row per free message taken, per customer and UTC day; a row is
 * `reserved` while its call runs and `used` once it ends) and research analyses stored with the reply message
 * they belong to (plan, sections, cited sources, status).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('desktop_chat_free_usage'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('day_start', 'bigint', notNull)
    .addColumn('request_id', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('input_tokens', 'bigint')
    .addColumn('output_tokens', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('desktop_chat_free_usage_day').on('desktop_chat_free_usage').columns(['customer_id', 'day_start']).execute();

  await withId(db, db.schema.createTable('desktop_chat_research'))
    .addColumn('message_id', 'bigint', (column) => column.notNull().references('desktop_chat_messages.id'))
    .addColumn('conversation_id', 'bigint', (column) => column.notNull().references('desktop_chat_conversations.id'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('status', 'text', notNull)
    .addColumn('prompt', 'text', notNull)
    .addColumn('title', 'text')
    .addColumn('sections_json', 'text', notNull)
    .addColumn('sources_json', 'text', notNull)
    .addColumn('error', 'text')
    .addColumn('calls', 'integer', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema.createIndex('desktop_chat_research_message').on('desktop_chat_research').column('message_id').unique().execute();
  await db.schema.createIndex('desktop_chat_research_status').on('desktop_chat_research').columns(['status', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('desktop_chat_research').execute();
  await db.schema.dropTable('desktop_chat_free_usage').execute();
}
