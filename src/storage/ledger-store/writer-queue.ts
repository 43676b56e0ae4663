/**
 * Ledger writes on the main connection: hold and settlement on PostgreSQL, releases and sweeps everywhere
 * (SQLite holds and settlements go to the worker thread of sqlite-ledger-worker.ts). The group-commit variant
 * runs the writes of many concurrent requests in one transaction, one fsync per batch instead of one per
 * request; each operation awaits its batch's commit. Guards (balance − holds ≥ hold) run inside the batch transaction in arrival order, so
 * batching never lets two requests spend the same credit. When a batch fails, its operations are retried one
 * transaction each, so one bad operation cannot fail its neighbours.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';
import { DeferredPostings } from './transfer.js';

/** An operation of a batch; ledger rows without guards (entries, system balances) go to `postings`. */
export type WriteOperation<T> = (trx: Transaction<Database>, postings: DeferredPostings) => Promise<T>;

/** One transaction: the operations, then their deferred postings, then commit. */
async function inTransaction<T>(
  db: Kysely<Database>,
  body: (trx: Transaction<Database>, postings: DeferredPostings) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const postings = new DeferredPostings();
    const result = await body(trx, postings);
    await postings.flush(trx);
    return result;
  });
}

interface Pending {
  operation: WriteOperation<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface WriterQueue {
  run<T>(operation: WriteOperation<T>): Promise<T>;
  /** Waits until every queued operation has committed. */
  drain(): Promise<void>;
  /** Operations queued or committing (metrics). */
  depth(): number;
  /** Whether operations are applied in the order `run` was called (one queue), or may overtake each other. */
  readonly inOrder: boolean;
}

/** One transaction per operation (PostgreSQL: row locks let separate transactions proceed in parallel). */
export function directWriter(db: Kysely<Database>): WriterQueue {
  const inFlight = new Set<Promise<unknown>>();
  return {
    run(operation) {
      const promise = inTransaction(db, operation);
      inFlight.add(promise);
      void promise.catch(() => undefined).finally(() => inFlight.delete(promise));
      return promise;
    },
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
    depth: () => inFlight.size,
    inOrder: false,
  };
}

export function groupCommitWriter(db: Kysely<Database>, maxBatch: number): WriterQueue {
  let queue: Pending[] = [];
  let running: Promise<void> | null = null;

  async function runBatch(batch: Pending[]): Promise<void> {
    const results: unknown[] = [];
    try {
      await inTransaction(db, async (trx, postings) => {
        for (const item of batch) results.push(await item.operation(trx, postings));
      });
    } catch {
      for (const item of batch) {
        try {
          item.resolve(await inTransaction(db, item.operation));
        } catch (error) {
          item.reject(error);
        }
      }
      return;
    }
    batch.forEach((item, index) => item.resolve(results[index]));
  }

  async function loop(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      await runBatch(batch);
    }
    running = null;
  }

  return {
    run<T>(operation: WriteOperation<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ operation, resolve: resolve as (value: unknown) => void, reject });
        // Start on the next tick so requests arriving in the same tick share the first batch.
        running ??= new Promise<void>((done) => setImmediate(() => void loop().then(done)));
      });
    },
    async drain() {
      while (running) await running;
    },
    depth: () => queue.length,
    inOrder: true,
  };
}
