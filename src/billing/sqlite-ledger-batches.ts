/**
 * What the SQLite ledger commits, in one place for both of its callers: the ledger thread (sqlite-ledger-thread.ts),
 * which commits batches of holds and settlements, and the main thread (sqlite-ledger-worker.ts), which commits a
 * hold itself when the write lock is free. The SQL is storage's (storage/sqlite-ledger-statements.ts); the
 * settlement rule is settlement-rule.ts.
 */
import { assertMicros } from '../kernel/assert.js';
import type { LedgerStatements } from '../storage/sqlite-ledger-statements.js';
import { needsSpareCredit, settlementOf } from './settlement-rule.js';
import type { HoldOperation, LedgerAnswer, LedgerOperation, LedgerResult, SettleOperation } from './sqlite-ledger-worker.js';

export interface QueuedOperation {
  id: number;
  op: LedgerOperation;
}

export function hold(ledger: LedgerStatements, op: HoldOperation): LedgerResult {
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

export function runBatch(ledger: LedgerStatements, ops: LedgerOperation[]): LedgerResult[] {
  return ledger.immediate(() => {
    const revenue = new Map<number, number>();
    const results = ops.map((op) => (op.kind === 'hold' ? hold(ledger, op) : settle(ledger, op, revenue)));
    for (const [accountId, amountMicros] of revenue) ledger.creditAccount(accountId, amountMicros);
    return results;
  });
}

export const messageOf = (error: unknown): string => String((error instanceof Error && error.message) || error);

/** One transaction for the batch; when it fails, one transaction per operation, so one bad one cannot fail its neighbours. */
export function commitAll(ledger: LedgerStatements, batch: QueuedOperation[]): LedgerAnswer[] {
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
