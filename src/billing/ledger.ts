/**
 * The double-entry ledger. Every movement of money is a transfer: entries on two or more accounts summing to
 * zero, appended and never edited (a correction is a new transfer). Each account carries its balance, updated
 * in the same transaction as its entries, so balance = Σ entries always holds.
 */
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../kernel/errors.js';
import type { Database } from '../storage/schema.js';
import type { BillingAccountKind } from '../storage/tables/billing.js';

export { checkTransfer, DeferredPostings, postTransfer, type TransferInput, type TransferLeg } from '../storage/ledger-store/transfer.js';

type Executor = Kysely<Database> | Transaction<Database>;

export const SYSTEM_ACCOUNTS = ['top_ups', 'promotions', 'revenue', 'refunds', 'adjustments'] as const;
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];
export type WalletKind = 'token' | 'cash';

export const walletCode = (customerId: number, wallet: WalletKind): string => `customer:${customerId}:${wallet}`;
export const systemCode = (name: SystemAccount): string => `system:${name}`;

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

export interface LedgerCheck {
  /** Accounts whose balance differs from the sum of their entries. */
  mismatchedAccounts: { code: string; balanceMicros: number; entriesMicros: number }[];
  /** Transfers whose entries do not sum to zero. */
  unbalancedTransfers: string[];
  /** Accounts whose held amount is negative or differs from the sum of their open holds and credit reservations. */
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
  const reservationSums = await db
    .selectFrom('billing_reservations')
    .select(['account_id', (eb) => eb.fn.sum<number>('held_micros').as('total')])
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
  // A credit reservation is held on its wallet like an open call's hold (billing/reservations.ts).
  for (const row of reservationSums) holds.set(Number(row.account_id), (holds.get(Number(row.account_id)) ?? 0) + Number(row.total));
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
