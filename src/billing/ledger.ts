/**
 * The double-entry ledger. Every movement of money is a transfer: entries on two or more accounts summing to
 * zero, appended and never edited (a correction is a new transfer). Each account carries its balance, updated
 * in the same transaction as its entries, so balance = Σ entries always holds.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { AppError } from '../kernel/errors.js';
import type { Database } from '../storage/schema.js';
import type { BillingAccountKind } from '../storage/tables/billing.js';

type Executor = Kysely<Database> | Transaction<Database>;

export const SYSTEM_ACCOUNTS = ['top_ups', 'promotions', 'revenue', 'refunds', 'adjustments'] as const;
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];
export type WalletKind = 'token' | 'cash';

export const walletCode = (customerId: number, wallet: WalletKind): string => `customer:${customerId}:${wallet}`;
export const systemCode = (name: SystemAccount): string => `system:${name}`;

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

/** Creates any missing system accounts (idempotent; safe with several nodes starting at once). */
export async function ensureSystemAccounts(db: Executor, nowMs: number): Promise<void> {
  for (const name of SYSTEM_ACCOUNTS) {
    await db
      .insertInto('billing_accounts')
      .values({ code: systemCode(name), customer_id: null, kind: 'system', balance_micros: 0, held_micros: 0, created_at: nowMs })
      .onConflict((conflict) => conflict.column('code').doNothing())
      .execute();
  }
}

/** The customer's token and cash wallets at zero; called inside the customer-creation transaction. */
export async function createWallets(trx: Executor, customerId: number, nowMs: number): Promise<void> {
  const rows: { code: string; kind: BillingAccountKind }[] = [
    { code: walletCode(customerId, 'token'), kind: 'token_wallet' },
    { code: walletCode(customerId, 'cash'), kind: 'cash_wallet' },
  ];
  for (const row of rows) {
    await trx
      .insertInto('billing_accounts')
      .values({ ...row, customer_id: customerId, balance_micros: 0, held_micros: 0, created_at: nowMs })
      .onConflict((conflict) => conflict.column('code').doNothing())
      .execute();
  }
}

export async function accountId(db: Executor, code: string): Promise<number> {
  const row = await db.selectFrom('billing_accounts').select('id').where('code', '=', code).executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND', 'Wallet not found');
  return row.id;
}

/** Appends one balanced transfer and moves the balances with it. Returns the transfer id. */
export async function postTransfer(trx: Transaction<Database>, input: TransferInput): Promise<string> {
  const total = input.legs.reduce((sum, leg) => sum + leg.amountMicros, 0);
  if (total !== 0) throw new Error(`unbalanced transfer (${total})`);
  for (const leg of input.legs) {
    if (!Number.isSafeInteger(leg.amountMicros)) throw new RangeError('ledger amounts are integer micro-USD');
  }
  const transferId = randomUUID();
  const legs = input.legs.filter((leg) => leg.amountMicros !== 0);
  if (legs.length === 0) return transferId;
  await trx
    .insertInto('ledger_entries')
    .values(
      legs.map((leg) => ({
        transfer_id: transferId,
        account_id: leg.accountId,
        amount_micros: leg.amountMicros,
        kind: input.kind,
        reference: input.reference ?? null,
        memo: input.memo ?? null,
        created_at: input.nowMs,
      })),
    )
    .execute();
  for (const leg of legs) {
    await trx
      .updateTable('billing_accounts')
      .set({ balance_micros: sql`balance_micros + ${leg.amountMicros}` })
      .where('id', '=', leg.accountId)
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
  private readonly entries: {
    transfer_id: string;
    account_id: number;
    amount_micros: number;
    kind: string;
    reference: string | null;
    memo: string | null;
    created_at: number;
  }[] = [];
  private readonly systemDeltas = new Map<number, number>();

  /** Records a balanced transfer whose non-deferred legs the caller already applied to their balances. */
  add(input: TransferInput, deferredAccountIds: number[]): void {
    const total = input.legs.reduce((sum, leg) => sum + leg.amountMicros, 0);
    if (total !== 0) throw new Error(`unbalanced transfer (${total})`);
    const transferId = randomUUID();
    for (const leg of input.legs) {
      if (leg.amountMicros === 0) continue;
      this.entries.push({
        transfer_id: transferId,
        account_id: leg.accountId,
        amount_micros: leg.amountMicros,
        kind: input.kind,
        reference: input.reference ?? null,
        memo: input.memo ?? null,
        created_at: input.nowMs,
      });
      if (deferredAccountIds.includes(leg.accountId))
        this.systemDeltas.set(leg.accountId, (this.systemDeltas.get(leg.accountId) ?? 0) + leg.amountMicros);
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

export interface LedgerCheck {
  /** Accounts whose balance differs from the sum of their entries. */
  mismatchedAccounts: { code: string; balanceMicros: number; entriesMicros: number }[];
  /** Transfers whose entries do not sum to zero. */
  unbalancedTransfers: string[];
  /** Accounts whose held amount is negative or differs from the sum of their open holds. */
  badHolds: { code: string; heldMicros: number; openHoldsMicros: number }[];
}

/** The ledger invariants; every list empty means the ledger is consistent. */
export async function checkLedger(db: Executor): Promise<LedgerCheck> {
  const accounts = await db.selectFrom('billing_accounts').select(['id', 'code', 'balance_micros', 'held_micros']).execute();
  const entrySums = await db
    .selectFrom('ledger_entries')
    .select(['account_id', (eb) => eb.fn.sum<number>('amount_micros').as('total')])
    .groupBy('account_id')
    .execute();
  const holdSums = await db
    .selectFrom('billing_calls')
    .select(['account_id', (eb) => eb.fn.sum<number>('hold_micros').as('total')])
    .where('status', '=', 'open')
    .groupBy('account_id')
    .execute();
  const unbalanced = await db
    .selectFrom('ledger_entries')
    .select('transfer_id')
    .groupBy('transfer_id')
    .having((eb) => eb.fn.sum('amount_micros'), '!=', 0)
    .execute();
  const entries = new Map(entrySums.map((row) => [Number(row.account_id), Number(row.total)]));
  const holds = new Map(holdSums.map((row) => [Number(row.account_id), Number(row.total)]));
  return {
    mismatchedAccounts: accounts
      .filter((row) => (entries.get(row.id) ?? 0) !== Number(row.balance_micros))
      .map((row) => ({ code: row.code, balanceMicros: Number(row.balance_micros), entriesMicros: entries.get(row.id) ?? 0 })),
    unbalancedTransfers: unbalanced.map((row) => row.transfer_id),
    badHolds: accounts
      .filter((row) => Number(row.held_micros) < 0 || Number(row.held_micros) !== (holds.get(row.id) ?? 0))
      .map((row) => ({ code: row.code, heldMicros: Number(row.held_micros), openHoldsMicros: holds.get(row.id) ?? 0 })),
  };
}
