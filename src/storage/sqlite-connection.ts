/**
 * The settings of every connection to the service's SQLite file, in one place: the Kysely connection of
 * database.ts and the ledger thread's own connection (sqlite-ledger-statements.ts) both call this.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * FULL: a commit returns once the WAL is synced (the main connection). NORMAL: a commit is durable against a crash
 * of the process, not of the machine, until the next sync (the ledger thread, which syncs the WAL itself before a
 * settlement answers).
 */
export type SqliteSynchronous = 'FULL' | 'NORMAL';

export function applyConnectionPragmas(database: SQLite.Database, synchronous: SqliteSynchronous): void {
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${synchronous}`);
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
}

/** Opens (creating its directory when `createDirectory`) and configures a connection to `file`. */
export function openSqliteConnection(
  file: string,
  options: { synchronous: SqliteSynchronous; createDirectory?: boolean },
): SQLite.Database {
  if (options.createDirectory) fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new SQLite(file);
  applyConnectionPragmas(database, options.synchronous);
  return database;
}

/** The write-ahead log beside the database file (synced by the ledger thread). */
export const walFileOf = (file: string): string => `${file}-wal`;
