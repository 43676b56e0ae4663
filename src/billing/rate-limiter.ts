/**
 * Per-key rate limits: requests in any sliding 60-second window (a sliding log, so no window ever holds more
 * than the limit) and requests in flight at once. In memory by default; with Redis the same rules run as Lua
 * scripts on shared sorted sets, so every node sharing the Redis sees one limit.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../kernel/clock.js';

export const WINDOW_MS = 60_000;

export interface LimitRule {
  requestsPerMinute?: number;
  concurrentRequests?: number;
}

export type Admission =
  | { allowed: true; release(): Promise<void> }
  | { allowed: false; retryAfterMs: number; reason: 'requests_per_minute' | 'concurrent_requests' };

export interface RateLimiter {
  admit(subject: string, rule: LimitRule): Promise<Admission>;
  close(): Promise<void>;
}

/** Concurrency slots of a crashed node expire after this long in Redis. */
const SLOT_TTL_MS = 15 * 60_000;
const CONCURRENCY_RETRY_MS = 1_000;

/** An admission holding a concurrency slot; `freeSlot` runs on the first release only. */
function admitted(freeSlot: () => Promise<void>): Admission {
  let released = false;
  return {
    allowed: true,
    release: async () => {
      if (released) return;
      released = true;
      await freeSlot();
    },
  };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, number[]>();
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  async admit(subject: string, rule: LimitRule): Promise<Admission> {
    const nowMs = this.clock.nowMs();
    const current = this.inFlight.get(subject) ?? 0;
    if (rule.concurrentRequests !== undefined && current >= rule.concurrentRequests) {
      return { allowed: false, retryAfterMs: CONCURRENCY_RETRY_MS, reason: 'concurrent_requests' };
    }
    if (rule.requestsPerMinute !== undefined) {
      const log = (this.logs.get(subject) ?? []).filter((atMs) => atMs > nowMs - WINDOW_MS);
      if (log.length >= rule.requestsPerMinute) {
        this.logs.set(subject, log);
        return {
          allowed: false,
          retryAfterMs: log[log.length - rule.requestsPerMinute]! + WINDOW_MS - nowMs,
          reason: 'requests_per_minute',
        };
      }
      log.push(nowMs);
      this.logs.set(subject, log);
    }
    if (rule.concurrentRequests === undefined) return { allowed: true, release: async () => undefined };
    this.inFlight.set(subject, current + 1);
    return admitted(async () => {
      const left = (this.inFlight.get(subject) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(subject);
      else this.inFlight.set(subject, left);
    });
  }

  async close(): Promise<void> {}
}

/**
 * KEYS[1] window log, KEYS[2] in-flight set; ARGV: now, window, rpm (0 = none), concurrency (0 = none),
 * member id, slot ttl. Returns {1} when admitted, {0, retryAfterMs, reason} when refused.
 */
const ADMIT_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local rpm = tonumber(ARGV[3])
local concurrency = tonumber(ARGV[4])
if concurrency > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= concurrency then return {0, 1000, 'concurrent_requests'} end
end
if rpm > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  local count = redis.call('ZCARD', KEYS[1])
  if count >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[1], count - rpm, count - rpm, 'WITHSCORES')
    return {0, tonumber(oldest[2]) + window - now, 'requests_per_minute'}
  end
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], window)
end
if concurrency > 0 then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]), ARGV[5])
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[6]))
end
return {1}
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly prefix = 'switchyard:limits:',
  ) {
    this.redis.defineCommand('switchyardAdmit', { numberOfKeys: 2, lua: ADMIT_SCRIPT });
  }

  async admit(subject: string, rule: LimitRule): Promise<Admission> {
    const member = `${this.clock.nowMs()}:${randomUUID()}`;
    const windowKey = `${this.prefix}${subject}:rpm`;
    const slotsKey = `${this.prefix}${subject}:slots`;
    const result = (await (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>).switchyardAdmit!(
      windowKey,
      slotsKey,
      this.clock.nowMs(),
      WINDOW_MS,
      rule.requestsPerMinute ?? 0,
      rule.concurrentRequests ?? 0,
      member,
      SLOT_TTL_MS,
    )) as [number, number?, string?];
    if (result[0] !== 1) {
      return { allowed: false, retryAfterMs: Number(result[1]), reason: result[2] as 'requests_per_minute' | 'concurrent_requests' };
    }
    if (rule.concurrentRequests === undefined) return { allowed: true, release: async () => undefined };
    return admitted(async () => {
      await this.redis.zrem(slotsKey, member);
    });
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
