/* eslint-disable @typescript-eslint/no-explicit-any -- Kysely<any> is Kysely's type for a database whose tables are not described here (migrations run before any schema type holds). */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './kit.js';

/**
 * The money invariants as CHECK constraints, so a write that breaks one is refused by the database whatever code
 * made it: holds are never negative, a customer wallet's balance covers its holds (there is no overdraft or credit
 * line: every debit of a wallet is guarded, and a settlement collects only what is spare; system accounts go
 * negative by design, `top_ups` is where credit comes from), and statuses, outcomes and account kinds are the
 * known ones. Rows that already break a check stop the migration with their ids; nothing is changed for them.
 *
 * PostgreSQL adds the constraints with ALTER TABLE. SQLite cannot, so each table is rebuilt its documented way
 * (foreign keys off, one transaction: create the new table, copy, drop, rename, recreate indexes and triggers,
 * check the foreign keys, commit).
 */
const CHECKS: Record<'billing_accounts' | 'billing_calls', [name: string, condition: string][]> = {
  billing_accounts: [
    ['billing_accounts_kind_known', `kind in ('token_wallet', 'cash_wallet', 'system')`],
    ['billing_accounts_held_not_negative', 'held_micros >= 0'],
    ['billing_accounts_wallet_covers_holds', `kind = 'system' or balance_micros >= held_micros`],
  ],
  billing_calls: [
    ['billing_calls_hold_not_negative', 'hold_micros >= 0'],
    ['billing_calls_status_known', `status in ('open', 'settled', 'released')`],
    ['billing_calls_outcome_known', `outcome is null or outcome in ('completed', 'aborted', 'failed', 'expired')`],
    ['billing_calls_cost_not_negative', 'cost_micros is null or cost_micros >= 0'],
    ['billing_calls_uncollected_not_negative', 'uncollected_micros is null or uncollected_micros >= 0'],
  ],
};

/** Names every row that breaks a check (up to 20 ids per check), so an operator can correct them first. */
async function refuseViolations(db: Kysely<any>): Promise<void> {
  const problems: string[] = [];
  for (const [table, checks] of Object.entries(CHECKS)) {
    for (const [name, condition] of checks) {
      const { rows } = await sql<{
        id: number | string;
      }>`select id from ${sql.table(table)} where not (${sql.raw(condition)}) order by id limit 20`.execute(db);
      if (rows.length > 0) problems.push(`${table} ids ${rows.map((row) => String(row.id)).join(', ')} break ${name} (${condition})`);
    }
  }
  if (problems.length > 0)
    throw new Error(
      `existing rows break the money checks; correct them (with new ledger transfers) and migrate again: ${problems.join('; ')}`,
    );
}

async function rebuildSqliteTable(db: Kysely<any>, table: string, checks: [string, string][]): Promise<void> {
  const { rows: tables } = await sql<{ sql: string }>`select sql from sqlite_schema where type = 'table' and name = ${table}`.execute(db);
  const create = tables[0]?.sql;
  if (!create) throw new Error(`table ${table} not found`);
  // Already rebuilt (another process sharing the file migrated first): nothing to do.
  if (checks.every(([name]) => create.includes(`constraint ${name} `))) return;
  const { rows: dependents } = await sql<{
    sql: string;
  }>`select sql from sqlite_schema where tbl_name = ${table} and type in ('index', 'trigger') and sql is not null`.execute(db);
  const { rows: sequence } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table}`.execute(db);
  const rebuilt = `${table}_rebuilt`;
  const constraints = checks.map(([name, condition]) => `constraint ${name} check (${condition})`).join(', ');
  const head = create.replace(/^create table\s+("?)[A-Za-z_]+\1/i, `create table "${rebuilt}"`);
  if (head === create) throw new Error(`unexpected definition of ${table}: ${create}`);
  await sql.raw(`${head.slice(0, head.lastIndexOf(')'))}, ${constraints})`).execute(db);
  await sql.raw(`insert into "${rebuilt}" select * from "${table}"`).execute(db);
  await sql.raw(`drop table "${table}"`).execute(db);
  await sql.raw(`alter table "${rebuilt}" rename to "${table}"`).execute(db);
  for (const { sql: statement } of dependents) await sql.raw(statement).execute(db);
  // The new table's sequence starts at its highest copied id; an id once given out is never given out again.
  if (sequence[0]) await sql`update sqlite_sequence set seq = max(seq, ${sequence[0].seq}) where name = ${table}`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await refuseViolations(db);
    for (const [table, checks] of Object.entries(CHECKS)) {
      for (const [name, condition] of checks) await sql.raw(`alter table ${table} add constraint ${name} check (${condition})`).execute(db);
    }
    return;
  }
  // Kysely runs SQLite migrations outside a transaction, which is what lets foreign keys be switched off here.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      await refuseViolations(db);
      for (const [table, checks] of Object.entries(CHECKS)) await rebuildSqliteTable(db, table, checks);
      const { rows: broken } = await sql`pragma foreign_key_check`.execute(db);
      if (broken.length > 0) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken.slice(0, 5))}`);
      await sql`commit`.execute(db);
    } catch (error) {
      await sql`rollback`.execute(db);
      throw error;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) throw new Error('0020-money-checks cannot be undone on SQLite (the tables were rebuilt with the checks)');
  for (const [table, checks] of Object.entries(CHECKS)) {
    for (const [name] of checks) await sql.raw(`alter table ${table} drop constraint ${name}`).execute(db);
  }
}
