/**
 * Group commit on SQLite, off the event loop. better-sqlite3 waits synchronously, so on the main thread each commit
 * would stall every request in flight: a worker thread with its own connection to the same file runs the holds and
 * settlements. Operations that arrive while it works queue up and share the next transaction; the guarded UPDATEs
 * run inside the batch transaction in arrival order, so batching never lets two requests spend the same credit.
 * When a batch fails, its operations are retried one transaction each, so one bad operation cannot fail its
 * neighbours.
 *
 * Durability: holds move no money and answer as soon as they committed (WAL, synchronous=NORMAL: durable against a
 * crash of the process). Settlements, which move money, answer only once the WAL holding their commit is synced to
 * disk, which is what synchronous=FULL gives, but the fsync runs on the thread pool after the write lock is
 * released: holds (and the next batches) keep committing while the disk syncs, instead of queueing behind it. One
 * fsync covers every commit before it, so a durable settlement never lacks its hold.
 *
 * This is the main thread's side (the queue and one message per group commit); the thread is the checked module
 * sqlite-ledger-thread.ts, and its SQL lives in storage/sqlite-ledger-statements.ts.
 */
import { Worker } from 'node:worker_threads';
import { workerScript } from '../kernel/worker-script.js';
import type { CallColumnValue } from '../storage/sqlite-ledger-statements.js';

export interface HoldOperation {
  kind: 'hold';
  accountId: number;
  holdMicros: number;
  /** billing_calls column values, in CALL_COLUMNS order. */
  call: CallColumnValue[];
}

export interface SettleOperation {
  kind: 'settle';
  callId: number;
  accountId: number;
  revenueAccountId: number;
  holdMicros: number;
  fullCostMicros: number;
  usage: {
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens: number;
    cacheWriteTokens: number;
    cacheWrite1hTokens: number;
    source: string;
  };
  outcome: string;
  requestId: string;
  nowMs: number;
}

export type LedgerOperation = HoldOperation | SettleOperation;
/** hold: the call id, or null when the guard refused. settle: the collected cost, or null if already closed. */
export type LedgerResult = number | null;

/** What the thread answers for one operation. */
export interface LedgerAnswer {
  id: number;
  ok: boolean;
  value?: LedgerResult;
  error?: string;
}

/** The thread's start-up data. */
export interface LedgerThreadData {
  file: string;
  maxBatch: number;
}

interface Pending {
  resolve(value: LedgerResult): void;
  reject(error: Error): void;
}

export class SqliteLedgerWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private outbox: { id: number; op: LedgerOperation }[] = [];
  private nextId = 1;
  private flushScheduled = false;
  /** A message was posted and the worker has not finished committing it yet. */
  private busy = false;
  private drained: (() => void) | null = null;
  /** Set once the worker has died: every pending and later call fails with it instead of waiting forever. */
  private failure: Error | null = null;

  /** Operations sent to the worker (or about to be) and not answered yet (metrics). */
  get queueDepth(): number {
    return this.pending.size;
  }

  constructor(file: string, maxBatch: number) {
    const workerData: LedgerThreadData = { file, maxBatch };
    this.worker = new Worker(workerScript(new URL('./sqlite-ledger-thread.js', import.meta.url)), { workerData });
    this.worker.unref();
    this.worker.on('message', (message: { answers?: LedgerAnswer[]; idle?: boolean }) => {
      for (const result of message.answers ?? []) {
        const waiter = this.pending.get(result.id);
        this.pending.delete(result.id);
        if (result.ok) waiter?.resolve(result.value ?? null);
        else waiter?.reject(new Error(`ledger write failed: ${result.error}`));
      }
      // The worker is free again: what queued up meanwhile goes as one message (the next group commit).
      if (message.idle) {
        this.busy = false;
        this.scheduleFlush();
      }
      if (this.pending.size === 0) this.drained?.();
    });
    this.worker.on('error', (error) =>
      this.fail(new Error(`SQLite ledger worker failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })),
    );
    this.worker.on('exit', (code) => this.fail(new Error(`SQLite ledger worker stopped (exit code ${code}); ledger writes cannot run`)));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.pending.values()) waiter.reject(this.failure);
    this.pending.clear();
    this.outbox = [];
    this.busy = false;
    this.drained?.();
  }

  run(op: LedgerOperation): Promise<LedgerResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.outbox.push({ id, op });
      this.scheduleFlush();
    });
  }

  /**
   * One message per tick carries every operation of that tick, and only while the worker is idle: while it commits
   * a batch it could not read a message anyway, so operations wait here and leave together when it is free again. Posting
   * costs the main thread more than the operation itself, and this turns about two messages per call into one per
   * group commit.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.busy || this.outbox.length === 0) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      if (this.failure || this.busy) return;
      const items = this.outbox;
      this.outbox = [];
      this.busy = true;
      this.worker.postMessage(items);
    });
  }

  async close(): Promise<void> {
    if (this.pending.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await this.worker.terminate();
  }
}
