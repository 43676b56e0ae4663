/**
 * The SQLite ledger worker thread (started by sqlite-thread-ledger-store.ts): batching, the durability order and
 * the settlement rule. Its SQL and connection settings are in sqlite-ledger-statements.ts.
 *
 * A drain commits what queued up in one transaction per batch, in arrival order (a settlement that waited for its
 * group frees its hold before a later hold is checked, as if each had committed alone), and answers them all in
 * one message. Commits use
 * synchronous=NORMAL (durable against a crash of the process). The WAL is synced to disk on the thread pool at
 * most once per `syncWindowMs` after a commit, so a commit reaches the disk within that window (one fsync covers
 * every commit before it, so a synced settlement never lacks its hold).
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { assert, assertMicros } from '../../kernel/assert.js';
import { usageTransfer, type HoldOutcome, type ReserveOutcome } from './ledger-store.js';
import { needsSpareCredit, settlementOf } from './settlement-rule.js';
import { CALL_COLUMNS, openLedgerStatements, type LedgerStatements } from './sqlite-ledger-statements.js';
import type {
  HoldOperation,
  LedgerAnswer,
  LedgerOperation,
  LedgerResult,
  LedgerThreadData,
  QueuedOperation,
  ReserveOperation,
  SettleOperation,
  SettleReservedOperation,
  UnreserveOperation,
  ThreadMessage,
} from './sqlite-thread-ledger-store.js';

/** The spending-limit check, then the guarded hold and the call's row, as the Kysely store runs them. */
function hold(ledger: LedgerStatements, op: HoldOperation): HoldOutcome {
  assertMicros(op.holdMicros, 'holdMicros');
  if (op.spendingLimit) {
    const spentMicros = ledger.keySpend(op.spendingLimit.keyId, op.spendingLimit.sinceMs);
    if (spentMicros >= op.spendingLimit.limitMicros) return { kind: 'limit', spentMicros };
  }
  if (op.holdMicros === 0) return { kind: 'held', callId: ledger.insertCall(op.call) };
  const spareMicros = ledger.guardHold(op.accountId, op.holdMicros);
  if (spareMicros === undefined) return { kind: 'short' };
  return { kind: 'held', callId: ledger.insertCall(op.call), spareMicros };
}

/**
 * A call released meanwhile (its process judged gone, or the age backstop) still owes what it used: its hold is
 * already off the wallet, so it settles as if it had held nothing (settlement-rule.ts). Only a settled call
 * changes nothing. Revenue is credited once per batch (`revenue` sums it per account).
 */
function settle(ledger: LedgerStatements, op: SettleOperation | SettleReservedOperation, revenue: Map<number, number>): number | null {
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
    ledger.postEntries(usageTransfer(op, collectedMicros));
    revenue.set(op.revenueAccountId, (revenue.get(op.revenueAccountId) ?? 0) + collectedMicros);
  }
  return collectedMicros;
}

/** The guarded hold of more reserved credit, and call ids set aside for the calls drawn from it. */
function reserve(ledger: LedgerStatements, op: ReserveOperation): ReserveOutcome {
  assertMicros(op.amountMicros, 'amountMicros');
  const spareMicros = ledger.guardHold(op.accountId, op.amountMicros);
  if (spareMicros === undefined) return { kind: 'short' };
  if (op.amountMicros > 0) ledger.addReservation(op.nodeId, op.accountId, op.amountMicros, op.nowMs);
  const firstCallId = op.callIds > 0 ? ledger.setCallIdsAside(op.callIds) : 0;
  return { kind: 'reserved', spareMicros, firstCallId, lastCallId: firstCallId + op.callIds - 1 };
}

function unreserve(ledger: LedgerStatements, op: UnreserveOperation): null {
  assertMicros(op.keepMicros, 'keepMicros');
  const releasedMicros = ledger.cutReservation(op.nodeId, op.accountId, op.keepMicros, op.nowMs);
  if (releasedMicros > 0) ledger.debit(op.accountId, releasedMicros, 0);
  return null;
}

