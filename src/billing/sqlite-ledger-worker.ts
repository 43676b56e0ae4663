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
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface HoldOperation {
  kind: 'hold';
  accountId: number;
  holdMicros: number;
  /** billing_calls column values, in CALL_COLUMNS order. */
  call: (string | number | null)[];
}

export interface SettleOperation {
  kind: 'settle';
  callId: number;
  accountId: number;
  revenueAccountId: number;
  holdMicros: number;
  fullCostMicros: number;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number; cacheWriteTokens: number; cacheWrite1hTokens: number; source: string };
  outcome: string;
  requestId: string;
  nowMs: number;
}

export type LedgerOperation = HoldOperation | SettleOperation;
/** hold: the call id, or null when the guard refused. settle: the collected cost, or null if already closed. */
export type LedgerResult = number | null;

export const CALL_COLUMNS = [
  'customer_id', 'account_id', 'key_id', 'request_id', 'node_id', 'model', 'requested_model', 'operation', 'surface', 'rate_card',
  'input_micros_per_million', 'output_micros_per_million', 'cached_input_micros_per_million', 'cache_write_micros_per_million',
  'cache_write_1h_micros_per_million', 'estimated_input_tokens',
  'max_output_tokens', 'hold_micros', 'covered_plan', 'status', 'created_at',
] as const;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const SQLite = require(workerData.driverPath);
const db = new SQLite(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 10000');
db.pragma('foreign_keys = ON');
const columns = workerData.callColumns;
const guard = db.prepare('UPDATE billing_accounts SET held_micros = held_micros + ? WHERE id = ? AND balance_micros - held_micros >= ?');
const insertCall = db.prepare('INSERT INTO billing_calls (' + columns.join(', ') + ') VALUES (' + columns.map(() => '?').join(', ') + ')');
const spare = db.prepare('SELECT balance_micros - held_micros AS spare FROM billing_accounts WHERE id = ?');
const callStatus = db.prepare('SELECT status FROM billing_calls WHERE id = ?').pluck();
const closeCall = db.prepare("UPDATE billing_calls SET status = 'settled', input_tokens = ?, output_tokens = ?, cached_input_tokens = ?, cache_write_tokens = ?, cache_write_1h_tokens = ?, usage_source = ?, cost_micros = ?, uncollected_micros = ?, outcome = ?, settled_at = ? WHERE id = ? AND status = ?");
const debit = db.prepare('UPDATE billing_accounts SET held_micros = held_micros - ?, balance_micros = balance_micros - ? WHERE id = ?');
const entry = db.prepare("INSERT INTO ledger_entries (transfer_id, account_id, amount_micros, kind, reference, memo, created_at) VALUES (?, ?, ?, 'usage', ?, ?, ?)");
const credit = db.prepare('UPDATE billing_accounts SET balance_micros = balance_micros + ? WHERE id = ?');

function hold(op) {
  if (op.holdMicros > 0 && guard.run(op.holdMicros, op.accountId, op.holdMicros).changes !== 1) return null;
  return Number(insertCall.run(...op.call).lastInsertRowid);
}

// A call released meanwhile (its process judged gone, or the age backstop) still owes what it used: its hold is
// already off the wallet, so it settles as if it had held nothing. Only a settled call changes nothing.
function settle(op, revenue) {
  const status = callStatus.get(op.callId);
  if (status !== 'open' && status !== 'released') return null;
  const held = status === 'open' ? op.holdMicros : 0;
  let cost = op.fullCostMicros;
  if (cost > held) cost = held + Math.min(Math.max(0, spare.get(op.accountId).spare), cost - held);
  const u = op.usage;
  if (closeCall.run(u.inputTokens, u.outputTokens, u.cachedInputTokens, u.cacheWriteTokens, u.cacheWrite1hTokens, u.source, cost, op.fullCostMicros - cost, op.outcome, op.nowMs, op.callId, status).changes !== 1) return null;
  if (held > 0 || cost > 0) debit.run(held, cost, op.accountId);
  if (cost > 0) {
    const transfer = randomUUID();
    entry.run(transfer, op.accountId, -cost, 'call:' + op.callId, op.requestId, op.nowMs);
    entry.run(transfer, op.revenueAccountId, cost, 'call:' + op.callId, op.requestId, op.nowMs);
    revenue.set(op.revenueAccountId, (revenue.get(op.revenueAccountId) || 0) + cost);
  }
  return cost;
}

const batch = db.transaction((ops) => {
  const revenue = new Map();
  const results = ops.map((op) => (op.kind === 'hold' ? hold(op) : settle(op, revenue)));
  for (const [id, amount] of revenue) credit.run(amount, id);
  return results;
});
// BEGIN IMMEDIATE: a deferred transaction that has read cannot wait for the write lock (SQLite answers SQLITE_BUSY
// at once, busy_timeout or not), so a batch starting with a read would fail whenever another connection writes.
const runBatch = (ops) => batch.immediate(ops);

function commitAll(batch) {
  try {
    const values = runBatch(batch.map((item) => item.op));
    return batch.map((item, index) => ({ id: item.id, ok: true, value: values[index] }));
  } catch {
    return batch.map((item) => {
      try {
        return { id: item.id, ok: true, value: runBatch([item.op])[0] };
      } catch (error) {
        return { id: item.id, ok: false, error: String(error && error.message || error) };
      }
    });
  }
}

// Settlements committed and waiting for the WAL to reach the disk. An fsync answers only the commits made before it
// started; what commits meanwhile waits for the next one.
let walFd = null;
let syncing = false;
let unsynced = [];
function syncWal() {
  if (syncing || unsynced.length === 0) return;
  const answers = unsynced;
  unsynced = [];
  syncing = true;
  try {
    walFd ??= fs.openSync(workerData.file + '-wal', 'r');
  } catch (error) {
    syncing = false;
    parentPort.postMessage({ answers: answers.map((answer) => ({ id: answer.id, ok: false, error: 'opening the WAL to sync it failed: ' + error.message })) });
    return;
  }
  fs.fsync(walFd, (error) => {
    syncing = false;
    parentPort.postMessage({ answers: error ? answers.map((answer) => ({ id: answer.id, ok: false, error: 'syncing the WAL failed: ' + error.message })) : answers });
    syncWal();
  });
}

// A drain commits what queued up: each batch's holds first (they answer at once; holds going first can only see
// less spare credit than in arrival order), then its settlements, which answer after the next fsync.
let queue = [];
let scheduled = false;
function drain() {
  scheduled = false;
  while (queue.length > 0) {
    const batch = queue.splice(0, workerData.maxBatch);
    const holds = batch.filter((item) => item.op.kind === 'hold');
    const settlements = batch.filter((item) => item.op.kind !== 'hold');
    if (holds.length > 0) parentPort.postMessage({ answers: commitAll(holds) });
    if (settlements.length > 0) {
      for (const answer of commitAll(settlements)) {
        if (answer.ok) unsynced.push(answer);
        else parentPort.postMessage({ answers: [answer] });
      }
    }
  }
  // Free for the next batch, while the fsync (if any) runs on the thread pool.
  parentPort.postMessage({ idle: true });
  syncWal();
}
parentPort.on('message', (items) => {
  queue.push(...items);
  // Let every message already queued on the port join this batch before committing.
  if (!scheduled) { scheduled = true; setImmediate(drain); }
});
`;

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
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driverPath, maxBatch, callColumns: CALL_COLUMNS } });
    this.worker.unref();
    this.worker.on('message', (message: { answers?: { id: number; ok: boolean; value?: LedgerResult; error?: string }[]; idle?: boolean }) => {
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
    this.worker.on('error', (error) => this.fail(new Error(`SQLite ledger worker failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })));
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
