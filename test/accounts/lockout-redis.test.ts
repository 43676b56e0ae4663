import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { FlooredFailureCounters, Lockout, MemoryFailureCounters, RedisFailureCounters } from '../../src/accounts/lockout.js';
import { systemClock } from '../../src/kernel/clock.js';

describe('brute-force counters shared through Redis', () => {
  const prefix = `switchyard-test:lockout:${randomUUID()}:`;
  const nodeA = new RedisFailureCounters(new Redis('redis://127.0.0.1:6379'), prefix);
  const nodeB = new RedisFailureCounters(new Redis('redis://127.0.0.1:6379'), prefix);
  afterAll(async () => {
    await nodeA.close();
    await nodeB.close();
  });

  it('failures recorded on one node lock the account on another, with a Retry-After within the window', async () => {
    const rules = { maxFailures: 3, perIpFactor: 2, windowMinutes: 5 };
    const a = new Lockout(nodeA, rules);
    const b = new Lockout(nodeB, rules);
    await a.fail('web-login', 'alice@example.test', '192.0.2.1');
    await b.fail('web-login', 'alice@example.test', '192.0.2.2');
    await a.check('web-login', 'alice@example.test', '192.0.2.1');
    await a.fail('web-login', 'alice@example.test', '192.0.2.1');
    const error = await b.check('web-login', 'alice@example.test', '192.0.2.3').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'RATE_LIMITED' });
    const seconds = (error as { retryAfterSeconds: number }).retryAfterSeconds;
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(300);
    await b.succeed('web-login', 'alice@example.test');
    await a.check('web-login', 'alice@example.test', '192.0.2.1');
  });

  it('deleting the shared counters in Redis does not unlock an account on a node that saw the failures', async () => {
    const rules = { maxFailures: 3, perIpFactor: 2, windowMinutes: 5 };
    const floorPrefix = `${prefix}floor:`;
    const nodeC = new FlooredFailureCounters(
      new RedisFailureCounters(new Redis('redis://127.0.0.1:6379'), floorPrefix),
      new MemoryFailureCounters(systemClock),
    );
    const nodeD = new FlooredFailureCounters(
      new RedisFailureCounters(new Redis('redis://127.0.0.1:6379'), floorPrefix),
      new MemoryFailureCounters(systemClock),
    );
    try {
      const c = new Lockout(nodeC, rules);
      const d = new Lockout(nodeD, rules);
      for (let attempt = 0; attempt < 3; attempt += 1) await c.fail('web-login', 'bob@example.test', '192.0.2.9');
      await expect(d.check('web-login', 'bob@example.test', '192.0.2.8')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      // Whoever reaches Redis deletes every counter, as `redis-cli DEL` would.
      const attacker = new Redis('redis://127.0.0.1:6379');
      const keys = await attacker.keys(`${floorPrefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      await attacker.del(...keys);
      attacker.disconnect();
      // The node that counted the failures still refuses; only a node that never saw them starts from zero.
      const error = await c.check('web-login', 'bob@example.test', '192.0.2.9').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'RATE_LIMITED' });
      expect((error as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
      await d.check('web-login', 'bob@example.test', '192.0.2.8');
      // A success clears the node's own count as well.
      await c.succeed('web-login', 'bob@example.test');
      await c.check('web-login', 'bob@example.test', undefined);
    } finally {
      await nodeC.close();
      await nodeD.close();
    }
  });
});
