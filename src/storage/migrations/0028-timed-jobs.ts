import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * Timed work and mail delivery. `scheduled_jobs`: one row per due job — recurring ones keep their row and move
 * `run_at` on, one-shot ones (a raffle's draw) are marked done; a node claims a due row by a conditional update
 * of its lease (`lease_until`), so one node runs it, and a row whose holder died is taken over once the lease
 * lapsed. `mail_outbox`: mail the service sends on its own (alerts, receipts, digests, product updates) with its
 * attempts; a failed send is retried from here (`dedupe_key`: a mail that must go out once, such as a digest).
 * `sign_in_networks`: the networks (keyed hashes) a customer signed in to the dashboard from; a new one is an alert.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('scheduled_jobs'))
    .addColumn('kind', 'text', notNull)
    .addColumn('job_key', 'text', notNull)
    .addColumn('payload_json', 'text', notNull)
    .addColumn('run_at', 'bigint', notNull)
    .addColumn('recurring', 'integer', notNull)
    .addColumn('attempts', 'integer', notNull)
    .addColumn('lease_holder', 'text')
    .addColumn('lease_until', 'bigint', notNull)
    .addColumn('last_error', 'text')
    .addColumn('last_run_at', 'bigint')
    .addColumn('runs', 'bigint', notNull)
    .addColumn('done_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('scheduled_jobs_key').on('scheduled_jobs').columns(['kind', 'job_key']).unique().execute();
  await db.schema.createIndex('scheduled_jobs_due').on('scheduled_jobs').columns(['done_at', 'run_at']).execute();

  await withId(db, db.schema.createTable('mail_outbox'))
    .addColumn('customer_id', 'bigint', (column) => column.references('customers.id'))
    .addColumn('kind', 'text', notNull)
    .addColumn('dedupe_key', 'text')
    .addColumn('to_address', 'text', notNull)
    .addColumn('subject', 'text', notNull)
    .addColumn('body_text', 'text', notNull)
    .addColumn('unsubscribe_url', 'text')
    .addColumn('preference', 'text')
    .addColumn('attempts', 'integer', notNull)
    .addColumn('next_attempt_at', 'bigint', notNull)
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'bigint')
    .addColumn('given_up_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('mail_outbox_dedupe').on('mail_outbox').column('dedupe_key').unique().execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['sent_at', 'next_attempt_at']).execute();

  await db.schema
    .createTable('sign_in_networks')
    .addColumn('customer_id', 'bigint', (column) => column.notNull().references('customers.id'))
    .addColumn('network_hash', 'text', notNull)
    .addColumn('first_seen_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('sign_in_networks_pk', ['customer_id', 'network_hash'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['sign_in_networks', 'mail_outbox', 'scheduled_jobs']) await db.schema.dropTable(table).execute();
}
