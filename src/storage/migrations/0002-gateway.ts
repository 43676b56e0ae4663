import type { Kysely } from 'kysely';
import { notNull } from './kit.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('gateway_aliases')
    .addColumn('alias', 'text', (column) => column.primaryKey())
    .addColumn('model_id', 'text', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('gateway_aliases').execute();
}
