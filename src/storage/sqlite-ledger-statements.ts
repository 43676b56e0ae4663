/**
 * The SQL of the SQLite ledger thread (billing/sqlite-ledger-thread.ts): its connection and the prepared statements
 * of the guarded hold and the settlement, so the thread itself holds the batching and the settlement rule and
 * no SQL. The PostgreSQL path writes the same rows through Kysely (billing/wallet.ts, billing/hold-transaction.ts).
 */
import { randomUUID } from 'node:crypto';
import { openSqliteConnection, walFileOf } from './sqlite-connection.js';

/** The billing_calls columns a hold writes, in the order of `HoldOperation.call`. */
export const CALL_COLUMNS = [
  'customer_id',
  'account_id',
  'key_id',
  'request_id',
  'node_id',
  'model',
  'requested_model',
  'operation',
  'surface',
  'rate_card',
  'input_micros_per_million',
  'output_micros_per_million',
  'cached_input_micros_per_million',
  'cache_write_micros_per_million',
  'cache_write_1h_micros_per_million',
  'estimated_input_tokens',
  'max_output_tokens',
  'hold_micros',
  'covered_plan',
  'status',
  'created_at',
] as const;

export type CallColumnValue = string | number | null;

export interface ClosedCall {
  callId: number;
  /** The status the call was claimed in (the update only applies while it still has it). */
  status: string;
  usage: {
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens?: number;
    cacheWriteTokens?: number;
    cacheWrite1hTokens?: number;
    source: string;
  };
  costMicros: number;
  uncollectedMicros: number;
  outcome: string;
  nowMs: number;
}

export interface LedgerStatements {
  /** Holds `holdMicros` more on the account only while balance − held covers it; false when refused. */
  guardHold(accountId: number, holdMicros: number): boolean;
  /** Inserts a call row (values in CALL_COLUMNS order); returns its id. */
  insertCall(values: readonly CallColumnValue[]): number;
  /** The call's status, undefined when there is no such call. */
  callStatus(callId: number): string | undefined;
  /** The account's balance − held. */
  spareCredit(accountId: number): number;
  /** Marks the call settled if it still has `status`; false when another writer closed it first. */
  closeCall(call: ClosedCall): boolean;
  /** Takes a released hold off the account's held amount and a collected cost off its balance. */
  debit(accountId: number, releasedHoldMicros: number, collectedMicros: number): void;
  /** The usage transfer's two entries (wallet −, revenue +); the revenue balance moves with `creditAccount`. */
  postUsage(input: {
    accountId: number;
    revenueAccountId: number;
    amountMicros: number;
    callId: number;
    requestId: string;
    nowMs: number;
  }): void;
  creditAccount(accountId: number, amountMicros: number): void;
  /**
   * Runs `work` in one BEGIN IMMEDIATE transaction: a deferred transaction that has read cannot wait for the write
   * lock (SQLite answers SQLITE_BUSY at once, busy_timeout or not), so a batch starting with a read would fail
   * whenever another connection writes.
   */
  immediate<T>(work: () => T): T;
  /** The WAL file to sync before a settlement answers. */
  readonly walFile: string;
  close(): void;
}

/** The ledger thread's connection: synchronous=NORMAL, since the thread syncs the WAL itself for settlements. */
export function openLedgerStatements(file: string): LedgerStatements {
  const db = openSqliteConnection(file, { synchronous: 'NORMAL' });
  const guard = db.prepare('UPDATE billing_accounts SET held_micros = held_micros + ? WHERE id = ? AND balance_micros - held_micros >= ?');
  const insertCall = db.prepare(
    `INSERT INTO billing_calls (${CALL_COLUMNS.join(', ')}) VALUES (${CALL_COLUMNS.map(() => '?').join(', ')})`,
  );
  const spare = db.prepare('SELECT balance_micros - held_micros AS spare FROM billing_accounts WHERE id = ?').pluck();
  const callStatus = db.prepare('SELECT status FROM billing_calls WHERE id = ?').pluck();
  const closeCall = db.prepare(
    "UPDATE billing_calls SET status = 'settled', input_tokens = ?, output_tokens = ?, cached_input_tokens = ?, cache_write_tokens = ?, cache_write_1h_tokens = ?, usage_source = ?, cost_micros = ?, uncollected_micros = ?, outcome = ?, settled_at = ? WHERE id = ? AND status = ?",
  );
  const debit = db.prepare('UPDATE billing_accounts SET held_micros = held_micros - ?, balance_micros = balance_micros - ? WHERE id = ?');
  const entry = db.prepare(
    "INSERT INTO ledger_entries (transfer_id, account_id, amount_micros, kind, reference, memo, created_at) VALUES (?, ?, ?, 'usage', ?, ?, ?)",
  );
  const credit = db.prepare('UPDATE billing_accounts SET balance_micros = balance_micros + ? WHERE id = ?');
  return {
    guardHold: (accountId, holdMicros) => guard.run(holdMicros, accountId, holdMicros).changes === 1,
    insertCall: (values) => Number(insertCall.run(...values).lastInsertRowid),
    callStatus: (callId) => callStatus.get(callId) as string | undefined,
    spareCredit: (accountId) => Number(spare.get(accountId)),
    closeCall: ({ callId, status, usage, costMicros, uncollectedMicros, outcome, nowMs }) =>
      closeCall.run(
        usage.inputTokens,
        usage.outputTokens,
        usage.cachedInputTokens,
        usage.cacheWriteTokens,
        usage.cacheWrite1hTokens,
        usage.source,
        costMicros,
        uncollectedMicros,
        outcome,
        nowMs,
        callId,
        status,
      ).changes === 1,
    debit: (accountId, releasedHoldMicros, collectedMicros) => void debit.run(releasedHoldMicros, collectedMicros, accountId),
    postUsage: ({ accountId, revenueAccountId, amountMicros, callId, requestId, nowMs }) => {
      const transferId = randomUUID();
      entry.run(transferId, accountId, -amountMicros, `call:${callId}`, requestId, nowMs);
      entry.run(transferId, revenueAccountId, amountMicros, `call:${callId}`, requestId, nowMs);
    },
    creditAccount: (accountId, amountMicros) => void credit.run(amountMicros, accountId),
    immediate: (work) => db.transaction(work).immediate(),
    walFile: walFileOf(file),
    close: () => db.close(),
  };
}
