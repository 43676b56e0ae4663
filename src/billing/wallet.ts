/**
 * Wallet operations on the ledger: the guarded hold, the exactly-once settlement, the release of holds left
 * by a crash, credits and corrections. Holds and settlements go through the writer queue (group commit).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { assertMicros } from '../kernel/assert.js';
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import { moneyJson } from '../kernel/money.js';
import { costOf, ratesOf, worstCaseMicros, type CardRates } from './cost.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { KeyPolicy } from '../accounts/principal.js';
import { placeHold } from './hold-transaction.js';
import { needsSpareCredit, settlementOf } from './settlement-rule.js';
import { spendingLimitReached } from './policy.js';
import type { BilledCallStatus } from '../storage/tables/billing.js';
import { accountId, postTransfer, systemCode, walletCode, type DeferredPostings, type SystemAccount, type WalletKind } from './ledger.js';
import type { ResolvedCard } from './rate-cards.js';
import type { SettlementJournal, UsageCounts } from './settlement-journal.js';
import type { SqliteLedgerWorker } from './sqlite-ledger-worker.js';
import { CALL_COLUMNS } from '../storage/sqlite-ledger-statements.js';
import type { WriterQueue } from './writer-queue.js';

export interface HoldRequest {
  customerId: number;
  keyId: number | null;
  requestId: string;
  model: string;
  requestedModel: string;
  operation: string;
  surface: string;
  card: ResolvedCard;
  estimatedInputTokens: number;
  maxOutputTokens: number;
  /** Unlimited plan covering the call: the row records usage but holds nothing. */
  coveredPlan: string | null;
  /** The key's spending limit, checked again inside the hold's transaction across processes. */
  spendingLimit?: { limitMicros: number; sinceMs: number; period: KeyPolicy['spendingPeriod'] };
}

export type { UsageCounts };

export interface Settlement {
  costMicros: number;
  covered: boolean;
  alreadySettled: boolean;
}

/** What the hold recorded; settlement uses exactly these rates and this hold. */
export interface HeldCall {
  callId: number;
  accountId: number;
  requestId: string;
  holdMicros: number;
  covered: boolean;
  rates: CardRates;
}

export class Wallet {
  private readonly accountIds = new Map<string, number>();
  /** Settlements accepted and not committed yet (read-your-writes for wallet reads, and shutdown). */
  private readonly settling = new Set<Promise<unknown>>();
  /**
   * Awaited by every settlement after its journal line and before its write: lets a test hold settlements back
   * to show that answers do not wait for them. Null in service.
   */
  settlementGate: (() => Promise<void>) | null = null;

  private readonly db: Kysely<Database>;

  constructor(
    private readonly storage: Storage,
    private readonly writer: WriterQueue,
    private readonly clock: Clock,
    readonly nodeId: string,
    /** SQLite: holds and settlements go to the group-commit worker thread. */
    private readonly sqliteWorker?: SqliteLedgerWorker,
    /** Where settlements are journaled before the answer's end (settled from it if this process dies first). */
    private readonly journal?: SettlementJournal,
  ) {
    this.db = storage.db;
  }

  async accountOf(code: string): Promise<number> {
    const cached = this.accountIds.get(code);
    if (cached !== undefined) return cached;
    const id = await accountId(this.db, code);
    this.accountIds.set(code, id);
    return id;
  }

  walletAccount(customerId: number, wallet: WalletKind = 'token'): Promise<number> {
    return this.accountOf(walletCode(customerId, wallet));
  }

