import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Accounts: dashboard sessions and their 2FA challenges, TOTP credentials, password resets, single-use SSO
 * links, OpenID Connect sign-in records, human checks, per-customer settings, key alerts, the inbox and
 * sign-up attribution. Every secret is stored as a keyed hash (or, for TOTP, encrypted); never in plain text.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createDashboardSessionsToPasswordResets(db);
  await createSsoLinksToAccountSettings(db);
  await createAccountAlertsToInboxReads(db);
  await createSignupAttributions(db);
}

/** `dashboard_sessions`, `login_challenges`, `totp_credentials`, `password_resets` and their indexes. */
async function createDashboardSessionsToPasswordResets(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('dashboard_sessions'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('session_hash', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('last_seen_at', 'bigint', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('ended_at', 'bigint')
    .execute();
  await db.schema.createIndex('dashboard_sessions_hash_unique').on('dashboard_sessions').column('session_hash').unique().execute();
  await db.schema.createIndex('dashboard_sessions_customer').on('dashboard_sessions').column('customer_id').execute();

  await withId(db, db.schema.createTable('login_challenges'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('challenge_hash', 'text', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('login_challenges_hash_unique').on('login_challenges').column('challenge_hash').unique().execute();

  await db.schema
    .createTable('totp_credentials')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('secret_enc', 'text', notNull)
    .addColumn('enabled_at', 'bigint')
    .addColumn('last_step', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();

  await withId(db, db.schema.createTable('password_resets'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('token_hash', 'text', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('password_resets_hash_unique').on('password_resets').column('token_hash').unique().execute();
}

/** `sso_links`, `oidc_states`, `human_checks`, `account_settings` and their indexes. */
async function createSsoLinksToAccountSettings(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('sso_links'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('link_hash', 'text', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('sso_links_hash_unique').on('sso_links').column('link_hash').unique().execute();

  await withId(db, db.schema.createTable('oidc_states'))
    .addColumn('state_hash', 'text', notNull)
    .addColumn('nonce', 'text', notNull)
    .addColumn('code_verifier_enc', 'text', notNull)
    .addColumn('return_to', 'text', notNull)
    .addColumn('attribution_json', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('oidc_states_hash_unique').on('oidc_states').column('state_hash').unique().execute();

  await withId(db, db.schema.createTable('human_checks'))
    .addColumn('public_id', 'text', notNull)
    .addColumn('answer_hash', 'text', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('human_checks_public_id_unique').on('human_checks').column('public_id').unique().execute();

  await db.schema
    .createTable('account_settings')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('edge_region', 'text')
    .addColumn('first_name', 'text')
    .addColumn('surname', 'text')
    .addColumn('name_dismissed_at', 'bigint')
    .addColumn('toolbox_json', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('engagement_json', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('updated_at', 'bigint', notNull)
    .execute();
}

/** `account_alerts`, `key_networks`, `inbox_messages`, `inbox_reads` and their indexes. */
async function createAccountAlertsToInboxReads(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('account_alerts'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('key_id', 'bigint')
    .addColumn('cause', 'text', notNull)
    .addColumn('cause_key', 'text', notNull)
    .addColumn('details_json', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('acknowledged_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('account_alerts_cause_unique')
    .on('account_alerts')
    .columns(['customer_id', 'cause', 'cause_key'])
    .unique()
    .execute();

  await db.schema
    .createTable('key_networks')
    .addColumn('key_id', 'bigint', notNull)
    .addColumn('network_hash', 'text', notNull)
    .addColumn('first_seen_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('key_networks_pk', ['key_id', 'network_hash'])
    .execute();

  await withId(db, db.schema.createTable('inbox_messages'))
    .addColumn('customer_id', 'bigint', (column) => column.references('customers.id'))
    .addColumn('title', 'text', notNull)
    .addColumn('body', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('inbox_messages_customer').on('inbox_messages').columns(['customer_id', 'id']).execute();

  await db.schema
    .createTable('inbox_reads')
    .addColumn('message_id', 'bigint', (column) => column.notNull().references('inbox_messages.id'))
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('read_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('inbox_reads_pk', ['message_id', 'customer_id'])
    .execute();
}

/** `signup_attributions` and their indexes. */
async function createSignupAttributions(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('signup_attributions')
    .addColumn('customer_id', 'bigint', (column) => column.primaryKey().references('customers.id'))
    .addColumn('referral_code', 'text')
    .addColumn('plan_id', 'text')
    .addColumn('amount_usd_micros', 'bigint')
    .addColumn('source', 'text')
    .addColumn('country_code', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'signup_attributions',
    'inbox_reads',
    'inbox_messages',
    'key_networks',
    'account_alerts',
    'account_settings',
    'human_checks',
    'oidc_states',
    'sso_links',
    'password_resets',
    'totp_credentials',
    'login_challenges',
    'dashboard_sessions',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
