import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Paths that now reach their end. `crypto_payouts`: coin sent back to a customer's saved refund address — the
 * excess of an over-paid order (once per order) or an operator's refund (once per order) — with the processor's
 * payout id, or waiting for an address on that network. `signup_attributions` keeps the device and mobile fields
 * of an identity-provider sign-up for the operator. `chatbot_link_codes`: one-time codes from the dashboard that
 * link a chat to the account (stored hashed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('crypto_payouts'))
    .addColumn('payment_id', 'bigint', (column) => column.notNull().references('payments.id'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('kind', 'text', notNull)
    .addColumn('network', 'text', notNull)
    .addColumn('currency', 'text', notNull)
    .addColumn('amount', 'text', notNull)
    .addColumn('address', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('processor_payout_id', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('crypto_payouts_once').on('crypto_payouts').columns(['payment_id', 'kind']).unique().execute();
  await db.schema.createIndex('crypto_payouts_waiting').on('crypto_payouts').columns(['customer_id', 'status']).execute();

  await db.schema.alterTable('signup_attributions').addColumn('device_fingerprint', 'text').execute();
  await db.schema.alterTable('signup_attributions').addColumn('country_name', 'text').execute();
  await db.schema.alterTable('signup_attributions').addColumn('mobile_number', 'text').execute();

  await db.schema
    .createTable('chatbot_link_codes')
    .addColumn('code_hash', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
}