  /**
   * Places the worst-case hold in one guarded statement (held grows only while balance − held covers it) and
   * records the call. 402 when the available balance is short. Returns the call id and the hold.
   */
  async hold(request: HoldRequest): Promise<HeldCall> {
    const account = await this.walletAccount(request.customerId);
    const rates = ratesOf(request.card);
    const holdMicros = request.coveredPlan ? 0 : worstCaseMicros(rates, request.estimatedInputTokens, request.maxOutputTokens);
    assertMicros(holdMicros, 'holdMicros');
    const call = {
      customer_id: request.customerId,
      account_id: account,
      key_id: request.keyId,
      request_id: request.requestId,
      node_id: this.nodeId,
      model: request.model,
      requested_model: request.requestedModel,
      operation: request.operation,
      surface: request.surface,
      rate_card: request.card.name,
      ...rates,
      estimated_input_tokens: request.estimatedInputTokens,
      max_output_tokens: request.maxOutputTokens,
      hold_micros: holdMicros,
      covered_plan: request.coveredPlan,
      status: 'open' as const,
      created_at: this.clock.nowMs(),
    };
    const placed = this.sqliteWorker
      ? await this.sqliteWorker.run({ kind: 'hold', accountId: account, holdMicros, call: CALL_COLUMNS.map((column) => call[column]) })
      : await this.writer.run((trx) =>
          placeHold(this.storage, trx, {
            accountId: account,
            holdMicros,
            call,
            spendingLimit: request.spendingLimit && request.keyId !== null ? { keyId: request.keyId, ...request.spendingLimit } : undefined,
          }),
        );
    if (placed !== null && typeof placed === 'object') throw spendingLimitReached(request.spendingLimit!, placed.spentMicros);
    if (placed === null) {
      throw new AppError('INSUFFICIENT_CREDIT', 'Insufficient wallet credit for this request', {
        details: { limit_source: 'wallet', required: moneyJson(holdMicros) },
      });
    }
    return {
      callId: placed,
      accountId: account,
      requestId: request.requestId,
      holdMicros,
      covered: request.coveredPlan !== null,
      rates,
    };
  }

  /**
   * Settles a call exactly once with the rates recorded on its hold; a second settle changes nothing. A call whose
   * hold was released before it settled is still charged its cost, from what the wallet has.
   */
  settle(held: HeldCall, usage: UsageCounts, outcome: string): Promise<Settlement> {
    const nowMs = this.clock.nowMs();
    // Journaled synchronously, before the caller writes the answer's end: the commit itself comes later.
    this.journal?.record({ callId: held.callId, usage, outcome, nowMs });
    const settling = this.settleJournaled(held, usage, outcome, nowMs);
    this.settling.add(settling);
    void settling
      .catch(() => undefined)
      .finally(() => {
        this.settling.delete(settling);
        this.journal?.done();
      });
    return settling;
  }

  /**
   * Resolves once every settlement accepted so far has committed (or failed). Later ones are not waited for, so a
   * read on a busy node waits for at most the group commits already under way, never for a stream of new calls.
   */
  async settled(): Promise<void> {
    if (this.settling.size > 0) await Promise.allSettled([...this.settling]);
  }

  /** Resolves once no settlement is pending, including those accepted while waiting (shutdown). */
  async drained(): Promise<void> {
    while (this.settling.size > 0) await Promise.allSettled([...this.settling]);
  }

  private async settleJournaled(held: HeldCall, usage: UsageCounts, outcome: string, nowMs: number): Promise<Settlement> {
    if (this.settlementGate) await this.settlementGate();
    const revenue = await this.accountOf(systemCode('revenue'));
    if (this.sqliteWorker) {
      const collected = await this.sqliteWorker.run({
        kind: 'settle',
        callId: held.callId,
        accountId: held.accountId,
        revenueAccountId: revenue,
        holdMicros: held.holdMicros,
        fullCostMicros: held.covered ? 0 : costOf(usage, held.rates),
        usage,
        outcome,
        requestId: held.requestId,
        nowMs,
      });
      return { costMicros: collected ?? 0, covered: held.covered, alreadySettled: collected === null };
    }
    return this.writer.run((trx, postings) => this.settleIn(trx, postings, held, usage, outcome, revenue, nowMs));
  }