/**
 * A drawn call's row is written when it settles: its hold moves from the reservation to the row (the account's held
 * amount is unchanged), then it settles like any open call. A reservation released meanwhile no longer holds it: the
 * row is written `released` and settles from what the wallet has. A row with the id exists: settled once already.
 */
function settleReserved(ledger: LedgerStatements, op: SettleReservedOperation, revenue: Map<number, number>): number | null {
  if (ledger.callStatus(op.callId) !== undefined) return null;
  const moved = op.reservationStands && (op.holdMicros === 0 || ledger.takeReservation(op.nodeId, op.accountId, op.holdMicros, op.nowMs));
  const statusAt = CALL_COLUMNS.indexOf('status');
  const call = op.call.map((value, index) => (index === statusAt ? (moved ? 'open' : 'released') : value));
  ledger.insertCallWithId(op.callId, call);
  return settle(ledger, op, revenue);
}

function apply(ledger: LedgerStatements, op: LedgerOperation, revenue: Map<number, number>): LedgerResult {
  switch (op.kind) {
    case 'hold':
      return hold(ledger, op);
    case 'settle':
      return settle(ledger, op, revenue);
    case 'reserve':
      return reserve(ledger, op);
    case 'unreserve':
      return unreserve(ledger, op);
    case 'settle-reserved':
      return settleReserved(ledger, op, revenue);
  }
}

function runBatch(ledger: LedgerStatements, ops: LedgerOperation[]): LedgerResult[] {
  return ledger.immediate(() => {
    const revenue = new Map<number, number>();
    const results = ops.map((op) => apply(ledger, op, revenue));
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

/** Syncs the WAL on the thread pool at most once per window after a commit; `now()` syncs what is left at close. */
function walSyncer(ledger: LedgerStatements, windowMs: number, report: (error: string) => void) {
  let walFd: number | null = null;
  let dirty = false;
  let syncing = false;
  let lastSyncAt = 0;
  let timer: NodeJS.Timeout | null = null;
  const open = (): number => (walFd ??= fs.openSync(ledger.walFile, 'r'));
  const schedule = (): void => {
    if (!dirty || syncing || timer) return;
    const waitMs = lastSyncAt + windowMs - Date.now();
    if (waitMs > 0) {
      timer = setTimeout(() => {
        timer = null;
        schedule();
      }, waitMs);
      return;
    }
    dirty = false;
    syncing = true;
    lastSyncAt = Date.now();
    try {
      fs.fsync(open(), (error) => {
        syncing = false;
        if (error) report(`syncing the WAL failed: ${error.message}`);
        schedule();
      });
    } catch (error) {
      syncing = false;
      report(`opening the WAL to sync it failed: ${messageOf(error)}`);
    }
  };
  return {
    committed(): void {
      dirty = true;
      schedule();
    },
    now(): void {
      if (timer) clearTimeout(timer);
      timer = null;
      if (dirty) fs.fsyncSync(open());
      dirty = false;
    },
  };
}

function startLedgerThread(port: NonNullable<typeof parentPort>, data: LedgerThreadData): void {
  const ledger = openLedgerStatements(data.file);
  const syncer = walSyncer(ledger, data.syncWindowMs, (error) => port.postMessage({ syncError: error }));
  const queue: QueuedOperation[] = [];
  let scheduled = false;
  const drain = (): void => {
    scheduled = false;
    const answers: LedgerAnswer[] = [];
    while (queue.length > 0) {
      answers.push(...commitAll(ledger, queue.splice(0, data.maxBatch)));
    }
    // The answers and "free for the next batch" in one message; the WAL syncs on the thread pool meanwhile.
    port.postMessage({ answers, idle: true });
    syncer.committed();
  };
  port.on('message', (message: ThreadMessage) => {
    if (message.close) {
      syncer.now();
      ledger.close();
      port.postMessage({ closed: true });
      return;
    }
    queue.push(...message.items);
    // Let every message already queued on the port join this batch before committing.
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  });
}

assert(parentPort !== null, 'sqlite-ledger-thread.ts runs as a worker thread (started by sqlite-thread-ledger-store.ts)');
startLedgerThread(parentPort, workerData as LedgerThreadData);
