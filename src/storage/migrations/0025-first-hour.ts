import type { Kysely } from 'kysely';
import { notNull, withId } from './kit.js';

/**
 * An operator's first hour: invites (one email may register with the link; stored as a keyed hash, used once),
 * held mail (every mail written without SMTP, held for the operator to read in the console; the delivery queue of
 * mail the service sends on its own is `mail_outbox`, 0028), and the agent runtime
 * key kept sealed so a customer has one runtime key across app-server restarts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('invites'))
    .addColumn('email', 'text', notNull)
    .addColumn('token_hash', 'text', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('customer_id', 'bigint', (column) => column.references('customers.id'))
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('invites_token_unique').on('invites').column('token_hash').unique().execute();
  await db.schema.createIndex('invites_email').on('invites').column('email').execute();

  await withId(db, db.schema.createTable('held_mail'))
    .addColumn('recipient', 'text', notNull)
    .addColumn('subject', 'text', notNull)
    .addColumn('body', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('held_mail_recipient').on('held_mail').column('recipient').execute();

  await db.schema.alterTable('agent_runtime_keys').addColumn('key_sealed', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agent_runtime_keys').dropColumn('key_sealed').execute();
  await db.schema.dropTable('held_mail').execute();
  await db.schema.dropTable('invites').execute();
}
