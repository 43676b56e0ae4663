/**
 * The dialect factory: the only module that knows whether we run on SQLite or PostgreSQL. Differences the rest
 * of the code must know about are exposed as capability flags on `Storage`, never as dialect checks elsewhere.
 */
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  sql,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDatabase,
  type SqliteStatement,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { CurrentSchemaPostgresDialect } from './postgres-introspector.js';
import { openSqliteConnection } from './sqlite-connection.js';
import type { Database } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Storage {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  readonly capabilities: {
    /** Several processes may write concurrently (row locks); false means one writer at a time (SQLite). */
    concurrentWriters: boolean;
  };
  /** The SQLite file path (for integrity checks and backups); undefined on PostgreSQL. */
  readonly sqlitePath?: string;
  /**
   * Inside a write transaction: waits for the lock named (scope, key) and keeps it until the transaction ends, so
   * such transactions of every process sharing the database run one after another. SQLite serializes all writers
   * at BEGIN IMMEDIATE already, so there it has nothing to do.
   */
  lockInTransaction(trx: Transaction<Database>, scope: number, key: number): Promise<void>;
  /**
   * Runs `work` in a transaction whose commit does not wait for the disk: durable against a crash of the process,
   * not of the machine (SQLite: synchronous=NORMAL on the held connection — WAL, synced with the next full commit
   * or checkpoint; PostgreSQL: `synchronous_commit = off`). For records that narrate rather than decide (event
   * log, activity timestamps): on SQLite a full commit is an fsync on the event loop.
   */
  relaxedTransaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** PostgreSQL only: the connection pool's figures (metrics). */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export interface StorageOptions {
  /** PostgreSQL URL; when absent a SQLite file is used. */
  databaseUrl?: string;
  /** SQLite file (ignored for PostgreSQL). */
  sqlitePath?: string;
  /** PostgreSQL schema to use (created if missing); tests use one schema per test database. */
  postgresSchema?: string;
  poolSize?: number;
}

/** Writes on SQLite take the write lock at BEGIN, so a transaction never fails half-way on lock upgrade. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly options: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(options);
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.options);
  }
}

export function openSqlite(file: string): SQLite.Database {
  return openSqliteConnection(file, { synchronous: 'FULL', createDirectory: true });
}

/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely prepares each query anew. Statements are
 * reusable (execution is synchronous under Kysely's single-connection mutex), so they are cached by SQL text.
 */
export function withStatementCache(database: SQLite.Database, capacity = 512): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(text: string) {
      let statement = cache.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
        cache.set(text, statement);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}

const int8Parser = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`bigint ${value} exceeds the safe integer range`);
  return parsed;
};

export async function createStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    const schema = options.postgresSchema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('invalid schema name');
    if (schema) {
      const client = new pg.Client({ connectionString: options.databaseUrl });
      await client.connect();
      try {
        await client.query(`create schema if not exists ${schema}`);
      } finally {
        await client.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      options: schema ? `-c search_path=${schema}` : undefined,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === 20 ? int8Parser : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection the server drops (restart, failover, terminated backend) is discarded by the pool and the
    // next query opens a new one; without a listener its error would be unhandled and stop the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      capabilities: { concurrentWriters: true },
      // Advisory keys are two int4s; a key folded onto another only makes two unrelated holders wait for each other.
      lockInTransaction: async (trx, scope, key) => {
        await sql`select pg_advisory_xact_lock(${scope}::integer, ${key % 2_147_483_647}::integer)`.execute(trx);
      },
      relaxedTransaction: (work) =>
        db.transaction().execute(async (trx) => {
          await sql`SET LOCAL synchronous_commit = off`.execute(trx);
          return work(trx);
        }),
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: () => db.destroy(),
    };
  }
  const file = options.sqlitePath;
  if (!file) throw new Error('sqlitePath is required without a databaseUrl');
  const database = openSqlite(file);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }) });
  return {
    db,
    dialect: 'sqlite',
    capabilities: { concurrentWriters: false },
    lockInTransaction: async () => undefined,
    // The connection is held for the whole exchange, so no other statement commits with the relaxed setting.
    relaxedTransaction: (work) =>
      db.connection().execute(async (connection) => {
        await sql`PRAGMA synchronous = NORMAL`.execute(connection);
        try {
          return await connection.transaction().execute(work);
        } finally {
          await sql`PRAGMA synchronous = FULL`.execute(connection);
        }
      }),
    sqlitePath: file,
    close: () => db.destroy(),
  };
}
