/**
 * Wallet operations on the ledger: the guarded hold, the exactly-once settlement, the release of holds left
 * by a crash, credits and corrections. Holds and settlements go through the writer queue (group commit).
 */
import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
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
import { isDraw, type JournalEntry, type JournalLine, type SettlementJournal, type UsageCounts } from './settlement-journal.js';
import type { HoldInput, HoldOutcome, LedgerStore } from '../storage/ledger-store/ledger-store.js';
import type { WriterQueue } from '../storage/ledger-store/writer-queue.js';
import type { BillingCallsTable } from '../storage/tables/billing.js';
import { ReservationBook, type ReservationOptions } from './reservations.js';

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
  /** Set on a call drawn from a credit reservation: its row, written with its settlement (reservations.ts). */
  reservedCall?: Insertable<BillingCallsTable>;
  /** How many releases of open holds this process had made when the call held (a later one may have released it). */
  releasesBefore?: number;
  /** The reservation book's generation the call drew in (`ReservationBook.generation`). */
  drawnIn?: number;
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
  /** Credit reservations, where the store offers them (absent or `maxMicros` 0: none). */
  reservations?: ReservationOptions;
  /** Told of a reservation operation that failed (logged; the calls hold on their own meanwhile). */
  onReservationError?: (error: unknown) => void;
}

/** Which open holds a release takes off their wallets (`keepReserved`: what a recovery keeps for journaled calls). */
export interface ReleaseFilter {
  nodeIds?: string[];
  olderThanMs?: number;
  unregistered?: boolean;
  /** Per `reservationKey`: what of a reservation stays. */
  keepReserved?: Map<string, number>;
}

