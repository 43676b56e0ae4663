/**
 * The one money write path: what every ledger store does for a billed call. Two implementations side by side:
 * `KyselyLedgerStore` (kysely-ledger-store.ts: PostgreSQL, or SQLite on the main connection) and
 * `SqliteThreadLedgerStore` (sqlite-thread-ledger-store.ts: SQLite in a worker thread with its own connection).
 * Both run the same checks in the hold's transaction (the key's spending limit, then the guarded hold: held grows
 * only while balance − held covers it), the same settlement rule (settlement-rule.ts) and the same transfer
 * balance check (transfer.ts), and `test/billing/ledger-model.test.ts` runs both through this interface.
 */
import type { Insertable } from 'kysely';
import type { BillingCallsTable } from '../tables/billing.js';
import type { TransferInput } from './transfer.js';

/** Token counts of one finished call, as its settlement prices them. */
export interface UsageCounts {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  source: string;
}

export interface HoldInput {
  accountId: number;
  holdMicros: number;
  /** The call's row (status `open`). */
  call: Insertable<BillingCallsTable>;
  /** Checked in the hold's transaction, counting every open hold of the key (other processes' included). */
  spendingLimit?: { keyId: number; limitMicros: number; sinceMs: number };
}

/** `held`: the call's id. `short`: the wallet's available credit does not cover the hold. `limit`: the key's limit is reached. */
/** `spareMicros`: the account's balance − held right after the hold (absent when the hold was 0 and nothing was read). */
export type HoldOutcome =
  { kind: 'held'; callId: number; spareMicros?: number } | { kind: 'short' } | { kind: 'limit'; spentMicros: number };

export interface SettleInput {
  callId: number;
  /** The customer's wallet account the call held on. */
  accountId: number;
  revenueAccountId: number;
  /** The hold recorded on the call. */
  holdMicros: number;
  /** The usage's cost at the hold's rates (0 when an Unlimited plan covers the call). */
  fullCostMicros: number;
  usage: UsageCounts;
  outcome: string;
  /** The request id, the usage transfer's memo. */
  requestId: string;
  nowMs: number;
}

/** Credit held once for a process's calls on one wallet (docs/billing.md, "Credit reservations"). */
export interface ReserveInput {
  accountId: number;
  nodeId: string;
  /** Held more on the wallet (guarded like a hold); 0 only asks for call ids. */
  amountMicros: number;
  /** Call ids to set aside for calls drawn from the reservation (their rows are written when they settle). */
  callIds: number;
  nowMs: number;
}

/** `reserved`: held, with the wallet's spare credit after it and the call ids set aside (`firstCallId`..`lastCallId`). */
export type ReserveOutcome = { kind: 'reserved'; spareMicros: number; firstCallId: number; lastCallId: number } | { kind: 'short' };

/** A call drawn from a reservation settles with its row: its hold moves from the reservation to it, then it settles. */
export interface ReservedSettleInput extends SettleInput {
  nodeId: string;
  /** The call's row as a hold would have written it (status `open`, `hold_micros` its drawn hold), without its id. */
  call: Insertable<BillingCallsTable>;
  /** false: the reservation it drew from was released since (the call settles as a released one would). */
  reservationStands: boolean;
}

export interface CreditReservations {
  /** False once the store can write nothing more (its worker died): no call may draw from a reservation then. */
  usable(): boolean;
  /** Holds `amountMicros` more for `nodeId` on the wallet only while balance − held covers it, and sets call ids aside. */
  reserve(input: ReserveInput): Promise<ReserveOutcome>;
  /**
   * Cuts the reservation down to `keepMicros` (what the calls drawn from it and not settled yet hold) and gives the
   * rest back to the wallet, whatever growth committed before it.
   */
  unreserve(input: { accountId: number; nodeId: string; keepMicros: number; nowMs: number }): Promise<void>;
  /**
   * Writes the drawn call's row (id `callId`, set aside by `reserve`) with its hold taken from the reservation, then
   * settles it like any call, in one transaction; null when a row with that id exists (settled once already). When the
   * reservation no longer holds the call's hold (released meanwhile), the call settles as a released one would.
   */
  settleReserved(input: ReservedSettleInput): Promise<number | null>;
}

export interface LedgerStore {
  /** Present where calls may draw their holds from a reservation (the SQLite ledger thread: one process per file). */
  readonly reservations?: CreditReservations;
  /** Places the hold and inserts the call's row in one transaction, after the spending-limit check. */
  placeHold(hold: HoldInput): Promise<HoldOutcome>;
  /**
   * Settles the call exactly once (settlement-rule.ts): the collected cost, or null when it was already settled.
   * A call released meanwhile is still charged what it used, from what the wallet has.
   */
  settleCall(settle: SettleInput): Promise<number | null>;
  /** Sends settlements still waiting for their group now (a read that must see them calls this first). */
  flush(): void;
  /** Operations queued or committing (metrics). */
  depth(): number;
  /** Waits for every operation accepted so far, then stops. */
  close(): Promise<void>;
}

/** The usage transfer of a settlement: the wallet pays revenue what was collected. */
export function usageTransfer(settle: SettleInput, collectedMicros: number): TransferInput {
  return {
    kind: 'usage',
    reference: `call:${settle.callId}`,
    memo: settle.requestId,
    nowMs: settle.nowMs,
    legs: [
      { accountId: settle.accountId, amountMicros: -collectedMicros },
      { accountId: settle.revenueAccountId, amountMicros: collectedMicros },
    ],
  };
}
