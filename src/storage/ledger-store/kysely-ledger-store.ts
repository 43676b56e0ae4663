/**
 * The ledger store on the main Kysely connection (PostgreSQL, or SQLite with group commit off), each operation one
 * transaction of the writer queue. A hold is the guarded UPDATE (held grows only while balance − held covers it)
 * and the call's row; for a key with a spending limit the transaction first takes the key's lock and checks the
 * key's spend inside it, so processes sharing the database see each other's holds and together admit no more than
 * the limit covers (billing's per-process serializer orders calls within one process; this orders them across
 * processes). A settlement claims the call's row, applies the settlement rule and appends the usage transfer.
 *
 * Within a process, a hold is applied after the settlements sent before it on the same account, as the SQLite stores'
 * single queue does: on PostgreSQL each operation is its own transaction, and a hold sent right after a settlement
 * would otherwise often commit first (its guarded update is its first statement), so it would not see the hold the
 * settlement releases (a needless 402) or the overage it collects (credit spent twice, the overage left uncollected).
 */
import { sql, type Transaction } from 'kysely';
import type { Storage } from '../database.js';
import type { Database } from '../schema.js';
import type { BilledCallStatus } from '../tables/billing.js';
import { keySpendMicros } from './key-spend.js';
import { usageTransfer, type HoldInput, type HoldOutcome, type LedgerStore, type SettleInput } from './ledger-store.js';
import { needsSpareCredit, settlementOf } from './settlement-rule.js';
import type { DeferredPostings } from './transfer.js';
import type { WriterQueue } from './writer-queue.js';

/** Lock scope of spending-limit checks (any constant unique among the service's advisory locks). */
const SPENDING_LIMIT_LOCK_SCOPE = 0x5350_4c4d;

export class KyselyLedgerStore implements LedgerStore {
  /** Per account, settlements sent and not yet committed (only when the writer lets operations overtake each other). */
  private readonly settling = new Map<number, Promise<unknown>>();

  constructor(
    private readonly storage: Storage,
    private readonly writer: WriterQueue,
  ) {}

  placeHold(hold: HoldInput): Promise<HoldOutcome> {
    const before = this.settling.get(hold.accountId);
    if (before === undefined) return this.writer.run((trx) => this.holdIn(trx, hold));
    return before.then(() => this.writer.run((trx) => this.holdIn(trx, hold)));
  }

  settleCall(settle: SettleInput): Promise<number | null> {
    const settled = this.writer.run((trx, postings) => settleIn(trx, postings, settle));
    if (!this.writer.inOrder) this.orderAfter(settle.accountId, settled);
    return settled;
  }

  /** Holds on `accountId` sent from now on wait until `settled` (and the account's earlier settlements) ended. */
  private orderAfter(accountId: number, settled: Promise<unknown>): void {
    const ended = settled.catch(() => undefined);
    const earlier = this.settling.get(accountId);
    const all = earlier === undefined ? ended : Promise.all([earlier, ended]);
    this.settling.set(accountId, all);
    void all.then(() => {
      if (this.settling.get(accountId) === all) this.settling.delete(accountId);
    });
  }

  flush(): void {
    // Every operation is queued for its transaction at once.
  }

  depth(): number {
    return this.writer.depth();
  }

  close(): Promise<void> {
    return this.writer.drain();
  }

  private async holdIn(trx: Transaction<Database>, hold: HoldInput): Promise<HoldOutcome> {
    if (hold.spendingLimit) {
      const { keyId, limitMicros, sinceMs } = hold.spendingLimit;
      await this.storage.lockInTransaction(trx, SPENDING_LIMIT_LOCK_SCOPE, keyId);
      const spentMicros = await keySpendMicros(trx, keyId, sinceMs);
      if (spentMicros >= limitMicros) return { kind: 'limit', spentMicros };
    }
    let spareMicros: number | undefined;
    if (hold.holdMicros > 0) {
      const guarded = await trx
        .updateTable('billing_accounts')
        .set({ held_micros: sql`held_micros + ${hold.holdMicros}` })
        .where('id', '=', hold.accountId)
        .where(sql<boolean>`balance_micros - held_micros >= ${hold.holdMicros}`)
        .returning(sql<number | string>`balance_micros - held_micros`.as('spare'))
        .executeTakeFirst();
      if (!guarded) return { kind: 'short' };
      spareMicros = Number(guarded.spare);
    }
    const row = await trx.insertInto('billing_calls').values(hold.call).returning('id').executeTakeFirstOrThrow();
    return spareMicros === undefined ? { kind: 'held', callId: row.id } : { kind: 'held', callId: row.id, spareMicros };
  }
}

/** The account's balance − held, read under its row lock (a no-op update takes it on PostgreSQL). */
async function spareCredit(trx: Transaction<Database>, accountId: number): Promise<number> {
  await trx
    .updateTable('billing_accounts')
    .set({ held_micros: sql`held_micros` })
    .where('id', '=', accountId)
    .execute();
  const account = await trx
    .selectFrom('billing_accounts')
    .select(['balance_micros', 'held_micros'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(account.balance_micros) - Number(account.held_micros);
}

async function settleIn(trx: Transaction<Database>, postings: DeferredPostings, settle: SettleInput): Promise<number | null> {
  // Claims the call's row first (PostgreSQL row lock, taken before the account's as a release takes them).
  const claimed = await trx
    .updateTable('billing_calls')
    .set({ status: sql<BilledCallStatus>`status` })
    .where('id', '=', settle.callId)
    .where('status', 'in', ['open', 'released'])
    .returning('status')
    .executeTakeFirst();
  if (!claimed) return null;
  const claim = {
    status: claimed.status === 'open' ? 'open' : 'released',
    holdMicros: settle.holdMicros,
    fullCostMicros: settle.fullCostMicros,
  } as const;
  // Usage above the hold collects only what the wallet still has beyond other holds, read under the account's lock.
  const spareMicros = needsSpareCredit(claim) ? await spareCredit(trx, settle.accountId) : undefined;
  const { releasedHoldMicros, collectedMicros, uncollectedMicros } = settlementOf({ ...claim, spareMicros });
  const { usage } = settle;
  await trx
    .updateTable('billing_calls')
    .set({
      status: 'settled',
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cached_input_tokens: usage.cachedInputTokens,
      cache_write_tokens: usage.cacheWriteTokens,
      cache_write_1h_tokens: usage.cacheWrite1hTokens,
      usage_source: usage.source,
      cost_micros: collectedMicros,
      uncollected_micros: uncollectedMicros,
      outcome: settle.outcome,
      settled_at: settle.nowMs,
    })
    .where('id', '=', settle.callId)
    .execute();
  if (releasedHoldMicros > 0 || collectedMicros > 0) {
    await trx
      .updateTable('billing_accounts')
      .set({ held_micros: sql`held_micros - ${releasedHoldMicros}`, balance_micros: sql`balance_micros - ${collectedMicros}` })
      .where('id', '=', settle.accountId)
      .execute();
  }
  if (collectedMicros > 0) postings.add(usageTransfer(settle, collectedMicros), [settle.revenueAccountId]);
  return collectedMicros;
}
