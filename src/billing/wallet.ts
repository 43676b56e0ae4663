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
import { spendingLimitReached } from './policy.js';
import { accountId, postTransfer, systemCode, walletCode, type SystemAccount, type WalletKind } from './ledger.js';
import type { ResolvedCard } from './rate-cards.js';
import type { SettlementJournal, UsageCounts } from './settlement-journal.js';
import type { HoldOutcome, LedgerStore } from '../storage/ledger-store/ledger-store.js';
import type { WriterQueue } from '../storage/ledger-store/writer-queue.js';

export interface HoldRequest {
  customerId: number;
  keyId: number | null;
  requestId: string;
  /** The client's own request id (null when none). */
  clientRequestId?: string | null;
  model: string;
  requestedModel: string;
  operation: string;
  surface: string;
  card: ResolvedCard;
  estimatedInputTokens: number;
  maxOutputTokens: number;
  /** Unlimited plan covering the call: the row records usage but holds nothing. */
  coveredPlan: string | null;
  /** The agent turn the call belongs to (see accounts/turn-principals.ts); absent for a call with a customer's key. */
  agentTurn?: { threadId: string; turnId: string | null };
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
  /** The call's row; 0 while an early hold (`committed`) has not committed yet. */
  callId: number;
  /**
   * Set on an early hold: the call may start while its hold commits; this settles once it has (`callId` is then
   * set) and rejects with the refusal (402, or the store's error) otherwise. Nothing of the answer may leave before.
   */
  committed?: Promise<void>;
  accountId: number;
  requestId: string;
  holdMicros: number;
  covered: boolean;
  rates: CardRates;
}

/** A wallet account's spare credit (balance − held) as the last hold on it saw it at its commit. */
interface CreditView {
  spareMicros: number;
  atMs: number;
  /** Early holds on the account not committed yet (not in `spareMicros`). */
  pendingMicros: number;
}

/** Credit views kept before the idle ones are dropped (a view is a few numbers; a dropped one is rebuilt by a hold). */
const MAX_CREDIT_VIEWS = 100_000;

const REVENUE = systemCode('revenue');

export interface WalletOptions {
  /**
   * How long the spare credit a hold's commit reported is trusted to start the next call on the account before its
   * own hold has committed (the upstream request then overlaps the commit; the answer still waits for it). 0: every
   * call waits for its hold's commit.
   */
  earlyHoldTrustMs: number;
}

export class Wallet {
  private readonly accountIds = new Map<string, number>();
  private readonly credit = new Map<number, CreditView>();
  /** Settlements accepted and not committed yet (read-your-writes for wallet reads, and shutdown). */
  private readonly settling = new Set<Promise<unknown>>();
  /**
   * Awaited by every settlement after its journal line and before its write: lets a test hold settlements back
   * to show that answers do not wait for them. Null in service.
   */
  settlementGate: (() => Promise<void>) | null = null;

  private readonly db: Kysely<Database>;

