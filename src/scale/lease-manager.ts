/**
 * This node's side of the customer leases. `locate` answers where a customer's app-server runs: here (the lease
 * is held, or was free and is taken now) or at another node's URL. Held leases are renewed every third of the
 * TTL; one the table no longer confirms is lost: the owner stops the customer's app-server. Each held lease also
 * keeps a local expiry (the TTL counted from the start of its last successful take or renewal): when renewals
 * fail (database unreachable, a renewal that hangs) and the local expiry comes within a third of the TTL, the
 * lease is given up as lost, so this node stops serving the customer before another node can take it over. A
 * lease whose customer has no app-server here for a whole TTL is released, and so is every lease at close (drain).
 */
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import type { LeaseStore } from './lease-store.js';

export interface LeaseHooks {
  /** The lease was just taken (not renewed); `previous` is the row's former holder, null for a new row. */
  onAcquired(customerId: number, previous: { holderNode: string; released: boolean } | null): Promise<void>;
  /** The table no longer confirms this node's lease: stop serving the customer. */
  onLost(customerId: number): Promise<void>;
  /** True while the customer's app-server runs or starts here (a lease kept without one is released). */
  inUse(customerId: number): boolean;
}

export interface LeaseManagerOptions {
  nodeId: string;
  ttlMs: number;
  clock: Clock;
  logger: Logger;
}

export type LeaseLocation = { local: true; token: number } | { local: false; holderNode: string; holderUrl: string };

interface Held {
  token: number;
  lastUsedMs: number;
  /** Local expiry: the TTL from the start of the last take or renewal the table confirmed. */
  expiresAtMs: number;
}

export class LeaseManager {
  private readonly held = new Map<number, Held>();
  private readonly acquiring = new Map<number, Promise<LeaseLocation>>();
  private timer: TimerHandle | null = null;
  private renewing: Promise<void> | null = null;
  private ticks = 0;
  private url = '';
  private closed = false;

  constructor(
    private readonly store: LeaseStore,
    private readonly options: LeaseManagerOptions,
    private readonly hooks: LeaseHooks,
  ) {}

  get nodeId(): string {
    return this.options.nodeId;
  }

  /** This node's base URL for other nodes (set once it listens). */
  setUrl(url: string): void {
    this.url = url.replace(/\/+$/, '');
  }

  /**
   * Ticks every sixth of the TTL: each tick checks the local expiries, every second one renews (unless the
   * previous renewal still runs: a hanging renewal delays the next, never the expiry check).
   */
  start(): void {
    this.timer = this.options.clock.setInterval(() => this.tick(), Math.max(Math.floor(this.options.ttlMs / 6), 50));
    this.timer.unref();
  }

