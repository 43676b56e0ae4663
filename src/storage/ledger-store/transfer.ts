/**
 * A ledger transfer: entries on two or more accounts summing to zero, appended and never edited, each account's
 * balance moved in the same transaction. `checkTransfer` is the one balance check every writer runs (the Kysely
 * writes here and the SQLite ledger thread's usage transfer) before a transfer is written.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../schema.js';

export interface TransferLeg {
  accountId: number;
  amountMicros: number;
}

export interface TransferInput {
  kind: string;
  legs: TransferLeg[];
  reference?: string | null;
  memo?: string | null;
  nowMs: number;
}

/** Throws unless the legs are integer micro-USD summing to zero. */
export function checkTransfer(legs: readonly TransferLeg[]): void {
  for (const leg of legs) {
    if (!Number.isSafeInteger(leg.amountMicros)) throw new RangeError('ledger amounts are integer micro-USD');
  }
  const total = legs.reduce((sum, leg) => sum + leg.amountMicros, 0);
  if (total !== 0) throw new Error(`unbalanced transfer (${total})`);
}

interface EntryRow {
  transfer_id: string;
  account_id: number;
  amount_micros: number;
  kind: string;
  reference: string | null;
  memo: string | null;
  created_at: number;
}

/** The entry rows of a checked transfer (zero legs left out). */
export function entriesOf(input: TransferInput, transferId: string = randomUUID()): EntryRow[] {
  checkTransfer(input.legs);
  return input.legs
    .filter((leg) => leg.amountMicros !== 0)
    .map((leg) => ({
      transfer_id: transferId,
      account_id: leg.accountId,
      amount_micros: leg.amountMicros,
      kind: input.kind,
      reference: input.reference ?? null,
      memo: input.memo ?? null,
      created_at: input.nowMs,
    }));
}

/** Appends one balanced transfer and moves the balances with it. Returns the transfer id. */
export async function postTransfer(trx: Transaction<Database>, input: TransferInput): Promise<string> {
  const transferId = randomUUID();
  const entries = entriesOf(input, transferId);
  if (entries.length === 0) return transferId;
  await trx.insertInto('ledger_entries').values(entries).execute();
  for (const entry of entries) {
    await trx
      .updateTable('billing_accounts')
      .set({ balance_micros: sql`balance_micros + ${entry.amount_micros}` })
      .where('id', '=', entry.account_id)
      .execute();
  }
  return transferId;
}

/**
 * Ledger rows of a batch that no guard reads: entries, and balance moves of system accounts (revenue). They are
 * written once per transaction (one multi-row insert, one update per account) just before commit, so group
 * commit does not pay per request for them. Customer balances, which guards read, are never deferred.
 */
export class DeferredPostings {
  private readonly entries: EntryRow[] = [];
  private readonly systemDeltas = new Map<number, number>();

  /** Records a balanced transfer whose non-deferred legs the caller already applied to their balances. */
  add(input: TransferInput, deferredAccountIds: number[]): void {
    for (const entry of entriesOf(input)) {
      this.entries.push(entry);
      if (deferredAccountIds.includes(entry.account_id))
        this.systemDeltas.set(entry.account_id, (this.systemDeltas.get(entry.account_id) ?? 0) + entry.amount_micros);
    }
  }

  async flush(trx: Transaction<Database>): Promise<void> {
    if (this.entries.length === 0) return;
    for (let start = 0; start < this.entries.length; start += 500) {
      await trx
        .insertInto('ledger_entries')
        .values(this.entries.slice(start, start + 500))
        .execute();
    }
    for (const [id, delta] of this.systemDeltas) {
      if (delta !== 0)
        await trx
          .updateTable('billing_accounts')
          .set({ balance_micros: sql`balance_micros + ${delta}` })
          .where('id', '=', id)
          .execute();
    }
    this.entries.length = 0;
    this.systemDeltas.clear();
  }
}
