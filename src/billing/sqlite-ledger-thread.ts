/**
 * The SQLite ledger worker thread (started by sqlite-ledger-worker.ts): batching, the durability order and the
 * settlement rule. Its SQL and connection settings are storage's (storage/sqlite-ledger-statements.ts).
 *
 * A drain commits what queued up: each batch's holds first (they answer at once; holds going first can only see
 * less spare credit than in arrival order), then its settlements, which answer after the next fsync of the WAL.
 * Holds commit with synchronous=NORMAL (durable against a crash of the process); a settlement answers only once the
 * WAL holding its commit is on disk, and that fsync runs on the thread pool after the write lock is released, so
 * holds and the next batches keep committing while the disk syncs. One fsync covers every commit before it, so a
 * durable settlement never lacks its hold.
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { assert, assertMicros } from '../kernel/assert.js';
import { openLedgerStatements, type LedgerStatements } from '../storage/sqlite-ledger-statements.js';
import { needsSpareCredit, settlementOf } from './settlement-rule.js';
import type {
  HoldOperation,
  LedgerAnswer,
  LedgerOperation,
  LedgerResult,
  LedgerThreadData,
  SettleOperation,
} from './sqlite-ledger-worker.js';

interface QueuedOperation {
  id: number;
  op: LedgerOperation;
}

function hold(ledger: LedgerStatements, op: HoldOperation): LedgerResult {
  assertMicros(op.holdMicros, 'holdMicros');
  if (op.holdMicros > 0 && !ledger.guardHold(op.accountId, op.holdMicros)) return null;
  return ledger.insertCall(op.call);
}

/**
 * A call released meanwhile (its process judged gone, or the age backstop) still owes what it used: its hold is
 * already off the wallet, so it settles as if it had held nothing (settlement-rule.ts). Only a settled call
 * changes nothing. Revenue is credited once per batch (`revenue` sums it per account).
 */
function settle(ledger: LedgerStatements, op: SettleOperation, revenue: Map<number, number>): LedgerResult {
  const status = ledger.callStatus(op.callId);
  if (status !== 'open' && status !== 'released') return null;
  const claim = { status, holdMicros: op.holdMicros, fullCostMicros: op.fullCostMicros } as const;
  const spareMicros = needsSpareCredit(claim) ? ledger.spareCredit(op.accountId) : undefined;
  const { releasedHoldMicros, collectedMicros, uncollectedMicros } = settlementOf({ ...claim, spareMicros });
  const closed = ledger.closeCall({
    callId: op.callId,
    status,
    usage: op.usage,
    costMicros: collectedMicros,
    uncollectedMicros,
    outcome: op.outcome,
    nowMs: op.nowMs,
  });
  if (!closed) return null;
  if (releasedHoldMicros > 0 || collectedMicros > 0) ledger.debit(op.accountId, releasedHoldMicros, collectedMicros);
  if (collectedMicros > 0) {
    ledger.postUsage({
      accountId: op.accountId,
      revenueAccountId: op.revenueAccountId,
      amountMicros: collectedMicros,
      callId: op.callId,
      requestId: op.requestId,
      nowMs: op.nowMs,
    });
    revenue.set(op.revenueAccountId, (revenue.get(op.revenueAccountId) ?? 0) + collectedMicros);
  }
  return collectedMicros;
}

function runBatch(ledger: LedgerStatements, ops: LedgerOperation[]): LedgerResult[] {
  return ledger.immediate(() => {
    const revenue = new Map<number, number>();
    const results = ops.map((op) => (op.kind === 'hold' ? hold(ledger, op) : settle(ledger, op, revenue)));
    for (const [accountId, amountMicros] of revenue) ledger.creditAccount(accountId, amountMicros);
    return results;
  });
}

const messageOf = (error: unknown): string => String((error instanceof Error && error.message) || error);

/** One transaction for the batch; when it fails, one transaction per operation, so one bad one cannot fail its neighbours. */
function commitAll(ledger: LedgerStatements, batch: QueuedOperation[]): LedgerAnswer[] {
  try {
    const values = runBatch(
      ledger,
      batch.map((item) => item.op),
    );
    return batch.map((item, index) => ({ id: item.id, ok: true, value: values[index] ?? null }));
  } catch {
    return batch.map((item) => {
      try {
        return { id: item.id, ok: true, value: runBatch(ledger, [item.op])[0] ?? null };
      } catch (error) {
        return { id: item.id, ok: false, error: messageOf(error) };
      }
    });
  }
}

function startLedgerThread(port: NonNullable<typeof parentPort>, data: LedgerThreadData): void {
  const ledger = openLedgerStatements(data.file);
  const post = (answers: LedgerAnswer[]) => port.postMessage({ answers });

  // Settlements committed and waiting for the WAL to reach the disk. An fsync answers only the commits made before
  // it started; what commits meanwhile waits for the next one.
  let walFd: number | null = null;
  let syncing = false;
  let unsynced: LedgerAnswer[] = [];
  const syncWal = (): void => {
    if (syncing || unsynced.length === 0) return;
    const answers = unsynced;
    unsynced = [];
    syncing = true;
    try {
      walFd ??= fs.openSync(ledger.walFile, 'r');
    } catch (error) {
      syncing = false;
      post(answers.map((answer) => ({ id: answer.id, ok: false, error: `opening the WAL to sync it failed: ${messageOf(error)}` })));
      return;
    }
    fs.fsync(walFd, (error) => {
      syncing = false;
      post(error ? answers.map((answer) => ({ id: answer.id, ok: false, error: `syncing the WAL failed: ${error.message}` })) : answers);
      syncWal();
    });
  };

  let queue: QueuedOperation[] = [];
  let scheduled = false;
  const drain = (): void => {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.splice(0, data.maxBatch);
      const holds = batch.filter((item) => item.op.kind === 'hold');
      const settlements = batch.filter((item) => item.op.kind !== 'hold');
      if (holds.length > 0) post(commitAll(ledger, holds));
      if (settlements.length > 0) {
        for (const answer of commitAll(ledger, settlements)) {
          if (answer.ok) unsynced.push(answer);
          else post([answer]);
        }
      }
    }
    // Free for the next batch, while the fsync (if any) runs on the thread pool.
    port.postMessage({ idle: true });
    syncWal();
  };
  port.on('message', (items: QueuedOperation[]) => {
    queue.push(...items);
    // Let every message already queued on the port join this batch before committing.
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  });
}

assert(parentPort !== null, 'sqlite-ledger-thread.ts runs as a worker thread (started by sqlite-ledger-worker.ts)');
startLedgerThread(parentPort, workerData as LedgerThreadData);
