/**
 * Credit reservations (docs/billing.md, "Credit reservations"): credit this process holds once on a busy wallet,
 * from which its calls draw their holds in memory instead of committing one hold each. Only where the ledger store
 * offers them (the SQLite ledger thread: one process per database file, so no other process spends the wallet
 * meanwhile, and the store applies operations in the order they were sent).
 *
 * The book mirrors each reservation's row: `heldMicros` moves when an operation is sent (a settlement takes its
 * call's hold off it, a release its free part) or when a reservation's growth has committed, so it never counts
 * credit the row lacks. A call draws only what is free (held − drawn), so the row always covers the calls drawn
 * from it; what a crash leaves in it is released with the process's other holds after its journal settled.
 */
import type { Clock } from '../kernel/clock.js';
import type { CreditReservations } from '../storage/ledger-store/ledger-store.js';

export interface ReservationOptions {
  /** Largest reservation per wallet; 0 turns reservations off. */
  maxMicros: number;
  /** Calls a second on one wallet before this process reserves credit for it. */
  minCallsPerSecond: number;
  /** A reservation no call drew from for this long is given back. */
  idleReleaseMs: number;
  /** A reservation is at most 1/`spareShare` of the wallet's spare credit (default 4). */
  spareShare?: number;
  /** A reservation is taken only when it can serve at least this many calls of the size that asked for it (default 8). */
  minCallsPerReservation?: number;
}

/** Call ids set aside per growth (a call drawn from a reservation needs its id before its row exists). */
const CALL_IDS_PER_GROWTH = 512;
/** After the wallet refused a growth (or a call), no reservation grows on it for this long. */
const REFUSED_PAUSE_MS = 1_000;

interface Reservation {
  /**
   * Credit in the reservation's row as far as this book knows: lowered when an operation that lowers it is sent,
   * raised when a growth has committed (the row may hold more meanwhile, never less than the calls drawn need).
   */
  heldMicros: number;
  /** Drawn by calls whose settlement has not been sent yet. */
  drawnMicros: number;
  /** What the reservation grows back to when its free part falls below half of it. */
  targetMicros: number;
  /** Call ids set aside and not used yet: [next, last] ranges. */
  callIds: [number, number][];
  lastDrawMs: number;
  growing: boolean;
  /** Counts the cuts sent: a growth sent before a cut is covered by it (the cut leaves only what drawn calls hold). */
  cuts: number;
}

interface CallRate {
  windowStartMs: number;
  calls: number;
}

export class ReservationBook {
  private readonly reservations = new Map<number, Reservation>();
  private readonly rates = new Map<number, CallRate>();
  private readonly refusedAtMs = new Map<number, number>();
  /** Reservation operations sent and not answered yet, per account. */
  private readonly underWay = new Map<number, Set<Promise<unknown>>>();
  /** The last cut sent per account, while it is under way (a refused hold sent before it retries after it). */
  private readonly cutting = new Map<number, Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private forgotten = 0;
  private drawnCalls = 0;

