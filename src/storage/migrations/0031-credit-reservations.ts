import { sql, type Kysely } from 'kysely';

/**
 * `billing_reservations`: credit a process has held on a customer wallet once, to draw its calls' holds from in
 * memory (docs/billing.md, "Credit reservations"). One row per process and wallet; its amount is part of the
 * wallet's `held_micros`, like an open call's hold, and is released like one when the process is gone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('billing_reservations')
    .addColumn('node_id', 'text', (column) => column.notNull())
    .addColumn('account_id', 'bigint', (column) => column.notNull().references('billing_accounts.id'))
    .addColumn('held_micros', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('billing_reservations_pk', ['node_id', 'account_id'])
    .addCheckConstraint('billing_reservations_held_not_negative', sql`held_micros >= 0`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('billing_reservations').execute();
}
