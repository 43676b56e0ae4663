import type { Kysely } from 'kysely';
import { notNull } from './kit.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Project → thread, recorded at thread/start: a new thread is not listed by the app-server before its first turn.
  await db.schema
    .createTable('agent_project_threads')
    .addColumn('project_id', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('thread_id', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('agent_project_threads_thread').on('agent_project_threads').column('thread_id').unique().execute();

  await db.schema
    .createTable('agent_approvals')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('project_id', 'text', notNull)
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('thread_id', 'text', notNull)
    .addColumn('turn_id', 'text', notNull)
    .addColumn('item_id', 'text', notNull)
    .addColumn('kind', 'text', notNull)
    .addColumn('server_request_id', 'text', notNull)
    .addColumn('params_json', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('decision', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('agent_approvals_project_status').on('agent_approvals').columns(['project_id', 'status']).execute();

  await db.schema
    .createTable('agent_turn_requests')
    .addColumn('project_id', 'text', notNull)
    .addColumn('idempotency_key', 'text', notNull)
    .addColumn('request_hash', 'text', notNull)
    .addColumn('response_json', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('agent_turn_requests_pk', ['project_id', 'idempotency_key'])
    .execute();

  // The wallet-linked key each customer's app-server authenticates its model calls with (plaintext never stored).
  await db.schema
    .createTable('agent_runtime_keys')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('key_id', 'bigint', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('agent_runtime_keys').execute();
  await db.schema.dropTable('agent_turn_requests').execute();
  await db.schema.dropTable('agent_approvals').execute();
  await db.schema.dropTable('agent_project_threads').execute();
}
