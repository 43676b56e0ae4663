/**
 * The ledger store on SQLite, off the event loop. better-sqlite3 waits synchronously, so on the main thread each
 * commit would stall every request in flight: a worker thread with its own connection to the same file
 * (sqlite-ledger-thread.ts) runs the holds and settlements. Operations that arrive while it works queue up and
 * share the next transaction; the spending-limit checks and guarded UPDATEs run inside the batch transaction in
 * arrival order, so batching never lets two requests spend the same credit or pass the same limit. When a batch
 * fails, its operations are retried one transaction each, so one bad operation cannot fail its neighbours.
 *
 * Settlements are grouped even when calls come one at a time: a settlement waits here until the next hold leaves
 * (it rides in the same message and transaction) or until `settleWindowMs` has passed, whichever comes first
 * (`flush()` sends it at once). The answer to the caller never waits for it; the settlement journal covers the
 * window against a crash of the process. Holds and settlements answer once committed (synchronous=NORMAL: durable
 * against a crash of the process); the thread syncs the WAL to disk within `settleWindowMs` of a commit.
 */
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../kernel/worker-script.js';
import type {
  CreditReservations,
  HoldInput,
  HoldOutcome,
  LedgerStore,
  ReservedSettleInput,
  ReserveInput,
  ReserveOutcome,
  SettleInput,
} from './ledger-store.js';
import { CALL_COLUMNS, type CallColumnValue } from './sqlite-ledger-statements.js';

export interface HoldOperation {
  kind: 'hold';
  accountId: number;
  holdMicros: number;
  /** billing_calls column values, in CALL_COLUMNS order. */
  call: CallColumnValue[];
  spendingLimit?: HoldInput['spendingLimit'];
}

export interface SettleOperation extends SettleInput {
  kind: 'settle';
}

export interface ReserveOperation extends ReserveInput {
  kind: 'reserve';
}

export interface UnreserveOperation {
  kind: 'unreserve';
  accountId: number;
  nodeId: string;
  keepMicros: number;
  nowMs: number;
}

export interface SettleReservedOperation extends SettleInput {
  kind: 'settle-reserved';
  nodeId: string;
  reservationStands: boolean;
  /** billing_calls column values, in CALL_COLUMNS order. */
  call: CallColumnValue[];
}

export type LedgerOperation = HoldOperation | SettleOperation | ReserveOperation | UnreserveOperation | SettleReservedOperation;
/** hold, reserve: the outcome. settle, settle-reserved: the collected cost, or null if already closed. unreserve: null. */
export type LedgerResult = HoldOutcome | ReserveOutcome | number | null;

export interface QueuedOperation {
  id: number;
  op: LedgerOperation;
}

/** What the main thread sends: operations, or the request to sync and close. */
export type ThreadMessage = { items: QueuedOperation[]; close?: undefined } | { close: true };

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
  syncWindowMs: number;
}

export interface SqliteThreadOptions {
  maxBatch: number;
  /** Longest a settlement waits for a hold to ride with; also the WAL sync window. 0: sent at once. */
  settleWindowMs: number;
  /** Told when syncing the WAL failed (the commits stand; their durability against a power loss is in doubt). */
  onSyncError?: (message: string) => void;
}

interface Pending {
  resolve(value: LedgerResult): void;
  reject(error: Error): void;
}

interface ThreadAnswer {
  answers?: LedgerAnswer[];
  idle?: boolean;
  syncError?: string;
  closed?: boolean;
}

/** A call row's values in CALL_COLUMNS order. */
function callValues(call: HoldInput['call']): CallColumnValue[] {
  const row = call as Record<string, unknown>;
  return CALL_COLUMNS.map((column) => (row[column] ?? null) as CallColumnValue);
}

export class SqliteThreadLedgerStore implements LedgerStore {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private outbox: QueuedOperation[] = [];
  private holdsWaiting = 0;
  private nextId = 1;
  private flushScheduled = false;
  /** A message was posted and the worker has not finished committing it yet. */
  private busy = false;
  /** Settlements waiting in the outbox may leave without a hold (their window passed, or a flush). */
  private settleDue: boolean;
  private windowTimer: NodeJS.Timeout | null = null;
  private drained: (() => void) | null = null;
  private closed: (() => void) | null = null;
  /** Set once the worker has died: every pending and later call fails with it instead of waiting forever. */
  private failure: Error | null = null;

