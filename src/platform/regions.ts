/**
 * Regional availability. Each configured region is checked by an HTTP GET of its health URL (2xx = available)
 * with a timeout; results are cached for `cacheMs` so a busy status page does not flood the regions, and
 * concurrent callers share one round of checks. A failing check marks that region unavailable; it never fails
 * the whole answer.
 */
import type { Clock } from '../kernel/clock.js';

export interface RegionConfig {
  id: string;
  name: string;
  apiBaseUrl: string;
  healthUrl: string;
}

export interface RegionStatus {
  id: string;
  name: string;
  api_base_url: string;
  available: boolean;
  status: 'available' | 'unavailable';
  /** Round-trip of the health check in milliseconds; null when it did not answer. */
  latency_ms: number | null;
  /** Why the region is unavailable (HTTP status or a short reason); null when available. */
  reason: string | null;
  checked_at: string;
}

export interface RegionCheckOptions {
  timeoutMs: number;
  cacheMs: number;
}

interface CachedRound {
  checkedAtMs: number;
  statuses: Promise<RegionStatus[]>;
}

function failureReason(error: unknown): string {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
  return 'unreachable';
}

export class RegionMonitor {
  private cached: CachedRound | undefined;

  constructor(
    private readonly regions: readonly RegionConfig[],
    private readonly options: RegionCheckOptions,
    private readonly clock: Clock,
  ) {}

  /** Current statuses, from cache when the last round is younger than `cacheMs`. */
  statuses(): Promise<RegionStatus[]> {
    const nowMs = this.clock.nowMs();
    if (this.cached && nowMs - this.cached.checkedAtMs < this.options.cacheMs) return this.cached.statuses;
    const round: CachedRound = { checkedAtMs: nowMs, statuses: Promise.all(this.regions.map((region) => this.check(region))) };
    this.cached = round;
    return round.statuses;
  }

  private async check(region: RegionConfig): Promise<RegionStatus> {
    const startedMs = performance.now();
    const base = { id: region.id, name: region.name, api_base_url: region.apiBaseUrl };
    const checkedAt = new Date(this.clock.nowMs()).toISOString();
    try {
      const response = await fetch(region.healthUrl, {
        method: 'GET',
        signal: AbortSignal.timeout(this.options.timeoutMs),
        headers: { accept: 'application/json' },
      });
      // The body is not needed; cancelling it frees the connection.
      await response.body?.cancel().catch(() => undefined);
      const latencyMs = Math.round(performance.now() - startedMs);
      const available = response.ok;
      return {
        ...base,
        available,
        status: available ? 'available' : 'unavailable',
        latency_ms: latencyMs,
        reason: available ? null : `HTTP ${response.status}`,
        checked_at: checkedAt,
      };
    } catch (error) {
      return { ...base, available: false, status: 'unavailable', latency_ms: null, reason: failureReason(error), checked_at: checkedAt };
    }
  }
}