const reservationKey = (nodeId: string, accountId: number): string => `${nodeId}:${accountId}`;

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
  private readonly book: ReservationBook | null;
  /** Releases of open holds made by this process (`HeldCall.releasesBefore`). */
  private releases = 0;
  /** Drawn calls whose settlement was sent (a call settled twice takes its hold off the reservation once). */
  private readonly drawsSettled = new WeakSet<HeldCall>();
  /** Drawn calls whose draw line's settlement was journaled (its line is done with once, with the first one). */
  private readonly drawLinesDone = new WeakSet<HeldCall>();

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
    const reservations = options.reservations;
    this.book =
      store.reservations && reservations && reservations.maxMicros > 0
        ? new ReservationBook(store.reservations, clock, nodeId, reservations, options.onReservationError ?? (() => undefined))
        : null;
  }

  /**
   * Gives back the credit this process reserved on the customer's token wallet and no call drew, inside a transaction
   * on the main connection that must find it available (a refund's claw-back, a debt's repayment; `creditIn` does
   * it for a debit): the ledger thread would wait behind that transaction, so the free part leaves the reservation's
   * row and the wallet's held amount here. Calls drawn from it keep their holds.
   */
  async giveBackReservedIn(trx: Transaction<Database>, customerId: number): Promise<void> {
    // Only the cache: a query on the main connection outside `trx` would wait behind it for good. A wallet with a
    // reservation has its id cached (its calls looked it up).
    const account = this.accountIds.get(walletCode(customerId, 'token'));
    if (account !== undefined) await this.releaseFreeIn(trx, account);
  }

  private async releaseFreeIn(trx: Transaction<Database>, account: number): Promise<void> {
    if (!this.book) return;
    const freeMicros = this.book.takeFree(account);
    if (freeMicros === 0) return;
    const taken = await trx
      .updateTable('billing_reservations')
      .set({ held_micros: sql`held_micros - ${freeMicros}`, updated_at: this.clock.nowMs() })
      .where('node_id', '=', this.nodeId)
      .where('account_id', '=', account)
      .where('held_micros', '>=', freeMicros)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) return;
    await trx
      .updateTable('billing_accounts')
      .set({ held_micros: sql`held_micros - ${freeMicros}` })
      .where('id', '=', account)
      .execute();
  }

  /** Credit reservations this process holds and the calls drawn from them (metrics). */
  reservationFigures(): { held: number; drawnCalls: number } {
    return this.book ? this.book.figures() : { held: 0, drawnCalls: 0 };
  }

  /** Stops the reservation book's timer (shutdown; the reservations are released with the process's holds). */
  closeReservations(): void {
    this.book?.close();
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
    const held: HeldCall = {
      callId: 0,
      accountId: account,
      requestId: request.requestId,
      holdMicros,
      covered: request.coveredPlan !== null,
      rates,
      releasesBefore: this.releases,
    };
    // A limited key's calls hold on their own: its limit counts open holds, which a drawn or early one is not yet.
    if (spendingLimit === undefined && !held.covered) {
      const drawnId = this.book?.draw(account, holdMicros) ?? null;
      if (drawnId !== null) {
        // Journaled with the next settlement: a crash leaves the reservation holding what this call drew.
        this.journal?.recordDraw({ drawn: { callId: drawnId, accountId: account, holdMicros } });
        return { ...held, callId: drawnId, reservedCall: call, drawnIn: this.book?.generation };
      }
    }
    const early = spendingLimit === undefined && this.mayStartEarly(account, holdMicros);
    const placing = this.placeHold({ accountId: account, holdMicros, call, spendingLimit });
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

  /**
   * The store's hold, handed over in this turn (after the settlements sent before it). Refused while this process's
   * reservation keeps credit free on the wallet: that credit goes back first, and the hold is tried once more. A
   * committed hold of a key without a limit counts toward the wallet's call rate (reservations.ts).
   */
  private async placeHold(input: HoldInput): Promise<HoldOutcome> {
    let outcome = await this.store.placeHold(input);
    if (outcome.kind === 'short' && this.book && (await this.book.giveBack(input.accountId))) outcome = await this.store.placeHold(input);
    if (outcome.kind === 'held' && input.spendingLimit === undefined)
      this.book?.heldAlone(input.accountId, input.holdMicros, outcome.spareMicros);
    return outcome;
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
    // Journaled synchronously, before the caller writes the answer's end: the commit itself comes later. A drawn
    // call's line carries its row, which does not exist yet.
    const reserved = held.reservedCall ? { nodeId: this.nodeId, call: held.reservedCall } : undefined;
    // A drawn call's draw line is done with once its first settlement is.
    const drawLine = reserved !== undefined && !this.drawLinesDone.has(held);
    if (reserved) this.drawLinesDone.add(held);
    this.journal?.record({ callId: held.callId, usage, outcome, nowMs, reserved });
    const settling = this.settleJournaled(held, usage, outcome, nowMs);
    this.settling.add(settling);
    void settling
      .catch(() => undefined)
      .finally(() => {
        this.settling.delete(settling);
        this.journal?.done();
        if (drawLine) this.journal?.done();
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

  /**
   * Resolves once no settlement is pending, including those accepted while waiting, then stops the reservation book
   * (shutdown: the process's reservations are released with its other holds).
   */
  async drained(): Promise<void> {
    while (this.settling.size > 0) {
      this.store.flush();
      await Promise.allSettled([...this.settling]);
    }
    this.closeReservations();
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
    const input = {
      callId: held.callId,
      accountId: held.accountId,
      revenueAccountId: revenue,
      holdMicros: held.holdMicros,
      fullCostMicros: held.covered ? 0 : costOf(usage, held.rates),
      usage,
      outcome,
      requestId: held.requestId,
      nowMs,
    };
    let settling: Promise<number | null>;
    // A cost above what the call holds is collected from spare credit: this process's reserved credit no call drew
    // is spare. A release since the call held may have taken its hold off the wallet.
    const holdLeft = held.releasesBefore === this.releases ? held.holdMicros : 0;
    if (input.fullCostMicros > holdLeft) this.book?.cutFree(held.accountId);
    if (held.reservedCall) {
      const reservations = this.store.reservations;
      if (!reservations) throw new Error('a call drawn from a credit reservation settles only through a store that has them');
      // The reservation of the process that drew the call (its row names it), unless this process's reservations were
      // released since it drew (the process that drew it and this one are one then).
      const drewIt = held.reservedCall.node_id;
      const stands = drewIt !== this.nodeId || held.drawnIn === this.book?.generation;
      settling = reservations.settleReserved({ ...input, nodeId: drewIt, call: held.reservedCall, reservationStands: stands });
      // The hold left the reservation with that operation (the first one: a second changes nothing); a growth it
      // calls for is sent after it.
      if (drewIt === this.nodeId && stands && !this.drawsSettled.has(held)) this.book?.settled(held.accountId, held.holdMicros);
      this.drawsSettled.add(held);
    } else settling = this.store.settleCall(input);
    const collected = await settling;
    return { costMicros: collected ?? 0, covered: held.covered, alreadySettled: collected === null };
  }

  /**
   * Settles the journaled calls of gone processes from their journal lines and the rates and hold recorded on
   * each call's row (calls already settled change nothing). Returns how many were charged.
   */
  async settleFromJournal(nodeIds: string[]): Promise<number> {
    if (!this.journal || nodeIds.length === 0) return 0;
    const journals = this.journal.read(nodeIds);
    for (const [nodeId, lines] of journals) await this.cutGoneReservations(nodeId, lines);
    const settling: Promise<Settlement>[] = [];
    // Looked up first, so every settlement below is handed to the store before the flush.
    const revenue = await this.accountOf(REVENUE);
    for (const lines of journals.values()) {
      for (const entry of lines) {
        if (isDraw(entry)) continue;
        if (entry.reserved) {
          settling.push(this.settleReservedEntry(entry, entry.reserved, revenue));
          continue;
        }
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

  /**
   * Before a gone process's journal settles: its reservations keep only what its drawn and unsettled calls hold (their
   * draw lines, less those whose rows exist), as its open calls keep their holds; the rest goes back now.
   */
  private async cutGoneReservations(nodeId: string, lines: JournalLine[]): Promise<void> {
    const draws = lines.filter(isDraw).map((line) => line.drawn);
    const written = new Set<number>();
    for (let start = 0; start < draws.length; start += 500) {
      const ids = draws.slice(start, start + 500).map((draw) => draw.callId);
      for (const row of await this.db.selectFrom('billing_calls').select('id').where('id', 'in', ids).execute())
        written.add(Number(row.id));
    }
    const keepReserved = new Map<string, number>();
    for (const draw of draws) {
      if (written.has(draw.callId)) continue;
      const key = reservationKey(nodeId, draw.accountId);
      keepReserved.set(key, (keepReserved.get(key) ?? 0) + draw.holdMicros);
    }
    await this.releaseReservations({ nodeIds: [nodeId], keepReserved });
  }

  /**
   * A gone process's call drawn from its reservation: its row and settlement from the journal line, its hold from
   * what is left of that reservation (released after this). Without a store that has reservations (the database
   * changed hands) it cannot be written here: nothing is charged, as for a call whose line is lost.
   */
  private async settleReservedEntry(
    entry: JournalEntry,
    reserved: NonNullable<JournalEntry['reserved']>,
    revenue: number,
  ): Promise<Settlement> {
    const call = reserved.call;
    const notCharged = { costMicros: 0, covered: false, alreadySettled: true };
    if (!this.store.reservations) return notCharged;
    const rates: CardRates = {
      input_micros_per_million: Number(call.input_micros_per_million),
      output_micros_per_million: Number(call.output_micros_per_million),
      cached_input_micros_per_million: Number(call.cached_input_micros_per_million),
      cache_write_micros_per_million: Number(call.cache_write_micros_per_million),
      cache_write_1h_micros_per_million: Number(call.cache_write_1h_micros_per_million),
    };
    const collected = await this.store.reservations.settleReserved({
      callId: entry.callId,
      accountId: Number(call.account_id),
      revenueAccountId: revenue,
      holdMicros: Number(call.hold_micros),
      fullCostMicros: call.covered_plan ? 0 : costOf(entry.usage, rates),
      usage: entry.usage,
      outcome: entry.outcome,
      requestId: call.request_id,
      nowMs: entry.nowMs,
      nodeId: reserved.nodeId,
      call,
      reservationStands: true,
    });
    return { costMicros: collected ?? 0, covered: false, alreadySettled: collected === null };
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
  async releaseOpen(filter: ReleaseFilter): Promise<number> {
    let query = this.db.selectFrom('billing_calls').select('id').where('status', '=', 'open');
    if (filter.nodeIds !== undefined) {
      if (filter.nodeIds.length === 0) return 0;
      query = query.where('node_id', 'in', filter.nodeIds);
    } else {
      query = query.where('created_at', '<', filter.olderThanMs ?? 0);
      if (filter.unregistered) query = query.where('node_id', 'not in', (eb) => eb.selectFrom('billing_nodes').select('node_id'));
    }
    const open = await query.execute();
    // This process's own reservations released (shutdown, or a test's sweep): no call draws from them again.
    if (this.book && filter.nodeIds?.includes(this.nodeId)) {
      await this.book.quiet();
      this.book.forgetAll();
    }
    if (open.length > 0 || filter.nodeIds?.includes(this.nodeId)) this.releases += 1;
    let released = await this.releaseReservations(filter);
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

  /**
   * Releases the credit reservations of `nodeIds`, or of processes no longer registered whose reservation did not
   * change since `olderThanMs`; a live process's reservations are its own to give back. Returns how many.
   */
  private async releaseReservations(filter: ReleaseFilter): Promise<number> {
    let query = this.db.selectFrom('billing_reservations').select(['node_id', 'account_id']);
    if (filter.nodeIds !== undefined) query = query.where('node_id', 'in', filter.nodeIds);
    else if (filter.unregistered)
      query = query
        .where('updated_at', '<', filter.olderThanMs ?? 0)
        .where('node_id', 'not in', (eb) => eb.selectFrom('billing_nodes').select('node_id'));
    else return 0;
    let released = 0;
    for (const reservation of await query.execute()) {
      const keepMicros = filter.keepReserved?.get(reservationKey(reservation.node_id, Number(reservation.account_id))) ?? 0;
      const done = await this.writer.run(async (trx) => {
        const row = await trx
          .selectFrom('billing_reservations')
          .select('held_micros')
          .where('node_id', '=', reservation.node_id)
          .where('account_id', '=', reservation.account_id)
          .executeTakeFirst();
        const releasedMicros = Number(row?.held_micros ?? 0) - keepMicros;
        if (!row || releasedMicros <= 0) return false;
        if (keepMicros > 0)
          await trx
            .updateTable('billing_reservations')
            .set({ held_micros: keepMicros, updated_at: this.clock.nowMs() })
            .where('node_id', '=', reservation.node_id)
            .where('account_id', '=', reservation.account_id)
            .execute();
        else
          await trx
            .deleteFrom('billing_reservations')
            .where('node_id', '=', reservation.node_id)
            .where('account_id', '=', reservation.account_id)
            .execute();
        assertMicros(releasedMicros, 'a released reservation’s held_micros');
        await trx
          .updateTable('billing_accounts')
          .set({ held_micros: sql`held_micros - ${releasedMicros}` })
          .where('id', '=', reservation.account_id)
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
      // Credit this process reserved for calls goes back first; a debit may not take the wallet below its open holds.
      if ((input.wallet ?? 'token') === 'token') await this.releaseFreeIn(trx, walletId);
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
    // Answers do not wait for their settlement; a balance read in this process does (at most one group commit), and
    // for the reservation changes under way, so the reserved credit it leaves out is the credit the row has.
    await this.settled();
    const tokenAccount = this.book ? await this.walletAccount(customerId) : undefined;
    if (tokenAccount !== undefined) await this.book?.quiet(tokenAccount);
    // Read before the balances: a growth answered meanwhile then shows as held for this read, never the other way.
    const unheld = tokenAccount !== undefined && this.book ? this.book.freeOf(tokenAccount) : 0;
    const rows = await this.db
      .selectFrom('billing_accounts')
      .select(['code', 'balance_micros', 'held_micros'])
      .where('code', 'in', [walletCode(customerId, 'token'), walletCode(customerId, 'cash')])
      .execute();
    // Credit this process reserved and no call drew (`unheld`) is not a hold the customer has open.
    const find = (wallet: WalletKind) => {
      const row = rows.find((candidate) => candidate.code === walletCode(customerId, wallet));
      const held = Number(row?.held_micros ?? 0) - (wallet === 'token' ? unheld : 0);
      return { balance: Number(row?.balance_micros ?? 0), held };
    };
    return { token: find('token'), cash: find('cash') };
  }
}
