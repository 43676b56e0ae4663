/* eslint-disable @typescript-eslint/no-explicit-any -- Kysely<any> is Kysely's type for a database whose tables are not described here (migrations run before any schema type holds). */
import { Migrator, sql, type Kysely, type MigrationProvider } from 'kysely';
import { isPostgres } from './migrations/kit.js';
import { migrations } from './migrations/index.js';

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * On PostgreSQL the migration bookkeeping tables live in the connection's current schema. Kysely looks them up
 * across every schema unless told which one, so several databases (schemas) on one server would see each
 * other's bookkeeping.
 */
async function migrationTableSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!isPostgres(db)) return undefined;
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return result.rows[0]?.schema;
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider, migrationTableSchema: await migrationTableSchema(db) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`, { cause: error });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Names of the known migrations not yet applied to this database (readiness). */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider, migrationTableSchema: await migrationTableSchema(db) });
  return (await migrator.getMigrations()).filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}
