import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Identity } from '../../src/accounts/identity.js';
import { KeyRepository } from '../../src/accounts/key-repository.js';
import { PrincipalCache } from '../../src/accounts/principal-cache.js';
import { systemClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, TEST_SECRET, type TestContext } from '../helpers/context.js';
import { createUserKey, signUp, type SignedUp } from './support.js';

/** Resolves to how long it took until `resolve` refused the token (fails after `limitMs`). */
async function msUntilRefused(identity: Identity, token: string, limitMs: number): Promise<number> {
  const startedAt = Date.now();
  while (Date.now() - startedAt < limitMs) {
    try {
      await identity.resolve(token);
    } catch {
      return Date.now() - startedAt;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`still accepted after ${limitMs} ms`);
}

describe('principal cache: revocations reach every node', () => {
  let context: TestContext;
  /** A second node on the same database: its own key repository, so only the shared counter tells it of changes. */
  let otherNode: Identity;
  let alice: SignedUp;
  const epoch = async () => Number((await context.storage.db.selectFrom('auth_epoch').select('epoch').executeTakeFirstOrThrow()).epoch);

  beforeAll(async () => {
    context = await createTestContext();
    otherNode = new Identity(context.storage, new KeyRepository(TEST_SECRET, systemClock), systemClock, undefined);
    await otherNode.start();
    alice = await signUp(context, 'alice');
  });
  afterAll(async () => {
    otherNode.close();
    await context.close();
  });

  it('refuses a key revoked on one node on the very next request there, and within 1 s on the other node', async () => {
    const key = await createUserKey(context, alice, { name: 'shared' });
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) })).statusCode).toBe(200);
    expect(await otherNode.resolve(key.key)).toMatchObject({ kind: 'customer', customerId: alice.customerId });

    const revoke = await context.app.inject({ method: 'DELETE', url: `/api/v1/me/api-keys/${key.id}`, headers: bearer(alice.systemToken) });
    expect(revoke.statusCode).toBe(200);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) })).statusCode).toBe(401);
    expect(await msUntilRefused(otherNode, key.key, 1000)).toBeLessThan(1000);
  });

  it('sees changes written by anyone else (plain SQL, as the CLI or an operator would) within 1 s', async () => {
    const bob = await signUp(context, 'bob');
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(bob.systemToken) })).statusCode).toBe(200);
    await sql`update customers set status = 'disabled' where id = ${bob.customerId}`.execute(context.storage.db);
    expect(await msUntilRefused(context.services.identity, bob.systemToken, 1000)).toBeLessThan(1000);
    expect(await msUntilRefused(otherNode, bob.systemToken, 1000)).toBeLessThan(1000);
  });

  it('moves the counter for policy and expiry changes, but not for last-use times', async () => {
    const key = await createUserKey(context, alice, { name: 'counted' });
    const before = await epoch();
    await context.storage.db.updateTable('api_keys').set({ last_used_at: Date.now() }).where('id', '=', key.id).execute();
    expect(await epoch()).toBe(before);
    const patch = await context.app.inject({
      method: 'PATCH',
      url: `/api/v1/me/api-keys/${key.id}`,
      headers: bearer(alice.systemToken),
      payload: { expires_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(patch.statusCode).toBe(200);
    expect(await epoch()).toBeGreaterThan(before);
  });

  it('applies a narrowed policy on the next request of the node that changed it', async () => {
    const key = await createUserKey(context, alice, { name: 'narrowed' });
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) })).statusCode).toBe(200);
    const patch = await context.app.inject({
      method: 'PATCH',
      url: `/api/v1/me/api-keys/${key.id}`,
      headers: bearer(alice.systemToken),
      payload: { allowed_surfaces: ['gateway'] },
    });
    expect(patch.statusCode).toBe(200);
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key.key) })).statusCode).toBe(403);
  });
});

describe('principal cache: what it keeps', () => {
  const entry = { principal: { kind: 'operator' as const, source: 'managed' as const, keyId: 1 }, expiresAt: null };

  function cacheWithEpoch(read: () => Promise<number>, capacity = 3) {
    return new PrincipalCache({ capacity, pollIntervalMs: 60_000, readEpoch: read, onPollError: () => undefined });
  }

  it('keeps nothing until the change counter has been read', async () => {
    const cache = cacheWithEpoch(async () => 0);
    cache.set('a', entry, cache.generation);
    expect(cache.get('a')).toBeUndefined();
    await cache.start();
    cache.set('a', entry, cache.generation);
    expect(cache.get('a')).toBe(entry);
    cache.stop();
  });

  it('drops a read that began before an invalidation, and evicts the oldest entry when full', async () => {
    const cache = cacheWithEpoch(async () => 0);
    await cache.start();
    const generationAtRead = cache.generation;
    cache.invalidate();
    cache.set('stale', entry, generationAtRead);
    expect(cache.get('stale')).toBeUndefined();
    for (const name of ['a', 'b', 'c', 'd']) cache.set(name, entry, cache.generation);
    expect(['a', 'b', 'c', 'd'].map((name) => cache.get(name) !== undefined)).toEqual([false, true, true, true]);
    cache.stop();
  });

  it('stops caching while the counter cannot be read', async () => {
    let fail = false;
    const cache = new PrincipalCache({
      capacity: 10,
      pollIntervalMs: 20,
      readEpoch: async () => {
        if (fail) throw new Error('down');
        return 0;
      },
      onPollError: () => undefined,
    });
    await cache.start();
    cache.set('a', entry, cache.generation);
    fail = true;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', entry, cache.generation);
    expect(cache.get('b')).toBeUndefined();
    cache.stop();
  });
});
