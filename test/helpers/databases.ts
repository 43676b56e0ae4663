/**
 * The test dialect matrix: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. Every PostgreSQL test
 * database is its own schema (dropped on close), so test files can run in parallel.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createStorage, type DialectName, type Storage } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { randomBase62 } from '../../src/kernel/ids.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** Dialects every repository test runs on. */
export const dialects: DialectName[] = TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** The dialect service-level tests use: PostgreSQL when TEST_DATABASE_URL is set. */
export const serviceDialect: DialectName = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface TestStorage extends Storage {
  /** Drop the test schema / delete the SQLite files. */
  destroy(): Promise<void>;
  /** How another process reaches the same database. */
  location: { databaseUrl?: string; postgresSchema?: string; sqlitePath?: string };
}

export function tempDir(prefix = 'switchyard-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Kysely's migrator inspects the tables of every schema on the server; a schema dropped by a parallel test file
 * in the middle of that query makes it fail. Migrations and schema drops therefore take one advisory lock.
 */
const SCHEMA_LOCK_KEY = 53_790_417;

export async function withSchemaLock<T>(fn: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [SCHEMA_LOCK_KEY]);
    return await fn();
  } finally {
    await client.query('select pg_advisory_unlock($1)', [SCHEMA_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

export async function openTestStorage(dialect: DialectName = serviceDialect, options: { migrate?: boolean } = {}): Promise<TestStorage> {
  let storage: Storage;
  let location: TestStorage['location'];
  let cleanup: () => Promise<void>;
  if (dialect === 'postgres') {
    if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
    const schema = `t_${randomBase62(12).toLowerCase()}`;
    storage = await createStorage({ databaseUrl: TEST_DATABASE_URL, postgresSchema: schema });
    location = { databaseUrl: TEST_DATABASE_URL, postgresSchema: schema };
    cleanup = async () => {
      await withSchemaLock(async () => {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        try {
          await client.query(`drop schema if exists ${schema} cascade`);
        } finally {
          await client.end();
        }
      });
    };
  } else {
    const dir = tempDir();
    const sqlitePath = path.join(dir, 'test.sqlite');
    storage = await createStorage({ sqlitePath });
    location = { sqlitePath };
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  if (options.migrate !== false) {
    const run = () => migrateToLatest(storage.db);
    await (dialect === 'postgres' ? withSchemaLock(run) : run());
  }
  let destroyed = false;
  return Object.assign(Object.create(storage) as Storage, storage, {
    location,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await storage.close().catch(() => undefined);
      await cleanup();
    },
  });
}

/** One statement on the PostgreSQL server (create or drop a whole database). */
async function adminQuery(text: string, adminUrl = TEST_DATABASE_URL): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A new PostgreSQL database (migrated), dropped by `destroy`. */
export async function freshDatabase(prefix: string, adminUrl = TEST_DATABASE_URL): Promise<TestStorage> {
  const name = `${prefix}_${randomBase62(10).toLowerCase()}`;
  await adminQuery(`create database ${name}`, adminUrl);
  const url = new URL(adminUrl!);
  url.pathname = `/${name}`;
  const storage = await createStorage({ databaseUrl: url.toString() });
  await migrateToLatest(storage.db);
  return Object.assign(Object.create(storage), storage, {
    location: { databaseUrl: url.toString() },
    async destroy() {
      await storage.close().catch(() => undefined);
      await adminQuery(`drop database if exists ${name} with (force)`, adminUrl);
    },
  }) as TestStorage;
}
