import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { MemoryRateLimiter, RedisRateLimiter, WINDOW_MS, type RateLimiter } from '../../src/billing/rate-limiter.js';
import { randomBase62 } from '../../src/kernel/ids.js';
import type { TestContext } from '../helpers/context.js';
import { billingContext, expectLedgerConsistent, meterRequest, newCustomer, principalFor, userKey } from './helpers.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

describe('rate limiter', () => {
  it('never admits more than the limit in any sliding 60-second window (property, fake clock)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 1, maxLength: 120 }),
        async (limit, gapsMs) => {
          const clock = new FakeClock(0);
          const limiter = new MemoryRateLimiter(clock);
          const admitted: number[] = [];
          for (const gapMs of gapsMs) {
            clock.advance(gapMs);
            const admission = await limiter.admit('key', { requestsPerMinute: limit });
            if (admission.allowed) admitted.push(clock.nowMs());
            else {
              expect(admission.retryAfterMs).toBeGreaterThan(0);
              expect(admission.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
            }
          }
          for (const startMs of admitted) {
            expect(admitted.filter((atMs) => atMs >= startMs && atMs < startMs + WINDOW_MS).length).toBeLessThanOrEqual(limit);
          }
          // Waiting the advertised time always admits again.
          const refused = await limiter.admit('key', { requestsPerMinute: limit });
          if (!refused.allowed) {
            clock.advance(refused.retryAfterMs);
            expect((await limiter.admit('key', { requestsPerMinute: limit })).allowed).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('limits requests in flight and frees a slot on release', async () => {
    const limiter = new MemoryRateLimiter(new FakeClock());
    const first = await limiter.admit('k', { concurrentRequests: 2 });
    const second = await limiter.admit('k', { concurrentRequests: 2 });
    const third = await limiter.admit('k', { concurrentRequests: 2 });
    expect([first.allowed, second.allowed, third.allowed]).toEqual([true, true, false]);
    if (first.allowed) await first.release();
    expect((await limiter.admit('k', { concurrentRequests: 2 })).allowed).toBe(true);
  });

  describe('shared through Redis', () => {
    const limiters: RateLimiter[] = [];
    afterEach(async () => {
      await Promise.all(limiters.splice(0).map((limiter) => limiter.close()));
    });

    it('two limiter instances (two nodes) share one limit', async () => {
      const clock = new FakeClock(Date.now());
      const prefix = `switchyard:test:${randomBase62(8)}:`;
      const nodeA = new RedisRateLimiter(new Redis(REDIS_URL), clock, prefix);
      const nodeB = new RedisRateLimiter(new Redis(REDIS_URL), clock, prefix);
      limiters.push(nodeA, nodeB);
      const results = [];
      for (let index = 0; index < 10; index += 1) {
        results.push(await (index % 2 === 0 ? nodeA : nodeB).admit('key:1', { requestsPerMinute: 5 }));
        clock.advance(1_000);
      }
      expect(results.filter((result) => result.allowed)).toHaveLength(5);
      const refused = results[5]!;
      expect(refused.allowed).toBe(false);
      if (!refused.allowed) expect(refused.retryAfterMs).toBe(WINDOW_MS - 5_000);
      const slotA = await nodeA.admit('key:2', { concurrentRequests: 1 });
      expect(slotA.allowed).toBe(true);
      expect((await nodeB.admit('key:2', { concurrentRequests: 1 })).allowed).toBe(false);
      if (slotA.allowed) await slotA.release();
      expect((await nodeB.admit('key:2', { concurrentRequests: 1 })).allowed).toBe(true);
    });
  });
});

describe('rate limits in the meter', () => {
  let context: TestContext | undefined;
  afterEach(async () => {
    if (context) {
      await expectLedgerConsistent(context);
      await context.close();
    }
    context = undefined;
  });

  it('429 with an integer Retry-After per key plan; concurrency slots free at settle', async () => {
    context = await billingContext({ config: { rateLimitPlans: { small: { requestsPerMinute: 3, concurrentRequests: 2 } } } });
    const buyer = await newCustomer(context, 10_000_000);
    const { key } = await userKey(context, buyer.customerId, { rateLimitPlan: 'small' });
    const principal = await principalFor(context, key);
    const meter = context.services.billing.meter;
    const first = await meter.begin(meterRequest(principal));
    const second = await meter.begin(meterRequest(principal));
    const busy = await meter.begin(meterRequest(principal)).catch((error) => error);
    expect(busy).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      retryAfterSeconds: 1,
      details: { limit_source: 'concurrent_requests' },
    });
    await first.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
    const third = await meter.begin(meterRequest(principal));
    await third.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
    const perMinute = await meter.begin(meterRequest(principal)).catch((error) => error);
    expect(perMinute).toMatchObject({ code: 'RATE_LIMITED', details: { limit_source: 'requests_per_minute' } });
    expect(Number.isInteger(perMinute.retryAfterSeconds)).toBe(true);
    expect(perMinute.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    await second.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
    // The refused requests left no hold and no call row.
    expect(await context.storage.db.selectFrom('billing_calls').select('id').execute()).toHaveLength(3);
  });

  it('shares limits between two services through REDIS_URL', async () => {
    const config = {
      rateLimitPlans: { small: { requestsPerMinute: 2 } },
      billing: { redisPrefix: `switchyard:test:${randomBase62(10)}:` },
    };
    context = await billingContext({ env: { REDIS_URL }, config });
    const second = await billingContext({ env: { REDIS_URL }, config });
    try {
      // Two nodes: the same customer and key (same ids) on each, one limit in Redis.
      const principals = [];
      for (const node of [context, second]) {
        const buyer = await newCustomer(node, 10_000_000);
        const { key } = await userKey(node, buyer.customerId, { rateLimitPlan: 'small' });
        principals.push(await principalFor(node, key));
      }
      expect(principals[0]).toMatchObject({ keyId: (principals[1] as { keyId: number }).keyId });
      const first = await context.services.billing.meter.begin(meterRequest(principals[0]!));
      const other = await second.services.billing.meter.begin(meterRequest(principals[1]!));
      await first.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
      await other.settle({ inputTokens: 1, outputTokens: 1, source: 'upstream' }, 'completed');
      await expect(context.services.billing.meter.begin(meterRequest(principals[0]!))).rejects.toMatchObject({ status: 429 });
      await expect(second.services.billing.meter.begin(meterRequest(principals[1]!))).rejects.toMatchObject({ status: 429 });
      await expectLedgerConsistent(second);
    } finally {
      await second.close();
    }
  });
});
