import { sql, type Kysely } from 'kysely';
import { isPostgres, notNull } from './kit.js';

/**
 * A counter that moves whenever something an authenticated principal is built from changes: a key's revocation,
 * expiry, policy, role or owner, or its customer's status or VIP flag. Triggers move it, so every writer counts
 * (this service, the CLI, an operator's SQL). Nodes compare it to the value they last saw to drop cached keys.
 */
const KEY_COLUMNS = 'revoked_at, expires_at, policy_json, role, kind, customer_id, key_hash';
const CUSTOMER_COLUMNS = 'status, vip';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_epoch')
    .addColumn('id', 'integer', (column) => column.primaryKey())
    .addColumn('epoch', 'bigint', notNull)
    .execute();
  await sql`insert into auth_epoch (id, epoch) values (1, 0)`.execute(db);
  if (isPostgres(db)) {
    await sql`create function bump_auth_epoch() returns trigger language plpgsql as $$
      begin update auth_epoch set epoch = epoch + 1 where id = 1; return null; end $$`.execute(db);
    await sql
      .raw(
        `create trigger api_keys_auth_epoch after update of ${KEY_COLUMNS} or delete on api_keys for each statement execute function bump_auth_epoch()`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger customers_auth_epoch after update of ${CUSTOMER_COLUMNS} or delete on customers for each statement execute function bump_auth_epoch()`,
      )
      .execute(db);
    return;
  }
  const bump = 'begin update auth_epoch set epoch = epoch + 1 where id = 1; end';
  await sql.raw(`create trigger api_keys_auth_epoch_update after update of ${KEY_COLUMNS} on api_keys ${bump}`).execute(db);
  await sql.raw(`create trigger api_keys_auth_epoch_delete after delete on api_keys ${bump}`).execute(db);
  await sql.raw(`create trigger customers_auth_epoch_update after update of ${CUSTOMER_COLUMNS} on customers ${bump}`).execute(db);
  await sql.raw(`create trigger customers_auth_epoch_delete after delete on customers ${bump}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger api_keys_auth_epoch on api_keys`.execute(db);
    await sql`drop trigger customers_auth_epoch on customers`.execute(db);
    await sql`drop function bump_auth_epoch()`.execute(db);
  } else {
    for (const name of [
      'api_keys_auth_epoch_update',
      'api_keys_auth_epoch_delete',
      'customers_auth_epoch_update',
      'customers_auth_epoch_delete',
    ]) {
      await sql.raw(`drop trigger ${name}`).execute(db);
    }
  }
  await db.schema.dropTable('auth_epoch').execute();
}
