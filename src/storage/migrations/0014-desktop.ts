import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Desktop client: versioned per-customer documents (coding session, assistant sync), bug reports, presence
 * heartbeats, operator push messages with per-customer dismissals, the shared shoutbox, and desktop chat
 * conversations with their messages.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createDesktopDocumentsToDesktopPushMessages(db);
  await createDesktopPushDismissalsToDesktopChatConversations(db);
  await createDesktopChatMessages(db);
}

/** `desktop_documents`, `desktop_bug_reports`, `desktop_presence`, `desktop_push_messages` and their indexes. */
async function createDesktopDocumentsToDesktopPushMessages(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('desktop_documents')
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('kind', 'text', notNull)
    .addColumn('version', 'bigint', notNull)
    .addColumn('body_json', 'text', notNull)
    .addColumn('size_bytes', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('desktop_documents_pk', ['customer_id', 'kind'])
    .execute();

  await withId(db, db.schema.createTable('desktop_bug_reports'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('text', 'text', notNull)
    .addColumn('app_version', 'text', notNull)
    .addColumn('os', 'text', notNull)
    .addColumn('log_excerpt', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('desktop_bug_reports_customer').on('desktop_bug_reports').columns(['customer_id', 'id']).execute();

  await db.schema
    .createTable('desktop_presence')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('app_version', 'text')
    .addColumn('os', 'text')
    .addColumn('first_seen_at', 'bigint', notNull)
    .addColumn('last_seen_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('desktop_presence_last_seen').on('desktop_presence').column('last_seen_at').execute();

  await withId(db, db.schema.createTable('desktop_push_messages'))
    .addColumn('message_key', 'text', notNull)
    .addColumn('customer_id', 'bigint', (column) => column.references('customers.id'))
    .addColumn('title', 'text', notNull)
    .addColumn('body', 'text', notNull)
    .addColumn('level', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('desktop_push_messages_key_unique').on('desktop_push_messages').column('message_key').unique().execute();
}

/** `desktop_push_dismissals`, `shoutbox_profiles`, `shoutbox_messages`, `desktop_chat_conversations` and their indexes. */
async function createDesktopPushDismissalsToDesktopChatConversations(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('desktop_push_dismissals')
    .addColumn('message_id', 'bigint', (column) => column.notNull().references('desktop_push_messages.id'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('dismissed_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('desktop_push_dismissals_pk', ['message_id', 'customer_id'])
    .execute();

  await db.schema
    .createTable('shoutbox_profiles')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('username', 'text', notNull)
    .addColumn('username_key', 'text', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('shoutbox_profiles_username_unique').on('shoutbox_profiles').column('username_key').unique().execute();

  await withId(db, db.schema.createTable('shoutbox_messages'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('text', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('shoutbox_messages_customer').on('shoutbox_messages').columns(['customer_id', 'created_at']).execute();

  await withId(db, db.schema.createTable('desktop_chat_conversations'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('title', 'text', notNull)
    .addColumn('model', 'text', notNull)
    .addColumn('system_prompt', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();
  await db.schema
    .createIndex('desktop_chat_conversations_customer')
    .on('desktop_chat_conversations')
    .columns(['customer_id', 'id'])
    .execute();
}

/** `desktop_chat_messages` and their indexes. */
async function createDesktopChatMessages(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('desktop_chat_messages'))
    .addColumn('conversation_id', 'bigint', (column) => column.notNull().references('desktop_chat_conversations.id'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('role', 'text', notNull)
    .addColumn('content', 'text', notNull)
    .addColumn('model', 'text')
    .addColumn('request_id', 'text')
    .addColumn('input_tokens', 'bigint')
    .addColumn('output_tokens', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema
    .createIndex('desktop_chat_messages_conversation')
    .on('desktop_chat_messages')
    .columns(['conversation_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'desktop_chat_messages',
    'desktop_chat_conversations',
    'shoutbox_messages',
    'shoutbox_profiles',
    'desktop_push_dismissals',
    'desktop_push_messages',
    'desktop_presence',
    'desktop_bug_reports',
    'desktop_documents',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
