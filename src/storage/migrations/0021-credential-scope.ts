import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * What a credential may become, and what free credit costs. Dashboard sessions record when a password or an
 * authenticator code was last checked (`authenticated_at`, null for a session opened from a link) and the policy
 * of the key they were derived from; SSO links carry the policy of the credential that minted them. Email changes
 * keep the old address and an undo token; sign-up verification links are stored hashed, used once; an account's
 * email counts as verified from `email_verified_at`. `address_events` counts sign-ups and promotion claims per
 * address prefix (hashed) for the operator's limits.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dashboard_sessions').addColumn('authenticated_at', 'bigint').execute();
  await db.schema.alterTable('dashboard_sessions').addColumn('policy_json', 'text').execute();
  await db.schema.alterTable('sso_links').addColumn('policy_json', 'text').execute();
  await db.schema.alterTable('customers').addColumn('email_verified_at', 'bigint').execute();

  await withId(db, db.schema.createTable('email_changes'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('old_email', 'text', notNull)
    .addColumn('new_email', 'text', notNull)
    .addColumn('token_hash', 'text', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('email_changes_token_unique').on('email_changes').column('token_hash').unique().execute();

  await withId(db, db.schema.createTable('email_verifications'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('email', 'text', notNull)
    .addColumn('token_hash', 'text', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('email_verifications_token_unique').on('email_verifications').column('token_hash').unique().execute();

  await withId(db, db.schema.createTable('address_events'))
    .addColumn('action', 'text', notNull)
    .addColumn('prefix_hash', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('address_events_lookup').on('address_events').columns(['action', 'prefix_hash', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['address_events', 'email_verifications', 'email_changes']) await db.schema.dropTable(table).execute();
  await db.schema.alterTable('customers').dropColumn('email_verified_at').execute();
  await db.schema.alterTable('sso_links').dropColumn('policy_json').execute();
  await db.schema.alterTable('dashboard_sessions').dropColumn('policy_json').execute();
  await db.schema.alterTable('dashboard_sessions').dropColumn('authenticated_at').execute();
}
