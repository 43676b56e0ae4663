import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('customers'))
    .addColumn('email', 'text', notNull)
    .addColumn('username', 'text', notNull)
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('status', 'text', (column) => column.notNull().defaultTo('active'))
    .addColumn('vip', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('customers_email_unique').on('customers').column('email').unique().execute();
  await db.schema.createIndex('customers_username_unique').on('customers').column('username').unique().execute();

  await withId(db, db.schema.createTable('api_keys'))
    .addColumn('customer_id', 'bigint', (column) => column.references('customers.id'))
    .addColumn('kind', 'text', notNull)
    .addColumn('role', 'text', notNull)
    .addColumn('name', 'text')
    .addColumn('key_hash', 'text', notNull)
    .addColumn('prefix', 'text', notNull)
    .addColumn('last_four', 'text', notNull)
    .addColumn('policy_json', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('last_used_at', 'bigint')
    .addColumn('replaced_by', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_hash_unique').on('api_keys').column('key_hash').unique().execute();
  await db.schema.createIndex('api_keys_customer').on('api_keys').columns(['customer_id', 'kind']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('customers').execute();
}
