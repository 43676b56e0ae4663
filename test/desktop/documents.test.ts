import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { jsonDepth } from '../../src/desktop/documents.js';

describe('desktop versioned documents: coding-session and assistant-desktop sync', () => {
  let context: TestContext;
  let alice: SignedUp;
  let bob: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({ config: { desktop: { documentMaxBytes: 2048, documentMaxDepth: 8 } } as never });
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
  });
  afterAll(async () => context.close());

  const get = (url: string, who: SignedUp) => context.app.inject({ method: 'GET', url, headers: bearer(who.systemToken) });
  const put = (url: string, who: SignedUp, payload: unknown) =>
    context.app.inject({ method: 'PUT', url, headers: bearer(who.systemToken), payload: payload as never });

  for (const url of ['/api/v1/desktop/coding-session', '/api/v1/assistant-desktop/sync']) {
    describe(url, () => {
      it('starts empty at version 0, then each write names the version it replaces', async () => {
        const empty = await get(url, alice);
        expect(empty.statusCode, empty.body).toBe(200);
        expect(empty.json()).toMatchObject({ version: 0, data: {}, updated_at: null });

        const first = await put(url, alice, { version: 0, data: { messages: [{ role: 'user', text: 'héllo' }] } });
        expect(first.statusCode, first.body).toBe(200);
        expect(first.json().version).toBe(1);

        const stale = await put(url, alice, { version: 0, data: { messages: [] } });
        expect(stale.statusCode).toBe(409);
        expect(stale.json().current_version).toBe(1);

        const second = await put(url, alice, { version: 1, data: { messages: [{ role: 'user', text: 'two' }] } });
        expect(second.statusCode, second.body).toBe(200);
        expect(second.json().version).toBe(2);

        const ahead = await put(url, alice, { version: 7, data: {} });
        expect(ahead.statusCode).toBe(409);
        expect(ahead.json().current_version).toBe(2);

        const read = (await get(url, alice)).json();
        expect(read.version).toBe(2);
        expect(read.data).toEqual({ messages: [{ role: 'user', text: 'two' }] });
      });

      it("is per customer: another customer's document is neither read nor replaced", async () => {
        expect((await get(url, bob)).json()).toMatchObject({ version: 0, data: {} });
        const bobs = await put(url, bob, { version: 0, data: { mine: true } });
        expect(bobs.statusCode).toBe(200);
        expect((await get(url, alice)).json().data).toEqual({ messages: [{ role: 'user', text: 'two' }] });
      });

      it('too large → 413, too deep or malformed → 422; nothing changes', async () => {
        const before = (await get(url, alice)).json();
        const big = await put(url, alice, { version: before.version, data: { blob: 'x'.repeat(3000) } });
        expect(big.statusCode).toBe(413);
        let deep: unknown = {};
        for (let level = 0; level < 12; level += 1) deep = { next: deep };
        const tooDeep = await put(url, alice, { version: before.version, data: deep });
        expect(tooDeep.statusCode).toBe(422);
        expect(tooDeep.json().detail[0].loc).toEqual(['body', 'data']);
        expect((await put(url, alice, { version: before.version, data: [] })).statusCode).toBe(422);
        expect((await put(url, alice, { version: before.version, data: {}, extra: 1 })).statusCode).toBe(422);
        expect((await put(url, alice, { version: '2', data: {} })).statusCode).toBe(422);
        expect((await put(url, alice, { version: -1, data: {} })).statusCode).toBe(422);
        expect((await put(url, alice, { data: {} })).statusCode).toBe(422);
        const huge = await context.app.inject({
          method: 'PUT',
          url,
          headers: { ...bearer(alice.systemToken), 'content-type': 'application/json' },
          payload: JSON.stringify({ version: before.version, data: { blob: 'y'.repeat(10_000) } }),
        });
        expect(huge.statusCode).toBe(413);
        expect((await get(url, alice)).json()).toEqual(before);
      });

      it('concurrent writes of the same version: exactly one wins, the others see 409', async () => {
        const base = (await get(url, alice)).json().version as number;
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, index) => put(url, alice, { version: base, data: { writer: index } })),
        );
        const codes = results.map((response) => response.statusCode).sort();
        expect(codes).toEqual([200, 409, 409, 409, 409, 409]);
        const winner = results.find((response) => response.statusCode === 200)!.json();
        const read = (await get(url, alice)).json();
        expect(read.version).toBe(base + 1);
        expect(winner.version).toBe(base + 1);
        for (const loser of results.filter((response) => response.statusCode === 409)) expect(loser.json().current_version).toBe(base + 1);
      });

      it('needs a key', async () => {
        expect((await context.app.inject({ method: 'GET', url })).statusCode).toBe(401);
      });
    });
  }

  it('coding-session and sync are separate documents', async () => {
    const coding = (await get('/api/v1/desktop/coding-session', bob)).json();
    const sync = (await get('/api/v1/assistant-desktop/sync', bob)).json();
    expect(coding.data).toEqual({ mine: true });
    expect(sync.data).toEqual({ mine: true });
    await put('/api/v1/desktop/coding-session', bob, { version: coding.version, data: { only: 'coding' } });
    expect((await get('/api/v1/assistant-desktop/sync', bob)).json().data).toEqual({ mine: true });
  });

  it('jsonDepth counts nesting without recursion', () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth({ a: [{ b: 1 }] })).toBe(3);
    let deep: unknown = 0;
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(jsonDepth(deep)).toBe(100_000);
  });
});
