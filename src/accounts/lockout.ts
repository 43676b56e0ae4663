/**
 * Brute-force counters for sign-in, 2FA and reset: failures per subject (an account or an IP address) in a
 * window that starts at the first failure. Over the limit, the flow answers 429 with Retry-After until the
 * window ends. Password sign-in is the exception for addresses: an address over its limit never refuses a correct
 * password (one client could otherwise lock everyone out, and behind a proxy everyone shares an address); it
 * asks for the human check (web login) or slows the answer down (CLI login) instead, while the per-account lock
 * stays. In memory by default; with Redis (`REDIS_URL`) every node shares the counters, and each node still keeps
 * its own count underneath (`FlooredFailureCounters`): whoever can write to Redis may delete or lower the shared
 * count, but never below what this node saw itself, so a deleted counter is never a pass.
 */
import type { Redis } from 'ioredis';
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';

export interface FailureCounters {
  /** Current failures of a subject and the milliseconds until its window ends. */
  read(subject: string): Promise<{ count: number; resetInMs: number }>;
  record(subject: string, windowMs: number): Promise<void>;
  clear(subject: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryFailureCounters implements FailureCounters {
  private readonly entries = new Map<string, { count: number; endsAt: number }>();

  constructor(private readonly clock: Clock) {}

  async read(subject: string) {
    const entry = this.entries.get(subject);
    const now = this.clock.nowMs();
    if (!entry || entry.endsAt <= now) return { count: 0, resetInMs: 0 };
    return { count: entry.count, resetInMs: entry.endsAt - now };
  }

  async record(subject: string, windowMs: number) {
    const now = this.clock.nowMs();
    const entry = this.entries.get(subject);
    if (!entry || entry.endsAt <= now) this.entries.set(subject, { count: 1, endsAt: now + windowMs });
    else entry.count += 1;
    if (this.entries.size > 100_000) {
      for (const [key, value] of this.entries) if (value.endsAt <= now) this.entries.delete(key);
    }
  }

  async clear(subject: string) {
    this.entries.delete(subject);
  }

  async close() {}
}

export class RedisFailureCounters implements FailureCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async read(subject: string) {
    const key = this.prefix + subject;
    const [count, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
    return { count: Number(count ?? 0), resetInMs: ttl > 0 ? ttl : 0 };
  }

  async record(subject: string, windowMs: number) {
    const key = this.prefix + subject;
    const count = await this.redis.incr(key);
    if (count === 1) await this.redis.pexpire(key, windowMs);
  }

  async clear(subject: string) {
    await this.redis.del(this.prefix + subject);
  }

  async close() {
    this.redis.disconnect();
  }
}

/**
 * The shared counters with this node's own as a floor: a read is the higher of the two, a failure is recorded
 * in both, a success clears both. A success on another node clears only the shared count, so this node may
 * still count failures it saw itself until their window ends (stricter, never looser).
 */
export class FlooredFailureCounters implements FailureCounters {
  constructor(
    private readonly shared: FailureCounters,
    private readonly local: FailureCounters,
  ) {}

  async read(subject: string) {
    const [shared, local] = await Promise.all([this.shared.read(subject), this.local.read(subject)]);
    return shared.count >= local.count ? shared : local;
  }

  async record(subject: string, windowMs: number) {
    await this.local.record(subject, windowMs);
    await this.shared.record(subject, windowMs);
  }

  async clear(subject: string) {
    await this.local.clear(subject);
    await this.shared.clear(subject);
  }

  async close() {
    await Promise.all([this.shared.close(), this.local.close()]);
  }
}

export interface LockoutRules {
  maxFailures: number;
  perIpFactor: number;
  windowMinutes: number;
}

/** One flow's view of the counters: `account:<flow>:<id>` and `ip:<flow>:<address>`. */
export class Lockout {
  constructor(
    private readonly counters: FailureCounters,
    private readonly rules: LockoutRules,
  ) {}

  private subjects(flow: string, account: string | undefined, ip: string | undefined) {
    const list: { subject: string; limit: number }[] = [];
    if (account !== undefined) list.push({ subject: `account:${flow}:${account}`, limit: this.rules.maxFailures });
    if (ip !== undefined) list.push({ subject: `ip:${flow}:${ip}`, limit: this.rules.maxFailures * this.rules.perIpFactor });
    return list;
  }

  /** Throws 429 (with Retry-After) when the account or the address is over its limit. */
  async check(flow: string, account: string | undefined, ip: string | undefined): Promise<void> {
    for (const { subject, limit } of this.subjects(flow, account, ip)) {
      const { count, resetInMs } = await this.counters.read(subject);
      if (count >= limit) {
        throw new AppError('RATE_LIMITED', 'Too many failed attempts; try again later', { retryAfterSeconds: resetInMs / 1000 });
      }
    }
  }

  /** Throws 429 (with Retry-After) when the account, and only the account, is over its limit. */
  async checkAccount(flow: string, account: string): Promise<void> {
    await this.check(flow, account, undefined);
  }

  /** Whether the address is over its limit for the flow (the caller throttles instead of refusing). */
  async addressOverLimit(flow: string, ip: string | undefined): Promise<boolean> {
    if (ip === undefined) return false;
    const { count } = await this.counters.read(`ip:${flow}:${ip}`);
    return count >= this.rules.maxFailures * this.rules.perIpFactor;
  }

  async failures(flow: string, account: string): Promise<number> {
    return (await this.counters.read(`account:${flow}:${account}`)).count;
  }

  async fail(flow: string, account: string | undefined, ip: string | undefined): Promise<void> {
    for (const { subject } of this.subjects(flow, account, ip)) await this.counters.record(subject, this.rules.windowMinutes * 60_000);
  }

  async succeed(flow: string, account: string): Promise<void> {
    await this.counters.clear(`account:${flow}:${account}`);
  }
}
