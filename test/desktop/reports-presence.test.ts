import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';

describe('desktop bug reports and presence', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  let alice: SignedUp;
  let bob: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({ clock, config: { desktop: { bugReportMaxBytes: 1024, presenceTtlSeconds: 60 } } as never });
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
  });
  afterAll(async () => context.close());

  const post = (url: string, who: SignedUp, payload: unknown) =>
    context.app.inject({ method: 'POST', url, headers: bearer(who.systemToken), payload: payload as never });
  const admin = (url: string) => context.app.inject({ method: 'GET', url, headers: operatorHeaders });

  it('a bug report is stored and listed for operators, newest first, exactly as sent', async () => {
    const first = await post('/api/v1/desktop/bug-report', alice, {
      text: 'Crash on start <script>alert(1)</script>',
      app_version: '1.4.2',
      os: 'macOS 15.1',
      log_excerpt: 'line 1\nline 2',
    });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().id).toBeGreaterThan(0);
    const second = await post('/api/v1/desktop/bug-report', bob, { text: 'Sync lost', app_version: '1.4.3', os: 'Windows 11' });
    expect(second.statusCode, second.body).toBe(201);

    const listed = await admin('/api/admin/desktop/bug-reports');
    expect(listed.statusCode, listed.body).toBe(200);
    const data = listed.json().data;
    expect(data.map((row: { id: number }) => row.id)).toEqual([second.json().id, first.json().id]);
    expect(data[1]).toMatchObject({
      customer_id: alice.customerId,
      email: alice.email,
      text: 'Crash on start <script>alert(1)</script>',
      app_version: '1.4.2',
      os: 'macOS 15.1',
      log_excerpt: 'line 1\nline 2',
    });
    expect(data[0].log_excerpt).toBeNull();

    const onlyAlice = (await admin(`/api/admin/desktop/bug-reports?customer_id=${alice.customerId}`)).json().data;
    expect(onlyAlice).toHaveLength(1);
    const older = (await admin(`/api/admin/desktop/bug-reports?before_id=${second.json().id}&limit=1`)).json().data;
    expect(older.map((row: { id: number }) => row.id)).toEqual([first.json().id]);
  });

  it('too large → 413, malformed → 422, nothing stored; customers cannot list reports', async () => {
    const before = (await admin('/api/admin/desktop/bug-reports')).json().data.length;
    expect(
      (
        await post('/api/v1/desktop/bug-report', alice, {
          text: 'x'.repeat(600),
          app_version: '1',
          os: 'linux',
          log_excerpt: 'y'.repeat(600),
        })
      ).statusCode,
    ).toBe(413);
    expect((await post('/api/v1/desktop/bug-report', alice, { text: 'é'.repeat(600), app_version: '1', os: 'linux' })).statusCode).toBe(
      413,
    );
    expect((await post('/api/v1/desktop/bug-report', alice, { text: 'x'.repeat(20_000), app_version: '1', os: 'linux' })).statusCode).toBe(
      413,
    );
    expect((await post('/api/v1/desktop/bug-report', alice, { text: '', app_version: '1', os: 'linux' })).statusCode).toBe(422);
    expect(
      (await post('/api/v1/desktop/bug-report', alice, { text: 'a', app_version: '1', os: 'linux', log_excerpt: 'nul\u0000' })).statusCode,
    ).toBe(422);
    expect((await post('/api/v1/desktop/bug-report', alice, { text: 'a', os: 'linux' })).statusCode).toBe(422);
    expect((await post('/api/v1/desktop/bug-report', alice, { text: 'a', app_version: '1', os: 'linux', extra: true })).statusCode).toBe(
      422,
    );
    expect((await post('/api/v1/desktop/bug-report', alice, { text: 'a', app_version: 'v'.repeat(65), os: 'linux' })).statusCode).toBe(422);
    expect((await admin('/api/admin/desktop/bug-reports')).json().data.length).toBe(before);
    const asCustomer = await context.app.inject({
      method: 'GET',
      url: '/api/admin/desktop/bug-reports',
      headers: bearer(alice.systemToken),
    });
    expect([401, 403, 404]).toContain(asCustomer.statusCode);
    expect(
      (await context.app.inject({ method: 'POST', url: '/api/v1/desktop/bug-report', payload: { text: 'a', app_version: '1', os: 'x' } }))
        .statusCode,
    ).toBe(401);
  });

  it('presence: online after a heartbeat, offline once the configured time passes, streak restarts', async () => {
    expect((await admin('/api/admin/desktop/presence')).json()).toMatchObject({ ttl_seconds: 60, online_count: 0, data: [] });
    const start = clock.nowMs();
    const beat = await post('/api/v1/desktop/presence', alice, { app_version: '1.4.2', os: 'macOS' });
    expect(beat.statusCode, beat.body).toBe(200);
    expect(beat.json()).toEqual({
      online: true,
      last_seen_at: new Date(start).toISOString(),
      online_until: new Date(start + 60_000).toISOString(),
      ttl_seconds: 60,
    });

    clock.advance(30_000);
    expect((await post('/api/v1/desktop/presence', bob, {})).statusCode).toBe(200);
    let online = (await admin('/api/admin/desktop/presence')).json();
    expect(online.online_count).toBe(2);
    expect(online.data.map((row: { customer_id: number }) => row.customer_id)).toEqual([bob.customerId, alice.customerId]);
    expect(online.data[1]).toMatchObject({
      email: alice.email,
      app_version: '1.4.2',
      os: 'macOS',
      online_since: new Date(start).toISOString(),
    });
    expect(online.data[0]).toMatchObject({ app_version: null, os: null });

    clock.advance(30_001); // alice's last heartbeat is now older than 60 s
    online = (await admin('/api/admin/desktop/presence')).json();
    expect(online.data.map((row: { customer_id: number }) => row.customer_id)).toEqual([bob.customerId]);

    // Alice comes back: a new streak, her client details are kept when not resent.
    const back = clock.nowMs();
    expect((await post('/api/v1/desktop/presence', alice, {})).statusCode).toBe(200);
    clock.advance(10_000);
    expect((await post('/api/v1/desktop/presence', alice, { os: 'macOS 15.2' })).statusCode).toBe(200);
    online = (await admin('/api/admin/desktop/presence')).json();
    const row = online.data.find((entry: { customer_id: number }) => entry.customer_id === alice.customerId);
    expect(row).toMatchObject({
      app_version: '1.4.2',
      os: 'macOS 15.2',
      online_since: new Date(back).toISOString(),
      last_seen_at: new Date(back + 10_000).toISOString(),
    });

    clock.advance(120_000);
    expect((await admin('/api/admin/desktop/presence')).json()).toMatchObject({ online_count: 0, data: [] });
  });

  it('presence rejects unknown fields and needs a key', async () => {
    expect((await post('/api/v1/desktop/presence', alice, { status: 'away' })).statusCode).toBe(422);
    expect((await context.app.inject({ method: 'POST', url: '/api/v1/desktop/presence', payload: {} })).statusCode).toBe(401);
    const asCustomer = await context.app.inject({ method: 'GET', url: '/api/admin/desktop/presence', headers: bearer(alice.systemToken) });
    expect([401, 403, 404]).toContain(asCustomer.statusCode);
  });
});