  /**
   * Settles the journaled calls of gone processes from their journal lines and the rates and hold recorded on
   * each call's row (calls already settled change nothing). Returns how many were charged.
   */
  async settleFromJournal(nodeIds: string[]): Promise<number> {
    if (!this.journal || nodeIds.length === 0) return 0;
    const journals = this.journal.read(nodeIds);
    let settled = 0;
    for (const entries of journals.values()) {
      for (const entry of entries) {
        const row = await this.db
          .selectFrom('billing_calls')
          .selectAll()
          .where('id', '=', entry.callId)
          .where('status', 'in', ['open', 'released'])
          .executeTakeFirst();
        if (!row) continue;
        const held: HeldCall = {
          callId: row.id,
          accountId: row.account_id,
          requestId: row.request_id,
          holdMicros: Number(row.hold_micros),
          covered: row.covered_plan !== null,
          rates: {
            input_micros_per_million: Number(row.input_micros_per_million),
            output_micros_per_million: Number(row.output_micros_per_million),
            cached_input_micros_per_million: Number(row.cached_input_micros_per_million),
            cache_write_micros_per_million: Number(row.cache_write_micros_per_million),
            cache_write_1h_micros_per_million: Number(row.cache_write_1h_micros_per_million),
          },
        };
        const outcome = await this.settleJournaled(held, entry.usage, entry.outcome, entry.nowMs);
        if (!outcome.alreadySettled) settled += 1;
      }
    }
    this.journal.forget([...journals.keys()]);
    return settled;
  }