  constructor(
    storage: Storage,
    /** Releases and sweeps (main connection). */
    private readonly writer: WriterQueue,
    private readonly clock: Clock,
    readonly nodeId: string,
    /** Where holds and settlements are written (the Kysely store, or the SQLite ledger thread). */
    readonly store: LedgerStore,
    /** Where settlements are journaled before the answer's end (settled from it if this process dies first). */
    private readonly journal?: SettlementJournal,
    private readonly options: WalletOptions = { earlyHoldTrustMs: 0 },
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
    // Looked up before any settlement needs it, so settle() hands its call to the store at once (settleJournaled).
    if (!this.accountIds.has(REVENUE)) await this.accountOf(REVENUE);
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
      thread_id: request.agentTurn?.threadId ?? null,
      turn_id: request.agentTurn?.turnId ?? null,
      created_at: this.clock.nowMs(),
      client_request_id: request.clientRequestId ?? null,
    };
    const spendingLimit = request.spendingLimit && request.keyId !== null ? { keyId: request.keyId, ...request.spendingLimit } : undefined;
    // A limited key's hold always waits: its limit counts open holds, which an early one is not yet.
    const early = spendingLimit === undefined && this.mayStartEarly(account, holdMicros);
    const placing = this.store.placeHold({ accountId: account, holdMicros, call, spendingLimit });
    const held: HeldCall = {
      callId: 0,
      accountId: account,
      requestId: request.requestId,
      holdMicros,
      covered: request.coveredPlan !== null,
      rates,
    };
    if (!early) {
      held.callId = this.placed(account, holdMicros, await placing, request.spendingLimit);
      return held;
    }
    // The view counted against; it stays in the map once made (a refusal only marks it stale), so this is it.
    const view = this.credit.get(account)!;
    view.pendingMicros += holdMicros;
    held.committed = placing.then(
      (placed) => {
        view.pendingMicros -= holdMicros;
        held.callId = this.placed(account, holdMicros, placed, request.spendingLimit);
        // Committed: the settlement journals synchronously again, before the answer's end (settle()).
        held.committed = undefined;
      },
      (error: unknown) => {
        view.pendingMicros -= holdMicros;
        throw error;
      },
    );
    return held;
  }

  /** Whether the account's last known spare credit, less the early holds still committing, covers this hold. */
  private mayStartEarly(account: number, holdMicros: number): boolean {
    if (this.options.earlyHoldTrustMs <= 0) return false;
    const view = this.credit.get(account);
    if (!view || this.clock.nowMs() - view.atMs > this.options.earlyHoldTrustMs) return false;
    return view.spareMicros - view.pendingMicros >= holdMicros;
  }

  /** The committed hold's call id; a refusal as its error. Every answer refreshes the account's credit view. */
  private placed(account: number, holdMicros: number, placed: HoldOutcome, limit: HoldRequest['spendingLimit']): number {
    if (placed.kind === 'limit') throw spendingLimitReached(limit!, placed.spentMicros);
    if (placed.kind === 'short') {
      // What this hold found is less than the view said: start no call early until a hold commits again (the view
      // stays, stale, so the early holds still committing keep their count in it).
      const stale = this.credit.get(account);
      if (stale) stale.atMs = Number.NEGATIVE_INFINITY;
      throw new AppError('INSUFFICIENT_CREDIT', 'Insufficient wallet credit for this request', {
        details: { limit_source: 'wallet', required: moneyJson(holdMicros) },
      });
    }
    if (placed.spareMicros !== undefined && this.options.earlyHoldTrustMs > 0) {
      const view = this.credit.get(account);
      if (view) {
        view.spareMicros = placed.spareMicros;
        view.atMs = this.clock.nowMs();
      } else {
        // One view per account that called lately: past a bound, those with nothing committing are forgotten.
        if (this.credit.size >= MAX_CREDIT_VIEWS) for (const [id, old] of this.credit) if (old.pendingMicros === 0) this.credit.delete(id);
        this.credit.set(account, { spareMicros: placed.spareMicros, atMs: this.clock.nowMs(), pendingMicros: 0 });
      }
    }
    return placed.callId;
  }

  /**
   * Settles a call exactly once with the rates recorded on its hold; a second settle changes nothing. A call whose
   * hold was released before it settled is still charged its cost, from what the wallet has.
   */
  settle(held: HeldCall, usage: UsageCounts, outcome: string): Promise<Settlement> {
    if (held.committed) return this.settleAfterCommit(held, held.committed, usage, outcome);
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

  /** An early hold settles once committed; a refused one held nothing and was never answered, so nothing is owed. */
  private settleAfterCommit(held: HeldCall, committed: Promise<void>, usage: UsageCounts, outcome: string): Promise<Settlement> {
    const settling = committed.then(
      () => this.settle({ ...held, committed: undefined }, usage, outcome),
      () => ({ costMicros: 0, covered: held.covered, alreadySettled: false }),
    );
    this.settling.add(settling);
    void settling.finally(() => this.settling.delete(settling));
    return settling;
  }

  /**
   * Resolves once every settlement accepted so far has committed (or failed). Later ones are not waited for, so a
   * read on a busy node waits for at most the group commits already under way, never for a stream of new calls.
   */
  async settled(): Promise<void> {
    if (this.settling.size === 0) return;
    this.store.flush();
    await Promise.allSettled([...this.settling]);
  }

  /** Resolves once no settlement is pending, including those accepted while waiting (shutdown). */
  async drained(): Promise<void> {
    while (this.settling.size > 0) {
      this.store.flush();
      await Promise.allSettled([...this.settling]);
    }
  }

  /**
   * Hands the settlement to the store in the same turn as settle() was called, so a hold asked for after it is
   * written after it (a hold must see the credit a settled call took). The revenue account's id is known by then:
   * the call's hold looked it up.
   */
  private settleJournaled(held: HeldCall, usage: UsageCounts, outcome: string, nowMs: number): Promise<Settlement> {
    const revenue = this.accountIds.get(REVENUE);
    if (this.settlementGate || revenue === undefined) {
      const gate = this.settlementGate;
      return (async () => {
        if (gate) await gate();
        return this.settleWith(await this.accountOf(REVENUE), held, usage, outcome, nowMs);
      })();
    }
    return this.settleWith(revenue, held, usage, outcome, nowMs);
  }

  private async settleWith(revenue: number, held: HeldCall, usage: UsageCounts, outcome: string, nowMs: number): Promise<Settlement> {
    const collected = await this.store.settleCall({
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

  /**
   * Settles the journaled calls of gone processes from their journal lines and the rates and hold recorded on
   * each call's row (calls already settled change nothing). Returns how many were charged.
   */
  async settleFromJournal(nodeIds: string[]): Promise<number> {
    if (!this.journal || nodeIds.length === 0) return 0;
    const journals = this.journal.read(nodeIds);
    const settling: Promise<Settlement>[] = [];
    for (const entries of journals.values()) {
      for (const entry of entries) {
        const held = await this.heldCallOf(entry.callId);
        if (held) settling.push(this.settleJournaled(held, entry.usage, entry.outcome, entry.nowMs));
      }
    }
    // One group for all of them, sent at once rather than after the store's window.
    this.store.flush();
    const settled = (await Promise.all(settling)).filter((outcome) => !outcome.alreadySettled).length;
    this.journal.forget([...journals.keys()]);
    return settled;
  }

  /** The hold recorded on an unsettled call's row, as the settlement needs it; undefined once settled. */
  private async heldCallOf(callId: number): Promise<HeldCall | undefined> {
    const row = await this.db
      .selectFrom('billing_calls')
      .selectAll()
      .where('id', '=', callId)
      .where('status', 'in', ['open', 'released'])
      .executeTakeFirst();
    if (!row) return undefined;
    return {
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
