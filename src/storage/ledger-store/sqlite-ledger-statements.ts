/**
 * The SQL of the SQLite ledger thread (sqlite-ledger-thread.ts): its connection and the prepared statements of the
 * spending-limit check, the guarded hold and the settlement, so the thread itself holds the batching and the
 * settlement rule and no SQL. The Kysely store writes the same rows (kysely-ledger-store.ts).
 */
import { openSqliteConnection, walFileOf } from '../sqlite-connection.js';
import { KEY_SPEND_SQL } from './key-spend.js';
import { entriesOf, type TransferInput } from './transfer.js';

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
  'thread_id',
  'turn_id',
  'created_at',
  'client_request_id',
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
  /** What the key spent since `sinceMs`, open holds at their full amount (key-spend.ts). */
  keySpend(keyId: number, sinceMs: number): number;
  /** Holds `holdMicros` more on the account only while balance − held covers it: the spare credit left, or undefined when refused. */
  guardHold(accountId: number, holdMicros: number): number | undefined;
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
  /**
   * Appends a transfer's entries after the balance check every transfer passes (transfer.ts); the balances move
   * with `debit` and `creditAccount`.
   */
  postEntries(transfer: TransferInput): void;
  creditAccount(accountId: number, amountMicros: number): void;
  /** Adds to a process's reservation on the account (the account's held amount moves with `guardHold` or `debit`). */
  addReservation(nodeId: string, accountId: number, amountMicros: number, nowMs: number): void;
  /** Takes `amountMicros` off the reservation while it holds that much (an emptied one is removed); false otherwise. */
  takeReservation(nodeId: string, accountId: number, amountMicros: number, nowMs: number): boolean;
  /** Cuts the reservation down to `keepMicros` (an emptied one is removed): what it took off, 0 when it held no more. */
  cutReservation(nodeId: string, accountId: number, keepMicros: number, nowMs: number): number;
  /** Sets `count` call ids aside (AUTOINCREMENT never hands them out): the first of them. */
  setCallIdsAside(count: number): number;
  /** Inserts a call row with the id given (values in CALL_COLUMNS order). */
  insertCallWithId(callId: number, values: readonly CallColumnValue[]): void;
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

/** Longest the ledger thread waits for the write lock before a batch fails (the main connection's busy_timeout). */
const LOCK_WAIT_MS = 10_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `begin` (a BEGIN IMMEDIATE transaction) again while another connection holds the write lock, polling every
 * 50 µs growing to 1 ms, so the batch starts within a millisecond of the lock's release. A busy transaction has rolled
 * back whole, so running it again is safe (in WAL mode only its BEGIN IMMEDIATE waits for the lock).
 */
function immediateWithRetry<T>(begin: () => T, lockWaitMs = LOCK_WAIT_MS): T {
  const deadline = Date.now() + lockWaitMs;
  for (let waitUs = 50; ; waitUs = Math.min(waitUs * 2, 1_000)) {
    try {
      return begin();
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, waitUs / 1_000);
    }
  }
}

/** The ledger thread's connection: synchronous=NORMAL, since the thread syncs the WAL itself for settlements. */
export function openLedgerStatements(file: string): LedgerStatements {
  const db = openSqliteConnection(file, { synchronous: 'NORMAL' });
  // The thread waits for the write lock itself (immediateWithRetry): SQLite's own busy handler sleeps in steps that
  // grow to 100 ms, so a batch would oversleep a main-connection transaction that ended long before.
  db.pragma('busy_timeout = 0');
  const guard = db
    .prepare(
      'UPDATE billing_accounts SET held_micros = held_micros + ? WHERE id = ? AND balance_micros - held_micros >= ? RETURNING balance_micros - held_micros',
    )
    .pluck();
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
    'INSERT INTO ledger_entries (transfer_id, account_id, amount_micros, kind, reference, memo, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const keySpend = db.prepare(KEY_SPEND_SQL).pluck();
  const credit = db.prepare('UPDATE billing_accounts SET balance_micros = balance_micros + ? WHERE id = ?');
  return {
    keySpend: (keyId, sinceMs) => Number(keySpend.get(keyId, sinceMs)),
    guardHold: (accountId, holdMicros) => {
      const spare = guard.get(holdMicros, accountId, holdMicros);
      return spare === undefined ? undefined : Number(spare);
    },
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
    postEntries: (transfer) => {
      for (const row of entriesOf(transfer))
        entry.run(row.transfer_id, row.account_id, row.amount_micros, row.kind, row.reference, row.memo, row.created_at);
    },
    creditAccount: (accountId, amountMicros) => void credit.run(amountMicros, accountId),
    ...reservationStatements(db),
    immediate: (work) => immediateWithRetry(() => db.transaction(work).immediate()),
    walFile: walFileOf(file),
    close: () => db.close(),
  };
}

