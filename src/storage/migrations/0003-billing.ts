import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * The wallet: accounts with a cached balance and held amount (balance always equals the sum of the account's
 * ledger entries), append-only ledger entries grouped by transfer, billed calls (hold → settlement, also the
 * usage record), the serving processes (whose holds a crash leaves behind), idempotency keys, rate-card switches, Unlimited subscriptions and claimed marketplace licences.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createBillingAccountsToLedgerEntries(db);
  await createBillingCallsToBillingNodes(db);
  await createIdempotencyKeysToMarketplaceLicences(db);
}

/** `billing_accounts`, `ledger_entries` and their indexes. */
async function createBillingAccountsToLedgerEntries(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('billing_accounts'))
    .addColumn('code', 'text', notNull)
    .addColumn('customer_id', 'bigint', (column) => column.references('customers.id'))
    .addColumn('kind', 'text', notNull)
    .addColumn('balance_micros', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('held_micros', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('billing_accounts_code_unique').on('billing_accounts').column('code').unique().execute();
  await db.schema.createIndex('billing_accounts_customer').on('billing_accounts').columns(['customer_id', 'kind']).execute();

  await withId(db, db.schema.createTable('ledger_entries'))
    .addColumn('transfer_id', 'text', notNull)
    .addColumn('account_id', 'bigint', (column) => column.notNull().references('billing_accounts.id'))
    .addColumn('amount_micros', 'bigint', notNull)
    .addColumn('kind', 'text', notNull)
    .addColumn('reference', 'text')
    .addColumn('memo', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('ledger_entries_account').on('ledger_entries').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('ledger_entries_transfer').on('ledger_entries').column('transfer_id').execute();
}

/** `billing_calls`, `billing_nodes` and their indexes. */
async function createBillingCallsToBillingNodes(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('billing_calls'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('account_id', 'bigint', (column) => column.notNull().references('billing_accounts.id'))
    .addColumn('key_id', 'bigint')
    .addColumn('request_id', 'text', notNull)
    .addColumn('node_id', 'text', notNull)
    .addColumn('model', 'text', notNull)
    .addColumn('requested_model', 'text', notNull)
    .addColumn('operation', 'text', notNull)
    .addColumn('surface', 'text', notNull)
    .addColumn('rate_card', 'text', notNull)
    .addColumn('input_micros_per_million', 'bigint', notNull)
    .addColumn('output_micros_per_million', 'bigint', notNull)
    .addColumn('cached_input_micros_per_million', 'bigint', notNull)
    .addColumn('estimated_input_tokens', 'bigint', notNull)
    .addColumn('max_output_tokens', 'bigint', notNull)
    .addColumn('hold_micros', 'bigint', notNull)
    .addColumn('covered_plan', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('input_tokens', 'bigint')
    .addColumn('output_tokens', 'bigint')
    .addColumn('cached_input_tokens', 'bigint')
    .addColumn('usage_source', 'text')
    .addColumn('cost_micros', 'bigint')
    .addColumn('uncollected_micros', 'bigint')
    .addColumn('outcome', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('settled_at', 'bigint')
    .execute();
  await db.schema.createIndex('billing_calls_open').on('billing_calls').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('billing_calls_customer').on('billing_calls').columns(['customer_id', 'created_at']).execute();
  await db.schema.createIndex('billing_calls_key').on('billing_calls').columns(['key_id', 'created_at']).execute();

  await db.schema
    .createTable('billing_nodes')
    .addColumn('node_id', 'text', (column) => column.primaryKey())
    .addColumn('hostname', 'text', notNull)
    .addColumn('pid', 'integer', notNull)
    .addColumn('started_at', 'bigint', notNull)
    .addColumn('heartbeat_at', 'bigint', notNull)
    .execute();
}

/** `idempotency_keys`, `rate_card_assignments`, `unlimited_subscriptions`, `marketplace_licences` and their indexes. */
async function createIdempotencyKeysToMarketplaceLicences(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', notNull)
    .addColumn('idempotency_key', 'text', notNull)
    .addColumn('request_hash', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('response_status', 'integer')
    .addColumn('response_json', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('locked_until', 'bigint', notNull)
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('rate_card_assignments')
    .addColumn('target', 'text', (column) => column.primaryKey())
    .addColumn('card', 'text', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute();

  await withId(db, db.schema.createTable('unlimited_subscriptions'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('plan_id', 'text', notNull)
    .addColumn('starts_at', 'bigint', notNull)
    .addColumn('ends_at', 'bigint', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema
    .createIndex('unlimited_subscriptions_customer')
    .on('unlimited_subscriptions')
    .columns(['customer_id', 'ends_at'])
    .execute();

  await db.schema
    .createTable('marketplace_licences')
    .addColumn('licence_hash', 'text', (column) => column.primaryKey())
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('email', 'text', notNull)
    .addColumn('claimed_at', 'bigint', notNull)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'marketplace_licences',
    'unlimited_subscriptions',
    'rate_card_assignments',
    'idempotency_keys',
    'billing_nodes',
    'billing_calls',
    'ledger_entries',
    'billing_accounts',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
