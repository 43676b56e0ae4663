/**
 * Time source and timers; tests substitute a fake clock. Code whose behaviour depends on a timeout (the idle
 * stop of an app-server, its restart backoff, an approval's expiry) schedules through `Clock`, so a test moves
 * time forward with `FakeClock.advance` instead of sleeping. Network-level timeouts stay on the global timers.
 */

/** What a scheduled timer returns: Node's `Timeout` for the system clock, a queue entry for the fake one. */
export interface TimerHandle {
  /** Lets the process exit while the timer is pending (a no-op on the fake clock). */
  unref(): TimerHandle;
}

export interface Clock {
  nowMs(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  setInterval(callback: () => void, intervalMs: number): TimerHandle;
  /** Cancels a timeout or an interval; null, undefined and handles already fired or cleared are ignored. */
  clearTimeout(handle: TimerHandle | null | undefined): void;
  clearInterval(handle: TimerHandle | null | undefined): void;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  setInterval: (callback, intervalMs) => setInterval(callback, intervalMs),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout | undefined),
};

/** Node's rule: a delay below 1 ms, above the 32-bit limit or not a number becomes 1 ms. */
const TIMEOUT_MAX_MS = 2 ** 31 - 1;
function timerDelayMs(delayMs: number): number {
  return delayMs >= 1 && delayMs <= TIMEOUT_MAX_MS ? delayMs : 1;
}

/** Firings `runAll` allows before it decides an interval or a self-rescheduling timer never ends. */
const RUN_ALL_FIRINGS_MAX = 10_000;

class FakeTimer implements TimerHandle {
  constructor(
    readonly sequence: number,
    public dueMs: number,
    readonly callback: () => void,
    /** Null for a timeout; the period of an interval. */
    readonly intervalMs: number | null,
  ) {}
  unref(): this {
    return this;
  }
}

/**
 * A clock that moves only when told. Timers are kept in a queue and fire during `advance`/`set`/`runAll`, in
 * order of due time (then of scheduling), each with `nowMs()` reading its due time; a timer scheduled by a
 * firing one fires in the same call when it falls due within the span. Due times are absolute, so setting the
 * clock back delays pending timers. An exception thrown by a callback does not stop the others: the clock
 * still reaches its target and the first error is thrown afterwards.
 */
export class FakeClock implements Clock {
  private readonly timers = new Set<FakeTimer>();
  private sequence = 0;
  private moving = false;

  constructor(private currentMs = Date.UTC(2026, 0, 1)) {}

  nowMs(): number {
    return this.currentMs;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    return this.schedule(callback, timerDelayMs(delayMs), null);
  }

  setInterval(callback: () => void, intervalMs: number): TimerHandle {
    const periodMs = timerDelayMs(intervalMs);
    return this.schedule(callback, periodMs, periodMs);
  }

  clearTimeout(handle: TimerHandle | null | undefined): void {
    if (handle instanceof FakeTimer) this.timers.delete(handle);
  }

  clearInterval(handle: TimerHandle | null | undefined): void {
    this.clearTimeout(handle);
  }

  /** Moves time forward by `ms`, firing every timer that falls due up to the new time. */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`FakeClock.advance takes a finite non-negative duration, got ${ms}`);
    this.moveTo(this.currentMs + ms);
  }

  /** Sets the time; moving forward fires the timers due up to it, as `advance` does. */
  set(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`FakeClock.set takes a finite time, got ${ms}`);
    this.moveTo(ms);
  }

  /** Timers scheduled and neither fired (timeouts) nor cleared. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /** When the next timer falls due; null when none is pending. */
  nextTimerAtMs(): number | null {
    return this.next(Number.POSITIVE_INFINITY)?.dueMs ?? null;
  }

  /** Fires timers, moving time to each one's due time, until none is pending. Throws on an endless interval. */
  runAll(): void {
    for (let firings = 0; this.timers.size > 0; firings += 1) {
      if (firings >= RUN_ALL_FIRINGS_MAX)
        throw new Error(`FakeClock.runAll: timers still pending after ${RUN_ALL_FIRINGS_MAX} firings (an interval?)`);
      const next = this.next(Number.POSITIVE_INFINITY)!;
      this.moveTo(Math.max(this.currentMs, next.dueMs), 1);
    }
  }

  private schedule(callback: () => void, delayMs: number, intervalMs: number | null): FakeTimer {
    const timer = new FakeTimer(this.sequence++, this.currentMs + delayMs, callback, intervalMs);
    this.timers.add(timer);
    return timer;
  }

  /** The timer due first at or before `limitMs` (ties: the one scheduled first). */
  private next(limitMs: number): FakeTimer | undefined {
    let found: FakeTimer | undefined;
    for (const timer of this.timers) {
      if (timer.dueMs > limitMs) continue;
      if (!found || timer.dueMs < found.dueMs || (timer.dueMs === found.dueMs && timer.sequence < found.sequence)) found = timer;
    }
    return found;
  }

  private moveTo(targetMs: number, firingsMax = Number.POSITIVE_INFINITY): void {
    // A callback that moves the clock itself would fire timers out of order.
    if (this.moving) throw new Error('FakeClock: a timer callback may not move the clock');
    this.moving = true;
    const errors: unknown[] = [];
    try {
      for (let firings = 0; firings < firingsMax; firings += 1) {
        const timer = this.next(targetMs);
        if (!timer) break;
        this.currentMs = Math.max(this.currentMs, timer.dueMs);
        if (timer.intervalMs === null) this.timers.delete(timer);
        else timer.dueMs += timer.intervalMs;
        try {
          timer.callback();
        } catch (error) {
          errors.push(error);
        }
      }
      this.currentMs = targetMs;
    } finally {
      this.moving = false;
    }
    if (errors.length > 0) throw errors[0];
  }
}
