/**
 * Principals of recently used keys, by a fingerprint of the token, so an authenticated request does not read the database.
 *
 * Staleness is bounded the way revocation requires:
 * - on this node, every key change made through KeyRepository empties the cache once it committed, so the first
 *   request after a revocation's response is already refused;
 * - changes made elsewhere (another node, the CLI, an operator's SQL) move the `auth_epoch` counter through
 *   database triggers; each node reads it every `pollIntervalMs` and empties its cache when it moved.
 * A database read that began before an emptying is not cached (its row may predate the change). Unknown keys
 * are never cached, so random bearer values cannot fill memory.
 */
import type { Principal } from './principal.js';

export interface CachedPrincipal {
  principal: Principal;
  /** Epoch milliseconds after which the key no longer authenticates; null = never expires. */
  expiresAt: number | null;
}

export interface PrincipalCacheOptions {
  capacity: number;
  pollIntervalMs: number;
  /** Reads the shared change counter. */
  readEpoch: () => Promise<number>;
  onPollError: (error: unknown) => void;
}

export class PrincipalCache {
  private readonly entries = new Map<string, CachedPrincipal>();
  private generationValue = 0;
  private lastEpoch: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly options: PrincipalCacheOptions) {}

  /** Increases at every emptying; a read that began under an older generation is not stored. */
  get generation(): number {
    return this.generationValue;
  }

  get(fingerprint: string): CachedPrincipal | undefined {
    return this.entries.get(fingerprint);
  }

  set(fingerprint: string, entry: CachedPrincipal, generationAtRead: number): void {
    // Until the counter has been read (or after it could not be), changes elsewhere would go unseen.
    if (generationAtRead !== this.generationValue || this.lastEpoch === undefined) return;
    if (this.entries.size >= this.options.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(fingerprint, entry);
  }

  invalidate(): void {
    this.generationValue += 1;
    this.entries.clear();
  }

  /** Starts watching the shared counter; resolves after the first read so later moves are detected. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.options.pollIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const epoch = await this.options.readEpoch();
      if (this.lastEpoch !== undefined && epoch !== this.lastEpoch) this.invalidate();
      this.lastEpoch = epoch;
    } catch (error) {
      // Without the counter, changes elsewhere would go unseen: read the database for every request until it is back.
      this.invalidate();
      this.lastEpoch = undefined;
      this.options.onPollError(error);
    } finally {
      this.polling = false;
    }
  }
}