type ReservationStatements = Pick<
  LedgerStatements,
  'addReservation' | 'takeReservation' | 'cutReservation' | 'setCallIdsAside' | 'insertCallWithId'
>;

/** The credit reservations' statements (billing/reservations.ts): their rows, and call ids set aside. */
function reservationStatements(db: ReturnType<typeof openSqliteConnection>): ReservationStatements {
  const addReservation = db.prepare(
    'INSERT INTO billing_reservations (node_id, account_id, held_micros, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (node_id, account_id) DO UPDATE SET held_micros = held_micros + excluded.held_micros, updated_at = excluded.updated_at',
  );
  const takeReservation = db.prepare(
    'UPDATE billing_reservations SET held_micros = held_micros - ?, updated_at = ? WHERE node_id = ? AND account_id = ? AND held_micros >= ?',
  );
  const reservationHeld = db.prepare('SELECT held_micros FROM billing_reservations WHERE node_id = ? AND account_id = ?').pluck();
  const setReservation = db.prepare('UPDATE billing_reservations SET held_micros = ?, updated_at = ? WHERE node_id = ? AND account_id = ?');
  const dropEmptyReservation = db.prepare('DELETE FROM billing_reservations WHERE node_id = ? AND account_id = ? AND held_micros = 0');
  const callSequence = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'billing_calls'").pluck();
  const maxCallId = db.prepare('SELECT coalesce(max(id), 0) FROM billing_calls').pluck();
  const bumpSequence = db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'billing_calls'");
  const startSequence = db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('billing_calls', ?)");
  const insertCallWithId = db.prepare(
    `INSERT INTO billing_calls (id, ${CALL_COLUMNS.join(', ')}) VALUES (?, ${CALL_COLUMNS.map(() => '?').join(', ')})`,
  );
  return {
    addReservation: (nodeId, accountId, amountMicros, nowMs) => void addReservation.run(nodeId, accountId, amountMicros, nowMs),
    takeReservation: (nodeId, accountId, amountMicros, nowMs) => {
      if (takeReservation.run(amountMicros, nowMs, nodeId, accountId, amountMicros).changes !== 1) return false;
      dropEmptyReservation.run(nodeId, accountId);
      return true;
    },
    cutReservation: (nodeId, accountId, keepMicros, nowMs) => {
      const held = Number(reservationHeld.get(nodeId, accountId) ?? 0);
      if (held <= keepMicros) return 0;
      setReservation.run(keepMicros, nowMs, nodeId, accountId);
      dropEmptyReservation.run(nodeId, accountId);
      return held - keepMicros;
    },
    setCallIdsAside: (count) => {
      const seq = callSequence.get() as number | undefined;
      // Before the table's first row there is no sequence row yet; AUTOINCREMENT then starts after max(id).
      const last = Math.max(Number(seq ?? 0), Number(maxCallId.get()));
      if (seq === undefined) startSequence.run(last + count);
      else bumpSequence.run(last + count);
      return last + 1;
    },
    insertCallWithId: (callId, values) => void insertCallWithId.run(callId, ...values),
  };
}