  constructor(
    file: string,
    private readonly options: SqliteThreadOptions,
  ) {
    this.settleDue = options.settleWindowMs === 0;
    const workerData: LedgerThreadData = { file, maxBatch: options.maxBatch, syncWindowMs: options.settleWindowMs };
    this.worker = new Worker(workerScript(new URL('./sqlite-ledger-thread.js', import.meta.url)), { workerData });
    this.worker.unref();
    this.worker.on('message', (message: ThreadAnswer) => this.onMessage(message));
    this.worker.on('error', (error) =>
      this.fail(new Error(`SQLite ledger worker failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })),
    );
    this.worker.on('exit', (code) => {
      this.fail(new Error(`SQLite ledger worker stopped (exit code ${code}); ledger writes cannot run`));
      this.closed?.();
    });
  }

  /**
   * One process per SQLite file: credit reserved by this process is drawn from in memory without another process
   * spending it meanwhile, and the operations below apply in the order they were sent, after the holds and
   * settlements sent before them.
   */
  readonly reservations: CreditReservations = {
    usable: () => this.failure === null,
    reserve: (input: ReserveInput) => this.run({ kind: 'reserve', ...input }) as Promise<ReserveOutcome>,
    unreserve: async (input) => void (await this.run({ kind: 'unreserve', ...input })),
    settleReserved: (input: ReservedSettleInput) =>
      this.run({ ...input, kind: 'settle-reserved', call: callValues(input.call) }) as Promise<number | null>,
  };

  placeHold(hold: HoldInput): Promise<HoldOutcome> {
    return this.run({
      kind: 'hold',
      accountId: hold.accountId,
      holdMicros: hold.holdMicros,
      call: callValues(hold.call),
      spendingLimit: hold.spendingLimit,
    }) as Promise<HoldOutcome>;
  }

  settleCall(settle: SettleInput): Promise<number | null> {
    return this.run({ kind: 'settle', ...settle }) as Promise<number | null>;
  }

  flush(): void {
    if (this.outbox.length === 0) return;
    this.settleDue = true;
    this.scheduleFlush();
  }

  depth(): number {
    return this.pending.size;
  }

  async close(): Promise<void> {
    this.flush();
    if (this.pending.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    if (!this.failure) {
      // The thread syncs the WAL and closes its connection before it is stopped.
      await new Promise<void>((resolve) => {
        this.closed = resolve;
        this.worker.postMessage({ close: true } satisfies ThreadMessage);
      });
    }
    await this.worker.terminate();
  }

  private onMessage(message: ThreadAnswer): void {
    for (const result of message.answers ?? []) {
      const waiter = this.pending.get(result.id);
      this.pending.delete(result.id);
      if (result.ok) waiter?.resolve(result.value ?? null);
      else waiter?.reject(new Error(`ledger write failed: ${result.error}`));
    }
    if (message.syncError) this.options.onSyncError?.(message.syncError);
    if (message.closed) this.closed?.();
    // The worker is free again: what queued up meanwhile goes as one message (the next group commit).
    if (message.idle) {
      this.busy = false;
      this.scheduleFlush();
    }
    if (this.pending.size === 0) this.drained?.();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.pending.values()) waiter.reject(this.failure);
    this.pending.clear();
    this.outbox = [];
    this.holdsWaiting = 0;
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.windowTimer = null;
    this.busy = false;
    this.drained?.();
  }

  private run(op: LedgerOperation): Promise<LedgerResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.outbox.push({ id, op });
      // Settlements wait for their group; everything else leaves at once and takes them along.
      if (op.kind === 'settle' || op.kind === 'settle-reserved')
        this.windowTimer ??= setTimeout(() => this.windowPassed(), this.options.settleWindowMs);
      else this.holdsWaiting += 1;
      this.scheduleFlush();
    });
  }

  private windowPassed(): void {
    this.windowTimer = null;
    this.settleDue = true;
    this.scheduleFlush();
  }

  /**
   * One message per tick carries every operation of that tick, and only while the worker is idle: while it commits
   * a batch it could not read a message anyway, so operations wait here and leave together when it is free again.
   * Settlements alone wait for a hold or for their window.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.busy || this.outbox.length === 0) return;
    if (this.holdsWaiting === 0 && !this.settleDue) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      if (this.failure || this.busy || this.outbox.length === 0) return;
      const items = this.outbox;
      this.outbox = [];
      this.holdsWaiting = 0;
      this.settleDue = this.options.settleWindowMs === 0;
      if (this.windowTimer) clearTimeout(this.windowTimer);
      this.windowTimer = null;
      this.busy = true;
      this.worker.postMessage({ items } satisfies ThreadMessage);
    });
  }
}
