/**
 * One process per SQLite file. The ledger's guards (the spending-limit check, the guarded hold) order writers within
 * one process; a second process writing the same file would bypass that order. The service therefore holds an
 * exclusive lock beside the database for as long as it runs: a small SQLite file `<database>.lock` kept in an open
 * `BEGIN EXCLUSIVE` transaction. SQLite takes it with the operating system's file locks (POSIX advisory locks), so
 * the kernel drops it when the process ends, however it ends (kill -9 included), and a second process is refused at
 * start instead of waiting. Services of one process (tests run a successor beside its predecessor) share the
 * process's lock; it is let go when the last of them closes.
 */
import path from 'node:path';
import SQLite from 'better-sqlite3';

export class SqliteFileInUseError extends Error {}

export interface SqliteFileLock {
  readonly lockFile: string;
  release(): void;
}

export const lockFileOf = (file: string): string => `${file}.lock`;

/** This process's locks by lock file, with how many services hold each. */
const held = new Map<string, { lock: SQLite.Database; holders: number }>();

/** Takes the lock of `file`'s service, or throws `SqliteFileInUseError` naming the file when another process holds it. */
export function lockSqliteFile(file: string): SqliteFileLock {
  const lockFile = lockFileOf(file);
  const key = path.resolve(lockFile);
  const known = held.get(key);
  if (known) known.holders += 1;
  else held.set(key, { lock: openLock(file, lockFile), holders: 1 });
  let released = false;
  return {
    lockFile,
    release() {
      const entry = held.get(key);
      if (released || !entry) return;
      released = true;
      entry.holders -= 1;
      if (entry.holders > 0) return;
      held.delete(key);
      entry.lock.exec('ROLLBACK');
      entry.lock.close();
    },
  };
}

function openLock(file: string, lockFile: string): SQLite.Database {
  const lock = new SQLite(lockFile);
  try {
    lock.pragma('busy_timeout = 0');
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new SqliteFileInUseError(
        `The SQLite database ${file} is in use by another Switchyard process (it holds ${lockFile}). SQLite serves one process per database file: stop the other process, or give each process its own data directory, or share PostgreSQL (DATABASE_URL) between processes.`,
      );
    }
    throw error;
  }
  return lock;
}