  private async settleIn(
    trx: Transaction<Database>,
    postings: DeferredPostings,
    held: HeldCall,
    usage: UsageCounts,
    outcome: string,
    revenue: number,
    nowMs: number,
  ): Promise<Settlement> {
    // Claims the call's row first (PostgreSQL row lock, taken before the account's as a release takes them). A
    // call released meanwhile (its process judged gone, or the age backstop) still owes what it used: its hold is
    // already off the wallet, so it settles as if it had held nothing. Only a settled call changes nothing.
    const claimed = await trx
      .updateTable('billing_calls')
      .set({ status: sql<BilledCallStatus>`status` })
      .where('id', '=', held.callId)
      .where('status', 'in', ['open', 'released'])
      .returning('status')
      .executeTakeFirst();
    if (!claimed) return { costMicros: 0, covered: held.covered, alreadySettled: true };
    const status = claimed.status === 'open' ? 'open' : 'released';
    const fullCostMicros = held.covered ? 0 : costOf(usage, held.rates);
    let spareMicros: number | undefined;
    if (needsSpareCredit({ status, holdMicros: held.holdMicros, fullCostMicros })) {
      // Usage above the hold collects only what the wallet still has beyond other holds. A no-op update first
      // takes the account's row lock (PostgreSQL), so two such settlements cannot both count the same spare
      // credit; on SQLite the transaction already holds the write lock.
      await trx
        .updateTable('billing_accounts')
        .set({ held_micros: sql`held_micros` })
        .where('id', '=', held.accountId)
        .execute();
      const account = await trx
        .selectFrom('billing_accounts')
        .select(['balance_micros', 'held_micros'])
        .where('id', '=', held.accountId)
        .executeTakeFirstOrThrow();
      spareMicros = Number(account.balance_micros) - Number(account.held_micros);
    }
    const {
      releasedHoldMicros: holdMicros,
      collectedMicros: costMicros,
      uncollectedMicros,
    } = settlementOf({
      status,
      holdMicros: held.holdMicros,
      fullCostMicros,
      spareMicros,
    });
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
        cost_micros: costMicros,
        uncollected_micros: uncollectedMicros,
        outcome,
        settled_at: nowMs,
      })
      .where('id', '=', held.callId)
      .execute();
    if (holdMicros > 0 || costMicros > 0) {
      await trx
        .updateTable('billing_accounts')
        .set({ held_micros: sql`held_micros - ${holdMicros}`, balance_micros: sql`balance_micros - ${costMicros}` })
        .where('id', '=', held.accountId)
        .execute();
    }
    if (costMicros > 0) {
      postings.add(
        {
          kind: 'usage',
          reference: `call:${held.callId}`,
          memo: held.requestId,
          nowMs,
          legs: [
            { accountId: held.accountId, amountMicros: -costMicros },
            { accountId: revenue, amountMicros: costMicros },
          ],
        },
        [revenue],
      );
    }
    return { costMicros, covered: held.covered, alreadySettled: false };
  }

  /**
   * Releases open holds without charging: those placed by `nodeIds` (processes that are gone) or those older
   * than `olderThanMs` (last resort against a call that never settles), with `unregistered` only those of
   * processes no longer in the registry. Returns how many were released.
   */
  async releaseOpen(filter: { nodeIds?: string[]; olderThanMs?: number; unregistered?: boolean }): Promise<number> {
    let query = this.db.selectFrom('billing_calls').select('id').where('status', '=', 'open');
    if (filter.nodeIds !== undefined) {
      if (filter.nodeIds.length === 0) return 0;
      query = query.where('node_id', 'in', filter.nodeIds);
    } else {
      query = query.where('created_at', '<', filter.olderThanMs ?? 0);
      if (filter.unregistered) query = query.where('node_id', 'not in', (eb) => eb.selectFrom('billing_nodes').select('node_id'));
    }
    const open = await query.execute();
    let released = 0;
    for (const { id } of open) {
      const done = await this.writer.run(async (trx) => {
        const call = await trx
          .selectFrom('billing_calls')
          .select(['account_id', 'hold_micros'])
          .where('id', '=', id)
          .where('status', '=', 'open')
          .executeTakeFirst();
        if (!call) return false;
        const closed = await trx
          .updateTable('billing_calls')
          .set({ status: 'released', outcome: 'expired', cost_micros: 0, settled_at: this.clock.nowMs() })
          .where('id', '=', id)
          .where('status', '=', 'open')
          .executeTakeFirst();
        // Settled or released by another transaction since the read (PostgreSQL re-checks the row after its
        // lock): that one already took the hold off the wallet, so this one must not take it off again.
        if (Number(closed.numUpdatedRows) !== 1) return false;
        assertMicros(Number(call.hold_micros), 'a released call’s hold_micros');
        await trx
          .updateTable('billing_accounts')
          .set({ held_micros: sql`held_micros - ${call.hold_micros}` })
          .where('id', '=', call.account_id)
          .execute();
        return true;
      });
      if (done) released += 1;
    }
    return released;
  }

  /** Moves credit between a customer wallet and a system account (positive = credit to the customer). */
  async creditIn(
    trx: Transaction<Database>,
    input: {
      customerId: number;
      wallet?: WalletKind;
      amountMicros: number;
      system: SystemAccount;
      kind: string;
      memo?: string | null;
      reference?: string | null;
    },
  ): Promise<string> {
    const walletId = await accountId(trx, walletCode(input.customerId, input.wallet ?? 'token'));
    const systemId = await accountId(trx, systemCode(input.system));
    if (input.amountMicros < 0) {
      // A debit correction may not take the wallet below its open holds.
      const guarded = await trx
        .updateTable('billing_accounts')
        .set({ balance_micros: sql`balance_micros` })
        .where('id', '=', walletId)
        .where(sql<boolean>`balance_micros - held_micros >= ${-input.amountMicros}`)
        .executeTakeFirst();
      if (Number(guarded.numUpdatedRows) !== 1)
        throw new AppError('INSUFFICIENT_CREDIT', 'The wallet does not hold enough available credit for this debit');
    }
    return postTransfer(trx, {
      kind: input.kind,
      memo: input.memo ?? null,
      reference: input.reference ?? null,
      nowMs: this.clock.nowMs(),
      legs: [
        { accountId: walletId, amountMicros: input.amountMicros },
        { accountId: systemId, amountMicros: -input.amountMicros },
      ],
    });
  }

  async balances(customerId: number): Promise<{ token: { balance: number; held: number }; cash: { balance: number; held: number } }> {
    // Answers do not wait for their settlement; a balance read in this process does (at most one group commit).
    await this.settled();
    const rows = await this.db
      .selectFrom('billing_accounts')
      .select(['code', 'balance_micros', 'held_micros'])
      .where('code', 'in', [walletCode(customerId, 'token'), walletCode(customerId, 'cash')])
      .execute();
    const find = (wallet: WalletKind) => {
      const row = rows.find((candidate) => candidate.code === walletCode(customerId, wallet));
      return { balance: Number(row?.balance_micros ?? 0), held: Number(row?.held_micros ?? 0) };
    };
    return { token: find('token'), cash: find('cash') };
  }
}
