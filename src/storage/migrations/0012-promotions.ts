import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Promotions: one row per grant (its primary key makes a one-time or once-a-day promotion grant at most once,
 * even under concurrent claims), referral codes and referred customers, referral earnings per payment, visits
 * of share links, and raffles (the hash of the secret seed published at opening, the seed after the draw) with
 * their entries; conversion events forwarded to the ad network (deduplicated by event id).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createPromotionGrantsToShareVisits(db);
  await createCustomerAddressesToAdConversions(db);
}

/** `promotion_grants`, `referral_codes`, `referrals`, `referral_earnings`, `share_visits` and their indexes. */
async function createPromotionGrantsToShareVisits(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('promotion_grants')
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('promotion', 'text', notNull)
    .addColumn('grant_key', 'text', notNull)
    .addColumn('amount_micros', 'bigint', notNull)
    .addColumn('details_json', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('promotion_grants_pk', ['customer_id', 'promotion', 'grant_key'])
    .execute();

  await db.schema
    .createTable('referral_codes')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('code', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('referral_codes_code_unique').on('referral_codes').column('code').unique().execute();

  await db.schema
    .createTable('referrals')
    .addColumn('referred_customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('referrer_customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('referrals_referrer').on('referrals').column('referrer_customer_id').execute();

  await db.schema
    .createTable('referral_earnings')
    .addColumn('payment_id', 'bigint', (column) => column.primaryKey().references('payments.id'))
    .addColumn('referrer_customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('amount_micros', 'bigint', notNull)
    .addColumn('clawed_micros', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('referral_earnings_referrer').on('referral_earnings').column('referrer_customer_id').execute();

  await db.schema
    .createTable('share_visits')
    .addColumn('code', 'text', notNull)
    .addColumn('visitor_hash', 'text', notNull)
    .addColumn('address_hash', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('share_visits_pk', ['code', 'visitor_hash'])
    .execute();
}

/** `customer_addresses`, `raffles`, `raffle_entries`, `ad_conversions` and their indexes. */
async function createCustomerAddressesToAdConversions(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customer_addresses')
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('address_hash', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('customer_addresses_pk', ['customer_id', 'address_hash'])
    .execute();

  await withId(db, db.schema.createTable('raffles'))
    .addColumn('period', 'bigint', notNull)
    .addColumn('opens_at', 'bigint', notNull)
    .addColumn('draws_at', 'bigint', notNull)
    .addColumn('seed_hash', 'text', notNull)
    .addColumn('seed', 'text', notNull)
    .addColumn('prize_micros', 'bigint', notNull)
    .addColumn('winner_count', 'integer', notNull)
    .addColumn('winners_json', 'text')
    .addColumn('drawn_at', 'bigint')
    .execute();
  await db.schema.createIndex('raffles_period_unique').on('raffles').column('period').unique().execute();

  await db.schema
    .createTable('raffle_entries')
    .addColumn('raffle_id', 'bigint', (column) => column.notNull().references('raffles.id'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('source', 'text', notNull)
    .addColumn('entries', 'integer', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('raffle_entries_pk', ['raffle_id', 'source'])
    .execute();
  await db.schema
    .createTable('ad_conversions')
    .addColumn('event_id', 'text', (column) => column.primaryKey())
    .addColumn('event_type', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();

  await db.schema.createIndex('raffle_entries_customer').on('raffle_entries').columns(['raffle_id', 'customer_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'ad_conversions',
    'raffle_entries',
    'raffles',
    'customer_addresses',
    'share_visits',
    'referral_earnings',
    'referrals',
    'referral_codes',
    'promotion_grants',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
