import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Lockout, RedisFailureCounters } from '../../src/accounts/lockout.js';

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
});