  constructor(
    private readonly store: CreditReservations,
    private readonly clock: Clock,
    private readonly nodeId: string,
    private readonly options: ReservationOptions,
    private readonly onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => this.releaseIdle(), Math.max(50, Math.floor(options.idleReleaseMs / 2)));
    this.timer.unref();
  }

  /** The id of a call drawing `holdMicros` from the account's reservation, or null: the call holds on its own. */
  draw(accountId: number, holdMicros: number): number | null {
    const reservation = this.reservations.get(accountId);
    if (!reservation) return null;
    // Nothing drawn now could be written: every call holds on its own (and fails as the store does).
    if (!this.store.usable()) {
      this.close();
      return null;
    }
    const freeMicros = reservation.heldMicros - reservation.drawnMicros;
    const callId = holdMicros <= freeMicros ? nextCallId(reservation) : null;
    if (callId !== null) {
      reservation.drawnMicros += holdMicros;
      reservation.lastDrawMs = this.clock.nowMs();
      this.drawnCalls += 1;
    }
    this.growIfLow(accountId, reservation);
    return callId;
  }

  /** A drawn call's settlement was sent: its hold leaves the reservation with it. */
  settled(accountId: number, holdMicros: number): void {
    const reservation = this.reservations.get(accountId);
    if (!reservation) return;
    reservation.drawnMicros -= holdMicros;
    reservation.heldMicros -= holdMicros;
    this.growIfLow(accountId, reservation);
  }

  /**
   * A call on the account held on its own (`spareMicros`: the wallet's spare credit after its commit): counts the
   * wallet's calls, and starts a reservation for a busy wallet whose spare credit covers several such calls.
   */
  heldAlone(accountId: number, holdMicros: number, spareMicros: number | undefined): void {
    if (this.closed || this.options.maxMicros === 0 || spareMicros === undefined || this.reservations.has(accountId)) return;
    const nowMs = this.clock.nowMs();
    let rate = this.rates.get(accountId);
    if (!rate || nowMs - rate.windowStartMs >= 1_000) {
      if (this.rates.size > 10_000) this.rates.clear();
      rate = { windowStartMs: nowMs, calls: 0 };
      this.rates.set(accountId, rate);
    }
    rate.calls += 1;
    if (rate.calls < this.options.minCallsPerSecond || this.refusedLately(accountId, nowMs)) return;
    const targetMicros = this.targetFor(spareMicros);
    if (targetMicros < (this.options.minCallsPerReservation ?? 8) * Math.max(1, holdMicros)) return;
    const reservation: Reservation = {
      heldMicros: 0,
      drawnMicros: 0,
      targetMicros,
      callIds: [],
      lastDrawMs: nowMs,
      growing: false,
      cuts: 0,
    };
    this.reservations.set(accountId, reservation);
    this.rates.delete(accountId);
    this.growIfLow(accountId, reservation);
  }

  /** Reservations held now, and calls drawn since the book started (metrics). */
  figures(): { held: number; drawnCalls: number } {
    return { held: this.reservations.size, drawnCalls: this.drawnCalls };
  }

  /** What the account's reservation holds that no call has drawn (not shown to the customer as held). */
  freeOf(accountId: number): number {
    const reservation = this.reservations.get(accountId);
    return reservation ? reservation.heldMicros - reservation.drawnMicros : 0;
  }

  /**
   * Gives the reservation's free part back to the wallet, in order with the operations sent before and after it, so
   * a settlement sent next finds it spare (a cost above its hold is collected from spare credit). The reservation
   * stays and grows again.
   */
  cutFree(accountId: number): void {
    const reservation = this.reservations.get(accountId);
    if (reservation && (reservation.heldMicros > reservation.drawnMicros || reservation.growing))
      this.cut(accountId, reservation).catch((error: unknown) => this.onError(error));
  }

  /**
   * Takes the reservation's free part off the book for a transaction on another connection that gives it back
   * itself (a claw-back); growths sent before are covered by the next cut. Returns what it took (0: nothing free).
   * Should that transaction roll back, the row keeps more than the book counts until its next cut.
   */
  takeFree(accountId: number): number {
    const reservation = this.reservations.get(accountId);
    if (!reservation) return 0;
    const freeMicros = reservation.heldMicros - reservation.drawnMicros;
    if (freeMicros <= 0) return 0;
    reservation.heldMicros -= freeMicros;
    // Growth answered after this adds nothing: the row may or may not hold it once this transaction has run.
    reservation.cuts += 1;
    reservation.targetMicros = 0;
    return freeMicros;
  }

  /**
   * The wallet refused a call's own hold: gives the reservation's free part back (sent in order, so a hold sent
   * after it sees it) and stops growing for a while. Resolves true when there was something to give back.
   */
  async giveBack(accountId: number): Promise<boolean> {
    this.refused(accountId);
    const reservation = this.reservations.get(accountId);
    const inFlight = this.cutting.get(accountId);
    if (reservation) {
      reservation.targetMicros = 0;
      if (reservation.drawnMicros === 0) this.reservations.delete(accountId);
      if (reservation.heldMicros > reservation.drawnMicros || reservation.growing) {
        await this.cut(accountId, reservation);
        return true;
      }
    }
    // Another refused hold's cut is under way, sent after this hold was: once it has run, this hold may fit.
    if (!inFlight) return false;
    await inFlight.catch(() => undefined);
    return true;
  }

  /**
   * Resolves once the account's reservation operations sent so far, and those their answers sent, have been
   * answered (a balance read waits for them); without an account, every account's (a release of the process's own).
   */
  async quiet(accountId?: number): Promise<void> {
    const pending = () =>
      accountId === undefined ? [...this.underWay.values()].flatMap((ops) => [...ops]) : [...(this.underWay.get(accountId) ?? [])];
    // Two rounds: what was under way, then what its answers sent (a cut after a growth); never a stream of new calls'.
    for (let round = 0; round < 2; round += 1) await Promise.allSettled(pending());
  }

  /** Counts `forgetAll`: a call drawn before the last one drew from a reservation that is gone. */
  get generation(): number {
    return this.forgotten;
  }

  /** The process's reservations were released from under the book: no call draws from them again. */
  forgetAll(): void {
    this.forgotten += 1;
    // A growth answered after this would cut the (node, account) row a new reservation could share: none is made.
    this.close();
  }

  /** Stops the book (the process's reservations are released with its other holds at shutdown). */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.reservations.clear();
  }

  private track<T>(accountId: number, operation: Promise<T>): Promise<T> {
    let ops = this.underWay.get(accountId);
    if (!ops) this.underWay.set(accountId, (ops = new Set()));
    ops.add(operation);
    const untrack = (): void => {
      ops.delete(operation);
      if (ops.size === 0 && this.underWay.get(accountId) === ops) this.underWay.delete(accountId);
    };
    void operation.then(untrack, untrack);
    return operation;
  }

  private targetFor(spareMicros: number): number {
    return Math.min(this.options.maxMicros, Math.floor(Math.max(0, spareMicros) / (this.options.spareShare ?? 4)));
  }

  private refused(accountId: number): void {
    if (this.refusedAtMs.size > 10_000) this.refusedAtMs.clear();
    this.refusedAtMs.set(accountId, this.clock.nowMs());
  }

  private refusedLately(accountId: number, nowMs: number): boolean {
    const refusedAt = this.refusedAtMs.get(accountId);
    if (refusedAt === undefined) return false;
    if (nowMs - refusedAt < REFUSED_PAUSE_MS) return true;
    this.refusedAtMs.delete(accountId);
    return false;
  }

  /** Grows the reservation back to its target when its free part fell below half of it, or its call ids run low. */
  private growIfLow(accountId: number, reservation: Reservation): void {
    if (this.closed || reservation.growing || this.reservations.get(accountId) !== reservation) return;
    if (this.refusedLately(accountId, this.clock.nowMs())) return;
    const freeMicros = reservation.heldMicros - reservation.drawnMicros;
    const amountMicros = freeMicros < reservation.targetMicros / 2 ? reservation.targetMicros - freeMicros : 0;
    const callIds = idsLeft(reservation) < CALL_IDS_PER_GROWTH / 2 ? CALL_IDS_PER_GROWTH : 0;
    if (amountMicros === 0 && callIds === 0) return;
    reservation.growing = true;
    const cuts = reservation.cuts;
    const growing = this.store.reserve({ accountId, nodeId: this.nodeId, amountMicros, callIds, nowMs: this.clock.nowMs() });
    void this.track(accountId, growing).then(
      (outcome) => {
        reservation.growing = false;
        if (outcome.kind === 'short') {
          this.refused(accountId);
          if (reservation.heldMicros === 0 && reservation.drawnMicros === 0 && this.reservations.get(accountId) === reservation)
            this.reservations.delete(accountId);
          return;
        }
        if (callIds > 0) reservation.callIds.push([outcome.firstCallId, outcome.lastCallId]);
        // A cut sent after this growth already gave its credit back.
        if (reservation.cuts !== cuts) return;
        reservation.heldMicros += amountMicros;
        // Forgotten meanwhile (released from under the book): what just committed goes back at once.
        if (this.reservations.get(accountId) !== reservation) {
          if (!this.closed) this.cut(accountId, reservation, 0).catch((error: unknown) => this.onError(error));
          return;
        }
        // The target follows the wallet: at most a share of what is spare, the reservation's own free part included.
        const spareMicros = outcome.spareMicros + reservation.heldMicros - reservation.drawnMicros;
        reservation.targetMicros = Math.min(reservation.targetMicros, this.targetFor(spareMicros));
      },
      (error: unknown) => {
        reservation.growing = false;
        this.onError(error);
      },
    );
  }

  /** Gives back the reservations no call drew from for `idleReleaseMs`. */
  private releaseIdle(): void {
    const nowMs = this.clock.nowMs();
    for (const [accountId, reservation] of this.reservations) {
      if (reservation.drawnMicros > 0 || reservation.growing || nowMs - reservation.lastDrawMs < this.options.idleReleaseMs) continue;
      this.reservations.delete(accountId);
      this.cut(accountId, reservation).catch((error: unknown) => this.onError(error));
    }
  }

  /** Cuts the row down to what the drawn calls hold (or `keepMicros`), covering every growth sent before. */
  private cut(accountId: number, reservation: Reservation, keepMicros = reservation.drawnMicros): Promise<void> {
    reservation.cuts += 1;
    reservation.heldMicros = Math.min(reservation.heldMicros, keepMicros);
    const cutting = this.track(accountId, this.store.unreserve({ accountId, nodeId: this.nodeId, keepMicros, nowMs: this.clock.nowMs() }));
    this.cutting.set(accountId, cutting);
    const done = (): void => {
      if (this.cutting.get(accountId) === cutting) this.cutting.delete(accountId);
    };
    void cutting.then(done, done);
    return cutting;
  }
}

function nextCallId(reservation: Reservation): number | null {
  const range = reservation.callIds[0];
  if (!range) return null;
  const callId = range[0];
  if (range[0] === range[1]) reservation.callIds.shift();
  else range[0] += 1;
  return callId;
}

function idsLeft(reservation: Reservation): number {
  let left = 0;
  for (const [next, last] of reservation.callIds) left += last - next + 1;
  return left;
}
