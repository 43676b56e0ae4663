import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Payments at outside processors: one row per checkout (card session, crypto invoice) or cash purchase with its
 * state and what it credited and clawed back; processor events already applied (deduplicated by id in the same
 * transaction as their ledger effect); debts left by refunds of credit already spent; saved crypto refund addresses; bonus-code redemptions (once per customer), personal time-boxed discounts and
 * purchase preferences.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createPaymentsToPaymentDebts(db);
  await createCryptoRefundAddressesToPurchasePreferences(db);
}

/** `payments`, `payment_events`, `payment_debts` and their indexes. */
async function createPaymentsToPaymentDebts(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('payments'))
    .addColumn('public_id', 'text', notNull)
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('method', 'text', notNull)
    .addColumn('wallet', 'text', notNull)
    .addColumn('pack_id', 'text')
    .addColumn('amount_micros', 'bigint', notNull)
    .addColumn('credit_micros', 'bigint', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('processor_ref', 'text')
    .addColumn('payment_intent', 'text')
    .addColumn('refunded_micros', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('clawed_micros', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('debt_micros', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('details_json', 'text')
    .addColumn('credited_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('payments_public_id_unique').on('payments').column('public_id').unique().execute();
  await db.schema.createIndex('payments_processor_ref_unique').on('payments').columns(['method', 'processor_ref']).unique().execute();
  await db.schema.createIndex('payments_payment_intent').on('payments').column('payment_intent').execute();
  await db.schema.createIndex('payments_customer').on('payments').columns(['customer_id', 'id']).execute();

  await db.schema
    .createTable('payment_events')
    .addColumn('source', 'text', notNull)
    .addColumn('event_id', 'text', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('received_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('payment_events_pk', ['source', 'event_id'])
    .execute();

  await withId(db, db.schema.createTable('payment_debts'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('wallet', 'text', notNull)
    .addColumn('payment_id', 'bigint', (column) => column.notNull().references('payments.id'))
    .addColumn('amount_micros', 'bigint', notNull)
    .addColumn('repaid_micros', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('payment_debts_customer').on('payment_debts').columns(['customer_id', 'wallet']).execute();
}

/** `crypto_refund_addresses`, `discount_redemptions`, `session_discounts`, `purchase_preferences` and their indexes. */
async function createCryptoRefundAddressesToPurchasePreferences(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('crypto_refund_addresses')
    .addColumn('address_id', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('network', 'text', notNull)
    .addColumn('address', 'text', notNull)
    .addColumn('label', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema
    .createTable('discount_redemptions')
    .addColumn('code', 'text', notNull)
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('payment_public_id', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('discount_redemptions_pk', ['code', 'customer_id'])
    .execute();

  await db.schema
    .createTable('session_discounts')
    .addColumn('code', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('bonus_percent', 'integer', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('session_discounts_customer').on('session_discounts').columns(['customer_id', 'expires_at']).execute();

  await db.schema
    .createTable('purchase_preferences')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('preferences_json', 'text', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();

  await db.schema
    .createIndex('crypto_refund_addresses_customer')
    .on('crypto_refund_addresses')
    .columns(['customer_id', 'network', 'address'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'purchase_preferences',
    'session_discounts',
    'discount_redemptions',
    'crypto_refund_addresses',
    'payment_debts',
    'payment_events',
    'payments',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
