import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('gateway_stored_completions'))
    .addColumn('completion_id', 'text', notNull)
    .addColumn('owner', 'text', notNull)
    .addColumn('model', 'text', notNull)
    .addColumn('completion_json', 'text', notNull)
    .addColumn('metadata_json', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('gateway_stored_completions_id').on('gateway_stored_completions').column('completion_id').unique().execute();
  await db.schema.createIndex('gateway_stored_completions_owner').on('gateway_stored_completions').columns(['owner', 'id']).execute();
  await db.schema.createIndex('gateway_stored_completions_expiry').on('gateway_stored_completions').column('expires_at').execute();

  await withId(db, db.schema.createTable('gateway_stored_responses'))
    .addColumn('response_id', 'text', notNull)
    .addColumn('owner', 'text', notNull)
    .addColumn('model', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('background', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('response_json', 'text', notNull)
    .addColumn('request_json', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('gateway_stored_responses_id').on('gateway_stored_responses').column('response_id').unique().execute();
  await db.schema.createIndex('gateway_stored_responses_expiry').on('gateway_stored_responses').column('expires_at').execute();

  await withId(db, db.schema.createTable('gateway_stored_items'))
    .addColumn('object_id', 'text', notNull)
    .addColumn('position', 'integer', notNull)
    .addColumn('item_id', 'text', notNull)
    .addColumn('item_json', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('gateway_stored_items_object')
    .on('gateway_stored_items')
    .columns(['object_id', 'position'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('gateway_stored_metadata'))
    .addColumn('object_id', 'text', notNull)
    .addColumn('key', 'text', notNull)
    .addColumn('value', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('gateway_stored_metadata_object')
    .on('gateway_stored_metadata')
    .columns(['object_id', 'key'])
    .unique()
    .execute();
  await db.schema.createIndex('gateway_stored_metadata_pair').on('gateway_stored_metadata').columns(['key', 'value']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('gateway_stored_metadata').execute();
  await db.schema.dropTable('gateway_stored_items').execute();
  await db.schema.dropTable('gateway_stored_responses').execute();
  await db.schema.dropTable('gateway_stored_completions').execute();
}
