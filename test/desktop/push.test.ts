import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';

describe('assistant-desktop push messages', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  let alice: SignedUp;
  let bob: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({ clock });
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
  });
  afterAll(async () => context.close());

  const pushAdmin = (payload: unknown) =>
    context.app.inject({ method: 'POST', url: '/api/admin/push', headers: operatorHeaders, payload: payload as never });
  const list = async (who: SignedUp) => {
    const response = await context.app.inject({ method: 'GET', url: '/api/v1/assistant-desktop/push', headers: bearer(who.systemToken) });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data as { message_key: string }[]).map((message) => message.message_key);
  };
  const dismiss = (who: SignedUp, key: string) =>
    context.app.inject({
      method: 'POST',
      url: `/api/v1/assistant-desktop/push/${encodeURIComponent(key)}/dismiss`,
      headers: bearer(who.systemToken),
    });

  it('operators post to all or to one customer; each customer sees what is theirs, newest first', async () => {
    const all = await pushAdmin({ message_key: 'maint-2026-06', title: 'Maintenance', body: 'Tonight 02:00 UTC' });
    expect(all.statusCode, all.body).toBe(201);
    expect(all.json()).toMatchObject({ message_key: 'maint-2026-06', broadcast: true, customer_id: null, level: 'info' });
    const toBob = await pushAdmin({
      message_key: 'bob-only',
      customer_id: bob.customerId,
      title: 'Hi Bob',
      body: 'Your plan renews',
      level: 'warning',
    });
    expect(toBob.statusCode, toBob.body).toBe(201);
    const generated = await pushAdmin({ title: 'Release', body: '1.5 is out' });
    expect(generated.statusCode).toBe(201);
    expect(generated.json().message_key).toMatch(/^push_[A-Za-z0-9]{16}$/);

    expect(await list(alice)).toEqual([generated.json().message_key, 'maint-2026-06']);
    expect(await list(bob)).toEqual([generated.json().message_key, 'bob-only', 'maint-2026-06']);
    const full = (
      await context.app.inject({ method: 'GET', url: '/api/v1/assistant-desktop/push', headers: bearer(bob.systemToken) })
    ).json().data[1];
    expect(full).toEqual({
      message_key: 'bob-only',
      title: 'Hi Bob',
      body: 'Your plan renews',
      level: 'warning',
      broadcast: false,
      created_at: new Date(clock.nowMs()).toISOString(),
      expires_at: null,
    });
  });

  it("a dismissal is per customer: another customer's dismissal never affects yours", async () => {
    const dismissed = await dismiss(alice, 'maint-2026-06');
    expect(dismissed.statusCode, dismissed.body).toBe(200);
    expect(dismissed.json()).toMatchObject({ message_key: 'maint-2026-06', dismissed: true });
    expect(await list(alice)).not.toContain('maint-2026-06');
    expect(await list(bob)).toContain('maint-2026-06');
    const again = await dismiss(alice, 'maint-2026-06');
    expect(again.statusCode).toBe(200);
    expect(again.json().dismissed_at).toBe(dismissed.json().dismissed_at);
  });

  it("BOLA: another customer's push message or an unknown key → 404, nothing changes", async () => {
    const foreign = await dismiss(alice, 'bob-only');
    const unknown = await dismiss(alice, 'no-such-key');
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.json().detail).toBe(unknown.json().detail);
    expect(await list(bob)).toContain('bob-only');
    expect((await dismiss(alice, 'bad key!')).statusCode).toBe(422);
  });

  it('expired messages are no longer listed', async () => {
    const expiresAt = new Date(clock.nowMs() + 60_000).toISOString();
    expect((await pushAdmin({ message_key: 'flash', title: 'Flash', body: 'one minute', expires_at: expiresAt })).statusCode).toBe(201);
    expect(await list(alice)).toContain('flash');
    clock.advance(60_000);
    expect(await list(alice)).not.toContain('flash');
  });

  it('operator input is checked: duplicate key 409, unknown customer 404, bad fields 422; customers cannot post', async () => {
    expect((await pushAdmin({ message_key: 'bob-only', title: 't', body: 'b' })).statusCode).toBe(409);
    expect((await pushAdmin({ customer_id: 999_999, title: 't', body: 'b' })).statusCode).toBe(404);
    expect((await pushAdmin({ title: 't', body: 'b', level: 'loud' })).statusCode).toBe(422);
    expect((await pushAdmin({ title: 't', body: 'b', expires_at: 'tomorrow-ish' })).statusCode).toBe(422);
    expect((await pushAdmin({ title: 't', body: 'b', extra: 1 })).statusCode).toBe(422);
    expect((await pushAdmin({ title: '', body: 'b' })).statusCode).toBe(422);
    const asCustomer = await context.app.inject({
      method: 'POST',
      url: '/api/admin/push',
      headers: bearer(alice.systemToken),
      payload: { title: 't', body: 'b' },
    });
    expect([401, 403, 404]).toContain(asCustomer.statusCode);
    expect(await list(alice)).not.toContain('t');
  });
});
