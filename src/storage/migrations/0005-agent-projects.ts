import type { Kysely } from 'kysely';
import { notNull } from './kit.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('name', 'text')
    .addColumn('workspace_dir', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  // Listing is per customer, newest first, with (created_at, id) as the keyset cursor.
  await db.schema.createIndex('projects_customer_created').on('projects').columns(['customer_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('project_events')
    .addColumn('project_id', 'text', (column) => column.notNull().references('projects.id'))
    .addColumn('seq', 'bigint', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('data', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('project_events_pk', ['project_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('project_events').execute();
  await db.schema.dropTable('projects').execute();
}
