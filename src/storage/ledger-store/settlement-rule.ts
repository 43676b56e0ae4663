/**
 * The settlement rule, one pure function for both stores (kysely-ledger-store.ts and the SQLite
 * ledger thread): what a settlement takes off the wallet's holds, what it collects and what stays uncollected.
 *
 * - A call still `open` takes its whole hold off the wallet's holds; a call `released` meanwhile (its process
 *   judged gone, or the age backstop) already had its hold taken off, so it settles as if it had held nothing.
 * - Usage within the hold is collected in full, from the hold.
 * - Usage above the hold collects only what is spare: the hold plus what the wallet has beyond its holds (its
 *   available credit, read under the account's lock in the same transaction). The rest is recorded as uncollected,
 *   never taken: a settlement never takes a wallet below its holds.
 */
import { assert, assertMicros } from '../../kernel/assert.js';

export type SettlingCallStatus = 'open' | 'released';

export interface SettlementInput {
  /** The call's status when the settlement claimed it. */
  status: SettlingCallStatus;
  /** The hold recorded on the call. */
  holdMicros: number;
  /** The usage's cost at the hold's rates (0 when an Unlimited plan covers the call). */
  fullCostMicros: number;
  /**
   * The wallet's available credit (balance − holds, this call's hold included while open) read under the account's
   * lock; only needed (and only read by the stores) when `needsSpareCredit` says so.
   */
  spareMicros?: number;
}

export interface SettlementAmounts {
  /** Taken off the wallet's held amount. */
  releasedHoldMicros: number;
  /** Taken off the wallet's balance and posted to revenue. */
  collectedMicros: number;
  /** The part of the cost the wallet could not pay. */
  uncollectedMicros: number;
}

/** The part of the recorded hold still on the wallet when the settlement claims the call. */
export function holdOnWallet(status: SettlingCallStatus, holdMicros: number): number {
  return status === 'open' ? holdMicros : 0;
}

/** Whether the settlement must read the wallet's spare credit: only when the cost exceeds what is still held. */
export function needsSpareCredit(input: Pick<SettlementInput, 'status' | 'holdMicros' | 'fullCostMicros'>): boolean {
  return input.fullCostMicros > holdOnWallet(input.status, input.holdMicros);
}

export function settlementOf(input: SettlementInput): SettlementAmounts {
  assertMicros(input.holdMicros, 'holdMicros');
  assertMicros(input.fullCostMicros, 'fullCostMicros');
  const held = holdOnWallet(input.status, input.holdMicros);
  let collected = input.fullCostMicros;
  if (needsSpareCredit(input)) {
    assert(
      input.spareMicros !== undefined && Number.isSafeInteger(input.spareMicros),
      'a cost above the hold needs the wallet’s spare credit',
    );
    collected = held + Math.min(Math.max(0, input.spareMicros), input.fullCostMicros - held);
  }
  const amounts = { releasedHoldMicros: held, collectedMicros: collected, uncollectedMicros: input.fullCostMicros - collected };
  assert(amounts.collectedMicros >= 0 && amounts.uncollectedMicros >= 0, 'a settlement collects between nothing and the full cost');
  assert(amounts.collectedMicros + amounts.uncollectedMicros === input.fullCostMicros, 'collected + uncollected = cost');
  assert(
    amounts.collectedMicros <= held + Math.max(0, input.spareMicros ?? 0),
    'a settlement collects no more than the hold and the spare credit',
  );
  return amounts;
}
