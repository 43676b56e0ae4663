import type { Kysely } from 'kysely';
import { notNull } from './kit.js';

/**
 * Assistant-desktop object workspaces (one per customer), their projects and fetched repositories; chat-bot
 * links between a bot chat and a customer, the single-use identity-provider link states, and the webhook
 * update ids already handled.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('object_workspaces')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('created_at', 'bigint', notNull)
    .execute();

  await db.schema
    .createTable('object_workspace_projects')
    .addColumn('project_id', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('name', 'text', notNull)
    .addColumn('name_key', 'text', notNull)
    .addColumn('body_json', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema
    .createIndex('object_workspace_projects_name_unique')
    .on('object_workspace_projects')
    .columns(['customer_id', 'name_key'])
    .unique()
    .execute();

  await db.schema
    .createTable('object_workspace_repositories')
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('name', 'text', notNull)
    .addColumn('source_url', 'text', notNull)
    .addColumn('commit_ref', 'text', notNull)
    .addColumn('format', 'text', notNull)
    .addColumn('files', 'bigint', notNull)
    .addColumn('bytes', 'bigint', notNull)
    .addColumn('stored_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('object_workspace_repositories_pk', ['customer_id', 'name'])
    .execute();

  await db.schema
    .createTable('chatbot_links')
    .addColumn('chat_id', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('linked_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('chatbot_links_customer').on('chatbot_links').column('customer_id').execute();

  await db.schema
    .createTable('chatbot_link_states')
    .addColumn('state_hash', 'text', (column) => column.primaryKey())
    .addColumn('chat_id', 'text', notNull)
    .addColumn('nonce_enc', 'text', notNull)
    .addColumn('code_verifier_enc', 'text', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();

  await db.schema
    .createTable('chatbot_updates')
    .addColumn('update_id', 'bigint', (column) => column.primaryKey())
    .addColumn('received_at', 'bigint', notNull)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'chatbot_updates',
    'chatbot_link_states',
    'chatbot_links',
    'object_workspace_repositories',
    'object_workspace_projects',
    'object_workspaces',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
