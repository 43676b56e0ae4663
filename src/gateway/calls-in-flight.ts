/**
 * Model calls between their hold and their settlement. Shutdown waits for them (bounded), so a call whose client
 * left just before the service stopped still settles instead of meeting a closed ledger.
 */
export class CallsInFlight {
  private count = 0;
  private waiters: Array<() => void> = [];

  get size(): number {
    return this.count;
  }

  /** Marks a call in flight; the returned function marks it done (calling it again does nothing). */
  enter(): () => void {
    this.count += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.count -= 1;
      if (this.count === 0) for (const waiter of this.waiters.splice(0)) waiter();
    };
  }

  /** Resolves true once no call is in flight, false when `timeoutMs` passed first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
