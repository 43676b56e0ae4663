import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Desktop coder projects: one row per customer and project name, pointing at its managed agent project and
 * naming its managed database (never the password in clear), and the extra slots each customer bought.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('desktop_coder_projects'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('name', 'text', notNull)
    .addColumn('name_key', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('project_id', 'text')
    .addColumn('db_engine', 'text')
    .addColumn('db_name', 'text')
    .addColumn('db_user', 'text')
    .addColumn('db_password_sealed', 'text')
    .addColumn('db_host', 'text')
    .addColumn('db_port', 'bigint')
    .addColumn('db_path', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addColumn('last_opened_at', 'bigint', notNull)
    .execute();
  await db.schema
    .createIndex('desktop_coder_projects_name_unique')
    .on('desktop_coder_projects')
    .columns(['customer_id', 'name_key'])
    .unique()
    .execute();
  await db.schema.createIndex('desktop_coder_projects_db_name_unique').on('desktop_coder_projects').column('db_name').unique().execute();

  await withId(db, db.schema.createTable('desktop_coder_slot_purchases'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('price_micros', 'bigint', notNull)
    .addColumn('transfer_id', 'text', notNull)
    .addColumn('idempotency_key', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('desktop_coder_slot_purchases_customer').on('desktop_coder_slot_purchases').column('customer_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('desktop_coder_slot_purchases').execute();
  await db.schema.dropTable('desktop_coder_projects').execute();
}
