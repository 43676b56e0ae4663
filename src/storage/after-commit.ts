/**
 * Work that must wait until a transaction's changes are visible to every reader, such as dropping a cached copy
 * of a changed row: done earlier, a concurrent reader could cache the old row again before the commit.
 * `inTransaction` runs a Kysely transaction and, once it committed, the callbacks registered on it;
 * `afterCommit` registers one, or runs it at once for the plain database handle (whose statements commit on
 * their own, so the caller registers after its statement finished).
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

const pending = new WeakMap<Transaction<Database>, Array<() => void>>();

export async function inTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const callbacks: Array<() => void> = [];
  const result = await db.transaction().execute((trx) => {
    pending.set(trx, callbacks);
    return work(trx);
  });
  for (const callback of callbacks) callback();
  return result;
}

export function afterCommit(executor: Executor, callback: () => void): void {
  if (!executor.isTransaction) {
    callback();
    return;
  }
  const callbacks = pending.get(executor as Transaction<Database>);
  // A transaction opened without inTransaction would run the callback never; fail loudly instead.
  if (!callbacks) throw new Error('afterCommit needs a transaction opened with inTransaction');
  callbacks.push(callback);
}
