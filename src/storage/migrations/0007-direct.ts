import type { Kysely } from 'kysely';
import { notNull } from './kit.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Thread → customer for threads started on the direct surface or through the passthrough: ownership checks
  // that do not need the app-server, and the newest thread of a working directory before its first turn
  // (the app-server lists a thread only once it has one).
  await db.schema
    .createTable('direct_threads')
    .addColumn('thread_id', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('cwd', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('direct_threads_customer_cwd').on('direct_threads').columns(['customer_id', 'cwd', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('direct_threads').execute();
}
