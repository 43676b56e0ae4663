/**
 * Whether this node is draining (rolling restart): set when a stop signal arrives, read by readiness, which then
 * answers 503 so a load balancer sends new work elsewhere while in-flight requests and streams finish.
 */
export class DrainState {
  private startedAtMs: number | null = null;

  get draining(): boolean {
    return this.startedAtMs !== null;
  }

  begin(nowMs = Date.now()): void {
    this.startedAtMs ??= nowMs;
  }
}
