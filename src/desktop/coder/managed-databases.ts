/**
 * Managed databases of coder projects. On PostgreSQL each project gets a database of its own owned by a LOGIN role
 * of its own with a random password; CONNECT is revoked from PUBLIC, so no other project's role can open it. On
 * SQLite it is a database file in the project's workspace. Names are derived here (prefix, customer id, random
 * suffix), never taken from what the customer typed, and every identifier is checked before it is quoted.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { randomBase62 } from '../../kernel/ids.js';
import { unlinkIn, writeFileIn } from '../../kernel/tenant-fs.js';

export type DatabaseEngineName = 'postgres' | 'sqlite';

/** What a database was created as (the password in clear, only in memory). */
export interface ProvisionedDatabase {
  engine: DatabaseEngineName;
  name: string | null;
  user: string | null;
  password: string | null;
  host: string | null;
  port: number | null;
  path: string | null;
}

export interface ManagedDatabaseEngine {
  readonly engine: DatabaseEngineName;
  create(input: { customerId: number; workspaceDir: string }): Promise<ProvisionedDatabase>;
  /** Removes the database (and its role); a database already gone is not an error. */
  drop(database: { name: string | null; user: string | null; path: string | null }): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function quoteIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`refusing to quote unexpected identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/**
 * The SCRAM-SHA-256 verifier of a password (RFC 5802/7677, PostgreSQL's stored form). Sending the verifier
 * instead of the password keeps the clear password out of the server's statement log.
 */
export function scramVerifier(password: string, iterations = 4096): string {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** A string literal of characters that need no escaping (checked, not escaped). */
function literal(value: string): string {
  if (!/^[A-Za-z0-9$:+/=_-]+$/.test(value)) throw new Error('refusing to embed an unexpected literal');
  return `'${value}'`;
}

/** PostgreSQL refuses CREATE DATABASE (55006) while another session uses the template; that passes quickly. */
async function createDatabase(client: pg.Client, statement: string, attempts = 8): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.query(statement);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

export class PostgresDatabases implements ManagedDatabaseEngine {
  readonly engine = 'postgres' as const;
  private readonly host: string;
  private readonly port: number;

  constructor(
    private readonly adminUrl: string,
    private readonly namePrefix: string,
  ) {
    const url = new URL(adminUrl);
    this.host = url.hostname === '' ? 'localhost' : url.hostname.replace(/^\[|\]$/g, '');
    this.port = url.port === '' ? 5432 : Number(url.port);
  }

  private async withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async create(input: { customerId: number; workspaceDir: string }): Promise<ProvisionedDatabase> {
    const name = `${this.namePrefix}_${input.customerId}_${randomBase62(12).toLowerCase()}`;
    const password = randomBytes(24).toString('base64url');
    const id = quoteIdentifier(name);
    await this.withAdmin(async (client) => {
      try {
        // INHERIT: the owner writes to the new database's `public` schema through its implicit pg_database_owner role.
        await client.query(
          `create role ${id} login nosuperuser nocreatedb nocreaterole inherit noreplication connection limit 32 password ${literal(scramVerifier(password))}`,
        );
        // CREATE DATABASE cannot run in a transaction block: each statement stands alone, undone below on failure.
        await createDatabase(client, `create database ${id} owner ${id}`);
        await client.query(`revoke all on database ${id} from public`);
        await client.query(`grant connect, temporary on database ${id} to ${id}`);
      } catch (error) {
        await this.dropWith(client, name, name).catch(() => undefined);
        throw error;
      }
    });
    return { engine: 'postgres', name, user: name, password, host: this.host, port: this.port, path: null };
  }

  async drop(database: { name: string | null; user: string | null }): Promise<void> {
    await this.withAdmin((client) => this.dropWith(client, database.name, database.user));
  }

  private async dropWith(client: pg.Client, name: string | null, user: string | null): Promise<void> {
    if (name !== null) {
      const id = quoteIdentifier(name);
      // No new sessions, then end the open ones, then drop (FORCE ends any that raced in between).
      const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (exists.rowCount) {
        await client.query(`alter database ${id} allow_connections false`);
        await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      }
      await client.query(`drop database if exists ${id} with (force)`);
    }
    if (user !== null) await client.query(`drop role if exists ${quoteIdentifier(user)}`);
  }
}

/**
 * The SQLite engine: `database.sqlite` in the project's workspace, so the project's agent can use it too. The
 * workspace is the agent's, so SQLite never opens a path there: the database is made in a private folder of the
 * service and its bytes written into the workspace through the no-follow file operations (a new file only).
 */
export class SqliteDatabases implements ManagedDatabaseEngine {
  readonly engine = 'sqlite' as const;
  static readonly FILE_NAME = 'database.sqlite';

  async create(input: { customerId: number; workspaceDir: string }): Promise<ProvisionedDatabase> {
    const file = path.join(input.workspaceDir, SqliteDatabases.FILE_NAME);
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'switchyard-sqlite-'));
    try {
      const database = new SQLite(path.join(scratch, SqliteDatabases.FILE_NAME));
      try {
        database.pragma('journal_mode = WAL');
      } finally {
        database.close();
      }
      await writeFileIn(file, await fs.readFile(path.join(scratch, SqliteDatabases.FILE_NAME)), { mode: 0o644, exclusive: true });
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
    return { engine: 'sqlite', name: null, user: null, password: null, host: null, port: null, path: file };
  }

  async drop(database: { path: string | null }): Promise<void> {
    if (database.path === null) return;
    // Whatever the agent put under these names instead of a file goes with the workspace itself.
    for (const suffix of ['', '-wal', '-shm', '-journal']) await unlinkIn(`${database.path}${suffix}`).catch(() => undefined);
  }
}