  private tick(): void {
    this.expireUnrenewed();
    this.ticks += 1;
    if (this.ticks % 2 !== 0 || this.renewing || this.closed) return;
    this.renewing = this.renewAll()
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'lease renewal failed'))
      .finally(() => {
        this.renewing = null;
      });
  }

  /** Leases whose local expiry is less than a third of the TTL away are lost: another node may soon take them. */
  private expireUnrenewed(): void {
    const limit = this.options.clock.nowMs() + this.options.ttlMs / 3;
    for (const [customerId, held] of [...this.held]) {
      if (held.expiresAtMs > limit) continue;
      this.options.logger.warn({ customerId, expiresAtMs: held.expiresAtMs }, 'lease renewal did not succeed in time');
      this.lost(customerId);
    }
  }

  /** Leases this node holds (metrics). */
  heldCount(): number {
    return this.held.size;
  }

  /** The fencing token this node holds for the customer, if any. */
  tokenOf(customerId: number): number | undefined {
    return this.held.get(customerId)?.token;
  }

  /** Where the customer's app-server runs; takes the lease when nobody holds it. */
  locate(customerId: number): Promise<LeaseLocation> {
    const held = this.held.get(customerId);
    if (held) {
      held.lastUsedMs = this.options.clock.nowMs();
      return Promise.resolve({ local: true, token: held.token });
    }
    let pending = this.acquiring.get(customerId);
    if (!pending) {
      pending = this.tryAcquire(customerId).finally(() => this.acquiring.delete(customerId));
      this.acquiring.set(customerId, pending);
    }
    return pending;
  }

  /** The lease for a customer whose app-server is about to start here; 503 while another node holds it. */
  async ensureHeld(customerId: number): Promise<number> {
    const location = await this.locate(customerId);
    if (location.local) return location.token;
    throw new AppError('UPSTREAM_UNAVAILABLE', 'This project is served by another node right now; retry shortly', { retryAfterSeconds: 1 });
  }

  /** Gives the customer's lease up (the app-server stopped here). */
  async release(customerId: number): Promise<void> {
    const held = this.held.get(customerId);
    if (!held) return;
    this.held.delete(customerId);
    await this.store.release(customerId, this.options.nodeId, held.token);
  }

  /** A fenced write was refused: the lease is gone. */
  lost(customerId: number): void {
    if (!this.held.delete(customerId)) return;
    this.options.logger.warn({ customerId, node: this.options.nodeId }, 'lease lost to another node; stopping the customer’s app-server');
    void this.hooks
      .onLost(customerId)
      .catch((error: unknown) => this.options.logger.error({ err: error, customerId }, 'stopping after a lost lease failed'));
  }

  /** Draining: no lease is taken here any more (requests for customers not held here answer 503 until another node serves them). */
  stopAcquiring(): void {
    this.closed = true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.options.clock.clearInterval(this.timer);
    await this.renewing;
    await Promise.all([...this.held.keys()].map((customerId) => this.release(customerId).catch(() => undefined)));
  }

  private async tryAcquire(customerId: number): Promise<LeaseLocation> {
    if (this.closed) throw new AppError('UPSTREAM_UNAVAILABLE', 'This node is shutting down; retry shortly', { retryAfterSeconds: 1 });
    const startedAtMs = this.options.clock.nowMs();
    const result = await this.store.acquire(customerId, this.options.nodeId, this.url, this.options.ttlMs);
    if (!result.acquired) {
      if (result.row.holderNode === this.options.nodeId) {
        // Taken by this node a moment ago through another path.
        this.held.set(customerId, { token: result.row.token, lastUsedMs: this.options.clock.nowMs(), expiresAtMs: result.row.expiresAt });
        return { local: true, token: result.row.token };
      }
      return { local: false, holderNode: result.row.holderNode, holderUrl: result.row.holderUrl };
    }
    this.held.set(customerId, {
      token: result.token,
      lastUsedMs: this.options.clock.nowMs(),
      expiresAtMs: startedAtMs + this.options.ttlMs,
    });
    if (result.previous?.holderNode !== this.options.nodeId || result.previous === null) {
      this.options.logger.info({ customerId, token: result.token, previous: result.previous?.holderNode ?? null }, 'lease taken');
    }
    await this.hooks.onAcquired(customerId, result.previous);
    return { local: true, token: result.token };
  }

  private async renewAll(): Promise<void> {
    const now = this.options.clock.nowMs();
    for (const [customerId, held] of [...this.held]) {
      if (this.held.get(customerId) !== held) continue;
      if (!this.hooks.inUse(customerId) && now - held.lastUsedMs > this.options.ttlMs) {
        await this.release(customerId);
        continue;
      }
      const startedAtMs = this.options.clock.nowMs();
      let renewed: boolean;
      try {
        renewed = await this.store.renew(customerId, this.options.nodeId, held.token, this.options.ttlMs);
      } catch (error) {
        // Tried again at the next renewal; the local expiry decides when the lease is given up.
        this.options.logger.warn({ err: error, customerId }, 'lease renewal failed');
        continue;
      }
      if (this.held.get(customerId) !== held) continue;
      if (renewed) held.expiresAtMs = startedAtMs + this.options.ttlMs;
      else this.lost(customerId);
    }
  }
}
